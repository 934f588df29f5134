//! Whole == streamed under every chunking, what is held back, and linear cost.

use super::*;
use crate::response::linearity::assert_linear;

const CURRENT: &str = "[Current message - respond to this]";
const CHAT: &str = "[Chat messages since your last reply - for context]";

/// Prompts of one line, of several (Chinese), with wrapped and blank lines of their own, and with a
/// first line that is also a later one.
fn prompts() -> Vec<String> {
    vec![
        CURRENT.to_string(),
        format!("{CHAT}\nAlice: 明天开会吗？\nBob: 十点。\n\n{CURRENT}\nAlice: 会议室在哪？"),
        format!("{CURRENT}\n> - a\n1. b\n\nb"),
        format!("x\n{CURRENT}\nx\nx"),
    ]
}

/// Pieces a reply is built from (`{P}` is the prompt, `{H}` its first half, `{L}` its first line).
const PIECES: &[&str] = &[
    "{P}",
    "{P}",
    "{H}",
    "{L}",
    "{L}\n",
    "\n",
    "\r\n",
    "\r",
    "\u{2028}",
    "  > ",
    "> ",
    "- ",
    "1. ",
    "在三楼。",
    "ok",
    "x",
    "#",
    "[",
    "{Q}",
    "{R}",
    "{C}",
];

fn build(prompt: &str, picks: &[usize]) -> String {
    let first = prompt.lines().next().unwrap_or_default();
    let quoted: String = prompt.lines().map(|l| format!("> {l}\n")).collect();
    let listed: String = prompt.lines().map(|l| format!("  - {l}\r\n")).collect();
    let crlf = prompt.replace('\n', "\r\n");
    let half: String = prompt.chars().take(prompt.chars().count() / 2).collect();
    picks
        .iter()
        .map(|&i| {
            PIECES[i % PIECES.len()]
                .replace("{P}", prompt)
                .replace("{H}", &half)
                .replace("{L}", first)
                .replace("{Q}", &quoted)
                .replace("{R}", &listed)
                .replace("{C}", &crlf)
        })
        .collect()
}

/// xorshift: the same cases on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as usize
    }
}

/// `reply` cut into pieces at the char boundaries `cut` picks, streamed; the pieces released.
fn streamed(echo: &PromptEcho, reply: &str, cut: &mut dyn FnMut() -> usize) -> String {
    let mut s = EchoStream::new(Some(echo.clone()));
    let mut out = String::new();
    let mut rest = reply;
    while !rest.is_empty() {
        let mut at = cut().clamp(1, rest.len());
        while !rest.is_char_boundary(at) {
            at += 1;
        }
        out += &s.push(&rest[..at]).expect("not finished");
        rest = &rest[at..];
    }
    out + &s.finish().expect("not finished")
}

#[test]
fn streamed_pieces_concatenate_to_the_whole_reply_stripped() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut copies_seen = 0;
    for prompt in prompts() {
        let echo = PromptEcho::prepare(&prompt).expect("verified");
        for _ in 0..300 {
            let picks: Vec<usize> = (0..1 + rng.next() % 7).map(|_| rng.next()).collect();
            let reply = build(&prompt, &picks);
            let whole = echo.strip(&reply, false).into_owned();
            copies_seen += usize::from(whole.len() < reply.len());
            let mut every = || 1;
            assert_eq!(
                streamed(&echo, &reply, &mut every),
                whole,
                "{prompt:?} / {reply:?} by 1 byte"
            );
            for _ in 0..4 {
                let size = 1 + rng.next() % 24;
                let mut random = || rng.next() % size + 1;
                assert_eq!(
                    streamed(&echo, &reply, &mut random),
                    whole,
                    "{prompt:?} / {reply:?}"
                );
            }
            let mut once = || usize::MAX;
            assert_eq!(streamed(&echo, &reply, &mut once), whole);
        }
    }
    // The generated replies do hold copies (the test is not only about text that stays).
    assert!(copies_seen > 200, "{copies_seen}");
}

