//! Test-only helpers that build real image files in memory with the `image`
//! crate (or by hand where a header must say something a real file cannot).

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{DynamicImage, ExtendedColorType, ImageEncoder, ImageFormat, Rgb, RgbImage};

/// Small deterministic PRNG (xorshift64*), enough for noise and fuzzing.
pub(crate) struct XorShift(u64);

impl XorShift {
    pub(crate) fn new(seed: u64) -> Self {
        XorShift(seed.max(1))
    }

    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

pub(crate) fn gradient_rgb(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        Rgb([
            (x * 255 / w.max(1)) as u8,
            (y * 255 / h.max(1)) as u8,
            ((x + y) % 256) as u8,
        ])
    })
}

pub(crate) fn noise_rgb(w: u32, h: u32, seed: u64) -> RgbImage {
    let mut rng = XorShift::new(seed);
    let mut data = vec![0u8; w as usize * h as usize * 3];
    for chunk in data.chunks_mut(8) {
        let v = rng.next().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
    RgbImage::from_raw(w, h, data).expect("buffer size matches")
}

fn write_as(img: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).expect("encode test image");
    out.into_inner()
}

/// PNG with the fastest compression and no filtering.
pub(crate) fn encode_png(img: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::NoFilter)
        .write_image(
            img.as_raw(),
            img.width(),
            img.height(),
            ExtendedColorType::Rgb8,
        )
        .expect("encode png");
    out
}

pub(crate) fn encode_png_dynamic(img: &DynamicImage) -> Vec<u8> {
    write_as(img.clone(), ImageFormat::Png)
}

pub(crate) fn encode_jpeg(img: &RgbImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, quality)
        .encode(
            img.as_raw(),
            img.width(),
            img.height(),
            ExtendedColorType::Rgb8,
        )
        .expect("encode jpeg");
    out
}

pub(crate) fn encode_gif(img: &RgbImage) -> Vec<u8> {
    write_as(DynamicImage::ImageRgb8(img.clone()), ImageFormat::Gif)
}

pub(crate) fn encode_webp_lossless(img: &RgbImage) -> Vec<u8> {
    write_as(DynamicImage::ImageRgb8(img.clone()), ImageFormat::WebP)
}

pub(crate) fn encode_bmp(img: &RgbImage) -> Vec<u8> {
    write_as(DynamicImage::ImageRgb8(img.clone()), ImageFormat::Bmp)
}

/// Insert a marker segment right after a JPEG's SOI.
pub(crate) fn insert_jpeg_segment(jpeg: &[u8], marker: u8, payload: &[u8]) -> Vec<u8> {
    let len = u16::try_from(payload.len() + 2).expect("segment fits");
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, marker]);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&jpeg[2..]);
    out
}

