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
//! - otherwise the file is replaced through [`crate::atomic_file`]: a symlink
//!   is written through, the original bytes go to `<file>.bak-<pid>-<unix ms>`
//!   (complete or absent, never replacing an existing name), the cleaned text
//!   to an exclusively created temporary file with a random name and the
//!   original's permissions, renamed over the file, the directory synced. On
//!   failure the reason is `"repair failed: <error>"`;
//! - the file is read through one open handle. Before the rename the handle
//!   must still be the file at the path, at least as long as what was read,
//!   with the same bytes at the end of what was read; otherwise (the file was
//!   replaced, truncated or rewritten) nothing is written and the repair starts
//!   over, three times at most. Bytes appended meanwhile — before or after the
//!   rename, through the old handle's file — are copied after the repaired
//!   lines (from the start of an unterminated last line that was dropped, as
//!   it may have been a line still being written), so no appended line is lost.
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
//! - the temporary file, the backup and the directory are flushed to disk
//!   (`fsync`), both new files get their permissions before any data is
//!   written, nothing is created at a predictable name, and a symlinked
//!   session file stays a symlink;
//! - lines appended while the repair runs are kept (OpenClaw loses them);
//! - error texts are Rust's `io::Error` messages, not Node's.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::atomic_file::{self, Staged};
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

/// How many times a repair starts over when the file is replaced or
/// rewritten (not merely appended to) while it runs.
const MAX_ATTEMPTS: usize = 3;
/// How many bytes before the end of what was read are compared again when
/// the file grew, to tell an append from a rewrite.
const TAIL_CHECK: u64 = 64 * 1024;

/// Drop the invalid lines of the JSONL session file at `path` (see the
/// module docs for the exact rules).
///
/// ```
/// # use transcript_hygiene::session_file::{repair_session_file, RepairOptions};
/// let dir = std::env::temp_dir().join(format!("session-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let file = dir.join("s.jsonl");
/// std::fs::write(&file, "{\"type\":\"session\",\"id\":\"a\"}\n{\"torn").unwrap();
/// let report = repair_session_file(&file, &RepairOptions::default());
/// assert!(report.repaired);
/// assert_eq!(std::fs::read_to_string(&file).unwrap(), "{\"type\":\"session\",\"id\":\"a\"}\n");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn repair_session_file(path: &Path, opts: &RepairOptions) -> RepairReport {
    // OpenClaw trims the path string before using it.
    let path = match path.to_str() {
        Some(text) => Path::new(js_trim(text)),
        None => path,
    };
    if path.as_os_str().is_empty() {
        return RepairReport::skipped(Vec::new(), "missing session file");
    }
    // A symlinked session file is repaired where it lives; the link stays.
    let target = match atomic_file::resolve(path) {
        Ok(target) => target,
        Err(err) => return read_failure(&err),
    };
    let mut dropped = Vec::new();
    for _ in 0..MAX_ATTEMPTS {
        match repair_once(&target, opts) {
            Attempt::Done(report) => return report,
            Attempt::Changed(numbers) => dropped = numbers,
        }
    }
    RepairReport::skipped(
        dropped,
        "repair failed: the session file was rewritten while it was being repaired; nothing was written",
    )
}

enum Attempt {
    Done(RepairReport),
    /// The file was replaced or rewritten between the read and the rename;
    /// nothing was written (the dropped line numbers of this attempt).
    Changed(Vec<usize>),
}

fn read_failure(err: &io::Error) -> RepairReport {
    if err.kind() == io::ErrorKind::NotFound {
        return RepairReport::skipped(Vec::new(), "missing session file");
    }
    RepairReport::skipped(Vec::new(), format!("failed to read session file: {err}"))
}

/// The lines to keep and to drop.
struct Analysis<'a> {
    kept: Vec<&'a [u8]>,
    first_is_header: bool,
    dropped: Vec<usize>,
    /// Where the bytes an appender adds after the read belong from: the end
    /// of what was read, or the start of an unterminated last line that is
    /// left out (it may be a line still being written).
    carry_from: usize,
}

fn analyse(content: &[u8]) -> Analysis<'_> {
    let mut analysis = Analysis {
        kept: Vec::new(),
        first_is_header: false,
        dropped: Vec::new(),
        carry_from: content.len(),
    };
    let mut offset = 0;
    for (index, raw) in content.split(|&b| b == b'\n').enumerate() {
        let start = offset;
        offset += raw.len() + 1;
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        let unterminated = offset > content.len() && !raw.is_empty();
        if js_trim(&String::from_utf8_lossy(line)).is_empty() {
            if unterminated {
                analysis.carry_from = start;
            }
            continue;
        }
        match scan_json(line) {
            Some(scan) => {
                if analysis.kept.is_empty() {
                    analysis.first_is_header = scan.is_session_header;
                }
                analysis.kept.push(line);
            }
            None => {
                analysis.dropped.push(index + 1);
                if unterminated {
                    analysis.carry_from = start;
                }
            }
        }
    }
    analysis
}

