//! Per-image step of the transcript hygiene image pass: the behaviour of
//! OpenClaw's `sanitizeContentBlocksImages` for one `{type:"image", data}`
//! block, in pure Rust with no Node types, plus the process-wide cache that
//! makes the step nearly free on every later turn.
//!
//! An image is kept (whitespace stripped, mime re-inferred) when its header
//! proves it is within the byte and pixel limits; otherwise it is re-encoded
//! as JPEG on a grid of sides and qualities until it fits, or replaced by an
//! explanatory text. [`precheck_from_head`] answers the common "small enough"
//! case from the first few hundred base64 characters, so the caller can avoid
//! moving the whole payload; [`sanitize_image_cached`] answers an image seen
//! before from [`cache`] for the cost of hashing it.
//!
//! The first pass, step by step (4000×3000 screenshot, 2-core VM; measured
//! by `steps.rs`): decode (PNG ~22 ms; JPEG at reduced scale when the target
//! allows, `jpeg_scaled.rs`, ~26 ms), one Lanczos3 pass (~11 ms) or a box
//! pre-shrink plus Lanczos3 for factors of 4 and more (`resize.rs`,
//! `preshrink.rs`), orientation on the small result (`orient.rs`), a SIMD
//! JPEG encoder (`encode.rs`, ~9 ms), and a quality search that usually
//! encodes once (`quality.rs`).
//!
//! Choices, and where they differ from the reference's sharp/libvips:
//! - Resizing: `fast_image_resize` with Lanczos3 (sharp's default kernel),
//!   with an integer box pre-shrink for factors of 4 and more.
//! - Encoding: baseline JPEG from `jpeg-encoder`, not mozjpeg, so byte sizes
//!   differ (larger) and a borderline image may land on another grid step.
//! - Readable formats: PNG, JPEG, GIF and WebP (first frame of an animation).
//!   BMP is refused with sharp's own "unsupported image format" message
//!   because sharp has no BMP loader; TIFF, AVIF and SVG, which sharp reads,
//!   are refused too (not built in here).
//! - A header that is intact over corrupt pixel data is kept when within
//!   limits, as sharp's header-only `metadata()` keeps it; a corrupt image that
//!   needs resizing is omitted, where sharp (`failOnError: false`) might still
//!   produce a partial JPEG.
//! - Alpha is composited before JPEG encoding onto black in 2026.3.23 mode
//!   (as sharp's JPEG writer, libvips, flattens) and dropped in 2026.9.6 mode,
//!   each pixel keeping its stored colour (as Photon's JPEG writer does).
//! - A `data:image/…;base64,` prefix is removed instead of making the payload
//!   invalid (`data_url.rs`).

mod base64;
mod byte_source;
pub mod cache;
mod data_url;
mod decode;
#[cfg(test)]
mod edge_tests;
mod encode;
mod header;
mod jpeg_scaled;
mod libjpeg_header;
mod mime;
mod orient;
mod png_partial;
mod preshrink;
mod quality;
mod reduce;
mod release;
mod resize;
mod sharp_header;
#[cfg(test)]
mod steps;
#[cfg(test)]
mod test_support;

use std::borrow::Cow;
use std::sync::Arc;

pub use self::base64::{
    canonicalize_base64, canonicalize_base64_padding, decode_base64_prefix, decoded_len,
};
pub use self::cache::{CacheStats, Digest};
/// A base64 data URL's payload and named image type (`transcript::wire::images` reads URLs).
pub(crate) use self::data_url::strip as strip_data_url;
pub use self::header::header_dimensions;
pub use self::mime::sniff_mime;

use self::byte_source::Base64Bytes;
use self::decode::{decode_within, over_pixel_limit};
use self::header::{sniff_format, Format};
use self::release::{estimated_decoded_len, Release};
use self::sharp_header::{Frame, Header};
use crate::openclaw::OpenClawVersion;

/// Longest side an image may keep without being resized (OpenClaw default).
pub const DEFAULT_MAX_DIMENSION_PX: u32 = 1200;
/// Largest decoded payload an image may keep (Anthropic's 5 MiB limit).
pub const DEFAULT_MAX_BYTES: usize = 5 * 1024 * 1024;

/// Default decode budget (option `maxDecodeBytes`): 256 MiB of pixels as
/// decoded, width × height × bytes per pixel.
pub const DEFAULT_MAX_DECODE_BYTES: u64 = decode::DECODE_BUDGET;

