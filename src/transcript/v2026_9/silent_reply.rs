//! Whether an assistant text is a silent reply (OpenClaw 2026.9.6's `isSilentReplyPayloadText`
//! with its `NO_REPLY` token, `src/auto-reply/tokens.ts`).
//!
//! An OpenClaw agent in a group chat answers `NO_REPLY` when it should stay quiet; the gateway
//! sends nothing, but 2026.3.23 replayed those turns to the model, which then imitates them.
//! 2026.9.6 removes such text from history (and the turn when nothing else is left). A silent
//! reply is, case ignored: the token alone (repeated, or wrapped in punctuation), the token as a
//! JSON string, `{"action": "NO_REPLY"}`, or the token after a leading reasoning block
//! (`<think>…</think>`, an unclosed `<think>`, a `thinking:` line) alone or after a sentence
//! saying the assistant stays quiet.
//!
//! Every form holds the token, case ignored: [`NEEDLE`] is what the JS codec looks for before it
//! sends an assistant text whole in 2026.9.6 mode.

use crate::js_text::{js_trim, JS_WHITESPACE_CLASS};
use regex::{Regex, RegexBuilder};
use std::sync::LazyLock;

/// The silent-reply token.
pub const TOKEN: &str = "NO_REPLY";

/// What a text must hold, ASCII case ignored, to be a silent reply.
pub const NEEDLE: &str = "no_reply";

/// `\s` as JavaScript reads it, in a pattern.
fn ws(pattern: &str) -> String {
    pattern.replace(r"\s", JS_WHITESPACE_CLASS)
}

fn re(pattern: &str) -> Regex {
    RegexBuilder::new(&ws(pattern))
        .case_insensitive(true)
        .build()
        .unwrap_or_else(|e| panic!("silent-reply pattern {pattern:?}: {e}"))
}

/// The token alone, repeated or not (`getSilentExactRegex`).
static EXACT: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*NO_REPLY(?:\s+NO_REPLY)*\s*$"));
static EDGE_PUNCTUATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\p{P}+|\p{P}+$").unwrap_or_else(|e| panic!("{e}")));
const REASONING_TAG: &str = r"(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)";
static TAGGED_REASONING_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"^\s*<\s*{REASONING_TAG}(?-u:\b)[^<>]*>(?s:.)*?<\s*/\s*{REASONING_TAG}\s*>\s*"
    ))
});
static OPEN_REASONING_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"^\s*<\s*{REASONING_TAG}(?-u:\b)[^<>]*>")));
static PLAIN_REASONING_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:think(?:ing)?|thought|analysis|reasoning)\s*:?\s*\r?\n"));
/// The token at the very end, after the start, a space, `*` or `.` (`stripFinalSilentToken`).
static FINAL_TOKEN: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[\s*.])NO_REPLY\s*$"));
static SILENT_INTENT: LazyLock<Regex> = LazyLock::new(|| {
    let place =
        r"(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?";
    re(&format!(
        r"^\s*(?:i|i'll|i\s+will|i'm|i\s+am|we|we'll|we\s+will|the\s+assistant|assistant|the\s+bot|bot|openclaw)\s+(?:(?:will\s+)?(?:stay|remain|keep|be)\s+(?:quiet|silent){place}|(?:do\s+not|don't|dont|will\s+not|won't|would\s+not|should\s+not)\s+(?:reply|respond){place}|(?:have|has)\s+nothing\s+(?:to|for)\s+(?:say|add|reply|respond))(?:[.!?]+)?\s*$"
    ))
});
static SUBSTANTIVE_ANSWER_CUE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:answer|here(?:'s|\s+is)|tell\s+them|you\s+(?:should|can|could|need|must)|please|try|use|send|service\s+is|resolved|retry|yes|no,|sure)(?-u:\b)",
    )
});
static BARE_REASONING_PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:(?:internal|private)\s+)?(?:reasoning|thinking|thoughts?|analysis)(?:\s+notes?)?\s*$",
    )
});

/// `isSilentReplyPayloadText(text, "NO_REPLY")`.
///
/// ```
/// use transcript_hygiene::transcript::v2026_9::silent_reply::is_silent_reply;
/// assert!(is_silent_reply("NO_REPLY") && is_silent_reply(" no_reply no_reply "));
/// assert!(is_silent_reply("\"NO_REPLY\"") && is_silent_reply("{\"action\": \"NO_REPLY\"}"));
/// assert!(is_silent_reply("<think>群里在闲聊，不用回复</think>NO_REPLY"));
/// assert!(!is_silent_reply("我会回复 NO_REPLY 吗？") && !is_silent_reply("`NO_REPLY` is the token"));
/// ```
pub fn is_silent_reply(text: &str) -> bool {
    token_only(text) || json_string(text) || envelope(text) || reasoning_prefixed(text)
}

/// `isSilentReplyText`: the token alone, also once punctuation around it is stripped.
fn token_only(text: &str) -> bool {
    !text.is_empty()
        && (EXACT.is_match(text)
            || EXACT.is_match(&EDGE_PUNCTUATION.replace_all(js_trim(text), "")))
}