fn repair_once(target: &Path, opts: &RepairOptions) -> Attempt {
    let read = File::open(target).and_then(|mut file| {
        let mut content = Vec::new();
        file.read_to_end(&mut content)?;
        let meta = file.metadata()?;
        Ok((file, content, meta))
    });
    let (file, content, meta) = match read {
        Ok(read) => read,
        Err(err) => return Attempt::Done(read_failure(&err)),
    };
    let Analysis {
        kept,
        first_is_header,
        dropped,
        carry_from,
    } = analyse(&content);

    if kept.is_empty() {
        return Attempt::Done(RepairReport::skipped(dropped, "empty session file"));
    }
    if !first_is_header {
        return Attempt::Done(RepairReport::skipped(dropped, "invalid session header"));
    }
    if dropped.is_empty() {
        return Attempt::Done(RepairReport::default());
    }
    if opts.dry_run {
        return Attempt::Done(RepairReport::skipped(dropped, "dry run"));
    }

    let mut cleaned = kept.join(&b'\n');
    cleaned.push(b'\n');
    let mode = atomic_file::mode_of(target);
    let failed = |dropped, err: &dyn std::fmt::Display| {
        Attempt::Done(RepairReport::skipped(
            dropped,
            format!("repair failed: {err}"),
        ))
    };
    let backup_path = if opts.backup {
        match atomic_file::write_backup(target, &content, mode) {
            Ok(backup) => Some(backup),
            Err(err) => return failed(dropped, &err),
        }
    } else {
        None
    };
    let discard_backup = || {
        if let Some(backup) = &backup_path {
            let _ = fs::remove_file(backup);
        }
    };
    let staged = match Staged::new(target, &cleaned, mode) {
        Ok(staged) => staged,
        Err(err) => {
            discard_backup();
            return failed(dropped, &err);
        }
    };
    match unchanged(&file, target, &content, &meta) {
        Ok(true) => {}
        Ok(false) => {
            discard_backup();
            return Attempt::Changed(dropped);
        }
        Err(err) => {
            discard_backup();
            return failed(dropped, &format!("re-reading {}: {err}", target.display()));
        }
    }
    if let Err(err) = staged.commit(target) {
        return failed(dropped, &err);
    }
    // Lines appended to the old file after the check now go after the
    // repaired ones; the rename has happened, so a failure here is reported
    // with the backup that holds what was read.
    let reason = carry_appended(&file, target, content.len() as u64, carry_from as u64)
        .err()
        .map(|err| format!("lines appended during the repair may be missing: {err}"));
    Attempt::Done(RepairReport {
        repaired: true,
        dropped_lines: dropped.len(),
        dropped_line_numbers: dropped,
        backup_path,
        reason,
    })
}