/// Size limits for one image. Zero values are treated as 1, as the reference
/// clamps both options with `Math.max(value, 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLimits {
    pub max_dimension_px: u32,
    pub max_bytes: usize,
    /// An image whose decoded pixels (width × height × bytes per pixel)
    /// would take more is omitted before decoding, with sharp's pixel-limit
    /// note; a JPEG to be shrunk counts at the reduced scale it decodes at.
    pub max_decode_bytes: u64,
    /// The OpenClaw release whose image step is reproduced (its caps, base64 rules and error
    /// texts differ: `release.rs`). [`ImageLimits::default`] names 2026.3.23: a Rust caller names
    /// the release; the JS functions pass theirs, or the process default
    /// ([`crate::openclaw::default_version`]).
    pub release: OpenClawVersion,
}

impl Default for ImageLimits {
    fn default() -> Self {
        ImageLimits {
            max_dimension_px: DEFAULT_MAX_DIMENSION_PX,
            max_bytes: DEFAULT_MAX_BYTES,
            max_decode_bytes: DEFAULT_MAX_DECODE_BYTES,
            release: OpenClawVersion::V2026_3_23,
        }
    }
}

impl ImageLimits {
    fn clamped(self) -> (u32, usize) {
        (self.max_dimension_px.max(1), self.max_bytes.max(1))
    }
}

/// What to do with one image block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageDecision {
    /// Within limits: keep the payload ([`canonical_payload`] of it when
    /// `canonical_changed`); `mime` is the inferred type (or None = keep declared).
    Keep {
        canonical_changed: bool,
        mime: Option<&'static str>,
    },
    /// Re-encoded: new base64 JPEG data, mime "image/jpeg", plus new width/height
    /// and the JPEG quality used.
    Replaced {
        data: String,
        mime: &'static str,
        width: u32,
        height: u32,
        quality: u8,
    },
    /// Cannot be used: the reason text without the `[label] ` prefix.
    Omitted { reason: String },
}

/// Base64 characters decoded up front for the header (3 KiB of image bytes).
const HEAD_CHARS: usize = 4096;

const REASON_EMPTY: &str = "omitted empty image payload";
const REASON_INVALID_BASE64: &str = "omitted image payload: invalid base64";

fn omitted(reason: &str) -> ImageDecision {
    ImageDecision::Omitted {
        reason: reason.to_owned(),
    }
}

/// `String(err)` of a JavaScript `Error` is `"Error: " + message`.
fn omitted_error(message: &str) -> ImageDecision {
    ImageDecision::Omitted {
        reason: format!("omitted image payload: Error: {message}"),
    }
}

fn within(dims: (u32, u32), max_dim: u32) -> bool {
    dims.0 <= max_dim && dims.1 <= max_dim
}

/// The base64 rules of `release` (2026.9.6 accepts and re-pads unpadded base64).
fn canonicalize(payload: &str, release: OpenClawVersion) -> Option<Cow<'_, str>> {
    if Release::of(release).unpadded_base64 {
        canonicalize_base64_padding(payload)
    } else {
        canonicalize_base64(payload)
    }
}

/// The payload an image keeps under OpenClaw `release`'s rules: any data-URL prefix and all
/// whitespace removed (2026.9.6: padding added). `None` when it is not valid base64.
pub fn canonical_payload(data: &str, release: OpenClawVersion) -> Option<Cow<'_, str>> {
    let (payload, _, stripped) = data_url::strip(data);
    let canonical = canonicalize(payload, release)?;
    Some(match canonical {
        Cow::Borrowed(c) if !stripped => Cow::Borrowed(c),
        other => Cow::Owned(other.into_owned()),
    })
}

