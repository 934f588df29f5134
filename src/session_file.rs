//! Session file repair: drop the lines of a JSONL session file that do not
//! parse, keeping a backup.
//!
//! A crash or a full disk while pi-coding-agent appends to a session file can
//! leave a torn last line, and one bad line makes the whole session fail to
//! load. Before opening a session, OpenClaw runs `repairSessionFileIfNeeded`
//! (`src/agents/session-file-repair.ts`, openclaw 2026.3.23-2); this module
//! matches it:
//!
//! - a blank path or a missing file: reason `"missing session file"`; any
//!   other read error: `"failed to read session file: <error>"`;
//! - lines are split on `\n` with one trailing `\r` removed, lines that are
//!   blank after JavaScript's `trim()` are skipped, and a line is invalid
//!   exactly when `JSON.parse` would throw on it (checked by a small strict
//!   validator with an explicit stack, so lone-surrogate escapes are accepted
//!   as in JavaScript and deep nesting cannot overflow the stack);
//! - no valid line: `"empty session file"`; a first valid entry that is not
//!   `{"type":"session","id":<non-empty string>}`: `"invalid session header"`,
//!   and nothing is written;
//! - no invalid line: nothing is written;
//! - with [`RepairOptions::dry_run`], nothing is written either: the report
//!   says what a real run would drop, with the reason `"dry run"`;
//! - otherwise the original goes to `<file>.bak-<pid>-<unix ms>` and the
//!   cleaned text to `<file>.repair-<pid>-<unix ms>.tmp`, both with the
//!   original's permissions, and the temporary file is renamed over the
//!   original. On failure the temporary file is removed and the reason is
//!   `"repair failed: <error>"`.
//!
//! Deliberate differences from OpenClaw:
//!
//! - valid lines are written back byte for byte (minus the trailing `\r`)
//!   instead of being re-serialised with `JSON.stringify`, so a valid line is
//!   never altered (key order, number spelling and escapes survive);
//! - the backup holds the original bytes (Node decodes and re-encodes the
//!   text, which would replace invalid UTF-8 with U+FFFD);
//! - [`RepairOptions::backup`] can turn the backup off;
//! - [`RepairOptions::dry_run`] reports without writing (the command-line
//!   tool's `repair --check`), and the report lists the numbers of the
//!   dropped lines;
//! - the temporary file is flushed to disk (`fsync`) before the rename, and
//!   both new files get their permissions before any data is written;
//! - error texts are Rust's `io::Error` messages, not Node's.

use std::ffi::OsString;
use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::js_text::js_trim;

/// Options for [`repair_session_file`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RepairOptions {
    /// Write `<file>.bak-<pid>-<ms>` before rewriting (default `true`).
    pub backup: bool,
    /// Report what would be dropped without writing anything (default
    /// `false`); the reason is then `"dry run"` when lines would be dropped.
    pub dry_run: bool,
}

impl Default for RepairOptions {
    fn default() -> Self {
        Self {
            backup: true,
            dry_run: false,
        }
    }
}

/// What [`repair_session_file`] did (OpenClaw's result object).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepairReport {
    /// The file was rewritten without its invalid lines.
    pub repaired: bool,
    /// Number of non-blank lines that are not valid JSON.
    pub dropped_lines: usize,
    /// Their line numbers (1-based, lines counted by `\n`), in file order.
    pub dropped_line_numbers: Vec<usize>,
    /// Where the original was saved, when it was.
    pub backup_path: Option<PathBuf>,
    /// Why nothing was repaired, when that was not simply "nothing to do".
    pub reason: Option<String>,
}

impl RepairReport {
    fn skipped(dropped_line_numbers: Vec<usize>, reason: impl Into<String>) -> Self {
        Self {
            dropped_lines: dropped_line_numbers.len(),
            dropped_line_numbers,
            reason: Some(reason.into()),
            ..Self::default()
        }
    }

