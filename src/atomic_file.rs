//! The one file writer of the package: replace a file's contents so that a
//! crash at any moment leaves either the old bytes or the new bytes, never a
//! mix, and nothing outside the file's own name is touched.
//!
//! Session repair ([`crate::session_file`]) and every writing command of the
//! command-line tool go through here, so they share one behaviour:
//!
//! - **symlinks are written through**: the path is resolved link by link and
//!   the file it names is replaced; the link itself stays a link;
//! - **the temporary file is created exclusively** (`O_CREAT|O_EXCL`, which
//!   also refuses to follow a planted symlink) with a random name in the
//!   target's directory, gets the mode the caller asks for (the original's)
//!   before any byte is written, and is `fsync`ed;
//! - **a backup is complete or absent**: written to its own exclusive
//!   temporary file, `fsync`ed, then hard-linked to `<file>.bak-<pid>-<ms>`
//!   (a link fails instead of replacing an existing name) before the rename;
//! - the rename is followed by an `fsync` of the directory, so the new name
//!   survives a power cut.
//!
//! Windows: `rename` replaces through `MoveFileExW(MOVEFILE_REPLACE_EXISTING)`,
//! `sync_all` is `FlushFileBuffers`, and `create_new` is `CREATE_NEW`; what
//! differs is that a directory cannot be flushed (the rename is durable once
//! NTFS commits its journal), the mode is only the read-only bit, the
//! unchanged-file check compares length and modification time but not the
//! file identity (std exposes no stable file index), and a file that another
//! process holds open without `FILE_SHARE_DELETE` cannot be replaced (the
//! write then fails with that error, the original untouched). This is not
//! exercised by the tests, which run on Linux.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// How many symlinks [`resolve`] follows before giving up (Linux's limit).
const MAX_LINKS: usize = 40;
/// How many names are tried when an exclusive create finds the name taken.
const MAX_TRIES: u32 = 16;

/// A failed write: what was being done, to which path, and the system's error.
#[derive(Debug)]
pub struct WriteError {
    /// The step that failed (`"create temporary file"`, `"rename"`, …).
    pub step: &'static str,
    /// The path the step worked on.
    pub path: PathBuf,
    /// The underlying error.
    pub source: io::Error,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.step, self.path.display(), self.source)
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

fn step(step: &'static str, path: &Path) -> impl FnOnce(io::Error) -> WriteError {
    let path = path.to_path_buf();
    move |source| WriteError { step, path, source }
}

/// The file `path` names: each symlink in the last component is followed
/// (relative targets against the link's directory), up to 40 of them. The
/// result need not exist yet.
///
/// ```
/// # use transcript_hygiene::atomic_file::resolve;
/// # use std::path::Path;
/// let missing = Path::new("/nonexistent-dir/file.json");
/// assert_eq!(resolve(missing).unwrap(), missing);
/// ```
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(current),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links from {}",
        path.display()
    )))
}

/// A name nobody can guess: 64 bits from the process's random hash keys,
/// the clock, the process id and a counter.
fn random_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.write_u128(nanos);
    format!("{:016x}", hasher.finish())
}

fn sibling(target: &Path, name: impl FnOnce(&str) -> String) -> PathBuf {
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(name(&file_name))
}

/// Creates `path` exclusively (fails if anything, a symlink included, has
/// that name) and gives it `mode` before anything is written.
fn create_exclusive(path: &Path, mode: Option<u32>) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode & 0o7777);
    }
    let file = options.open(path)?;
    // The umask may have cleared bits of the requested mode.
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(mode & 0o7777))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    Ok(file)
}

/// A file written and synced under a random name beside its target; removed
/// on drop unless [`Staged::commit`] or [`Staged::link_as`] consumed it.
pub struct Staged {
    path: PathBuf,
    done: bool,
}

impl Staged {
    /// Writes `bytes` to a new exclusive file `.<name>.<random>.tmp` beside
    /// `target`, with `mode`, and syncs it.
    pub fn new(target: &Path, bytes: &[u8], mode: Option<u32>) -> Result<Self, WriteError> {
        let mut tries = 0;
        let (path, mut file) = loop {
            let path = sibling(target, |name| format!(".{name}.{}.tmp", random_token()));
            match create_exclusive(&path, mode) {
                Ok(file) => break (path, file),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists && tries < MAX_TRIES => {
                    tries += 1;
                }
                Err(err) => return Err(step("create temporary file", &path)(err)),
            }
        };
        let staged = Self { path, done: false };
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(step("write temporary file", &staged.path))?;
        Ok(staged)
    }