/// The whole per-image step on full data (see the module docs and the
/// reference, §4.7 step 3).
pub fn sanitize_image(data: &str, limits: ImageLimits) -> ImageDecision {
    let (max_dim, max_bytes) = limits.clamped();
    let release = Release::of(limits.release);
    if let Some(cap) = release.max_input_bytes {
        if estimated_decoded_len(data) > cap {
            return omitted(&format!(
                "omitted image payload: image exceeds input size limit ({})",
                (release.size)(cap)
            ));
        }
    }
    if data.chars().all(base64::is_js_whitespace) {
        return omitted(REASON_EMPTY);
    }
    let (payload, url_mime, stripped) = data_url::strip(data);
    if payload.chars().all(base64::is_js_whitespace) {
        return omitted(REASON_EMPTY);
    }
    let Some(canonical) = canonicalize(payload, limits.release) else {
        return omitted(REASON_INVALID_BASE64);
    };
    let canonical_changed = stripped || matches!(canonical, Cow::Owned(_));
    let mime = sniff_mime(&canonical).or(url_mime);
    let keep = ImageDecision::Keep {
        canonical_changed,
        mime,
    };
    let total_len = decoded_len(&canonical);
    let fits = |(w, h): (u32, u32)| {
        total_len <= max_bytes
            && within((w, h), max_dim)
            && !over_pixel_limit(w, h)
            && release.over_pixel_limit(w, h).is_none()
    };

    // sharp's metadata() reads only the header, and only for formats it knows.
    // Most headers sit in the first bytes, so try those before decoding it all.
    let head_end = canonical.len().min(HEAD_CHARS);
    let head = decode_base64_prefix(&canonical[..head_end]);
    let readable = sniff_format(&head).is_some_and(|f| f.sharp_readable());
    let mut header = if readable {
        header_dimensions(&head)
    } else {
        None
    };
    // 2026.3.23: sharp's metadata reads JPEG markers up to the scan and PNG chunks up to the
    // pixels, and refuses what it cannot read, whatever the size.
    let format = sniff_format(&head);
    let sharp_read = format.filter(|f| release.sharp && matches!(f, Format::Jpeg | Format::Png));
    let mut meta = Header::NeedMore;
    if let Some(format) = sharp_read {
        // The whole payload, decoded only where the reader reads: markers or chunks past the
        // head (a large EXIF or ICC segment) are skipped by their length, not decoded.
        meta = sharp_header::read(format, &Base64Bytes::new(&canonical), true);
        match &meta {
            Header::Error(text) => return omitted(&release::sharp_corrupt_header(text)),
            // A JPEG frame past the head: its size as libjpeg read it.
            Header::Read(Frame {
                size: Some(size), ..
            }) if readable && header.is_none() => header = Some(*size),
            _ => {}
        }
    }
    if header.is_some_and(fits) {
        return keep;
    }
    let Some(bytes) = base64::decode_canonical(&canonical) else {
        return omitted(REASON_INVALID_BASE64);
    };
    drop(canonical);
    if readable && header.is_none() && bytes.len() > head.len() {
        // For example a JPEG whose EXIF/ICC segments push SOF further out.
        header = header_dimensions(&bytes);
        if header.is_some_and(fits) {
            return keep;
        }
    }

    if let Some(error) = header.and_then(|(w, h)| release.over_pixel_limit(w, h)) {
        return omitted(&error);
    }
    // With known dimensions the image will be shrunk to the grid's first side
    // at most, and a JPEG can be decoded at a reduced scale for it.
    let fit_side = header.and_then(|(w, h)| reduce::first_side(max_dim, w.max(h)));
    let frame = match &meta {
        Header::Read(frame) => frame,
        _ => &Frame::PLAIN,
    };
    if let Some((text, cut)) = &frame.start_error {
        return omitted(&release::sharp_jpeg_start(text, *cut));
    }
    // libjpeg reads a scan header's last bytes past the end and only warns of them.
    let completed = (frame.scan_header_missing > 0)
        .then(|| libjpeg_header::with_scan_header(&bytes, frame.scan_header_missing));
    let input = completed.as_deref().unwrap_or(&bytes);
    let alpha = release.alpha;
    let decoded = match decode_within(input, fit_side, limits.max_decode_bytes, alpha) {
        Ok(d) => d,
        Err(message) => {
            let partial = (sharp_read == Some(Format::Png) && message != decode::MSG_PIXEL_LIMIT)
                .then(|| png_partial::decode(&bytes, limits.max_decode_bytes, alpha))
                .flatten();
            match partial {
                Some(Ok(d)) => d,
                Some(Err(text)) => return omitted_error(&text),
                // libvips reads a 12-bit header, then refuses to decode it.
                None if frame.precision != 8 => {
                    return omitted(&format!(
                    "omitted image payload: Error: VipsJpeg: Unsupported JPEG data precision {}",
                    frame.precision
                ))
                }
                None => return omitted(&release.decode_failure(header.is_some(), &message)),
            }
        }
    };
    if header.is_none() && fits(decoded.stored) {
        // The header parser missed it, but the decoder read it and it fits.
        return keep;
    }
    match reduce::reduce_to_jpeg(
        decoded,
        max_dim,
        max_bytes,
        bytes.len(),
        release.not_reducible,
    ) {
        Ok(r) => ImageDecision::Replaced {
            data: base64::encode(&r.jpeg),
            mime: "image/jpeg",
            width: r.width,
            height: r.height,
            quality: r.quality,
        },
        Err(message) => omitted_error(&message),
    }
}

