//! mimalloc as the global allocator, in the builds that turn a `mimalloc-*` feature on (the
//! allocator benchmark's); the published addon uses the system allocator.
//!
//! Until 0.1 the addon used mimalloc 3 (as vendored by `libmimalloc-sys` 0.1.49). mimalloc records
//! the first thread that allocates as its main thread; after that thread exits, a later thread
//! can adopt its torn-down heap, and the process dies with SIGSEGV. In a Node addon that first
//! thread is whichever worker loaded the package first, so every recycling worker pool (piscina,
//! tinypool, a test runner's threads) killed its host. The features below build the alternatives
//! so `benchmark/allocators.sh` can measure them side by side; the README's Runtimes section has
//! the figures and the thread patterns each was run through.
//!
//! With a mimalloc feature, the purge delay is raised from mimalloc's default to 10 s (freed
//! memory was purged and faulted in again on every long transcript pass; faults per
//! 10,000-message call went from 57 to 29), as 0.1 did.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (milliseconds; the same index in v2
/// and v3).
const PURGE_DELAY: std::ffi::c_int = 15;
const PURGE_DELAY_MS: std::ffi::c_long = 10_000;

extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// Called once when the addon loads (`src/napi/mod.rs`).
pub fn tune() {
    // SAFETY: a plain setter on mimalloc's option table, which mimalloc guards itself.
    unsafe { mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) }
}
