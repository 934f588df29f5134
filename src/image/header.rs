//! Format detection and width/height from the first bytes of an image, without
//! decoding. This stands in for sharp's `metadata()` (which reads headers only),
//! and lets the pre-check decide on a few hundred base64 characters.
//!
//! Every read is bounds-checked through `slice::get`; offsets only grow through
//! checked arithmetic, so arbitrary input can never panic or loop forever.

/// Container formats recognised by their magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Png,
    Gif,
    Jpeg,
    WebP,
    Bmp,
}

impl Format {
    /// Whether sharp's prebuilt libvips can read this format. sharp has no BMP
    /// loader and rejects BMP with "Input buffer contains unsupported image format".
    pub(crate) fn sharp_readable(self) -> bool {
        !matches!(self, Format::Bmp)
    }
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

fn u16_be(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes([s[0], s[1]]))
}

fn u16_le(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

fn u24_le(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(3)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], 0]))
}

fn u32_be(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

fn u32_le(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// The format named by the magic bytes, if any.
pub(crate) fn sniff_format(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(PNG_SIGNATURE) {
        Some(Format::Png)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(Format::Gif)
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        Some(Format::Jpeg)
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some(Format::WebP)
    } else if bytes.starts_with(b"BM") {
        Some(Format::Bmp)
    } else {
        None
    }
}

/// Width/height read from the first bytes of an image only (PNG IHDR, GIF
/// logical screen, JPEG SOFn, WebP VP8/VP8L/VP8X, BMP). `None` if the header is
/// incomplete, malformed, declares a zero side, or the format is unknown.
pub fn header_dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let dims = match sniff_format(bytes)? {
        Format::Png => png(bytes),
        Format::Gif => gif(bytes),
        Format::Jpeg => jpeg(bytes),
        Format::WebP => webp(bytes),
        Format::Bmp => bmp(bytes),
    }?;
    (dims.0 > 0 && dims.1 > 0).then_some(dims)
}

fn png(b: &[u8]) -> Option<(u32, u32)> {
    // Signature, then the first chunk must be IHDR: length(4) type(4) w(4) h(4).
    if b.get(12..16)? != b"IHDR" {
        return None;
    }
    let (w, h) = (u32_be(b, 16)?, u32_be(b, 20)?);
    // PNG limits sides to 2^31 - 1; larger values are a corrupt header.
    (w <= i32::MAX as u32 && h <= i32::MAX as u32).then_some((w, h))
}

fn gif(b: &[u8]) -> Option<(u32, u32)> {
    Some((u32::from(u16_le(b, 6)?), u32::from(u16_le(b, 8)?)))
}

fn jpeg(b: &[u8]) -> Option<(u32, u32)> {
    let mut i = 2usize;
    loop {
        // Tolerate junk between segments (libjpeg does too) and fill bytes.
        while *b.get(i)? != 0xFF {
            i = i.checked_add(1)?;
        }
        while *b.get(i)? == 0xFF {
            i = i.checked_add(1)?;
        }
        let marker = *b.get(i)?;
        i = i.checked_add(1)?;
        match marker {
            // Stuffed zero, TEM, SOI and restart markers carry no length.
            0x00 | 0x01 | 0xD0..=0xD8 => continue,
            // End of image or start of scan before any frame header.
            0xD9 | 0xDA => return None,
            // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                // length(2) precision(1) height(2) width(2)
                let h = u16_be(b, i.checked_add(3)?)?;
                let w = u16_be(b, i.checked_add(5)?)?;
                return Some((u32::from(w), u32::from(h)));
            }
            _ => {
                let len = usize::from(u16_be(b, i)?);
                if len < 2 {
                    return None;
                }
                i = i.checked_add(len)?;
            }
        }
    }
}

