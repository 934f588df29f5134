//! `repairSessionFile(path, {backup})`: the only file I/O of the addon besides the CLI.

use crate::session_file::{repair_session_file, RepairOptions};
use napi_derive::napi;
use std::path::Path;

#[napi(object)]
pub struct SessionFileRepair {
    pub repaired: bool,
    pub dropped_lines: u32,
    pub backup_path: Option<String>,
    pub reason: Option<String>,
    /// The warning OpenClaw would log, if any.
    pub warning: Option<String>,
}

/// Drops invalid JSONL lines from a session file, keeping a backup; rewrites atomically.
#[napi(catch_unwind, js_name = "repairSessionFile")]
pub fn repair_session_file_js(path: String, backup: Option<bool>) -> SessionFileRepair {
    let p = Path::new(&path);
    let r = repair_session_file(
        p,
        &RepairOptions {
            backup: backup.unwrap_or(true),
        },
    );
    SessionFileRepair {
        repaired: r.repaired,
        dropped_lines: u32::try_from(r.dropped_lines).unwrap_or(u32::MAX),
        backup_path: r
            .backup_path
            .as_ref()
            .map(|b| b.to_string_lossy().into_owned()),
        reason: r.reason.clone(),
        warning: r.warning(p),
    }
}
