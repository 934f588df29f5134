//! The options of `sanitizeSessionHistory` as last read on this thread, kept for the next call.
//!
//! A full pass without a session sends its options as JSON on every call, `now` (the time new
//! session entries are stamped with) last: `{…options, sessionEntries, now}` (js/transcript.js).
//! Reading them (a JSON parse, the policy resolved) cost a few µs a call, a fixed share that
//! matters for short histories. Between an agent's calls only `now` changes, so the read form is
//! kept with the JSON text it came from, `now` cut out ([`Key`]): a call whose text is the same
//! but for `now` reuses it, with `now` set. Any other text is read afresh, so what a call runs
//! with is what reading its own options gives (test `kept_options_read_as_fresh_ones`). The
//! boundary (`runTranscript`) is its one user; it lives here, beside [`ops::history_params`],
//! so that it is tested without Node.

use super::ops;
use super::pipeline::HistoryParams;
use serde_json::Value;
use std::cell::RefCell;

/// The options' JSON without its trailing `"now": <number>` member, and that number.
pub struct Key {
    /// Where the `now` member begins: the text before it is the key.
    at: usize,
    pub now: f64,
}

impl Key {
    /// The key of `config` when its last member is `"now"` with a number: after the object's
    /// opening brace or a comma, at the very end of the text (a JSON text ends with the
    /// closing brace of its outermost object, so that member is one of its own). `None` for
    /// any other text (it is then read every call).
    pub fn of(config: &str) -> Option<Key> {
        let body = config.strip_suffix('}')?;
        let start = body
            .rfind(|c: char| !matches!(c, '0'..='9' | '-' | '+' | '.' | 'e' | 'E'))
            .map_or(0, |k| k + 1);
        let number = &body[start..];
        let before = body[..start].strip_suffix("\"now\":")?;
        if !(before.ends_with(',') || before.ends_with('{')) {
            return None;
        }
        // As serde_json reads it inside the object (`Value::as_f64` of the parsed number).
        let now = serde_json::from_str::<Value>(number).ok()?.as_f64()?;
        Some(Key {
            at: before.len(),
            now,
        })
    }

    fn text<'a>(&self, config: &'a str) -> &'a str {
        config.get(..self.at).unwrap_or(config)
    }
}

/// What a call reads of its options.
pub struct Read {
    /// `now` is the call's own (see [`Key`]).
    pub params: HistoryParams,
    /// `report`: the changes are described.
    pub report: bool,
}

impl Read {
    /// Reads parsed options, the policy resolved once.
    pub fn of(cfg: &Value) -> Read {
        let mut params = ops::history_params(cfg);
        params.policy = Some(params.resolved_policy());
        Read {
            params,
            report: cfg.get("report").and_then(Value::as_bool).unwrap_or(false),
        }
    }
}

thread_local! {
    /// The last call's options: its key text and what was read.
    static KEPT: RefCell<Option<(String, Read)>> = const { RefCell::new(None) };
}

/// The read options kept for `config`'s key, taken out (a call made while this one runs finds
/// none and reads its own).
pub fn take(config: &str, key: &Key) -> Option<Read> {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        match k.as_ref() {
            Some((text, _)) if text == key.text(config) => k.take().map(|(_, r)| r),
            _ => None,
        }
    })
}

/// Keeps `read` for the next call with `config`'s key.
pub fn keep(config: &str, key: &Key, read: Read) {
    let text = key.text(config);
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        match k.as_mut() {
            // The text's memory reused.
            Some((t, r)) => {
                t.clear();
                t.push_str(text);
                *r = read;
            }
            None => *k = Some((text.to_string(), read)),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_the_text_before_a_trailing_now() {
        let k = Key::of(r#"{"provider":"anthropic","now":1764201600123}"#).unwrap();
        assert_eq!(k.now, 1764201600123.0);
        assert_eq!(
            k.text(r#"{"provider":"anthropic","now":1764201600123}"#),
            r#"{"provider":"anthropic","#
        );
        let k = Key::of(r#"{"now":-1.5e3}"#).unwrap();
        assert_eq!(k.now, -1500.0);
        // No trailing `now`, `now` not a number, or `now` inside an inner object: no key.
        for config in [
            r#"{"provider":"anthropic"}"#,
            r#"{"now":"1"}"#,
            r#"{"now":null}"#,
            r#"{"model":{"now":1}}"#,
            r#"{"x":"a\"now\":1}"#,
            r#"{"x":"a","now":}"#,
            r#"{"xnow":1}"#,
            r#"{"now":1e999}"#,
            "",
            "}",
        ] {
            assert!(Key::of(config).is_none(), "{config}");
        }
    }

    /// What a call runs with, kept or not, is what reading its own options gives: the same
    /// parameters (its own `now`), the same report flag. Chinese in the keyed text included.
    #[test]
    fn kept_options_read_as_fresh_ones() {
        let configs = [
            r#"{"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-sonnet-4-5","now":1}"#,
            r#"{"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-sonnet-4-5","now":1700000000000}"#,
            r#"{"provider":"google","modelApi":"google-generative-ai","modelId":"gemini-2.5-pro","sessionId":"会话-1","sessionEntries":[["model-snapshot",{"timestamp":1,"provider":"openai"}]],"now":2.5}"#,
            r#"{"provider":"google","modelApi":"google-generative-ai","modelId":"gemini-2.5-pro","sessionId":"会话-1","sessionEntries":[["model-snapshot",{"timestamp":1,"provider":"openai"}]],"now":3}"#,
            r#"{"provider":"openai","modelApi":"openai-responses","policy":{"sanitizeMode":"images-only"},"report":true,"now":4}"#,
            r#"{"provider":"mistral","modelId":"mistral-large","openclawVersion":"2026.9.6","now":5}"#,
            r#"{"provider":"mistral","modelId":"mistral-large","openclawVersion":"2026.3.23","now":6}"#,
        ];
        for round in 0..2 {
            // Each config after the first differs from the one before but for `now` (kept) or
            // not (read afresh).
            for config in configs {
                let key = Key::of(config).expect("a trailing now");
                let cfg: Value = serde_json::from_str(config).unwrap();
                let fresh = Read::of(&cfg);
                let read = take(config, &key).unwrap_or_else(|| Read::of(&cfg));
                let mut params = read.params;
                params.now = key.now;
                let mut expected = fresh.params;
                // A pass resolves a policy not given as the read form holds it.
                let plain = ops::history_params(&cfg);
                assert_eq!(
                    format!("{:?}", expected.policy),
                    format!("{:?}", Some(plain.resolved_policy())),
                    "{config}"
                );
                expected.now = plain.now;
                assert_eq!(format!("{params:?}"), format!("{expected:?}"), "{config}");
                assert_eq!(read.report, fresh.report, "{config}");
                keep(
                    config,
                    &key,
                    Read {
                        params,
                        report: read.report,
                    },
                );
            }
            // The second round begins with options other than the last call's: read afresh.
            assert!(round > 0 || take(configs[0], &Key::of(configs[0]).unwrap()).is_none());
        }
    }
}