/// [`sanitize_image`] on a payload's UTF-8 bytes, through the process-wide
/// cache: the bytes are hashed and a decision made for the same string and
/// limits before is returned as it is (no UTF-8 validation on a hit). Also
/// returns the digest (`None` with the cache off), so a caller that can
/// recognise the same string again may skip the hash next time
/// ([`cached_by_digest`]).
pub fn sanitize_image_cached(
    data: &[u8],
    limits: ImageLimits,
) -> (Arc<ImageDecision>, Option<Digest>) {
    // Bytes that are not UTF-8 cannot be base64 either.
    let decide = || match std::str::from_utf8(data) {
        Ok(s) => sanitize_image(s, limits),
        Err(_) => omitted(REASON_INVALID_BASE64),
    };
    let cache = cache::global();
    if !cache.enabled() {
        return (Arc::new(decide()), None);
    }
    let digest = cache::digest(data);
    if let Some(hit) = cache.get(&digest, limits) {
        return (hit, Some(digest));
    }
    let decision = Arc::new(decide());
    cache.put(&digest, limits, Arc::clone(&decision));
    (decision, Some(digest))
}

/// The cached decision for a payload whose digest the caller already knows
/// (it hashed the very same string before); `None` sends it back to
/// [`sanitize_image_cached`] with the data.
pub fn cached_by_digest(digest: &Digest, limits: ImageLimits) -> Option<Arc<ImageDecision>> {
    cache::global().peek(digest, limits)
}

/// Fast pre-check: given the total length of the (uncanonicalised) base64
/// string and its first characters, return `Some(Keep { .. })` when the head
/// alone proves the image is within limits; `None` when the full data is needed.
///
/// The head must be free of whitespace and valid base64 (padding only if the
/// head is the whole string), the total length a multiple of four, the decoded
/// length (upper bound unless the head is the whole string) within
/// `max_bytes`, and the header dimensions known and within `max_dimension_px`.
/// The tail is not seen: the caller must only use this when it can vouch that
/// the rest of the string is plain base64 too, or accept that a payload with a
/// corrupt tail is kept unchanged.
pub fn precheck_from_head(
    total_len: usize,
    head: &str,
    limits: ImageLimits,
) -> Option<ImageDecision> {
    let (max_dim, max_bytes) = limits.clamped();
    if head.is_empty() || head.len() > total_len || !total_len.is_multiple_of(4) {
        return None;
    }
    let whole = head.len() == total_len;
    let decoded = if whole {
        // Borrowed means valid and nothing to strip.
        match canonicalize(head, limits.release)? {
            Cow::Borrowed(_) => decoded_len(head),
            Cow::Owned(_) => return None,
        }
    } else {
        if !head.bytes().all(base64::is_b64_symbol) {
            return None;
        }
        (total_len / 4).checked_mul(3)?
    };
    if decoded > max_bytes {
        return None;
    }
    let prefix = decode_base64_prefix(head);
    if !sniff_format(&prefix).is_some_and(|f| f.sharp_readable()) {
        return None;
    }
    // 2026.3.23: a JPEG head must reach its scan; a PNG head must not end early (when its first
    // IDAT chunk lies past the head, the unseen rest is trusted like any other tail: screenshots
    // often carry a colour profile and EXIF before their pixels).
    let format = sniff_format(&prefix);
    if Release::of(limits.release).sharp {
        match format.map(|f| sharp_header::read(f, &prefix.as_slice(), whole)) {
            Some(Header::Error(_)) => return None,
            Some(Header::NeedMore) if format == Some(Format::Jpeg) => return None,
            _ => {}
        }
    }
    let dims = header_dimensions(&prefix)?;
    if !within(dims, max_dim) || over_pixel_limit(dims.0, dims.1) {
        return None;
    }
    Some(ImageDecision::Keep {
        canonical_changed: false,
        mime: sniff_mime(head),
    })
}

