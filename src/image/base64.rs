//! Base64 handling for image payloads: the strict validity check OpenClaw
//! applies before touching an image (`canonicalizeBase64`), size arithmetic
//! on canonical strings, and decoding of whole payloads or of a short head.
//!
//! Whitespace is the set JavaScript's `\s` (and `String.prototype.trim`)
//! removes, so payloads with MIME line breaks or stray NBSP/BOM characters are
//! treated exactly as the reference treats them.
//!
//! Decoding uses the standard alphabet but tolerates non-zero trailing bits in
//! the last quantum, because Node's `Buffer.from(s, "base64")` does and the
//! reference validates only with a character-class regex. Encoding uses the
//! `base64` crate's plain `STANDARD` engine.

use std::borrow::Cow;

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;

/// Standard alphabet, padding optional, trailing bits ignored (Node semantics).
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

pub(crate) use crate::js_text::is_js_whitespace;

/// True for a byte of the standard base64 alphabet, padding excluded.
/// Branch-free so that [`all_symbols`] vectorises.
#[inline]
pub(crate) fn is_b64_symbol(b: u8) -> bool {
    // Setting bit 5 folds A-Z onto a-z and maps no other byte into a-z.
    ((b | 0x20).wrapping_sub(b'a') < 26) | (b.wrapping_sub(b'0') < 10) | (b == b'+') | (b == b'/')
}

/// Whether every byte of a block is a base64 symbol, without early exit (SIMD compares).
fn block_of_symbols(block: &[u8]) -> bool {
    block.iter().fold(true, |ok, &b| ok & is_b64_symbol(b))
}

/// Whether every byte is a base64 symbol; scans in blocks of 64.
fn all_symbols(bytes: &[u8]) -> bool {
    bytes.chunks(64).all(block_of_symbols)
}

/// How many bytes at the start are base64 symbols: whole blocks of 64 checked at once, then the
/// first block that holds another byte one byte at a time. A byte-wise search branches on each
/// character's class and mispredicts on base64's random letters: it took 45% of perf's samples
/// of `benchmark/jpeg-far-header.mjs` when a far header was read from decoded prefixes.
fn symbols_prefix(bytes: &[u8]) -> usize {
    let mut at = 0;
    for block in bytes.chunks(64) {
        if !block_of_symbols(block) {
            return at + block.iter().take_while(|&&b| is_b64_symbol(b)).count();
        }
        at += block.len();
    }
    at
}

/// `^[A-Za-z0-9+/]+={0,2}$` and a length that is a multiple of four.
fn is_canonical(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return false;
    }
    let pad = b.iter().rev().take(2).take_while(|&&c| c == b'=').count();
    let body = &b[..b.len() - pad];
    !body.is_empty() && all_symbols(body)
}

/// Remove all whitespace; the result must be non-empty, `len % 4 == 0` and
/// match `^[A-Za-z0-9+/]+={0,2}$`. Borrowed when nothing was removed.
pub fn canonicalize_base64(data: &str) -> Option<Cow<'_, str>> {
    // Common case: already canonical, one pass, no allocation.
    if is_canonical(data) {
        return Some(Cow::Borrowed(data));
    }
    let cleaned: String = data.chars().filter(|&c| !is_js_whitespace(c)).collect();
    // Nothing removed means the input itself was checked and found invalid.
    (cleaned.len() != data.len() && is_canonical(&cleaned)).then_some(Cow::Owned(cleaned))
}

/// OpenClaw 2026.9.6's `canonicalizeBase64`: characters up to U+0020 removed, the alphabet and
/// at most two trailing `=` checked, a missing padding added (a length of 4k+1 is refused), and
/// the bits the last character does not use must be zero. Borrowed when nothing changed.
pub fn canonicalize_base64_padding(data: &str) -> Option<Cow<'_, str>> {
    let cleaned: Cow<'_, str> = if data.bytes().any(|c| c <= b' ') {
        Cow::Owned(data.chars().filter(|&c| c > ' ').collect())
    } else {
        Cow::Borrowed(data)
    };
    let b = cleaned.as_bytes();
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    let body = &b[..b.len() - pad];
    if body.is_empty() || pad > 2 || !all_symbols(body) {
        return None;
    }
    let rem = b.len() % 4;
    if rem != 0 && (pad > 0 || rem == 1) {
        return None;
    }
    let unused_bits = match if rem == 0 { pad } else { 4 - rem } {
        2 => 0b1111,
        1 => 0b11,
        _ => 0,
    };
    if symbol_value(body[body.len() - 1]) & unused_bits != 0 {
        return None;
    }
    Some(match (rem, cleaned) {
        (0, c) => c,
        (_, c) => Cow::Owned(format!("{c}{}", "=".repeat(4 - rem))),
    })
}

/// The value of a base64 symbol (63 for anything else).
pub(crate) fn symbol_value(c: u8) -> u8 {
    match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    }
}

