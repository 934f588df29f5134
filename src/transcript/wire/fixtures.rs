//! The wire fixtures (`__test__/fixtures/wire/<protocol>.json`): bodies providers rejected, each
//! with the report it came from. Every case must fail the named provider checks as written and
//! pass them once repaired, and come out as its `expected` body.

use super::{sanitize_json, Protocol, WireOptions};
use serde_json::Value;
use std::collections::HashSet;

pub(super) const FIXTURES: &[&str] = &[
    include_str!("../../../__test__/fixtures/wire/openai-chat.json"),
    include_str!("../../../__test__/fixtures/wire/anthropic.json"),
    include_str!("../../../__test__/fixtures/wire/openai-responses.json"),
    include_str!("../../../__test__/fixtures/wire/gemini.json"),
];

fn msgs(body: &Value) -> &[Value] {
    body["messages"].as_array().map_or(&[], Vec::as_slice)
}

fn role(m: &Value) -> &str {
    m["role"].as_str().unwrap_or("")
}

fn call_ids(m: &Value) -> Vec<&str> {
    m["tool_calls"]
        .as_array()
        .map(|c| c.iter().filter_map(|c| c["id"].as_str()).collect())
        .unwrap_or_default()
}

/// "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'":
/// each tool message sits in the run of tool messages right after an assistant that made its call.
fn tool_follows_call(body: &Value) -> Result<(), String> {
    let mut open: Option<HashSet<&str>> = None;
    for (i, m) in msgs(body).iter().enumerate() {
        match role(m) {
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap_or("");
                if !open.as_ref().is_some_and(|ids| ids.contains(id)) {
                    return Err(format!("messages[{i}]: tool message without its call"));
                }
            }
            "assistant" => open = Some(call_ids(m).into_iter().collect()),
            _ => open = None,
        }
    }
    Ok(())
}

/// "An assistant message with 'tool_calls' must be followed by tool messages responding to each
/// 'tool_call_id'".
fn calls_answered(body: &Value) -> Result<(), String> {
    let list = msgs(body);
    for (i, m) in list.iter().enumerate() {
        let mut missing: HashSet<&str> = call_ids(m).into_iter().collect();
        for next in list[i + 1..].iter().take_while(|n| role(n) == "tool") {
            missing.remove(next["tool_call_id"].as_str().unwrap_or(""));
        }
        if !missing.is_empty() {
            return Err(format!("messages[{i}]: unanswered {missing:?}"));
        }
    }
    Ok(())
}

/// Mistral: "Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9".
fn mistral_ids(body: &Value) -> Result<(), String> {
    let ok = |s: &str| s.len() == 9 && s.bytes().all(|b| b.is_ascii_alphanumeric());
    for m in msgs(body) {
        let ids = call_ids(m).into_iter().chain(m["tool_call_id"].as_str());
        for id in ids {
            if !ok(id) {
                return Err(format!("Tool call id was {id}"));
            }
        }
    }
    Ok(())
}

fn tools_not_empty(body: &Value) -> Result<(), String> {
    match body.get("tools") {
        Some(Value::Array(a)) if a.is_empty() => Err("tools: []".into()),
        _ => Ok(()),
    }
}

/// Gemini: turns alternate (system messages are the instruction, not turns).
fn alternating(body: &Value) -> Result<(), String> {
    let roles: Vec<&str> = msgs(body)
        .iter()
        .map(role)
        .filter(|r| *r != "system")
        .map(|r| if r == "tool" { "user" } else { r })
        .collect();
    match roles.windows(2).position(|w| w[0] == w[1]) {
        Some(k) => Err(format!("two {} turns in a row at turn {k}", roles[k])),
        None => Ok(()),
    }
}

/// Gemini: the first turn after the system instruction is a user turn.
fn user_first(body: &Value) -> Result<(), String> {
    match msgs(body).iter().map(role).find(|r| *r != "system") {
        Some("assistant") => Err("the first turn is a model turn".into()),
        _ => Ok(()),
    }
}

/// The ids of an Anthropic message's blocks of type `ty` under `key`.
fn block_ids<'a>(m: &'a Value, ty: &str, key: &str) -> Vec<&'a str> {
    m["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter(|b| b["type"] == ty)
                .filter_map(|b| b[key].as_str())
                .collect()
        })
        .unwrap_or_default()
}

