//! A JS string's UTF-8, read with one Node-API copy into a buffer this thread keeps.
//!
//! Image payloads are megabytes of base64. napi-rs's `String` conversion asks V8 for the UTF-8
//! length (one pass), allocates, copies (a second pass) and validates: 4–9 ms for a 3.8 MB
//! payload here. Asking for the copy straight into a kept buffer sized for the common all-ASCII
//! case takes ~0.4 ms, and the pages are already mapped from the last image.

use napi::sys;
use std::cell::RefCell;
use std::ptr;

/// Buffers larger than this are released after use instead of kept for the next image.
const KEEP_BYTES: usize = 64 * 1024 * 1024;
/// Room past the UTF-16 length: if V8 stopped with less than this unused, the copy may be cut.
const SLACK: usize = 8;

thread_local! {
    static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn copy_utf8(
    env: sys::napi_env,
    value: sys::napi_value,
    buf: &mut Vec<u8>,
    cap: usize,
) -> Option<usize> {
    if buf.len() < cap {
        buf.resize(cap, 0);
    }
    let mut written = 0usize;
    // SAFETY: `buf` has at least `cap` writable bytes; Node-API writes at most `cap - 1` bytes and
    // a terminating NUL, and reports how many it wrote (without the NUL).
    let status = unsafe {
        sys::napi_get_value_string_utf8(env, value, buf.as_mut_ptr().cast(), cap, &mut written)
    };
    (status == sys::Status::napi_ok).then_some(written)
}

fn read_into(env: sys::napi_env, value: sys::napi_value, buf: &mut Vec<u8>) -> Option<usize> {
    let mut units = 0usize;
    // SAFETY: a null buffer asks only for the length in UTF-16 code units.
    let status =
        unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut units) };
    if status != sys::Status::napi_ok {
        return None;
    }
    // All-ASCII (every base64 payload) is one byte per unit: one copy.
    let cap = units.checked_add(SLACK)?;
    let written = copy_utf8(env, value, buf, cap)?;
    if written + SLACK > cap {
        // Non-ASCII text filled the buffer: ask for the exact length and copy again.
        let mut exact = 0usize;
        // SAFETY: a null buffer asks only for the UTF-8 length.
        let status =
            unsafe { sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut exact) };
        if status != sys::Status::napi_ok {
            return None;
        }
        return copy_utf8(env, value, buf, exact.checked_add(1)?);
    }
    Some(written)
}

/// Calls `f` with the UTF-8 bytes of the JS string `value` (lone surrogates become U+FFFD, as in
/// any Node-API UTF-8 read; not validated again here). `None` if `value` is not a string.
pub(super) fn with_utf8<R>(
    env: sys::napi_env,
    value: sys::napi_value,
    f: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    BUF.with(|cell| {
        let mut kept = cell.try_borrow_mut().ok();
        let mut local = Vec::new();
        let buf = kept.as_deref_mut().unwrap_or(&mut local);
        let len = read_into(env, value, buf)?;
        let out = buf.get(..len).map(f);
        if buf.len() > KEEP_BYTES {
            *buf = Vec::new();
        }
        out
    })
}
