//! Stable kinds of the `problems` a cleaning reports. The messages say what happened in words
//! (and may change wording); the kind is what a caller (or a test table) matches on. A message
//! that begins with one of [`KINDS`] followed by `": "` has that kind; older messages are read by
//! what they say (the table below), so every message has exactly one kind.

/// Every kind a problem can have.
pub const KINDS: &[&str] = &[
    "truncated",
    "bad-arguments",
    "unreadable-block",
    "skipped-call",
    "reasoning-unclosed",
    "unsupported-format",
    "overlap",
    "kept-as-code",
    "call-in-reasoning",
    "invented-result",
    "invented-turn",
    "other",
];

/// Words of a message and the kind they mean, tried in order.
const BY_WORDS: &[(&str, &str)] = &[
    ("never closed", "reasoning-unclosed"),
    ("is not supported", "unsupported-format"),
    ("overlapped", "overlap"),
    ("raw text kept in content", "unreadable-block"),
    ("truncated", "truncated"),
    ("cut off", "truncated"),
    ("invalid JSON", "bad-arguments"),
    ("not valid JSON", "bad-arguments"),
    ("not a JSON object", "bad-arguments"),
    ("is not an object", "bad-arguments"),
    ("no string \"name\"", "bad-arguments"),
    ("skipped", "skipped-call"),
    ("dropped", "skipped-call"),
    ("without <arg_value>", "skipped-call"),
];

/// The stable kind of one problem message.
///
/// ```
/// use transcript_hygiene::response::problem::kind;
/// assert_eq!(kind("hermes: </tool_call> missing (truncated reply)"), "truncated");
/// assert_eq!(kind("kept-as-code: <tool_call> inside inline code kept as text"), "kept-as-code");
/// ```
pub fn kind(message: &str) -> &'static str {
    if let Some(k) = KINDS.iter().find(|k| {
        message
            .strip_prefix(**k)
            .is_some_and(|r| r.starts_with(": "))
    }) {
        return k;
    }
    BY_WORDS
        .iter()
        .find(|(w, _)| message.contains(w))
        .map_or("other", |(_, k)| k)
}

/// The kinds of `messages`, in order.
pub fn kinds(messages: &[String]) -> Vec<&'static str> {
    messages.iter().map(|m| kind(m)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_of_each_kind() {
        for (m, k) in [
            (
                "thinking: a reasoning block is never closed; the rest is reasoning",
                "reasoning-unclosed",
            ),
            (
                "format \"x\" is not supported; tool calls left as text",
                "unsupported-format",
            ),
            (
                "glm: call has no valid name; raw text kept in content",
                "unreadable-block",
            ),
            (
                "mistral: call \"f\" has invalid JSON; arguments kept as the raw text",
                "bad-arguments",
            ),
            (
                "kimi_k2: call id \"x\" has no :<index>; skipped",
                "skipped-call",
            ),
            (
                "kept-as-code: markup inside inline code kept as text",
                "kept-as-code",
            ),
            ("something new", "other"),
        ] {
            assert_eq!(kind(m), k, "{m}");
        }
    }
}