/// `"NO_REPLY"` as a JSON string.
fn json_string(text: &str) -> bool {
    let t = js_trim(text);
    t.len() >= 2
        && t.starts_with('"')
        && t.ends_with('"')
        && t.contains(TOKEN)
        && serde_json::from_str::<String>(t).is_ok_and(|s| js_trim(&s) == TOKEN)
}

/// `{"action": "NO_REPLY"}` and no other key.
fn envelope(text: &str) -> bool {
    let t = js_trim(text);
    if !(t.starts_with('{') && t.ends_with('}') && t.contains(TOKEN)) {
        return false;
    }
    let Ok(serde_json::Value::Object(o)) = serde_json::from_str(t) else {
        return false;
    };
    o.len() == 1
        && o.get("action")
            .and_then(|a| a.as_str())
            .is_some_and(|a| js_trim(a) == TOKEN)
}

/// The text without the final token, trimmed; `None` when it does not end with one.
fn without_final_token(text: &str) -> Option<String> {
    let stripped = js_trim(&FINAL_TOKEN.replacen(text, 1, "")).to_string();
    (stripped != js_trim(text)).then_some(stripped)
}

/// `hasSilentIntentFinalSilentToken`.
fn intent_then_token(text: &str) -> bool {
    without_final_token(text).is_some_and(|rest| rest.is_empty() || SILENT_INTENT.is_match(&rest))
}

/// `hasPlainReasoningFinalSilentToken`.
fn plain_reasoning_then_token(text: &str) -> bool {
    let Some(rest) = without_final_token(text) else {
        return false;
    };
    if rest.is_empty() || SILENT_INTENT.is_match(&rest) {
        return true;
    }
    let lines: Vec<&str> = rest
        .split('\n')
        .map(|l| js_trim(l.strip_suffix('\r').unwrap_or(l)))
        .filter(|l| !l.is_empty())
        .collect();
    let quiet_last = match lines.split_last() {
        Some((last, before)) => {
            let before = before.join("\n");
            SILENT_INTENT.is_match(last)
                && !before.is_empty()
                && !SUBSTANTIVE_ANSWER_CUE.is_match(&before)
        }
        None => false,
    };
    quiet_last || BARE_REASONING_PLACEHOLDER.is_match(&rest)
}

/// `isReasoningPrefixedSilentReplyText`.
fn reasoning_prefixed(text: &str) -> bool {
    let trimmed = js_trim(text);
    if trimmed.is_empty() {
        return false;
    }
    // Leading reasoning blocks, one after the other (each match anchored where the last ended,
    // so a text of many blocks is read once).
    let mut at = 0;
    while let Some(m) = TAGGED_REASONING_PREFIX.find(&trimmed[at..]) {
        at += m.end();
    }
    if at > 0 {
        let rest = &trimmed[at..];
        return token_only(rest) || intent_then_token(rest);
    }
    if OPEN_REASONING_PREFIX.is_match(trimmed) {
        let rest = OPEN_REASONING_PREFIX.replacen(trimmed, 1, "");
        return token_only(&rest) || plain_reasoning_then_token(&rest);
    }
    if !PLAIN_REASONING_PREFIX.is_match(trimmed) {
        return false;
    }
    let rest = PLAIN_REASONING_PREFIX.replacen(trimmed, 1, "");
    token_only(&rest) || plain_reasoning_then_token(&rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each form, with a twin that must not count (a reply that mentions the token).
    #[test]
    fn silent_forms_and_their_twins() {
        for (text, silent) in [
            ("NO_REPLY", true),
            ("no_reply", true),
            ("NO_REPLY NO_REPLY", true),
            ("**NO_REPLY**.", true),
            ("好的 NO_REPLY", false),
            ("\"NO_REPLY\"", true),
            ("\"no_reply\"", true),
            ("\"NO_REPLY 吧\"", false),
            ("{\"action\":\"NO_REPLY\"}", true),
            ("{\"action\":\"NO_REPLY\",\"why\":\"x\"}", false),
            ("<think>不需要回答</think>\nNO_REPLY", true),
            (
                "<thinking>x</thinking> I will stay quiet here. NO_REPLY",
                true,
            ),
            ("<thinking>x</thinking> 答案是 42。NO_REPLY", false),
            ("<think>NO_REPLY", true),
            ("<think>\nI will stay quiet.\nNO_REPLY", true),
            ("<think>还在想 NO_REPLY", false),
            (
                "thinking:\nnothing to add\nI will not reply.\nNO_REPLY",
                true,
            ),
            (
                "thinking:\nYou should retry.\nI will not reply.\nNO_REPLY",
                false,
            ),
            ("analysis:\nreasoning notes NO_REPLY", true),
            ("analysis:\n真正的回答 NO_REPLY", false),
            ("analysis:\nNO_REPLY", true),
            ("用 `NO_REPLY` 表示沉默", false),
            ("", false),
        ] {
            assert_eq!(is_silent_reply(text), silent, "{text:?}");
        }
    }

    #[test]
    fn every_silent_form_holds_the_needle() {
        for text in ["No_Reply", "\"NO_REPLY\"", "<think>x</think>no_reply"] {
            assert!(is_silent_reply(text));
            assert!(text.to_ascii_lowercase().contains(NEEDLE));
        }
    }
}