fn webp(b: &[u8]) -> Option<(u32, u32)> {
    // RIFF(4) size(4) WEBP(4), then the first chunk: fourcc(4) size(4) data.
    match b.get(12..16)? {
        b"VP8 " => {
            // Frame tag (3 bytes), start code 9D 01 2A, then 14-bit sides.
            if b.get(23..26)? != [0x9D, 0x01, 0x2A] {
                return None;
            }
            let w = u16_le(b, 26)? & 0x3FFF;
            let h = u16_le(b, 28)? & 0x3FFF;
            Some((u32::from(w), u32::from(h)))
        }
        b"VP8L" => {
            if *b.get(20)? != 0x2F {
                return None;
            }
            let bits = u32_le(b, 21)?;
            Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        b"VP8X" => {
            // Flags(1) reserved(3), then canvas width-1 and height-1 as 24-bit.
            Some((u24_le(b, 24)? + 1, u24_le(b, 27)? + 1))
        }
        _ => None,
    }
}

fn bmp(b: &[u8]) -> Option<(u32, u32)> {
    // File header (14 bytes), then the DIB header whose size says its layout.
    let dib = u32_le(b, 14)?;
    if dib == 12 {
        // BITMAPCOREHEADER: unsigned 16-bit sides.
        return Some((u32::from(u16_le(b, 18)?), u32::from(u16_le(b, 20)?)));
    }
    if dib < 16 {
        return None;
    }
    // BITMAPINFOHEADER and later: signed 32-bit sides; negative height = top-down.
    let w = i32::from_le_bytes(u32_le(b, 18)?.to_le_bytes());
    let h = i32::from_le_bytes(u32_le(b, 22)?.to_le_bytes());
    if w <= 0 {
        return None;
    }
    Some((w.unsigned_abs(), h.unsigned_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::test_support::{
        encode_bmp, encode_gif, encode_jpeg, encode_png, encode_webp_lossless, gradient_rgb,
        insert_jpeg_segment, XorShift,
    };

    #[test]
    fn png_ihdr() {
        let png = encode_png(&gradient_rgb(37, 19));
        assert_eq!(sniff_format(&png), Some(Format::Png));
        assert_eq!(header_dimensions(&png), Some((37, 19)));
        assert_eq!(header_dimensions(&png[..24]), Some((37, 19)));
        assert_eq!(header_dimensions(&png[..23]), None);
    }

    #[test]
    fn gif_logical_screen() {
        let gif = encode_gif(&gradient_rgb(300, 7));
        assert_eq!(header_dimensions(&gif), Some((300, 7)));
        assert_eq!(header_dimensions(&gif[..10]), Some((300, 7)));
        assert_eq!(header_dimensions(&gif[..9]), None);
    }

    #[test]
    fn jpeg_skips_app_segments_before_sof() {
        let jpeg = encode_jpeg(&gradient_rgb(640, 33), 80);
        let mut app1 = b"Exif\0\0".to_vec();
        app1.extend_from_slice(&[0u8; 300]);
        let jpeg = insert_jpeg_segment(&jpeg, 0xE1, &app1);
        assert_eq!(jpeg[2..4], [0xFF, 0xE1]);
        assert_eq!(header_dimensions(&jpeg), Some((640, 33)));
    }

    #[test]
    fn jpeg_without_frame_header_is_unknown() {
        // SOI, APP0 (length 4), then SOS: no dimensions before the scan.
        let bytes = [
            0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xDA, 0x00,
        ];
        assert_eq!(header_dimensions(&bytes), None);
        // A segment length below 2 is corrupt.
        let bytes = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0xFF, 0xC0];
        assert_eq!(header_dimensions(&bytes), None);
    }

    #[test]
    fn webp_lossless_from_encoder() {
        let webp = encode_webp_lossless(&gradient_rgb(123, 45));
        assert_eq!(sniff_format(&webp), Some(Format::WebP));
        assert_eq!(header_dimensions(&webp), Some((123, 45)));
    }

    #[test]
    fn webp_lossy_and_extended_headers() {
        // Hand-made first bytes of a lossy (VP8) file: 500x300.
        let mut vp8 = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0".to_vec();
        vp8.extend_from_slice(&[0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A]);
        vp8.extend_from_slice(&500u16.to_le_bytes());
        vp8.extend_from_slice(&(300u16 | 0x4000).to_le_bytes()); // scale bits ignored
        assert_eq!(header_dimensions(&vp8), Some((500, 300)));
        assert_eq!(header_dimensions(&vp8[..29]), None);

        // Extended (VP8X): canvas 70000x2 stored minus one, 24-bit.
        let mut vp8x = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0".to_vec();
        vp8x.extend_from_slice(&[0x10, 0, 0, 0]);
        vp8x.extend_from_slice(&69_999u32.to_le_bytes()[..3]);
        vp8x.extend_from_slice(&1u32.to_le_bytes()[..3]);
        assert_eq!(header_dimensions(&vp8x), Some((70_000, 2)));
    }

    #[test]
    fn bmp_info_and_core_headers() {
        let bmp = encode_bmp(&gradient_rgb(21, 13));
        assert_eq!(sniff_format(&bmp), Some(Format::Bmp));
        assert_eq!(header_dimensions(&bmp), Some((21, 13)));

        let mut core = b"BM".to_vec();
        core.extend_from_slice(&[0u8; 12]);
        core.extend_from_slice(&12u32.to_le_bytes());
        core.extend_from_slice(&640u16.to_le_bytes());
        core.extend_from_slice(&480u16.to_le_bytes());
        assert_eq!(header_dimensions(&core), Some((640, 480)));

        // Top-down bitmap: negative height.
        let mut top_down = bmp.clone();
        top_down[22..26].copy_from_slice(&(-13i32).to_le_bytes());
        assert_eq!(header_dimensions(&top_down), Some((21, 13)));
    }

    #[test]
    fn zero_sides_are_unknown() {
        let mut png = encode_png(&gradient_rgb(4, 4));
        png[16..20].copy_from_slice(&0u32.to_be_bytes());
        assert_eq!(header_dimensions(&png), None);
    }

    #[test]
    fn unknown_and_empty_inputs() {
        assert_eq!(header_dimensions(b""), None);
        assert_eq!(header_dimensions(b"hello world, not an image"), None);
        assert_eq!(header_dimensions(&[0xFF]), None);
        assert_eq!(header_dimensions(&[0xFF, 0xD8]), None);
        assert_eq!(header_dimensions(&[0xFF, 0xD8, 0xFF, 0xFF, 0xFF]), None);
    }

    #[test]
    fn never_panics_on_truncated_or_random_bytes() {
        let img = gradient_rgb(50, 40);
        let mut jpeg = encode_jpeg(&img, 70);
        jpeg = insert_jpeg_segment(&jpeg, 0xE1, b"Exif\0\0MM\0*");
        let samples = [
            encode_png(&img),
            encode_gif(&img),
            jpeg,
            encode_webp_lossless(&img),
            encode_bmp(&img),
        ];
        for full in &samples {
            for end in 0..full.len().min(700) {
                let _ = header_dimensions(&full[..end]);
            }
        }
        // Random bodies behind every known magic, and fully random buffers.
        let mut rng = XorShift::new(0x5EED);
        let magics: [&[u8]; 8] = [
            b"\x89PNG\r\n\x1a\n",
            b"GIF89a",
            &[0xFF, 0xD8],
            b"RIFF\0\0\0\0WEBPVP8 ",
            b"RIFF\0\0\0\0WEBPVP8L",
            b"RIFF\0\0\0\0WEBPVP8X",
            b"BM",
            b"",
        ];
        for round in 0..4000 {
            let magic = magics[round % magics.len()];
            let len = (rng.next() % 96) as usize;
            let mut buf = magic.to_vec();
            buf.extend((0..len).map(|_| rng.next() as u8));
            let _ = header_dimensions(&buf);
        }
        // A JPEG made of markers only must terminate.
        let mut markers = vec![0xFF, 0xD8];
        markers.extend(std::iter::repeat_n(0xFF, 10_000));
        assert_eq!(header_dimensions(&markers), None);
    }
}