    /// The warning OpenClaw logs for this outcome, if any:
    /// `session file repaired: dropped N malformed line(s) (<name>)` or
    /// `session file repair skipped: <reason> (<name>)` for a read error or
    /// an invalid header.
    pub fn warning(&self, session_file: &Path) -> Option<String> {
        let name = session_file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if self.repaired {
            return Some(format!(
                "session file repaired: dropped {} malformed line(s) ({name})",
                self.dropped_lines
            ));
        }
        let reason = self.reason.as_deref()?;
        let logged =
            reason == "invalid session header" || reason.starts_with("failed to read session file");
        logged.then(|| format!("session file repair skipped: {reason} ({name})"))
    }
}

/// Drop the invalid lines of the JSONL session file at `path` (see the
/// module docs for the exact rules).
pub fn repair_session_file(path: &Path, opts: &RepairOptions) -> RepairReport {
    // OpenClaw trims the path string before using it.
    let path = match path.to_str() {
        Some(text) => Path::new(js_trim(text)),
        None => path,
    };
    if path.as_os_str().is_empty() {
        return RepairReport::skipped(Vec::new(), "missing session file");
    }
    let content = match fs::read(path) {
        Ok(content) => content,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return RepairReport::skipped(Vec::new(), "missing session file");
        }
        Err(err) => {
            return RepairReport::skipped(
                Vec::new(),
                format!("failed to read session file: {err}"),
            );
        }
    };

    let mut kept: Vec<&[u8]> = Vec::new();
    let mut first_is_header = false;
    let mut dropped = Vec::new();
    for (index, raw) in content.split(|&b| b == b'\n').enumerate() {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if js_trim(&String::from_utf8_lossy(line)).is_empty() {
            continue;
        }
        match scan_json(line) {
            Some(scan) => {
                if kept.is_empty() {
                    first_is_header = scan.is_session_header;
                }
                kept.push(line);
            }
            None => dropped.push(index + 1),
        }
    }

    if kept.is_empty() {
        return RepairReport::skipped(dropped, "empty session file");
    }
    if !first_is_header {
        return RepairReport::skipped(dropped, "invalid session header");
    }
    if dropped.is_empty() {
        return RepairReport::default();
    }
    if opts.dry_run {
        return RepairReport::skipped(dropped, "dry run");
    }

    let mut cleaned = kept.join(&b'\n');
    cleaned.push(b'\n');
    let stamp = format!("{}-{}", std::process::id(), unix_ms());
    let backup_path = opts
        .backup
        .then(|| with_suffix(path, &format!(".bak-{stamp}")));
    let tmp_path = with_suffix(path, &format!(".repair-{stamp}.tmp"));
    let permissions = fs::metadata(path).ok().map(|m| m.permissions());

    let written = backup_path
        .as_deref()
        .map_or(Ok(()), |backup| {
            write_file(backup, &content, permissions.as_ref(), false)
        })
        .and_then(|()| write_file(&tmp_path, &cleaned, permissions.as_ref(), true))
        .and_then(|()| fs::rename(&tmp_path, path));
    if let Err(err) = written {
        // Best effort, as in OpenClaw; the tmp file may not exist.
        let _ = fs::remove_file(&tmp_path);
        return RepairReport::skipped(dropped, format!("repair failed: {err}"));
    }
    RepairReport {
        repaired: true,
        dropped_lines: dropped.len(),
        dropped_line_numbers: dropped,
        backup_path,
        reason: None,
    }
}

fn unix_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(suffix);
    PathBuf::from(name)
}

/// Create (or truncate) `path`, give it `permissions`, write `bytes`.
fn write_file(
    path: &Path,
    bytes: &[u8],
    permissions: Option<&Permissions>,
    sync: bool,
) -> io::Result<()> {
    let mut file = File::create(path)?;
    if let Some(permissions) = permissions {
        file.set_permissions(permissions.clone())?;
    }
    file.write_all(bytes)?;
    if sync {
        file.sync_all()?;
    }
    Ok(())
}