    /// Renames the staged file over `target` and syncs the directory.
    pub fn commit(mut self, target: &Path) -> Result<(), WriteError> {
        fs::rename(&self.path, target).map_err(step("rename", target))?;
        self.done = true;
        sync_dir(target)
    }

    /// Gives the staged file the first free name `make(n)` (n = 0, 1, …)
    /// through a hard link, which never replaces an existing name, and
    /// returns that name.
    fn link_as(mut self, make: impl Fn(u32) -> PathBuf) -> Result<PathBuf, WriteError> {
        let mut n = 0;
        loop {
            let name = make(n);
            match fs::hard_link(&self.path, &name) {
                Ok(()) => {
                    let _ = fs::remove_file(&self.path);
                    self.done = true;
                    sync_dir(&name)?;
                    return Ok(name);
                }
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists && n < MAX_TRIES => n += 1,
                Err(err) => return Err(step("create backup", &name)(err)),
            }
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Makes a rename or link in `path`'s directory durable.
fn sync_dir(path: &Path) -> Result<(), WriteError> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(step("sync directory", dir))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

fn unix_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// Saves `bytes` as `<target>.bak-<pid>-<unix ms>` (`-1`, `-2`, … appended
/// when that name is taken), complete or not at all, synced; returns its path.
pub fn write_backup(target: &Path, bytes: &[u8], mode: Option<u32>) -> Result<PathBuf, WriteError> {
    let staged = Staged::new(target, bytes, mode)?;
    let base = {
        let mut name = OsString::from(target.as_os_str());
        name.push(format!(".bak-{}-{}", std::process::id(), unix_ms()));
        name
    };
    staged.link_as(|n| {
        let mut name = base.clone();
        if n > 0 {
            name.push(format!("-{n}"));
        }
        PathBuf::from(name)
    })
}

/// The permission bits of an existing file (`None` when it does not exist).
pub fn mode_of(path: &Path) -> Option<u32> {
    let meta = fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        Some(if meta.permissions().readonly() {
            0o444
        } else {
            0o666
        })
    }
}

/// Options of [`replace_file`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplaceOptions<'a> {
    /// The mode of the new file; default: the existing file's, else the
    /// process default (0o666 less the umask).
    pub mode: Option<u32>,
    /// The bytes the file must still hold when it is replaced (what the
    /// caller read); when it holds anything else, nothing is written.
    pub expect: Option<&'a [u8]>,
    /// Save `expect` as a backup before the rename (needs `expect`).
    pub backup: bool,
}

/// What [`replace_file`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replaced {
    /// The file written (symlinks resolved).
    pub path: PathBuf,
    /// The backup, when one was asked for.
    pub backup_path: Option<PathBuf>,
}

