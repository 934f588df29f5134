//! `repairSessionFile(path, {backup, dryRun})` and the CLI's `writeFileAtomic`: the only file
//! I/O of the addon, both through `crate::atomic_file`.

use crate::atomic_file::{replace_file, ReplaceOptions};
use crate::session_file::{repair_session_file, RepairOptions};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use std::path::Path;

#[napi(object)]
pub struct SessionFileRepair {
    pub repaired: bool,
    pub dropped_lines: u32,
    /// The 1-based numbers of the dropped lines.
    pub dropped_line_numbers: Vec<u32>,
    pub backup_path: Option<String>,
    pub reason: Option<String>,
    /// The warning OpenClaw would log, if any.
    pub warning: Option<String>,
}

/// Drops invalid JSONL lines from a session file, keeping a backup; rewrites atomically.
/// With `dry_run`, only reports what it would drop.
#[napi(catch_unwind, js_name = "repairSessionFile")]
pub fn repair_session_file_js(
    path: String,
    backup: Option<bool>,
    dry_run: Option<bool>,
) -> SessionFileRepair {
    let p = Path::new(&path);
    let r = repair_session_file(
        p,
        &RepairOptions {
            backup: backup.unwrap_or(true),
            dry_run: dry_run.unwrap_or(false),
        },
    );
    SessionFileRepair {
        repaired: r.repaired,
        dropped_lines: u32::try_from(r.dropped_lines).unwrap_or(u32::MAX),
        dropped_line_numbers: r
            .dropped_line_numbers
            .iter()
            .map(|&n| u32::try_from(n).unwrap_or(u32::MAX))
            .collect(),
        backup_path: r
            .backup_path
            .as_ref()
            .map(|b| b.to_string_lossy().into_owned()),
        reason: r.reason.clone(),
        warning: r.warning(p),
    }
}

#[napi(object)]
pub struct WrittenFile {
    /// The file written (symlinks resolved).
    pub path: String,
    pub backup_path: Option<String>,
}

/// The package's one file writer, for the command-line tool: replaces `path` (symlinks written
/// through) with `data` crash-safely; with `expect`, only if the file still holds those bytes,
/// and with `backup`, saving them first. Not part of the public API (`index.js` does not export it).
#[napi(catch_unwind, js_name = "writeFileAtomic")]
pub fn write_file_atomic_js(
    path: String,
    data: Buffer,
    mode: Option<u32>,
    expect: Option<Buffer>,
    backup: Option<bool>,
) -> napi::Result<WrittenFile> {
    let opts = ReplaceOptions {
        mode,
        expect: expect.as_deref(),
        backup: backup.unwrap_or(false),
    };
    let done = replace_file(Path::new(&path), &data, &opts)
        .map_err(|e| napi::Error::new(napi::Status::GenericFailure, e.to_string()))?;
    Ok(WrittenFile {
        path: done.path.to_string_lossy().into_owned(),
        backup_path: done.backup_path.map(|b| b.to_string_lossy().into_owned()),
    })
}
