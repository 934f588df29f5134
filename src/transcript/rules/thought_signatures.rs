//! Thought-signature stripping (OpenClaw `stripThoughtSignatures` + `isBase64Signature`, §4.5).
//!
//! Gemini replays a "thought signature" attached to content blocks and rejects any value that is
//! not base64-encoded bytes. Transcripts recorded with other providers carry foreign values under
//! the same keys: Claude stores message ids such as `msg_…` in a snake-case `thought_signature`.
//! The image pass calls this on every non-error assistant message in `full` sanitise mode unless
//! the policy preserves signatures:
//!
//! - default options (full-mode providers without the Gemini option: non-preserving Anthropic
//!   family, Mistral): delete `thought_signature` when it is a string starting with `msg_`; the
//!   camelCase `thoughtSignature` is left alone;
//! - `{allow_base64_only, include_camel_case}` (Google APIs and OpenRouter/OpenCode/Kilo Gemini):
//!   delete `thought_signature` and `thoughtSignature` unless the value is a string that passes
//!   [`is_base64_signature`].
//!
//! The keys may sit on any block type, so every object block is examined. OpenClaw shallow-copies
//! a block even when it has no signature to delete; here a block with nothing to delete is left
//! untouched (same object), which is invisible in the output.

use crate::transcript::context::{block_path, Ctx, Path};
use crate::transcript::model::{Block, Content, Msg, Val};
use base64::engine::general_purpose::{
    GeneralPurpose, GeneralPurposeConfig, STANDARD, URL_SAFE_NO_PAD,
};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine};

/// How signatures are judged (OpenClaw's `ThoughtSignatureSanitizeOptions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StripOptions {
    /// Keep only values that are strings passing [`is_base64_signature`].
    pub allow_base64_only: bool,
    /// Apply the same judgement to the camelCase `thoughtSignature`.
    pub include_camel_case: bool,
}

pub(crate) use crate::js_text::{is_js_whitespace, js_trim};

/// Node's `Buffer.from(s, "base64" | "base64url")` accepts both alphabets, ignores non-zero
/// trailing bits and needs no padding; this engine decodes the same once the input is cut at the
/// first `=` and mapped to the standard alphabet.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone),
);

/// Node's lenient base64 decode of a string made only of `[A-Za-z0-9+/=_-]`: decoding stops at
/// the first `=`, and a dangling sixth-bit character (length ≡ 1 mod 4) yields no byte.
fn node_lenient_decode(compact: &str) -> Option<Vec<u8>> {
    let body = compact.split('=').next().unwrap_or("");
    let mut mapped: String = body
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            other => other,
        })
        .collect();
    if mapped.len() % 4 == 1 {
        mapped.pop();
    }
    LENIENT.decode(mapped.as_bytes()).ok()
}

/// Whether a thought signature is canonical base64 (OpenClaw `isBase64Signature`).
///
/// Trim; remove all whitespace; the rest must match `^[A-Za-z0-9+/=_-]+$`; decode it as base64url
/// when it contains `-` or `_`, else as base64, with Node's lenient decoder; at least one byte must
/// come out; and re-encoding in the same alphabet must give the input back, trailing `=` ignored on
/// both sides. So `AQID`, `AQI`, `AQIDBA==` and `" AQ ID "` pass; `msg_…`, `""`, `ab-_cd`
/// (non-canonical trailing bits) and `AQ==AQ==` (inner padding) do not.
pub fn is_base64_signature(s: &str) -> bool {
    let compact: String = s.chars().filter(|c| !is_js_whitespace(*c)).collect();
    if compact.is_empty()
        || !compact
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-'))
    {
        return false;
    }
    let is_url = compact.contains(['-', '_']);
    let Some(bytes) = node_lenient_decode(&compact) else {
        return false;
    };
    if bytes.is_empty() {
        return false;
    }
    let encoded = if is_url {
        URL_SAFE_NO_PAD.encode(&bytes)
    } else {
        STANDARD.encode(&bytes)
    };
    encoded.trim_end_matches('=') == compact.trim_end_matches('=')
}

fn should_strip(v: &Val, allow_base64_only: bool) -> bool {
    if !allow_base64_only {
        return v.as_str().is_some_and(|s| s.starts_with("msg_"));
    }
    match v {
        // Deleting a key that is not there changes nothing.
        Val::Absent => false,
        Val::Str(s) => !is_base64_signature(s),
        _ => true,
    }
}

/// What stripping would delete from one block: (snake, camel).
fn plan_block(b: &Block, opts: StripOptions) -> (bool, bool) {
    if !b.is_object {
        return (false, false);
    }
    let snake = should_strip(b.thought_signature(), opts.allow_base64_only);
    let camel = opts.include_camel_case
        && should_strip(b.thought_signature_camel(), opts.allow_base64_only);
    (snake, camel)
}

/// Deletes foreign thought signatures from `blocks` (`None` = default options). Returns whether
/// any block changed. It edits the blocks only: a caller holding a message must mark its content
/// dirty when this returns `true` ([`strip_message_thought_signatures`] does that).
pub fn strip_thought_signatures(blocks: &mut [Block], opts: Option<StripOptions>) -> bool {
    let opts = opts.unwrap_or_default();
    let mut changed = false;
    for b in blocks.iter_mut() {
        let (snake, camel) = plan_block(b, opts);
        if snake {
            b.del("thought_signature");
        }
        if camel {
            b.del("thoughtSignature");
        }
        changed |= snake || camel;
    }
    changed
}

