//! Cases checked against OpenClaw 2026.9.6 (the parity spec runs many more through its own
//! function); each removal has a twin that must stay.

use super::*;
use crate::response::linearity::assert_linear;

const CURRENT: &str = "[Current message - respond to this]";
const CHAT: &str = "[Chat messages since your last reply - for context]";

fn prompt() -> String {
    format!("{CHAT}\nAlice: 明天开会吗？\nBob: 十点。\n\n{CURRENT}\nAlice: 会议室在哪？")
}

fn strip(prompt: &str, reply: &str, streaming: bool) -> String {
    let echo = PromptEcho::prepare(prompt).expect("a verified prompt");
    echo.strip(reply, streaming).into_owned()
}

/// (reply, what stays of it), for [`prompt`], not streaming.
const WHOLE: &[(&str, &str)] = &[
    // a copy as written, quoted line by line, twice in a row
    ("{P}\n\n在三楼。", "\n\n在三楼。"),
    ("{Q}\n\n在三楼。", "\n\n在三楼。"),
    ("在三楼。\n{P}{P}", "在三楼。\n"),
    // a copy with text right after its last line
    ("{P}!\n在三楼。", "!\n在三楼。"),
];

#[test]
fn copies_of_the_prompt_go_and_near_copies_stay() {
    let p = prompt();
    let quoted: String = p
        .lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n");
    for (reply, want) in WHOLE {
        let reply = reply.replace("{P}", &p).replace("{Q}", &quoted);
        assert_eq!(strip(&p, &reply, false), *want, "{reply:?}");
    }
    let changed = p.replace("十点", "九点");
    let mentioned = format!("OpenClaw writes {CURRENT} above the message.");
    let headless = p.lines().skip(1).collect::<Vec<_>>().join("\n");
    for same in [
        format!("{changed}\nok"),
        mentioned,
        format!("{headless}\nok"),
    ] {
        assert_eq!(strip(&p, &same, false), same);
    }
}

#[test]
fn a_prompt_is_verified_first() {
    for unverified in [
        format!("```\n{CURRENT}\n```\nhi"),
        format!("see {CURRENT} here"),
        format!("- {CURRENT}\nx"),
        "   ".to_string(),
    ] {
        assert!(PromptEcho::prepare(&unverified).is_none(), "{unverified:?}");
    }
    assert!(PromptEcho::prepare(&format!("\n  {CURRENT}\r\n问题  \n")).is_some());
}

#[test]
fn a_copy_begun_at_the_end_of_a_stream_is_cut() {
    let p = prompt();
    let half = &p[..p.len() / 2];
    assert_eq!(strip(&p, &format!("在三楼。\n{half}"), true), "在三楼。\n");
    // Not streaming, a part stays; streaming, a different ending stays.
    assert_eq!(
        strip(&p, &format!("在三楼。\n{half}"), false),
        format!("在三楼。\n{half}")
    );
    assert_eq!(
        strip(&p, "在三楼。\n[Chat rooms]", true),
        "在三楼。\n[Chat rooms]"
    );
}

#[test]
fn wrappers_are_read_as_openclaws_pattern_reads_them() {
    // (line, wrapper end, key)
    for (line, end) in [
        ("> - x", 4),
        ("## x", 3),
        ("####### x", 0),
        ("1. x", 3),
        ("1234567890. x", 0),
        ("-x", 0),
        ("  >x", 3),
    ] {
        assert_eq!(wrapper_end(line.as_bytes(), 0), end, "{line:?}");
    }
    for (line, begun) in [
        ("> -", true),
        ("1.", true),
        ("#######", false),
        ("> x", false),
        ("", true),
    ] {
        assert_eq!(is_wrapper_begun(line.as_bytes()), begun, "{line:?}");
    }
}

/// A reply of near-copies and wrapper runs against a fixed prompt (CPU: about 1 s in a debug build).
#[test]
fn stripping_grows_linearly_with_the_reply() {
    let p = format!("{CURRENT}\n> - a\nb\nb\nc");
    let echo = PromptEcho::prepare(&p).expect("verified");
    for unit in [
        format!("{CURRENT}\n> - a\nb\nb\nb\nb\n"),
        "> > > > > > > > > > > > > > > > > > > > - a\n".to_string(),
        format!("{CURRENT}{CURRENT}\n"),
    ] {
        assert_linear("prompt echo", &unit, &|t| {
            assert!(echo.strip(t, true).len() <= t.len());
        });
    }
}