#[cfg(test)]
mod tests {
    use super::test_support::{
        encode_bmp, encode_gif, encode_jpeg, encode_png, encode_png_dynamic, encode_webp_lossless,
        gradient_rgb, insert_jpeg_segment, jpeg_with_orientation, noise_rgb, png_with_ihdr,
        XorShift,
    };
    use super::*;
    use ::base64::engine::general_purpose::STANDARD;
    use ::base64::Engine as _;
    use image::{DynamicImage, GenericImageView, ImageFormat, Rgba, RgbaImage};

    fn b64(bytes: &[u8]) -> String {
        STANDARD.encode(bytes)
    }

    fn replaced(decision: ImageDecision) -> (Vec<u8>, u32, u32) {
        match decision {
            ImageDecision::Replaced {
                data,
                mime,
                width,
                height,
                ..
            } => {
                assert_eq!(mime, "image/jpeg");
                (STANDARD.decode(data).unwrap(), width, height)
            }
            other => panic!("expected Replaced, got {other:?}"),
        }
    }

    fn reason(decision: ImageDecision) -> String {
        match decision {
            ImageDecision::Omitted { reason } => reason,
            other => panic!("expected Omitted, got {other:?}"),
        }
    }

    #[test]
    fn wide_png_is_resized_like_sharp() {
        let png = encode_png(&gradient_rgb(2600, 400));
        let (jpeg, w, h) = replaced(sanitize_image(&b64(&png), ImageLimits::default()));
        assert_eq!((w, h), (1200, 185));
        assert_eq!(image::guess_format(&jpeg).unwrap(), ImageFormat::Jpeg);
        let back = image::load_from_memory(&jpeg).unwrap();
        assert_eq!(back.dimensions(), (1200, 185));
    }

    #[test]
    fn oversized_noisy_png_is_brought_under_five_mib() {
        let png = encode_png(&noise_rgb(2800, 2800, 42));
        assert!(
            png.len() > DEFAULT_MAX_BYTES,
            "fixture is {} bytes",
            png.len()
        );
        let (jpeg, w, h) = replaced(sanitize_image(&b64(&png), ImageLimits::default()));
        assert!(jpeg.len() <= DEFAULT_MAX_BYTES);
        assert_eq!((w, h), (1200, 1200));
        assert_eq!(
            image::load_from_memory(&jpeg).unwrap().dimensions(),
            (1200, 1200)
        );
    }

    #[test]
    fn small_png_is_kept_with_sniffed_mime() {
        // Whatever the block declared (say image/jpeg), the data says PNG.
        let data = b64(&encode_png(&gradient_rgb(64, 48)));
        assert_eq!(
            sanitize_image(&data, ImageLimits::default()),
            ImageDecision::Keep {
                canonical_changed: false,
                mime: Some("image/png"),
            }
        );
    }

    #[test]
    fn jpeg_and_gif_payloads_get_their_mime() {
        let jpeg = b64(&encode_jpeg(&gradient_rgb(40, 30), 80));
        assert!(jpeg.starts_with("/9j/"));
        assert_eq!(
            sanitize_image(&jpeg, ImageLimits::default()),
            ImageDecision::Keep {
                canonical_changed: false,
                mime: Some("image/jpeg"),
            }
        );
        let gif = b64(&encode_gif(&gradient_rgb(20, 10)));
        assert!(matches!(
            sanitize_image(&gif, ImageLimits::default()),
            ImageDecision::Keep {
                mime: Some("image/gif"),
                ..
            }
        ));
    }

    #[test]
    fn jpeg_with_late_frame_header_is_kept() {
        // A 20 kB APP2 segment pushes SOF far past the decoded head.
        let jpeg = encode_jpeg(&gradient_rgb(40, 30), 80);
        let jpeg = insert_jpeg_segment(&jpeg, 0xE2, &[7u8; 20_000]);
        assert_eq!(header_dimensions(&jpeg[..HEAD_CHARS / 4 * 3]), None);
        assert_eq!(
            sanitize_image(&b64(&jpeg), ImageLimits::default()),
            ImageDecision::Keep {
                canonical_changed: false,
                mime: Some("image/jpeg"),
            }
        );
    }