/// Whether the file at `target` is still the one read through `file` and
/// still holds `content` as its beginning (it may have grown by appends).
fn unchanged(file: &File, target: &Path, content: &[u8], read: &Metadata) -> io::Result<bool> {
    let now = file.metadata()?;
    let at_path = fs::metadata(target)?;
    if !same_file(&now, &at_path) {
        return Ok(false);
    }
    let len = content.len() as u64;
    if now.len() < len {
        return Ok(false);
    }
    if now.len() == len && now.modified().ok() == read.modified().ok() {
        return Ok(true);
    }
    let n = len.min(TAIL_CHECK);
    let mut tail = vec![0; usize::try_from(n).unwrap_or(0)];
    let mut reader = file;
    reader.seek(SeekFrom::Start(len - n))?;
    reader.read_exact(&mut tail)?;
    Ok(content.get(content.len() - tail.len()..) == Some(&tail[..]))
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

/// Copies what an appender wrote to the old file (still open as `old`)
/// beyond `read_len` — from `from`, which is earlier when an unterminated
/// last line was left out — to the end of the new file at `target`, until
/// the old file stops growing.
fn carry_appended(old: &File, target: &Path, read_len: u64, mut from: u64) -> io::Result<()> {
    let mut quiet = 0;
    let mut reader = old;
    while quiet < 3 {
        let len = old.metadata()?.len();
        if len > read_len.max(from) {
            let mut bytes = vec![0; usize::try_from(len - from).map_err(io::Error::other)?];
            reader.seek(SeekFrom::Start(from))?;
            reader.read_exact(&mut bytes)?;
            let mut new = OpenOptions::new().append(true).open(target)?;
            new.write_all(&bytes)?;
            new.sync_all()?;
            from = len;
            quiet = 0;
        } else {
            quiet += 1;
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
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

/// Whether `JSON.parse` accepts `text` (the one strict validator of the crate; the 2026.9.6 reply
/// scrubbers ask it too).
pub(crate) fn is_json(text: &[u8]) -> bool {
    scan_json(text).is_some()
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
pub(crate) mod test_dir {
    use std::fs;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static NEXT_DIR: AtomicUsize = AtomicUsize::new(0);

    /// A fresh directory under the system temp dir, removed on drop.
    pub(crate) struct TempDir(pub(crate) PathBuf);

    impl TempDir {
        pub(crate) fn new() -> Self {
            let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!(
                "session-file-test-{}-{n}-{:?}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or_default()
            ));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {dir:?}: {e}"));
            Self(dir)
        }

        pub(crate) fn file(&self, name: &str, content: &[u8]) -> PathBuf {
            let path = self.0.join(name);
            fs::write(&path, content).unwrap_or_else(|e| panic!("write {path:?}: {e}"));
            path
        }

        pub(crate) fn entries(&self) -> Vec<String> {
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
}

#[cfg(test)]
mod tests {
    use super::test_dir::TempDir;
    use super::*;
    use std::fs::Permissions;

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

    #[cfg(unix)]
    #[test]
    fn a_symlinked_session_file_is_repaired_where_it_lives() {
        let dir = TempDir::new();
        let real = dir.file("real.jsonl", format!("{HEADER}\n{{torn\n").as_bytes());
        let link = dir.0.join("link.jsonl");
        std::os::unix::fs::symlink("real.jsonl", &link).unwrap_or_else(|e| panic!("{e}"));
        let report = repair_session_file(&link, &RepairOptions::default());
        assert!(report.repaired, "{report:?}");
        assert!(fs::symlink_metadata(&link)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false));
        assert_eq!(read(&real), format!("{HEADER}\n").as_bytes());
        let backup = report.backup_path.unwrap_or_default();
        assert_eq!(backup.parent(), real.parent());
        assert!(backup.to_string_lossy().contains("real.jsonl.bak-"));
    }

    #[test]
    fn an_append_is_told_from_a_rewrite_or_a_replacement() {
        let dir = TempDir::new();
        let check = |change: &dyn Fn(&Path)| {
            let path = dir.file("s.jsonl", b"{\"a\":1}\n{\"b\":2}\n");
            let mut file = File::open(&path).unwrap_or_else(|e| panic!("{e}"));
            let mut content = Vec::new();
            file.read_to_end(&mut content).unwrap_or_default();
            let meta = file.metadata().unwrap_or_else(|e| panic!("{e}"));
            change(&path);
            unchanged(&file, &path, &content, &meta).unwrap_or_else(|e| panic!("{e}"))
        };
        assert!(check(&|_| {}));
        assert!(check(&|p| {
            let mut f = OpenOptions::new()
                .append(true)
                .open(p)
                .unwrap_or_else(|e| panic!("{e}"));
            f.write_all(b"{\"c\":3}\n").unwrap_or_default();
        }));
        // Grown, but with other bytes where the read ended: a rewrite.
        assert!(!check(
            &|p| fs::write(p, b"{\"a\":1}\n{\"b\":9}\n{}\n").unwrap_or_default()
        ));
        assert!(!check(&|p| fs::write(p, b"{}\n").unwrap_or_default()));
        assert!(!check(&|p| {
            let other = p.with_extension("new");
            fs::write(&other, b"{\"a\":1}\n{\"b\":2}\n").unwrap_or_default();
            fs::rename(&other, p).unwrap_or_default();
        }));
    }

    #[test]
    fn an_unterminated_dropped_line_is_where_appended_bytes_belong() {
        let text = format!("{HEADER}\n{{\"type\":\"mess");
        let analysis = analyse(text.as_bytes());
        assert_eq!(analysis.carry_from, HEADER.len() + 1);
        let text = format!("{HEADER}\n{{torn\n");
        assert_eq!(analyse(text.as_bytes()).carry_from, text.len());
        let text = format!("{HEADER}\n{MESSAGE}");
        assert_eq!(analyse(text.as_bytes()).carry_from, text.len());
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