/// Anthropic: "`tool_use` ids were found without `tool_result` blocks immediately after".
fn results_follow_uses(body: &Value) -> Result<(), String> {
    let list = msgs(body);
    for (i, m) in list.iter().enumerate() {
        let uses = block_ids(m, "tool_use", "id");
        if uses.is_empty() {
            continue;
        }
        let next = list
            .get(i + 1)
            .map(|n| block_ids(n, "tool_result", "tool_use_id"));
        if let Some(id) = uses
            .iter()
            .find(|u| !next.as_ref().is_some_and(|n| n.contains(u)))
        {
            return Err(format!("messages.{i}: tool_use {id} without tool_result"));
        }
    }
    Ok(())
}

/// Anthropic: "unexpected `tool_use_id` found in `tool_result` blocks … must have a corresponding
/// `tool_use` block in the previous message".
fn results_have_uses(body: &Value) -> Result<(), String> {
    let list = msgs(body);
    for (i, m) in list.iter().enumerate() {
        let prev = i
            .checked_sub(1)
            .map(|p| block_ids(&list[p], "tool_use", "id"))
            .unwrap_or_default();
        for id in block_ids(m, "tool_result", "tool_use_id") {
            if !prev.contains(&id) {
                return Err(format!("messages.{i}: unexpected tool_use_id {id}"));
            }
        }
    }
    Ok(())
}

/// Anthropic: "messages.{i}.content.{j}: Invalid `signature` in `thinking` block": every
/// `thinking` block carries a non-blank `signature`, every `redacted_thinking` block its `data`.
fn signed_thinking(body: &Value) -> Result<(), String> {
    let signed = |b: &Value, key: &str| b[key].as_str().is_some_and(|s| !s.trim().is_empty());
    for (i, m) in msgs(body).iter().enumerate() {
        for (j, b) in m["content"].as_array().into_iter().flatten().enumerate() {
            let ok = match b["type"].as_str() {
                Some("thinking") => signed(b, "signature"),
                Some("redacted_thinking") => signed(b, "data"),
                _ => true,
            };
            if !ok {
                return Err(format!(
                    "messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
                ));
            }
        }
    }
    Ok(())
}

fn items(body: &Value) -> &[Value] {
    body["input"].as_array().map_or(&[], Vec::as_slice)
}

