//! The clock of the timing tests (linearity ratios): the CPU time of the calling thread. A wall
//! clock also counts the time the thread waited for a core, which on a shared machine (other tests
//! in this process, the node suite beside `cargo test`, other builds) can double one measurement
//! and not the other, and read as a quadratic step. CPU time counts only the work done.

/// Seconds of CPU time the calling thread has used so far (Unix: `CLOCK_THREAD_CPUTIME_ID`;
/// elsewhere a monotonic wall clock, which is what the tests used before).
#[cfg(unix)]
pub(crate) fn thread_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[cfg(not(unix))]
pub(crate) fn thread_seconds() -> f64 {
    use std::sync::LazyLock;
    use std::time::Instant;
    static START: LazyLock<Instant> = LazyLock::new(Instant::now);
    START.elapsed().as_secs_f64()
}

/// The CPU seconds `f` took on this thread, and its result.
pub(crate) fn time<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let start = thread_seconds();
    let out = f();
    (thread_seconds() - start, out)
}

/// The least CPU seconds of `runs` calls of `f` on this thread (the least is the run the rest of
/// the machine disturbed least), and the last call's result for the test to check.
pub(crate) fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let (mut best, mut out) = time(&mut f);
    for _ in 1..runs {
        let (took, o) = time(&mut f);
        best = best.min(took);
        out = o;
    }
    (best, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_work_and_not_sleep() {
        let (slept, ()) = time(|| std::thread::sleep(std::time::Duration::from_millis(50)));
        let (worked, sum) = time(|| {
            (0..20_000_000u64).fold(0u64, |a, b| std::hint::black_box(a.wrapping_add(b * b)))
        });
        assert!(sum > 0);
        assert!(worked > 0.0, "a busy loop used no CPU time");
        #[cfg(unix)]
        assert!(
            slept < 0.025,
            "a 50 ms sleep counted as {slept:.3} s of CPU time"
        );
        let _ = slept;
    }
}
