//! `repairSessionFile(path, {backup, dryRun})`: the only file I/O of the addon besides the CLI.

use crate::session_file::{repair_session_file, RepairOptions};
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
