//! Image bytes as the 2026.3.23 header readers ask for them, from a slice or straight from a
//! canonical base64 payload.
//!
//! sharp's metadata (2026.3.23) reads a JPEG's markers up to its scan and a PNG's chunks up to
//! its pixels ([`super::sharp_header`]). Screenshots and camera photos often carry a large EXIF
//! or ICC segment before those: reading the header from growing decoded prefixes decoded (and
//! scanned) tens of kilobytes the reader then skips. [`Base64Bytes`] gives byte `i` of the
//! payload by decoding the four characters that hold it, so the readers decode only the bytes
//! they read, once, whatever lies between.

use std::cell::Cell;

use super::base64::symbol_value;

/// Bytes read one at a time by position.
pub(crate) trait ByteSource {
    /// How many bytes there are.
    fn len(&self) -> usize;
    /// Byte `i`, `None` past the end.
    fn at(&self, i: usize) -> Option<u8>;
}

impl ByteSource for &[u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.get(i).copied()
    }
}

/// The bytes a canonical base64 payload (whitespace removed, alphabet and padding checked)
/// decodes to, decoded three at a time as they are read.
pub(crate) struct Base64Bytes<'a> {
    text: &'a [u8],
    len: usize,
    /// The last group of three decoded: its index + 1 (0: none yet) and its bytes.
    group: Cell<(usize, [u8; 3])>,
}

impl<'a> Base64Bytes<'a> {
    /// `canonical` must be canonical base64 ([`super::canonicalize_base64`]'s output).
    pub(crate) fn new(canonical: &'a str) -> Self {
        Base64Bytes {
            text: canonical.as_bytes(),
            len: super::decoded_len(canonical),
            group: Cell::new((0, [0; 3])),
        }
    }
}

impl ByteSource for Base64Bytes<'_> {
    fn len(&self) -> usize {
        self.len
    }

    fn at(&self, i: usize) -> Option<u8> {
        if i >= self.len {
            return None;
        }
        let q = i / 3;
        let (cached, mut bytes) = self.group.get();
        if cached != q + 1 {
            let c = self.text.get(q * 4..q * 4 + 4)?;
            // Padding reads as a value too, for bytes past the end that are never given.
            let v = |k: usize| u32::from(symbol_value(c[k]));
            let n = (v(0) << 18) | (v(1) << 12) | (v(2) << 6) | v(3);
            bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            self.group.set((q + 1, bytes));
        }
        Some(bytes[i % 3])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_the_payload_decodes_to_in_any_order() {
        let bytes: Vec<u8> = (0..=255u8).chain(0..7).collect();
        for len in [0, 1, 2, 3, 4, 5, 100, bytes.len()] {
            let text = super::super::base64::encode(&bytes[..len]);
            let view = Base64Bytes::new(&text);
            assert_eq!(view.len(), len);
            // Backwards, so that no read finds its group cached from the one before.
            for i in (0..len + 4).rev() {
                assert_eq!(view.at(i), bytes[..len].get(i).copied(), "{len}: byte {i}");
            }
            let slice = &bytes[..len];
            assert_eq!(ByteSource::len(&slice), len);
            assert_eq!(slice.at(len), None);
        }
    }
}