/// A JPEG whose APP1 Exif block carries the given orientation tag.
pub(crate) fn jpeg_with_orientation(img: &RgbImage, orientation: u16) -> Vec<u8> {
    let mut exif = b"Exif\0\0MM\0\x2a".to_vec();
    exif.extend_from_slice(&8u32.to_be_bytes()); // IFD0 offset
    exif.extend_from_slice(&1u16.to_be_bytes()); // one entry
    exif.extend_from_slice(&0x0112u16.to_be_bytes()); // Orientation
    exif.extend_from_slice(&3u16.to_be_bytes()); // SHORT
    exif.extend_from_slice(&1u32.to_be_bytes()); // count
    exif.extend_from_slice(&orientation.to_be_bytes());
    exif.extend_from_slice(&[0, 0]);
    exif.extend_from_slice(&0u32.to_be_bytes()); // no next IFD
    insert_jpeg_segment(&encode_jpeg(img, 90), 0xE1, &exif)
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn push_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A well-formed PNG skeleton whose IHDR declares `w × h` RGB8 pixels but
/// whose IDAT holds only a few bytes.
pub(crate) fn png_with_ihdr(w: u32, h: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    push_chunk(&mut out, b"IHDR", &ihdr);
    // zlib stream of a single empty stored block.
    push_chunk(
        &mut out,
        b"IDAT",
        &[0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0, 0, 0, 1],
    );
    push_chunk(&mut out, b"IEND", &[]);
    out
}

/// A 16-bit-per-channel RGB PNG.
pub(crate) fn encode_png16(w: u32, h: u32) -> Vec<u8> {
    let img = image::ImageBuffer::<image::Rgb<u16>, Vec<u16>>::from_fn(w, h, |x, y| {
        image::Rgb([
            (x * 65535 / w.max(1)) as u16,
            (y * 65535 / h.max(1)) as u16,
            40_000,
        ])
    });
    write_as(DynamicImage::ImageRgb16(img), ImageFormat::Png)
}

/// An animated GIF: a red frame, then a blue one.
pub(crate) fn animated_gif(w: u32, h: u32) -> Vec<u8> {
    use image::codecs::gif::{GifEncoder, Repeat};
    use image::{Delay, Frame, Rgba, RgbaImage};
    let mut out = Vec::new();
    {
        let mut enc = GifEncoder::new(&mut out);
        enc.set_repeat(Repeat::Infinite).expect("repeat");
        for colour in [[255, 0, 0, 255], [0, 0, 255, 255]] {
            let frame = Frame::from_parts(
                RgbaImage::from_pixel(w, h, Rgba(colour)),
                0,
                0,
                Delay::from_numer_denom_ms(100, 1),
            );
            enc.encode_frame(frame).expect("gif frame");
        }
    }
    out
}

fn riff_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(kind);
    out.extend_from_slice(&u32::try_from(data.len()).expect("chunk").to_le_bytes());
    out.extend_from_slice(data);
    if data.len() % 2 == 1 {
        out.push(0);
    }
}

fn u24(v: u32) -> [u8; 3] {
    let b = v.to_le_bytes();
    [b[0], b[1], b[2]]
}

/// An animated WebP (VP8X + ANIM + two ANMF frames of lossless VP8L): red, then blue.
pub(crate) fn animated_webp(w: u32, h: u32) -> Vec<u8> {
    let frame_chunk = |rgb: [u8; 3]| {
        let still = write_as(
            DynamicImage::ImageRgb8(RgbImage::from_pixel(w, h, Rgb(rgb))),
            ImageFormat::WebP,
        );
        // RIFF(4) size(4) WEBP(4), then the VP8L chunk as it is (header, data, padding).
        assert_eq!(&still[12..16], b"VP8L");
        still[12..].to_vec()
    };
    let mut body = b"WEBP".to_vec();
    let mut vp8x = vec![0x02, 0, 0, 0];
    vp8x.extend_from_slice(&u24(w - 1));
    vp8x.extend_from_slice(&u24(h - 1));
    riff_chunk(&mut body, b"VP8X", &vp8x);
    riff_chunk(&mut body, b"ANIM", &[255, 255, 255, 255, 0, 0]);
    for rgb in [[255, 0, 0], [0, 0, 255]] {
        let mut anmf = Vec::new();
        anmf.extend_from_slice(&u24(0));
        anmf.extend_from_slice(&u24(0));
        anmf.extend_from_slice(&u24(w - 1));
        anmf.extend_from_slice(&u24(h - 1));
        anmf.extend_from_slice(&u24(100));
        anmf.push(0b10); // no blending, no disposal
        anmf.extend_from_slice(&frame_chunk(rgb));
        riff_chunk(&mut body, b"ANMF", &anmf);
    }
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&u32::try_from(body.len()).expect("riff").to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// A CMYK JPEG (Adobe marker) of one flat colour, written by `jpeg-encoder`.
pub(crate) fn cmyk_jpeg(w: u16, h: u16, cmyk: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    let data = cmyk.repeat(usize::from(w) * usize::from(h));
    jpeg_encoder::Encoder::new(&mut out, 95)
        .encode(&data, w, h, jpeg_encoder::ColorType::Cmyk)
        .expect("cmyk jpeg");
    out
}