/// `(prompt index, deltas, what each push releases)`, then what `finish` releases.
const HELD: &[(usize, &[&str], &[&str], &str)] = &[
    // Text that cannot begin a copy goes at once; a line's end that begins the heading waits.
    (1, &["北京今天晴。\n", "明天[Chat", " rooms]\n"], &["北京今天晴。\n", "明天", "[Chat rooms]\n"], ""),
    // A copy's whole lines wait for the rest; a different line releases them.
    (
        1,
        &["好的\n[Chat messages since your last reply - for context]\n", "Alice: 明天开会吗？\n", "Bob: 九点。\n"],
        &["好的\n", "", "[Chat messages since your last reply - for context]\nAlice: 明天开会吗？\nBob: 九点。\n"],
        "",
    ),
    // A copy completed goes; a quoted line's wrapper waits with it.
    (0, &["> ", "[Current message - respond to this]", " 在三楼。"], &["", "", " 在三楼。"], ""),
    // A wrapper that is not followed by the heading goes.
    (0, &["> ", "12", "ok"], &["", "", "> 12ok"], ""),
    // A trailing \r waits for a possible \n.
    (0, &["ok\r", "\nx"], &["ok", "\r\nx"], ""),
    // What is held at the end is released by finish, without the copies.
    (1, &["在三楼。\n[Chat messages since your last reply - for context]\nAlice: 明天"], &["在三楼。\n"], "[Chat messages since your last reply - for context]\nAlice: 明天"),
];

#[test]
fn only_what_could_still_become_a_copy_is_held() {
    let prompts = prompts();
    for &(p, deltas, want, end) in HELD {
        let mut s = EchoStream::new(PromptEcho::prepare(&prompts[p]));
        let got: Vec<String> = deltas.iter().map(|d| s.push(d).expect("open")).collect();
        assert_eq!(got, want, "{deltas:?}");
        assert_eq!(s.finish().expect("open"), end, "{deltas:?}");
        assert_eq!(s.push("x"), Err(FINISHED));
        assert_eq!(s.finish(), Err(FINISHED));
    }
    // Without chat context in the prompt every delta goes as it is.
    let mut s = EchoStream::new(PromptEcho::prepare("hello"));
    assert_eq!(
        s.push("[Current message - re").expect("open"),
        "[Current message - re"
    );
}

/// Streams in 7-byte deltas: a long line, near-copies, a wrapper run, a heading begun again and
/// again (CPU: about 1.5 s in a debug build).
#[test]
fn streaming_grows_linearly_with_the_reply() {
    let p = format!("{CURRENT}\n> - a\nb\nb\nc");
    let echo = PromptEcho::prepare(&p).expect("verified");
    for unit in [
        "北京今天晴，明天多云。".to_string(),
        format!("{CURRENT}\n> - a\nb\nb\nb\nb\n"),
        "> > > > 1. ".to_string(),
        "[Current message - respond".to_string(),
    ] {
        assert_linear("prompt echo stream", &unit, &|t| {
            let mut seven = || 7;
            assert!(streamed(&echo, t, &mut seven).len() <= t.len());
        });
    }
}

/// One long line made only of wrapper bytes (held until another byte comes), in 3-byte deltas,
/// for a one-line prompt and for one whose first line is itself made of wrapper bytes (CPU: about
/// 1 s in a debug build).
#[test]
fn a_long_wrapper_only_line_streams_in_linear_time() {
    for p in [CURRENT.to_string(), format!("1 2 3\n{CURRENT}\nhi")] {
        let echo = PromptEcho::prepare(&p).expect("verified");
        for unit in ["1 1 1 ", "\t-+*#.)> 9"] {
            assert_linear("prompt echo stream, wrapper-only line", unit, &|t| {
                let mut three = || 3;
                assert_eq!(streamed(&echo, t, &mut three), t);
            });
        }
    }
}