/// Replaces the contents of `path` (a symlink is written through) with
/// `data`, crash-safely, as the module docs say.
///
/// ```
/// # use transcript_hygiene::atomic_file::{replace_file, ReplaceOptions};
/// let dir = std::env::temp_dir().join(format!("atomic-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let file = dir.join("a.json");
/// std::fs::write(&file, "old").unwrap();
/// let opts = ReplaceOptions { expect: Some(b"old"), backup: true, ..Default::default() };
/// let done = replace_file(&file, b"new", &opts).unwrap();
/// assert_eq!(std::fs::read(&file).unwrap(), b"new");
/// assert_eq!(std::fs::read(done.backup_path.unwrap()).unwrap(), b"old");
/// // The file changed since it was read: nothing is written.
/// assert!(replace_file(&file, b"newer", &opts).is_err());
/// assert_eq!(std::fs::read(&file).unwrap(), b"new");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn replace_file(
    path: &Path,
    data: &[u8],
    opts: &ReplaceOptions<'_>,
) -> Result<Replaced, WriteError> {
    let target = resolve(path).map_err(step("resolve", path))?;
    let mode = opts.mode.or_else(|| mode_of(&target));
    let check = |target: &Path| -> Result<(), WriteError> {
        let Some(expected) = opts.expect else {
            return Ok(());
        };
        let now = fs::read(target).map_err(step("re-read", target))?;
        if now == expected {
            Ok(())
        } else {
            Err(WriteError {
                step: "check",
                path: target.to_path_buf(),
                source: io::Error::other("the file changed since it was read; nothing was written"),
            })
        }
    };
    check(&target)?;
    let backup_path = match (opts.backup, opts.expect) {
        (true, Some(original)) => Some(write_backup(&target, original, mode)?),
        _ => None,
    };
    let staged = Staged::new(&target, data, mode)?;
    if let Err(err) = check(&target) {
        if let Some(backup) = &backup_path {
            let _ = fs::remove_file(backup);
        }
        return Err(err);
    }
    staged.commit(&target)?;
    Ok(Replaced {
        path: target,
        backup_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session_file::test_dir::TempDir;

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_written_through_and_stays_a_link() {
        let dir = TempDir::new();
        let real = dir.file("real.json", b"old");
        let link = dir.0.join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap_or_else(|e| panic!("{e}"));
        let done = replace_file(&link, b"new", &ReplaceOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(done.path, real);
        assert!(fs::symlink_metadata(&link)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false));
        assert_eq!(fs::read(&real).unwrap_or_default(), b"new");
        assert_eq!(dir.entries(), vec!["link.json", "real.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn mode_is_kept_and_backup_is_exclusive() {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new();
        let file = dir.file("h.json", b"old");
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap_or_default();
        let opts = ReplaceOptions {
            expect: Some(b"old"),
            backup: true,
            ..ReplaceOptions::default()
        };
        let first = replace_file(&file, b"v1", &opts).unwrap_or_else(|e| panic!("{e}"));
        fs::write(&file, b"old").unwrap_or_default();
        // Same millisecond or not, the second backup never replaces the first.
        let second = replace_file(&file, b"v2", &opts).unwrap_or_else(|e| panic!("{e}"));
        let (b1, b2) = (
            first.backup_path.unwrap_or_default(),
            second.backup_path.unwrap_or_default(),
        );
        assert_ne!(b1, b2);
        for p in [&file, &b1, &b2] {
            let mode = fs::metadata(p).map(|m| m.permissions().mode() & 0o777);
            assert_eq!(mode.unwrap_or(0), 0o600, "{p:?}");
        }
        assert_eq!(dir.entries().len(), 3, "{:?}", dir.entries());
    }

    #[test]
    fn a_changed_file_is_not_overwritten() {
        let dir = TempDir::new();
        let file = dir.file("h.json", b"appended since");
        let opts = ReplaceOptions {
            expect: Some(b"read"),
            backup: true,
            ..ReplaceOptions::default()
        };
        let err = replace_file(&file, b"new", &opts).err();
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("changed since it was read"), "{text}");
        assert_eq!(fs::read(&file).unwrap_or_default(), b"appended since");
        assert_eq!(dir.entries(), vec!["h.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_at_the_temporary_name_is_not_followed() {
        let dir = TempDir::new();
        let victim = dir.file("victim", b"keep");
        let planted = dir.0.join("planted");
        std::os::unix::fs::symlink(&victim, &planted).unwrap_or_else(|e| panic!("{e}"));
        let err = create_exclusive(&planted, Some(0o644)).err();
        assert_eq!(err.map(|e| e.kind()), Some(io::ErrorKind::AlreadyExists));
        assert_eq!(fs::read(&victim).unwrap_or_default(), b"keep");
    }

    #[test]
    fn a_new_file_can_be_written_and_errors_name_the_step_and_path() {
        let dir = TempDir::new();
        let out = dir.0.join("new.json");
        replace_file(&out, b"x", &ReplaceOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fs::read(&out).unwrap_or_default(), b"x");
        let bad = dir.0.join("no-such-dir").join("f.json");
        let text = replace_file(&bad, b"x", &ReplaceOptions::default())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(text.starts_with("create temporary file "), "{text}");
        assert!(text.contains("no-such-dir"), "{text}");
    }

    #[test]
    fn random_names_differ() {
        assert_ne!(random_token(), random_token());
    }
}