    #[test]
    fn webp_is_kept_with_declared_mime() {
        let webp = b64(&encode_webp_lossless(&gradient_rgb(30, 30)));
        assert_eq!(
            sanitize_image(&webp, ImageLimits::default()),
            ImageDecision::Keep {
                canonical_changed: false,
                mime: None,
            }
        );
    }

    #[test]
    fn oversized_gif_and_webp_are_resized() {
        let gif = b64(&encode_gif(&gradient_rgb(300, 60)));
        let limits = ImageLimits {
            max_dimension_px: 100,
            ..ImageLimits::default()
        };
        let (_, w, h) = replaced(sanitize_image(&gif, limits));
        assert_eq!((w, h), (100, 20));
        let webp = b64(&encode_webp_lossless(&gradient_rgb(60, 300)));
        let (_, w, h) = replaced(sanitize_image(&webp, limits));
        assert_eq!((w, h), (20, 100));
    }

    #[test]
    fn invalid_and_empty_payloads() {
        let limits = ImageLimits::default();
        assert_eq!(
            reason(sanitize_image("not base64!!", limits)),
            "omitted image payload: invalid base64"
        );
        assert_eq!(
            reason(sanitize_image("   ", limits)),
            "omitted empty image payload"
        );
        assert_eq!(
            reason(sanitize_image("", limits)),
            "omitted empty image payload"
        );
        assert_eq!(
            reason(sanitize_image("\n\u{00A0}\t", limits)),
            "omitted empty image payload"
        );
        assert_eq!(
            reason(sanitize_image("QUJ", limits)),
            "omitted image payload: invalid base64"
        );
    }

    #[test]
    fn undecodable_payload_uses_sharps_message() {
        assert_eq!(
            reason(sanitize_image("aGVsbG8gd29ybGQ=", ImageLimits::default())),
            "omitted image payload: Error: Input buffer contains unsupported image format"
        );
    }

    #[test]
    fn bmp_is_unsupported_as_in_sharp() {
        let bmp = b64(&encode_bmp(&gradient_rgb(10, 10)));
        assert_eq!(
            reason(sanitize_image(&bmp, ImageLimits::default())),
            "omitted image payload: Error: Input buffer contains unsupported image format"
        );
        assert_eq!(
            precheck_from_head(bmp.len(), &bmp, ImageLimits::default()),
            None
        );
    }

    #[test]
    fn truncated_png_is_omitted_with_error() {
        let png = encode_png(&gradient_rgb(64, 64));
        // Cut inside IHDR: no header dimensions, and the decoder fails.
        let cut = b64(&png[..20]);
        let r = reason(sanitize_image(&cut, ImageLimits::default()));
        assert!(r.starts_with("omitted image payload: Error: "), "{r}");
        // Header intact but pixel data cut, and too large: the resize fails.
        let big = encode_png(&gradient_rgb(1500, 300));
        let cut = b64(&big[..big.len() / 2]);
        let r = reason(sanitize_image(&cut, ImageLimits::default()));
        assert!(r.starts_with("omitted image payload: Error: "), "{r}");
    }

    #[test]
    fn intact_header_within_limits_is_kept_like_sharp_metadata() {
        let png = encode_png(&gradient_rgb(100, 100));
        let cut = b64(&png[..png.len() / 2]);
        assert!(matches!(
            sanitize_image(&cut, ImageLimits::default()),
            ImageDecision::Keep { .. }
        ));
    }

    #[test]
    fn huge_declared_png_is_omitted_without_allocating() {
        let data = b64(&png_with_ihdr(100_000, 100_000));
        assert_eq!(
            reason(sanitize_image(&data, ImageLimits::default())),
            "omitted image payload: Error: Input image exceeds pixel limit"
        );
        // Large but under sharp's pixel limit: the decoder rejects the bad IDAT.
        let data = b64(&png_with_ihdr(16_000, 16_000));
        let r = reason(sanitize_image(&data, ImageLimits::default()));
        assert!(r.starts_with("omitted image payload: Error: "), "{r}");
    }