/// Responses: "No tool call found for function call output with call_id …".
fn outputs_have_calls(body: &Value) -> Result<(), String> {
    let mut calls = HashSet::new();
    for (i, it) in items(body).iter().enumerate() {
        let id = it["call_id"].as_str().unwrap_or("");
        match it["type"].as_str() {
            Some("function_call") => {
                calls.insert(id);
            }
            Some("function_call_output") if !calls.contains(id) => {
                return Err(format!("input[{i}]: no tool call found for {id}"))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Responses: "No tool output found for function call …".
fn calls_have_outputs(body: &Value) -> Result<(), String> {
    let list = items(body);
    for (i, it) in list.iter().enumerate() {
        if it["type"] != "function_call" {
            continue;
        }
        let answered = list[i + 1..]
            .iter()
            .any(|o| o["type"] == "function_call_output" && o["call_id"] == it["call_id"]);
        if !answered {
            return Err(format!("input[{i}]: no tool output found"));
        }
    }
    Ok(())
}

fn contents(body: &Value) -> &[Value] {
    body["contents"].as_array().map_or(&[], Vec::as_slice)
}

/// How many parts of a Gemini content carry `key` (`functionCall`, `functionResponse`).
fn parts_with(c: &Value, key: &str) -> usize {
    c["parts"]
        .as_array()
        .map_or(0, |p| p.iter().filter(|p| p.get(key).is_some()).count())
}

/// Gemini: "Please ensure that function response turn comes immediately after a function call
/// turn."
fn gemini_responses_follow_calls(body: &Value) -> Result<(), String> {
    let list = contents(body);
    for (i, c) in list.iter().enumerate() {
        let prev_calls = i
            .checked_sub(1)
            .map_or(0, |p| parts_with(&list[p], "functionCall"));
        if parts_with(c, "functionResponse") > 0 && prev_calls == 0 {
            return Err(format!(
                "contents[{i}]: function response without a call turn before it"
            ));
        }
    }
    Ok(())
}

/// Gemini: "Please ensure that the number of function response parts is equal to the number of
/// function call parts of the function call turn."
fn gemini_response_count(body: &Value) -> Result<(), String> {
    let list = contents(body);
    for (i, c) in list.iter().enumerate() {
        let calls = parts_with(c, "functionCall");
        let answers = list
            .get(i + 1)
            .map_or(0, |n| parts_with(n, "functionResponse"));
        if calls > 0 && calls != answers {
            return Err(format!("contents[{i}]: {calls} calls, {answers} responses"));
        }
    }
    Ok(())
}

/// Gemini: "Please ensure that function call turn comes immediately after a user turn or after a
/// function response turn."
fn gemini_call_after_user(body: &Value) -> Result<(), String> {
    let list = contents(body);
    for (i, c) in list.iter().enumerate() {
        let after_user = i.checked_sub(1).is_some_and(|p| list[p]["role"] != "model");
        if parts_with(c, "functionCall") > 0 && !after_user {
            return Err(format!(
                "contents[{i}]: a function call turn not after a user turn"
            ));
        }
    }
    Ok(())
}

/// Every base64 image of a body, whatever its protocol: `(declared media type, base64)` of each
/// `data:…;base64,` URL and each `data` beside a `media_type` / `mimeType` / `mime_type`.
fn payloads(v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) => {
            let url = s.strip_prefix("data:").and_then(|r| r.split_once(','));
            if let Some((media, b64)) = url.and_then(|(h, b)| Some((h.strip_suffix(";base64")?, b)))
            {
                out.push((media.into(), b64.into()));
            }
        }
        Value::Array(a) => a.iter().for_each(|x| payloads(x, out)),
        Value::Object(o) => {
            let mime = ["media_type", "mimeType", "mime_type"]
                .iter()
                .find_map(|k| o.get(*k))
                .and_then(Value::as_str);
            match (mime, o.get("data").and_then(Value::as_str)) {
                (Some(m), Some(d)) => out.push((m.into(), d.into())),
                _ => o.values().for_each(|x| payloads(x, out)),
            }
        }
        _ => {}
    }
}

/// Each image decodes (`Invalid base64 image_url`, `Base64 decoding failed`, `invalid base64`),
/// is at most `side` px a side and, with `mime`, is of its declared type (`Image does not match
/// the provided media type`).
fn images_ok(body: &Value, side: u32, mime: bool) -> Result<(), String> {
    use ::base64::Engine as _;
    let mut all = Vec::new();
    payloads(body, &mut all);
    for (declared, b64) in all {
        let bytes = ::base64::engine::general_purpose::STANDARD
            .decode(&b64)
            .map_err(|e| format!("{declared} image: invalid base64 ({e})"))?;
        let format = image::guess_format(&bytes).map_err(|e| format!("not an image: {e}"))?;
        let img = image::load_from_memory(&bytes).map_err(|e| format!("not an image: {e}"))?;
        if img.width() > side || img.height() > side {
            return Err(format!("a {}x{} image", img.width(), img.height()));
        }
        if mime && format.to_mime_type() != declared {
            return Err(format!("{declared} declared for {}", format.to_mime_type()));
        }
    }
    Ok(())
}

/// A part's thought signature, under either key.
fn part_signature(p: &Value) -> Option<&Value> {
    p.get("thoughtSignature")
        .or_else(|| p.get("thought_signature"))
}

/// Gemini 3: "Function call is missing a thought_signature in functionCall parts. … position
/// {i}": the first call of each model content after the latest user text is signed.
fn gemini_current_calls_signed(body: &Value) -> Result<(), String> {
    let list = contents(body);
    let from = list
        .iter()
        .rposition(|c| c["role"] != "model" && parts_with(c, "functionResponse") == 0)
        .map_or(0, |u| u + 1);
    for (i, c) in list.iter().enumerate().skip(from) {
        let parts = c["parts"].as_array().map_or(&[][..], Vec::as_slice);
        if let Some(first) = parts.iter().find(|p| p.get("functionCall").is_some()) {
            if part_signature(first).is_none() {
                return Err(format!("Function call is missing a thought_signature in functionCall parts. position {i}"));
            }
        }
    }
    Ok(())
}

/// Gemini: "Corrupted thought signature.": a signature on a user part, or one that is not
/// base64 (the documented stand-in aside).
fn gemini_signatures_verify(body: &Value) -> Result<(), String> {
    use crate::transcript::rules::thought_signatures::is_base64_signature;
    for (i, c) in contents(body).iter().enumerate() {
        for (j, p) in c["parts"].as_array().into_iter().flatten().enumerate() {
            let Some(sig) = part_signature(p) else {
                continue;
            };
            // Gemini's API writes standard base64: another provider's id is never its own,
            // even when it decodes.
            let ours = sig.as_str().is_some_and(|s| {
                is_base64_signature(s) && !super::gemini_signatures::is_foreign_id(s)
            });
            if c["role"] != "model" || !ours {
                return Err(format!(
                    "contents[{i}].parts[{j}]: Corrupted thought signature."
                ));
            }
        }
    }
    Ok(())
}

/// An R1-style DeepSeek endpoint: "The reasoning_content is an intermediate result for display
/// purposes only and will not be included in the context for inference. Please remove the
/// reasoning_content from your message": no assistant before the latest user turn carries one.
fn no_reasoning_in_history(body: &Value) -> Result<(), String> {
    let list = msgs(body);
    let last_user = list.iter().rposition(|m| role(m) == "user").unwrap_or(0);
    for (i, m) in list[..last_user].iter().enumerate() {
        if role(m) == "assistant"
            && super::layout::REASONING_FIELDS
                .iter()
                .any(|f| m.get(*f).is_some())
        {
            return Err(format!(
                "messages[{i}]: Please remove the reasoning_content from your message"
            ));
        }
    }
    Ok(())
}

/// Gemini 3 on its OpenAI-compatible endpoint: "Function call is missing a thought_signature in
/// functionCall parts": each assistant after the latest user turn that makes calls signs its first
/// (`extra_content.google.thought_signature`, or Vertex AI's `extra_content.vertex.…`).
fn gemini_chat_current_calls_signed(body: &Value) -> Result<(), String> {
    let list = msgs(body);
    let last_user = list.iter().rposition(|m| role(m) == "user").unwrap_or(0);
    for (i, m) in list.iter().enumerate().skip(last_user) {
        let first = &m["tool_calls"][0];
        let signed = ["google", "vertex"]
            .iter()
            .any(|k| first["extra_content"][k]["thought_signature"].is_string());
        if role(m) == "assistant" && first.is_object() && !signed {
            return Err(format!(
                "messages[{i}]: Function call is missing a thought_signature in functionCall parts"
            ));
        }
    }
    Ok(())
}

/// Fireworks, Mistral: "Extra inputs are not permitted, field:
/// 'messages[N].tool_calls[M].extra_content'".
fn no_call_extra_content(body: &Value) -> Result<(), String> {
    for (i, m) in msgs(body).iter().enumerate() {
        let calls = m["tool_calls"].as_array().map_or(&[][..], Vec::as_slice);
        if let Some(k) = calls.iter().position(|c| c.get("extra_content").is_some()) {
            return Err(format!(
                "Extra inputs are not permitted, field: 'messages[{i}].tool_calls[{k}].extra_content'"
            ));
        }
    }
    Ok(())
}

/// Mistral: `{"type": "extra_forbidden", "loc": ["body", "messages", i, "assistant",
/// "reasoning_content"], "msg": "Extra inputs are not permitted"}`: no assistant carries a
/// reasoning field.
fn no_reasoning_fields(body: &Value) -> Result<(), String> {
    for (i, m) in msgs(body).iter().enumerate() {
        let field = super::layout::REASONING_FIELDS
            .iter()
            .find(|f| m.get(**f).is_some());
        if let (Some(f), "assistant") = (field, role(m)) {
            return Err(format!(
                "extra_forbidden: loc [body, messages, {i}, assistant, {f}]: Extra inputs are not permitted"
            ));
        }
    }
    Ok(())
}

/// Anthropic, in a request of more than 20 images (URL and file images count): "At least one of
/// the image dimensions exceed max allowed size for many-image requests: 2000 pixels".
fn many_images_within_2000(body: &Value) -> Result<(), String> {
    let mut blocks: Vec<&Value> = Vec::new();
    for m in msgs(body) {
        for b in m["content"].as_array().into_iter().flatten() {
            blocks.push(b);
            if b["type"] == "tool_result" {
                blocks.extend(b["content"].as_array().into_iter().flatten());
            }
        }
    }
    let images: Vec<&Value> = blocks
        .into_iter()
        .filter(|b| b["type"] == "image")
        .collect();
    if images.len() <= 20 {
        return Ok(());
    }
    let inline: Vec<Value> = images.into_iter().cloned().collect();
    images_ok(&Value::Array(inline), 2000, false).map_err(|e| {
        format!("At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels ({e})")
    })
}

/// DeepSeek thinking mode: "Missing `reasoning_content` field in the assistant message at
/// message index {i}": an assistant with calls after the latest user turn carries it.
fn tool_turn_reasoning(body: &Value) -> Result<(), String> {
    let list = msgs(body);
    let last_user = list.iter().rposition(|m| role(m) == "user").unwrap_or(0);
    for (i, m) in list.iter().enumerate().skip(last_user) {
        if role(m) == "assistant" && !call_ids(m).is_empty() && m.get("reasoning_content").is_none()
        {
            return Err(format!(
                "Missing `reasoning_content` field in the assistant message at message index {i}"
            ));
        }
    }
    Ok(())
}

/// A non-OpenAI server, or OpenAI on a blob it did not make: "The encrypted content for item
/// rs_… could not be verified.": no reasoning item carries `encrypted_content`.
fn no_foreign_encrypted_reasoning(body: &Value) -> Result<(), String> {
    for (i, it) in items(body).iter().enumerate() {
        if it["type"] == "reasoning" && it.get("encrypted_content").is_some() {
            return Err(format!(
                "input[{i}]: The encrypted content for item {} could not be verified.",
                it["id"]
            ));
        }
    }
    Ok(())
}

fn check(name: &str, body: &Value) -> Result<(), String> {
    match name {
        "tool-follows-call" => tool_follows_call(body),
        "calls-answered" => calls_answered(body),
        "mistral-ids" => mistral_ids(body),
        "tools-not-empty" => tools_not_empty(body),
        "alternating" => alternating(body),
        "user-first" => user_first(body),
        "results-follow-uses" => results_follow_uses(body),
        "results-have-uses" => results_have_uses(body),
        "signed-thinking" => signed_thinking(body),
        "outputs-have-calls" => outputs_have_calls(body),
        "calls-have-outputs" => calls_have_outputs(body),
        "gemini-responses-follow-calls" => gemini_responses_follow_calls(body),
        "gemini-response-count" => gemini_response_count(body),
        "gemini-call-after-user" => gemini_call_after_user(body),
        "images-decode" => images_ok(body, u32::MAX, false),
        "image-sides-at-most-16" => images_ok(body, 16, false),
        "media-types-match" => images_ok(body, u32::MAX, true),
        "gemini-current-calls-signed" => gemini_current_calls_signed(body),
        "gemini-signatures-verify" => gemini_signatures_verify(body),
        "no-reasoning-in-history" => no_reasoning_in_history(body),
        "gemini-chat-current-calls-signed" => gemini_chat_current_calls_signed(body),
        "no-call-extra-content" => no_call_extra_content(body),
        "tool-turn-reasoning" => tool_turn_reasoning(body),
        "no-reasoning-fields" => no_reasoning_fields(body),
        "many-images-within-2000" => many_images_within_2000(body),
        "no-foreign-encrypted-reasoning" => no_foreign_encrypted_reasoning(body),
        other => panic!("unknown check {other}"),
    }
}

/// The case's target as the JS options would give it, reporting.
pub(super) fn options(target: &Value, protocol: Protocol) -> WireOptions {
    WireOptions {
        report: true,
        ..WireOptions::from_json(target, protocol)
    }
}

#[test]
fn every_fixture_fails_its_checks_as_written_and_passes_them_repaired() {
    for file in FIXTURES {
        let all: Value = serde_json::from_str(file).expect("fixture file is JSON");
        let protocol = all["protocol"].as_str().and_then(Protocol::from_name);
        run_cases(protocol.expect("a known protocol"), &all["cases"]);
    }
}

fn run_cases(protocol: Protocol, cases: &Value) {
    let cases = cases.as_array().expect("cases");
    assert!(cases.len() >= 4);
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?");
        let body = &case["body"];
        let checks: Vec<&str> = case["checks"]
            .as_array()
            .map(|c| c.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let same = case["same"] == Value::Bool(true);
        if !same {
            assert!(
                checks.iter().any(|c| check(c, body).is_err()),
                "{name}: the input passes every check; the fixture reproduces nothing"
            );
        }
        let opts = options(&case["target"], protocol);
        let (out, changes) =
            sanitize_json(body, protocol, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The byte path decides the same.
        let text = serde_json::to_vec_pretty(body).expect("a body serialises");
        let (bytes, byte_changes) = super::sanitize_bytes(&text, protocol, &opts)
            .unwrap_or_else(|e| panic!("{name} (bytes): {e}"));
        let from_bytes: Value = match bytes {
            Some(b) => serde_json::from_slice(&b).expect("repaired bytes are JSON"),
            None => body.clone(),
        };
        assert_eq!(from_bytes, out, "{name}: bytes and value disagree");
        assert_eq!(
            format!("{byte_changes:?}"),
            format!("{changes:?}"),
            "{name}"
        );
        for c in &checks {
            check(c, &out).unwrap_or_else(|e| panic!("{name}: repaired body fails {c}: {e}"));
        }
        if same {
            assert_eq!(&out, body, "{name}: changed");
            assert!(changes.is_empty(), "{name}: reported {changes:?}");
        } else {
            assert!(!changes.is_empty(), "{name}: no change reported");
        }
        if !case["expected"].is_null() {
            assert_eq!(out, case["expected"], "{name}");
        }
    }
}