/// What the validator learnt about a valid line.
struct Scan {
    /// `{"type":"session","id":<non-empty string>, …}` (last duplicate key wins).
    is_session_header: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Container {
    Array,
    Object,
}

impl Container {
    fn close(self) -> u8 {
        match self {
            Container::Array => b']',
            Container::Object => b'}',
        }
    }

    /// What comes after the opening bracket or a comma.
    fn first_state(self) -> State {
        match self {
            Container::Array => State::Value,
            Container::Object => State::Key,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum HeaderKey {
    Type,
    Id,
    Other,
}

/// Parser states: expecting a value, an object key, or what follows a value.
#[derive(Clone, Copy)]
enum State {
    Value,
    Key,
    After,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// JSON whitespace only: space, tab, LF, CR.
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek() == Some(byte)).then(|| self.pos += 1)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }

    /// A string starting at `"`; returns its raw content.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.pos;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\\' => {
                    self.pos += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 1,
                        b'u' => {
                            let hex = self.bytes.get(self.pos + 1..self.pos + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.pos += 5;
                        }
                        _ => return None,
                    }
                }
                0x00..=0x1F => return None,
                _ => self.pos += 1,
            }
        }
        let raw = self.bytes.get(start..self.pos)?;
        self.pos += 1;
        Some(raw)
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Option<()> {
        let _ = self.eat(b'-');
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.eat(b'.').is_some() && self.digits() == 0 {
            return None;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos + word.len();
        (self.bytes.get(self.pos..end)? == word).then(|| self.pos = end)
    }
}

/// Whether the raw (validated) JSON string content decodes to `target`,
/// which must be ASCII.
fn decodes_to(raw: &[u8], target: &[u8]) -> bool {
    let mut decoded = Vec::with_capacity(target.len());
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        let unit = if b == b'\\' {
            let esc = raw.get(i + 1).copied().unwrap_or(0);
            i += 2;
            match esc {
                b'b' => 0x08,
                b'f' => 0x0C,
                b'n' => 0x0A,
                b'r' => 0x0D,
                b't' => 0x09,
                b'u' => {
                    let hex = raw.get(i..i + 4).and_then(|h| std::str::from_utf8(h).ok());
                    i += 4;
                    match hex.and_then(|h| u32::from_str_radix(h, 16).ok()) {
                        Some(unit) => unit,
                        None => return false,
                    }
                }
                other => u32::from(other),
            }
        } else {
            i += 1;
            u32::from(b)
        };
        match u8::try_from(unit) {
            Ok(byte) if byte.is_ascii() => decoded.push(byte),
            _ => return false,
        }
    }
    decoded == target
}