/// Number of decoded bytes for a canonical base64 string of this length and padding.
pub fn decoded_len(canonical_b64: &str) -> usize {
    let b = canonical_b64.as_bytes();
    let pad = b.iter().rev().take(2).take_while(|&&c| c == b'=').count();
    (b.len() / 4).saturating_mul(3).saturating_sub(pad)
}

/// Decode a full canonical payload.
pub(crate) fn decode_canonical(canonical_b64: &str) -> Option<Vec<u8>> {
    LENIENT.decode(canonical_b64).ok()
}

/// Encode bytes with the standard padded alphabet.
pub(crate) fn encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Decode as many bytes of base64 as fit in `prefix` (a prefix of a canonical
/// string, any length; a trailing partial quantum is ignored). Decoding stops
/// at the first character outside the alphabet.
pub fn decode_base64_prefix(prefix: &str) -> Vec<u8> {
    let b = prefix.as_bytes();
    let symbols = symbols_prefix(b);
    let rem = symbols % 4;
    let mut end = symbols - rem;
    if rem >= 2 {
        // A final quantum closed by padding ("xx==" or "xxx=") is complete.
        let need = 4 - rem;
        let padded = b
            .get(symbols..symbols + need)
            .is_some_and(|p| p.iter().all(|&c| c == b'='));
        if padded {
            end = symbols + need;
        }
    }
    LENIENT.decode(&b[..end]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_input_is_borrowed() {
        let c = canonicalize_base64("QUJD").unwrap();
        assert!(matches!(c, Cow::Borrowed("QUJD")));
        assert!(matches!(
            canonicalize_base64("QUI="),
            Some(Cow::Borrowed(_))
        ));
        assert!(matches!(
            canonicalize_base64("QQ=="),
            Some(Cow::Borrowed(_))
        ));
    }

    #[test]
    fn whitespace_is_removed() {
        let c = canonicalize_base64(" QU\r\nJD\tRA\u{0B}==\n").unwrap();
        assert_eq!(c, "QUJDRA==");
        assert!(matches!(c, Cow::Owned(_)));
        // JS `\s` also covers NBSP, BOM and the Unicode spaces.
        let c = canonicalize_base64("\u{FEFF}QUJD\u{00A0}\u{2003}").unwrap();
        assert_eq!(c, "QUJD");
    }

    #[test]
    fn invalid_inputs_are_rejected() {
        for bad in [
            "",
            "   ",
            "not base64!!",
            "QUJ",      // length
            "QUJD=",    // length
            "A===",     // three pads
            "====",     // no symbols
            "QU=D",     // inner padding
            "QUJD-_==", // url alphabet
            "QUJDé===",
        ] {
            assert!(canonicalize_base64(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn symbol_class_is_exact() {
        for b in 0..=255u8 {
            let expected = b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
            assert_eq!(is_b64_symbol(b), expected, "{b:#04x}");
        }
    }

    #[test]
    fn decoded_len_counts_padding() {
        assert_eq!(decoded_len("QUJD"), 3);
        assert_eq!(decoded_len("QUI="), 2);
        assert_eq!(decoded_len("QQ=="), 1);
        assert_eq!(decoded_len(""), 0);
        assert_eq!(decoded_len("QUJDRA=="), 4);
    }

    #[test]
    fn decoding_tolerates_trailing_bits_like_node() {
        // "QR==" has non-zero bits after the single byte; Node decodes it to "A".
        assert_eq!(decode_canonical("QR==").unwrap(), b"A");
        assert_eq!(decode_canonical("QUJD").unwrap(), b"ABC");
    }

    #[test]
    fn prefix_decoding_drops_partial_quanta() {
        assert_eq!(decode_base64_prefix("QUJDRE"), b"ABC");
        assert_eq!(decode_base64_prefix("QUJDREU"), b"ABC");
        assert_eq!(decode_base64_prefix("QUJDREVG"), b"ABCDEF");
        assert_eq!(decode_base64_prefix("QUJDRA=="), b"ABCD");
        assert_eq!(decode_base64_prefix("QUJDREU="), b"ABCDE");
        assert_eq!(decode_base64_prefix("QUJDRA="), b"ABC");
        assert_eq!(decode_base64_prefix("QUJD!!!!"), b"ABC");
        assert!(decode_base64_prefix("").is_empty());
        assert!(decode_base64_prefix("é").is_empty());
        // A stop in any place of a 64-character block, and none.
        let long = "QUJD".repeat(40);
        for stop in [0, 1, 63, 64, 65, 130, 159] {
            let mut cut = long.clone();
            cut.replace_range(stop..stop + 1, "!");
            assert_eq!(symbols_prefix(cut.as_bytes()), stop);
            assert_eq!(decode_base64_prefix(&cut).len(), stop / 4 * 3);
        }
        assert_eq!(symbols_prefix(long.as_bytes()), 160);
    }

    #[test]
    fn encode_round_trips() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        let s = encode(&bytes);
        assert_eq!(decode_canonical(&s).unwrap(), bytes);
        assert_eq!(decoded_len(&s), bytes.len());
    }
}