/// [`strip_thought_signatures`] on one message's array content, touching the message only when a
/// signature is deleted, and reporting each deletion.
pub fn strip_message_thought_signatures(
    m: &mut Msg,
    ctx: &mut Ctx,
    opts: Option<StripOptions>,
) -> bool {
    let o = opts.unwrap_or_default();
    let Some(blocks) = m.blocks() else {
        return false;
    };
    let hits: Vec<(usize, Path)> = blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| plan_block(b, o) != (false, false))
        .map(|(j, b)| (j, block_path(m, b)))
        .collect();
    if hits.is_empty() {
        return false;
    }
    for (_, path) in &hits {
        ctx.change("stripThoughtSignatures", *path, || {
            "removed a thought signature the target provider would reject".into()
        });
    }
    if let Content::Blocks(blocks) = &mut m.content {
        strip_thought_signatures(blocks, opts);
    }
    m.content_dirty = true;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    const GEMINI: StripOptions = StripOptions {
        allow_base64_only: true,
        include_camel_case: true,
    };

    fn strip_all(input: &Value, opts: Option<StripOptions>) -> (Vec<Value>, bool) {
        run(input, |msgs, ctx| {
            for m in msgs.iter_mut() {
                strip_message_thought_signatures(m, ctx, opts);
            }
        })
    }

    #[test]
    fn base64_examples_from_the_reference() {
        for ok in [
            "AQID", "AQI", "AQIDBA", "AQIDBA==", "Q2xhdWRl", " AQ ID ", "AQID=",
        ] {
            assert!(is_base64_signature(ok), "{ok:?} should pass");
        }
        for bad in [
            "msg_abc123",
            "",
            "   ",
            "not base64!",
            "ab-_cd",
            "AQ==AQ==",
            "A",
            "====",
            "AQ+_",
        ] {
            assert!(!is_base64_signature(bad), "{bad:?} should fail");
        }
    }

    #[test]
    fn base64url_signatures_are_judged_in_their_own_alphabet() {
        // 0xfb 0xff 0xbf encodes to "-_-_" in base64url and "+/+/" in base64.
        assert!(is_base64_signature("-_-_"));
        assert!(is_base64_signature("+/+/"));
        // Non-ASCII whitespace (NBSP, BOM) is removed like JS `\s` does.
        assert!(is_base64_signature("\u{feff}AQ\u{a0}ID"));
    }

    #[test]
    fn default_mode_strips_only_snake_case_msg_ids() {
        let input = json!([{"role": "assistant", "content": [
            {"type": "text", "text": "hi", "thought_signature": "msg_abc"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {},
             "thought_signature": "msg_x", "thoughtSignature": "msg_y"},
            {"type": "text", "text": "keep", "thought_signature": "AQID"}
        ]}]);
        let (out, identity) = strip_all(&input, None);
        assert!(!identity);
        assert_eq!(
            out[0]["content"],
            json!([
                {"type": "text", "text": "hi"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {},
                 "thoughtSignature": "msg_y"},
                {"type": "text", "text": "keep", "thought_signature": "AQID"}
            ])
        );
    }

    #[test]
    fn gemini_mode_keeps_only_base64_in_both_spellings() {
        let input = json!([{"role": "assistant", "content": [
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {},
             "thoughtSignature": "not base64!"},
            {"type": "toolCall", "id": "c2", "name": "read", "arguments": {},
             "thoughtSignature": "Q2xhdWRl", "thought_signature": 42},
            {"type": "thinking", "thinking": "t", "thought_signature": "AQID"},
            {"type": "text", "text": "plain"}
        ]}]);
        let (out, _) = strip_all(&input, Some(GEMINI));
        assert_eq!(
            out[0]["content"],
            json!([
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}},
                {"type": "toolCall", "id": "c2", "name": "read", "arguments": {},
                 "thoughtSignature": "Q2xhdWRl"},
                {"type": "thinking", "thinking": "t", "thought_signature": "AQID"},
                {"type": "text", "text": "plain"}
            ])
        );
    }

    #[test]
    fn base64_only_without_camel_case_leaves_camel_alone() {
        let opts = StripOptions {
            allow_base64_only: true,
            include_camel_case: false,
        };
        let input = json!([{"role": "assistant", "content": [
            {"type": "text", "text": "x", "thought_signature": null, "thoughtSignature": "bad!"}
        ]}]);
        let (out, _) = strip_all(&input, Some(opts));
        assert_eq!(
            out[0]["content"],
            json!([{"type": "text", "text": "x", "thoughtSignature": "bad!"}])
        );
    }

    #[test]
    fn nothing_to_strip_is_the_identity() {
        let input = json!([
            {"role": "assistant", "content": [
                {"type": "text", "text": "a"},
                {"type": "toolCall", "id": "c", "name": "n", "arguments": {}, "thoughtSignature": "AQID"},
                null, "loose"
            ]},
            {"role": "assistant", "content": "string content"}
        ]);
        let (out, identity) = strip_all(&input, Some(GEMINI));
        assert!(identity);
        assert_eq!(out, input.as_array().cloned().unwrap_or_default());
        let (_, identity) = strip_all(&input, None);
        assert!(identity);
    }

    #[test]
    fn the_block_level_function_reports_changes() {
        let input = json!([{"role": "assistant", "content": [
            {"type": "text", "text": "a", "thought_signature": "msg_1"}
        ]}]);
        let (out, _) = run(&input, |msgs, _| {
            let m = &mut msgs[0];
            if let Content::Blocks(b) = &mut m.content {
                assert!(strip_thought_signatures(b, None));
                assert!(!strip_thought_signatures(b, None));
            }
            m.content_dirty = true;
        });
        assert_eq!(out[0]["content"], json!([{"type": "text", "text": "a"}]));
    }
}