    #[test]
    fn whitespace_in_payload_marks_canonical_changed() {
        let data = b64(&encode_png(&gradient_rgb(16, 16)));
        let wrapped: String = data
            .as_bytes()
            .chunks(76)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect::<Vec<_>>()
            .join("\r\n");
        assert!(wrapped.contains('\n'));
        assert_eq!(
            sanitize_image(&format!("  {wrapped}\n"), ImageLimits::default()),
            ImageDecision::Keep {
                canonical_changed: true,
                mime: Some("image/png"),
            }
        );
    }

    #[test]
    fn over_bytes_but_small_dimensions_is_reencoded() {
        let png = encode_png(&noise_rgb(300, 300, 9));
        let limits = ImageLimits {
            max_bytes: 100_000,
            ..ImageLimits::default()
        };
        assert!(png.len() > limits.max_bytes);
        let (jpeg, w, h) = replaced(sanitize_image(&b64(&png), limits));
        assert!(jpeg.len() <= 100_000);
        assert_eq!((w, h), (300, 300));
    }

    #[test]
    fn irreducible_image_reports_limits() {
        let png = encode_png(&noise_rgb(200, 200, 5));
        let limits = ImageLimits {
            max_dimension_px: 150,
            max_bytes: 2_000,
            ..ImageLimits::default()
        };
        let r = reason(sanitize_image(&b64(&png), limits));
        assert!(
            r.starts_with(
                "omitted image payload: Error: Image could not be reduced below 0MB (got 0.0"
            ),
            "{r}"
        );
    }

    #[test]
    fn exif_orientation_is_applied_before_resizing() {
        let jpeg = jpeg_with_orientation(&gradient_rgb(2400, 1000), 6);
        let (out, w, h) = replaced(sanitize_image(&b64(&jpeg), ImageLimits::default()));
        assert_eq!((w, h), (500, 1200));
        assert_eq!(
            image::load_from_memory(&out).unwrap().dimensions(),
            (500, 1200)
        );
    }

    #[test]
    fn transparency_is_dropped_in_2026_9_6() {
        // A clear image comes out in the colour stored under its alpha, as Photon writes it;
        // 2026.3.23 mode flattens onto black as sharp does (png_partial.rs, recorded pixels).
        let img = RgbaImage::from_pixel(1600, 200, Rgba([30, 120, 200, 0]));
        let png = encode_png_dynamic(&DynamicImage::ImageRgba8(img));
        let limits = ImageLimits {
            release: OpenClawVersion::V2026_9_6,
            ..ImageLimits::default()
        };
        let (jpeg, w, h) = replaced(sanitize_image(&b64(&png), limits));
        assert_eq!((w, h), (1200, 150));
        let back = image::load_from_memory(&jpeg).unwrap().to_rgb8();
        let want = [30, 120, 200];
        assert!(back
            .pixels()
            .all(|p| p.0.iter().zip(want).all(|(&c, w)| c.abs_diff(w) <= 4)));
    }

    #[test]
    fn zero_limits_are_clamped_to_one() {
        let png = b64(&encode_png(&gradient_rgb(8, 4)));
        let limits = ImageLimits {
            max_dimension_px: 0,
            max_bytes: usize::MAX,
            ..ImageLimits::default()
        };
        let (_, w, h) = replaced(sanitize_image(&png, limits));
        assert_eq!((w, h), (1, 1));
    }

    #[test]
    fn never_panics_on_damaged_payloads() {
        let limits = ImageLimits {
            max_dimension_px: 16,
            ..ImageLimits::default()
        };
        let img = gradient_rgb(40, 24);
        let samples = [
            encode_png(&img),
            encode_jpeg(&img, 80),
            encode_gif(&img),
            encode_webp_lossless(&img),
        ];
        let mut rng = XorShift::new(99);
        for full in &samples {
            for end in (0..full.len()).step_by(7) {
                let _ = sanitize_image(&b64(&full[..end]), limits);
                let _ = precheck_from_head(full.len().div_ceil(3) * 4, &b64(&full[..end]), limits);
            }
            for _ in 0..40 {
                let mut damaged = full.clone();
                let at = (rng.next() as usize) % damaged.len();
                damaged[at] = rng.next() as u8;
                let _ = sanitize_image(&b64(&damaged), limits);
            }
        }
    }

