//! The seed's configuration (`models.sanitization` in `clawdbot.json`) for
//! `createResponseSanitizer`: `{enabled, providers: {minimax: {stripToolCalls, stripThinkingTags},
//! zhipu: {…}, qwen: {…}}}`. Every field is optional and defaults to `true`; a provider not listed
//! uses the defaults. A model's provider (its id's first segment) is looked up by its own name
//! first (`providers.glm`), then by its family's key in the seed (`glm` → `zhipu`,
//! `qwen-portal` → `qwen`). Unknown keys are ignored; a field of the wrong type is an error that
//! names its path.

use serde_json::{Map, Value};

use super::seed::Provider;

/// What to clean for one provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    pub strip_tool_calls: bool,
    pub strip_thinking_tags: bool,
}

impl Default for Flags {
    fn default() -> Self {
        Flags {
            strip_tool_calls: true,
            strip_thinking_tags: true,
        }
    }
}

/// A validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanitizerConfig {
    pub enabled: bool,
    /// `(lower-cased provider key, flags)`, in the config's order.
    pub providers: Vec<(String, Flags)>,
}

impl Default for SanitizerConfig {
    fn default() -> Self {
        SanitizerConfig {
            enabled: true,
            providers: Vec::new(),
        }
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn flag(obj: &Map<String, Value>, key: &str, path: &str) -> Result<bool, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(true),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(format!(
            "{path}.{key}: expected a boolean, got {}",
            type_name(v)
        )),
    }
}

impl SanitizerConfig {
    /// Reads the configuration; `null` gives the defaults.
    pub fn from_json(v: &Value) -> Result<SanitizerConfig, String> {
        let obj = match v {
            Value::Null => return Ok(SanitizerConfig::default()),
            Value::Object(o) => o,
            other => {
                return Err(format!(
                    "config: expected an object, got {}",
                    type_name(other)
                ))
            }
        };
        let enabled = flag(obj, "enabled", "config")?;
        let mut providers = Vec::new();
        match obj.get("providers") {
            None | Some(Value::Null) => {}
            Some(Value::Object(p)) => {
                for (name, entry) in p {
                    let path = format!("config.providers.{name}");
                    let f = match entry {
                        Value::Null => Flags::default(),
                        Value::Object(e) => Flags {
                            strip_tool_calls: flag(e, "stripToolCalls", &path)?,
                            strip_thinking_tags: flag(e, "stripThinkingTags", &path)?,
                        },
                        other => {
                            return Err(format!(
                                "{path}: expected an object, got {}",
                                type_name(other)
                            ))
                        }
                    };
                    providers.push((name.to_lowercase(), f));
                }
            }
            Some(other) => {
                return Err(format!(
                    "config.providers: expected an object, got {}",
                    type_name(other)
                ))
            }
        }
        Ok(SanitizerConfig { enabled, providers })
    }

    /// The flags for a model id (see the module doc); all off when the config is disabled.
    pub fn flags_for(&self, model: &str) -> Flags {
        if !self.enabled {
            return Flags {
                strip_tool_calls: false,
                strip_thinking_tags: false,
            };
        }
        let name = model.split('/').next().unwrap_or("").to_lowercase();
        let find = |key: &str| {
            self.providers
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, f)| *f)
        };
        find(&name)
            .or_else(|| Provider::of_model(model).config_key().and_then(find))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seed_config_shape() {
        let c = SanitizerConfig::from_json(&json!({
            "enabled": true,
            "providers": {
                "minimax": {"stripToolCalls": true, "stripThinkingTags": true},
                "zhipu": {"stripToolCalls": true},
                "qwen": {"stripToolCalls": false}
            }
        }))
        .unwrap();
        assert_eq!(c.flags_for("minimax/M2"), Flags::default());
        assert!(c.flags_for("glm/glm-4").strip_tool_calls);
        assert!(!c.flags_for("qwen-portal/x").strip_tool_calls);
        assert!(c.flags_for("qwen-portal/x").strip_thinking_tags);
        assert_eq!(c.flags_for("openai/gpt"), Flags::default());
    }

    #[test]
    fn own_key_wins_over_family_key() {
        let c = SanitizerConfig::from_json(&json!({"providers": {
            "zhipu": {"stripToolCalls": false}, "GLM": {"stripToolCalls": true}
        }}))
        .unwrap();
        assert!(c.flags_for("glm/x").strip_tool_calls);
        assert!(!c.flags_for("zhipu/x").strip_tool_calls);
    }

    #[test]
    fn disabled_turns_everything_off() {
        let c = SanitizerConfig::from_json(&json!({"enabled": false})).unwrap();
        assert_eq!(
            c.flags_for("minimax/x"),
            Flags {
                strip_tool_calls: false,
                strip_thinking_tags: false
            }
        );
    }

    #[test]
    fn wrong_types_name_their_path() {
        let e = SanitizerConfig::from_json(
            &json!({"providers": {"minimax": {"stripToolCalls": "yes"}}}),
        );
        assert_eq!(
            e.unwrap_err(),
            "config.providers.minimax.stripToolCalls: expected a boolean, got a string"
        );
        assert_eq!(
            SanitizerConfig::from_json(&json!([])).unwrap_err(),
            "config: expected an object, got an array"
        );
        assert_eq!(
            SanitizerConfig::from_json(&json!({"enabled": 1})).unwrap_err(),
            "config.enabled: expected a boolean, got a number"
        );
    }
}
