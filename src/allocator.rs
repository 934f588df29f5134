//! The global allocator, and the one setting of it this crate changes.
//!
//! The rules allocate many small strings per message; mimalloc makes that several times cheaper
//! than the system allocator (measured in the README's benchmark notes). mimalloc manages only
//! this addon's memory, never Node's, so tuning it touches nothing of the host process.
//!
//! mimalloc returns memory that stayed free for `purge_delay` (1 s by default) to the system. A
//! pass over a long transcript frees and re-allocates tens of MiB, not always at the same
//! addresses, so with the default some of it is purged and faulted in again on every call:
//! 1.4–2.1 ms of kernel time and 57 minor faults per 10,000-message `sanitizeSessionHistory` call
//! on the benchmark machine, a fifth of the native time. With a 10 s delay the faults halved (29
//! per call) and kernel time was 0.1–0.4 ms in most runs (it stays noisy when other processes
//! fragment memory); memory a burst of calls freed still goes back to the system, 10 s later.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (milliseconds).
const PURGE_DELAY: std::ffi::c_int = 15;
const PURGE_DELAY_MS: std::ffi::c_long = 10_000;

extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    #[cfg(test)]
    fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
}

/// Sets the purge delay. Called once, when the addon loads.
pub fn tune() {
    // SAFETY: a plain setter on mimalloc's option table, which mimalloc guards itself; the option
    // index is checked by `tests::purge_delay_is_the_option_we_mean`.
    unsafe { mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purge_delay_is_the_option_we_mean() {
        // mimalloc v3's default purge delay is 1,000 ms; another option at this index would not
        // read 1,000 (unless the environment overrides it).
        // SAFETY: plain getters and setters on mimalloc's option table.
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(unsafe { mi_option_get(PURGE_DELAY) }, 1_000);
        }
        tune();
        assert_eq!(unsafe { mi_option_get(PURGE_DELAY) }, PURGE_DELAY_MS);
    }
}