    #[test]
    fn precheck_accepts_small_image_from_its_head() {
        let data = b64(&encode_png(&gradient_rgb(640, 480)));
        let head = &data[..64];
        assert_eq!(
            precheck_from_head(data.len(), head, ImageLimits::default()),
            Some(ImageDecision::Keep {
                canonical_changed: false,
                mime: Some("image/png"),
            })
        );
        // The whole string as head works too.
        assert!(precheck_from_head(data.len(), &data, ImageLimits::default()).is_some());
        // JPEG needs the SOF, which follows the quantisation tables; in 2026.3.23 mode also
        // every marker up to the scan, as sharp reads them (the Huffman tables follow the SOF).
        let jpeg = b64(&encode_jpeg(&gradient_rgb(300, 200), 80));
        let keep = Some(ImageDecision::Keep {
            canonical_changed: false,
            mime: Some("image/jpeg"),
        });
        let v96 = ImageLimits {
            release: OpenClawVersion::V2026_9_6,
            ..ImageLimits::default()
        };
        let to_sof = &jpeg[..400];
        assert_eq!(precheck_from_head(jpeg.len(), to_sof, v96), keep);
        assert_eq!(
            precheck_from_head(jpeg.len(), to_sof, ImageLimits::default()),
            None
        );
        let to_scan = &jpeg[..1024];
        assert_eq!(
            precheck_from_head(jpeg.len(), to_scan, ImageLimits::default()),
            keep
        );
        // A PNG's first IDAT chunk past the head (a 2 KB text chunk before it): its tail is
        // trusted, as any tail; one that ends inside its IHDR is left to the full path (sharp's
        // metadata refuses it).
        let png = encode_png(&gradient_rgb(40, 30));
        let note = "截图的说明".repeat(140);
        let mut text = (note.len() as u32).to_be_bytes().to_vec();
        text.extend_from_slice(b"tEXt");
        text.extend_from_slice(note.as_bytes());
        text.extend_from_slice(&[0; 4]);
        let far = b64(&[&png[..33], &text[..], &png[33..]].concat());
        let png_keep = Some(ImageDecision::Keep {
            canonical_changed: false,
            mime: Some("image/png"),
        });
        let limits = ImageLimits::default();
        assert_eq!(
            precheck_from_head(far.len(), &far[..1024], limits),
            png_keep
        );
        let cut = b64(&png[..30]);
        assert_eq!(precheck_from_head(cut.len(), &cut, limits), None);
        assert_eq!(precheck_from_head(cut.len(), &cut, v96), png_keep);
    }

    #[test]
    fn precheck_defers_when_in_doubt() {
        let limits = ImageLimits::default();
        let data = b64(&encode_png(&gradient_rgb(2600, 400)));
        // Too wide.
        assert_eq!(precheck_from_head(data.len(), &data[..64], limits), None);
        // Too many bytes for the limit.
        let small = b64(&encode_png(&gradient_rgb(64, 64)));
        let tight = ImageLimits {
            max_bytes: 100,
            ..limits
        };
        assert_eq!(precheck_from_head(small.len(), &small[..64], tight), None);
        // Length not a multiple of four, whitespace in the head, short head.
        assert_eq!(
            precheck_from_head(small.len() + 1, &small[..64], limits),
            None
        );
        let spaced = format!("{} {}", &small[..10], &small[10..63]);
        assert_eq!(precheck_from_head(small.len(), &spaced, limits), None);
        assert_eq!(precheck_from_head(small.len(), &small[..20], limits), None);
        assert_eq!(precheck_from_head(small.len(), "", limits), None);
        // Head longer than the total, and garbage.
        assert_eq!(precheck_from_head(8, &small[..64], limits), None);
        assert_eq!(precheck_from_head(400, "not base64!!", limits), None);
        // Huge declared dimensions.
        let huge = b64(&png_with_ihdr(100_000, 100_000));
        assert_eq!(precheck_from_head(huge.len(), &huge, limits), None);
    }

    #[test]
    fn precheck_agrees_with_full_path() {
        let limits = ImageLimits::default();
        for (w, h) in [(10, 10), (1200, 1200), (1201, 5), (5, 1201)] {
            let data = b64(&encode_png(&gradient_rgb(w, h)));
            let quick = precheck_from_head(data.len(), &data[..64], limits);
            let full = sanitize_image(&data, limits);
            match quick {
                Some(decision) => assert_eq!(decision, full, "{w}x{h}"),
                None => assert!(matches!(full, ImageDecision::Replaced { .. }), "{w}x{h}"),
            }
        }
    }
}