/// Validate one line exactly as `JSON.parse` would; `None` if it would throw.
fn scan_json(line: &[u8]) -> Option<Scan> {
    let mut c = Cursor {
        bytes: line,
        pos: 0,
    };
    let mut stack: Vec<Container> = Vec::new();
    let mut root_is_object = false;
    let mut key = HeaderKey::Other;
    let (mut type_is_session, mut id_ok) = (false, false);
    let mut state = State::Value;
    loop {
        c.skip_ws();
        match state {
            State::Value => {
                let b = c.peek()?;
                let string = if b == b'"' { Some(c.string()?) } else { None };
                if root_is_object && stack.len() == 1 {
                    // A field of the root object: remember what `type` and `id` hold.
                    match key {
                        HeaderKey::Type => {
                            type_is_session = string.is_some_and(|r| decodes_to(r, b"session"))
                        }
                        HeaderKey::Id => id_ok = string.is_some_and(|r| !r.is_empty()),
                        HeaderKey::Other => {}
                    }
                }
                state = State::After;
                match b {
                    b'"' => {}
                    b'{' | b'[' => {
                        c.pos += 1;
                        root_is_object |= stack.is_empty() && b == b'{';
                        let container = if b == b'{' {
                            Container::Object
                        } else {
                            Container::Array
                        };
                        c.skip_ws();
                        if c.eat(container.close()).is_none() {
                            stack.push(container);
                            state = container.first_state();
                        }
                    }
                    b't' => c.literal(b"true")?,
                    b'f' => c.literal(b"false")?,
                    b'n' => c.literal(b"null")?,
                    _ => c.number()?,
                }
            }
            State::Key => {
                let raw = c.string()?;
                if root_is_object && stack.len() == 1 {
                    key = if decodes_to(raw, b"type") {
                        HeaderKey::Type
                    } else if decodes_to(raw, b"id") {
                        HeaderKey::Id
                    } else {
                        HeaderKey::Other
                    };
                }
                c.skip_ws();
                c.eat(b':')?;
                state = State::Value;
            }
            State::After => {
                let Some(&top) = stack.last() else {
                    return (c.pos == line.len()).then_some(Scan {
                        is_session_header: root_is_object && type_is_session && id_ok,
                    });
                };
                if c.eat(b',').is_some() {
                    state = top.first_state();
                } else {
                    c.eat(top.close())?;
                    stack.pop();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static NEXT_DIR: AtomicUsize = AtomicUsize::new(0);

    /// A fresh directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new() -> Self {
            let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!(
                "session-file-test-{}-{}-{n}",
                std::process::id(),
                unix_ms()
            ));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {dir:?}: {e}"));
            Self(dir)
        }

        fn file(&self, name: &str, content: &[u8]) -> PathBuf {
            let path = self.0.join(name);
            fs::write(&path, content).unwrap_or_else(|e| panic!("write {path:?}: {e}"));
            path
        }

        fn entries(&self) -> Vec<String> {
            let mut names: Vec<String> = fs::read_dir(&self.0)
                .map(|it| {
                    it.filter_map(Result::ok)
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            names
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn read(path: &Path) -> Vec<u8> {
        fs::read(path).unwrap_or_else(|e| panic!("read {path:?}: {e}"))
    }

    const HEADER: &str = r#"{"type":"session","version":7,"id":"abc","timestamp":"2026-03-01T00:00:00Z","cwd":"/w"}"#;
    const MESSAGE: &str = r#"{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"hi","timestamp":1}}"#;

    #[test]
    fn drops_a_torn_trailing_line_and_keeps_a_backup() {
        let dir = TempDir::new();
        let original = format!("{HEADER}\n{MESSAGE}\n{{\"type\":\"message\",\"id\":\"m2\",\"mess");
        let path = dir.file("s.jsonl", original.as_bytes());
        let report = repair_session_file(&path, &RepairOptions::default());
        assert!(report.repaired);
        assert_eq!(report.dropped_lines, 1);
        assert_eq!(report.reason, None);
        let backup = report.backup_path.clone().unwrap_or_default();
        assert_eq!(read(&backup), original.as_bytes());
        let backup_name = backup
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert!(
            backup_name.starts_with(&format!("s.jsonl.bak-{}-", std::process::id())),
            "{backup_name}"
        );
        let repaired = String::from_utf8(read(&path)).unwrap_or_default();
        assert_eq!(repaired, format!("{HEADER}\n{MESSAGE}\n"));
        for line in repaired.lines() {
            assert!(
                serde_json::from_str::<serde_json::Value>(line).is_ok(),
                "{line}"
            );
        }
        // No temporary file is left behind.
        assert_eq!(dir.entries().len(), 2, "{:?}", dir.entries());
        assert_eq!(
            report.warning(&path).as_deref(),
            Some("session file repaired: dropped 1 malformed line(s) (s.jsonl)")
        );
    }

    #[test]
    fn valid_lines_are_written_back_byte_for_byte() {
        let dir = TempDir::new();
        let spaced = "{ \"b\" : 1.50, \"a\" : \"\\u00e9\\ud800\" }";
        let original = format!("{HEADER}\r\n{spaced}\r\n\r\nnot json\r\n   \n{MESSAGE}");
        let path = dir.file("s.jsonl", original.as_bytes());
        let report = repair_session_file(&path, &RepairOptions::default());
        assert!(report.repaired);
        assert_eq!(report.dropped_lines, 1);
        let repaired = String::from_utf8(read(&path)).unwrap_or_default();
        assert_eq!(repaired, format!("{HEADER}\n{spaced}\n{MESSAGE}\n"));
    }

    #[test]
    fn crlf_files_without_bad_lines_are_untouched() {
        let dir = TempDir::new();
        let original = format!("{HEADER}\r\n{MESSAGE}\r\n");
        let path = dir.file("s.jsonl", original.as_bytes());
        let report = repair_session_file(&path, &RepairOptions::default());
        assert_eq!(report, RepairReport::default());
        assert_eq!(read(&path), original.as_bytes());
        assert_eq!(dir.entries(), vec!["s.jsonl".to_string()]);
        assert_eq!(report.warning(&path), None);
    }

    #[test]
    fn invalid_header_is_skipped_and_nothing_written() {
        let dir = TempDir::new();
        let original = format!("{MESSAGE}\n{HEADER}\n{{broken\n");
        let path = dir.file("s.jsonl", original.as_bytes());
        let report = repair_session_file(&path, &RepairOptions::default());
        assert!(!report.repaired);
        assert_eq!(report.dropped_lines, 1);
        assert_eq!(report.reason.as_deref(), Some("invalid session header"));
        assert_eq!(read(&path), original.as_bytes());
        assert_eq!(dir.entries(), vec!["s.jsonl".to_string()]);
        assert_eq!(
            report.warning(&path).as_deref(),
            Some("session file repair skipped: invalid session header (s.jsonl)")
        );
    }

    #[test]
    fn header_needs_type_session_and_a_non_empty_string_id() {
        let header = |line: &str| scan_json(line.as_bytes()).map(|s| s.is_session_header);
        assert_eq!(header(r#"{"type":"session","id":"x"}"#), Some(true));
        assert_eq!(
            header(r#"{"type":"\u0073ession","\u0069d":"\ud800"}"#),
            Some(true)
        );
        assert_eq!(header(r#"{"type":"session","id":""}"#), Some(false));
        assert_eq!(header(r#"{"type":"session","id":1}"#), Some(false));
        assert_eq!(header(r#"{"type":"session"}"#), Some(false));
        assert_eq!(header(r#"{"type":"Session","id":"x"}"#), Some(false));
        assert_eq!(header(r#"{"x":{"type":"session","id":"x"}}"#), Some(false));
        assert_eq!(header(r#"[{"type":"session","id":"x"}]"#), Some(false));
        // Duplicate keys: the last one wins, as in JSON.parse.
        assert_eq!(
            header(r#"{"type":"session","id":"x","type":"message"}"#),
            Some(false)
        );
        assert_eq!(header(r#"{"id":"","type":"session","id":"y"}"#), Some(true));
        assert_eq!(
            header(r#"{"type":"session","id":"x","nested":{"id":""}}"#),
            Some(true)
        );
    }

    #[test]
    fn a_directory_cannot_be_read() {
        let dir = TempDir::new();
        let report = repair_session_file(&dir.0, &RepairOptions::default());
        assert!(!report.repaired);
        let reason = report.reason.clone().unwrap_or_default();
        assert!(
            reason.starts_with("failed to read session file"),
            "{reason}"
        );
        let warning = report.warning(&dir.0).unwrap_or_default();
        assert!(
            warning.starts_with("session file repair skipped: failed to read session file"),
            "{warning}"
        );
    }

    #[test]
    fn missing_and_blank_paths() {
        let dir = TempDir::new();
        let missing = repair_session_file(&dir.0.join("nope.jsonl"), &RepairOptions::default());
        assert_eq!(missing.reason.as_deref(), Some("missing session file"));
        assert_eq!(missing.dropped_lines, 0);
        let blank = repair_session_file(Path::new("  "), &RepairOptions::default());
        assert_eq!(blank.reason.as_deref(), Some("missing session file"));
        assert_eq!(missing.warning(Path::new("x")), None);
    }

    #[test]
    fn empty_files() {
        let dir = TempDir::new();
        let path = dir.file("empty.jsonl", b"");
        let report = repair_session_file(&path, &RepairOptions::default());
        assert_eq!(report.reason.as_deref(), Some("empty session file"));
        assert_eq!(report.dropped_lines, 0);
        // Blank lines (JS trim: NBSP and BOM count) and garbage only.
        let path = dir.file("junk.jsonl", "\u{a0}\n\u{feff}\n{\n\r\n]\n".as_bytes());
        let report = repair_session_file(&path, &RepairOptions::default());
        assert_eq!(report.reason.as_deref(), Some("empty session file"));
        assert_eq!(report.dropped_lines, 2);
        assert_eq!(read(&path), "\u{a0}\n\u{feff}\n{\n\r\n]\n".as_bytes());
    }

    #[test]
    fn backup_can_be_turned_off() {
        let dir = TempDir::new();
        let path = dir.file("s.jsonl", format!("{HEADER}\nxx\n").as_bytes());
        let report = repair_session_file(
            &path,
            &RepairOptions {
                backup: false,
                ..RepairOptions::default()
            },
        );
        assert!(report.repaired);
        assert_eq!(report.backup_path, None);
        assert_eq!(dir.entries(), vec!["s.jsonl".to_string()]);
        assert_eq!(read(&path), format!("{HEADER}\n").as_bytes());
    }

    #[test]
    fn dry_run_reports_without_writing() {
        let dir = TempDir::new();
        let original = format!("{HEADER}\n{{torn\n{MESSAGE}\n\nnot json");
        let path = dir.file("s.jsonl", original.as_bytes());
        let dry = RepairOptions {
            dry_run: true,
            ..RepairOptions::default()
        };
        let report = repair_session_file(&path, &dry);
        assert!(!report.repaired);
        assert_eq!(report.dropped_lines, 2);
        assert_eq!(report.dropped_line_numbers, vec![2, 5]);
        assert_eq!(report.backup_path, None);
        assert_eq!(report.reason.as_deref(), Some("dry run"));
        assert_eq!(report.warning(&path), None);
        assert_eq!(read(&path), original.as_bytes());
        assert_eq!(dir.entries(), vec!["s.jsonl".to_string()]);

        // A clean file gives the same answer dry or not, and so does a bad header.
        let clean = dir.file("clean.jsonl", format!("{HEADER}\n{MESSAGE}\n").as_bytes());
        assert_eq!(repair_session_file(&clean, &dry), RepairReport::default());
        let headless = dir.file("headless.jsonl", format!("{MESSAGE}\n{{\n").as_bytes());
        let report = repair_session_file(&headless, &dry);
        assert_eq!(report.reason.as_deref(), Some("invalid session header"));
        assert_eq!(report.dropped_line_numbers, vec![2]);

        // The real run drops the lines the dry run named.
        let report = repair_session_file(&path, &RepairOptions::default());
        assert!(report.repaired);
        assert_eq!(report.dropped_line_numbers, vec![2, 5]);
        assert_eq!(read(&path), format!("{HEADER}\n{MESSAGE}\n").as_bytes());
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_copied() {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new();
        let path = dir.file("s.jsonl", format!("{HEADER}\n{{\n").as_bytes());
        fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap_or_else(|e| panic!("{e}"));
        let report = repair_session_file(&path, &RepairOptions::default());
        assert!(report.repaired);
        let mode = |p: &Path| {
            fs::metadata(p)
                .map(|m| m.permissions().mode() & 0o777)
                .unwrap_or(0)
        };
        assert_eq!(mode(&path), 0o640);
        assert_eq!(mode(&report.backup_path.unwrap_or_default()), 0o640);
    }

    #[test]
    fn lone_surrogate_escapes_are_valid() {
        assert!(scan_json(br#"{"text":"\ud800"}"#).is_some());
        assert!(scan_json(br#""\udc00\ud800""#).is_some());
        let dir = TempDir::new();
        let original = format!("{HEADER}\n{{\"text\":\"\\ud800\"}}\n");
        let path = dir.file("s.jsonl", original.as_bytes());
        assert_eq!(
            repair_session_file(&path, &RepairOptions::default()),
            RepairReport::default()
        );
    }

    #[test]
    fn deep_nesting_does_not_crash() {
        let open = "[".repeat(100_000);
        assert!(scan_json(open.as_bytes()).is_none());
        let balanced = format!("{open}{}", "]".repeat(100_000));
        assert!(scan_json(balanced.as_bytes()).is_some());
        let objects = "{\"a\":".repeat(100_000) + "1" + &"}".repeat(100_000);
        assert!(scan_json(objects.as_bytes()).is_some());

        let dir = TempDir::new();
        let path = dir.file(
            "deep.jsonl",
            format!("{HEADER}\n{open}\n{balanced}\n").as_bytes(),
        );
        let report = repair_session_file(&path, &RepairOptions::default());
        assert!(report.repaired);
        assert_eq!(report.dropped_lines, 1);
        assert_eq!(read(&path), format!("{HEADER}\n{balanced}\n").as_bytes());
    }

    #[test]
    fn validator_matches_json_parse() {
        // Verdicts taken from Node 20 `JSON.parse`.
        let cases: &[(&str, bool)] = &[
            ("01", false),
            ("1.", false),
            (".5", false),
            ("-", false),
            ("1e", false),
            ("1e+", false),
            ("-0", true),
            ("1E5", true),
            ("[1,]", false),
            ("{\"a\":1,}", false),
            ("{'a':1}", false),
            ("\"\\x\"", false),
            ("\"\t\"", false),
            ("\"\\u12\"", false),
            ("\"\\uD800\"", true),
            ("\"\\udc00\\ud800\"", true),
            ("", false),
            (" ", false),
            ("\u{a0}{}", false),
            ("{}\u{a0}", false),
            ("{} {}", false),
            ("true", true),
            ("tru", false),
            ("nul", false),
            ("NaN", false),
            ("Infinity", false),
            ("1e400", true),
            ("\"\u{7f}\"", true),
            ("{\"a\" : [ 1 , 2 ] }", true),
            ("[\r1\r]", true),
            ("\u{b}{}", false),
            ("\u{c}{}", false),
            ("+1", false),
            ("{\"a\":1}\u{0}", false),
            ("[1 2]", false),
            ("{\"a\" 1}", false),
            ("{,}", false),
            ("[,]", false),
            ("{\"a\":}", false),
            ("-01", false),
            ("0.0e-0", true),
            ("\"\u{2028}\"", true),
            ("\"\\/\"", true),
            ("[]]", false),
            ("[[]", false),
            ("\"\\u00e9\"", true),
            ("\"é\"", true),
            ("\u{feff}{}", false),
            ("{\"__proto__\":1}", true),
            ("[1,[2,{\"x\":[null,false]}]]", true),
            ("-1.5E+10", true),
            ("2.", false),
            ("0x10", false),
            ("\"a\nb\"", false),
            (" \t{}\r ", true),
            ("[\"\\\"\"]", true),
            ("\"\\\"", false),
            ("{\"a\":1 \"b\":2}", false),
        ];
        for (text, valid) in cases {
            assert_eq!(scan_json(text.as_bytes()).is_some(), *valid, "{text:?}");
        }
        // Invalid UTF-8 is fine inside strings (Node decodes it to U+FFFD) ...
        assert!(scan_json(b"\"\xff\xfe\"").is_some());
        // ... and not outside them.
        assert!(scan_json(b"\xff").is_none());
    }
}
