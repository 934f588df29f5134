//! A PNG cut inside its pixel data, decoded as far as sharp (libspng) decodes it.
//!
//! OpenClaw 2026.3.23 decodes with `failOnError: false`: libvips reads a PNG row by row through
//! libspng and, when a row cannot be read, leaves it and the rows after it black. libspng reads
//! pixel data one whole `IDAT` chunk at a time and, before each row but the last, the next row's
//! filter byte too. So, recorded from the real sharp at every cut of a PNG
//! (`__test__/fixtures/sharp-texts.json`):
//! - no complete `IDAT` chunk, or one whose data inflates to nothing (not even the first filter
//!   byte): `pngload_buffer: end of stream`, the image omitted;
//! - an interlaced PNG (libvips decodes it whole) missing any of its pixel data: the same;
//! - otherwise row `y` is read when the complete chunks inflate to `(y + 1) × stride + 1` bytes
//!   (the last row: `height × stride`), and the image is shrunk with the other rows black.
//!
//! This package's decoder refuses the whole image instead, so the 2026.3.23 mode comes here when
//! it fails on a PNG that ends before its `IEND` chunk. An `eXIf` chunk before the pixels turns
//! the result as sharp's `rotate()` turns it (the rows not read end up where they are turned to);
//! the rows not read are zero, so they come out black in RGB and, flattened onto black as
//! libvips's JPEG writer flattens, with alpha too (recorded for RGBA, grey with alpha and a
//! palette with `tRNS`).

use std::io::Cursor;

use image::metadata::Orientation;
use image::{DynamicImage, ImageBuffer};
use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use super::decode::{over_budget, Decoded};
use super::resize::{flatten, Alpha};
use super::sharp_header::PNG_END_OF_STREAM;

/// The pixel data of a PNG that ends before its `IEND`.
struct Cut {
    /// The byte after the last complete `IDAT` chunk's data (0: none).
    data_end: usize,
    /// The complete `IDAT` chunks' data, in order.
    pixels: Vec<(usize, usize)>,
}

/// Walks `bytes`' chunks; `None` when the PNG reaches its `IEND` (it is not cut).
fn chunks(bytes: &[u8]) -> Option<Cut> {
    let mut cut = Cut {
        data_end: 0,
        pixels: Vec::new(),
    };
    let mut at = 8;
    while let Some(head) = bytes.get(at..at + 8) {
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let data = at + 8;
        match &head[4..] {
            b"IEND" => return None,
            b"IDAT" => {
                if data.checked_add(len)? > bytes.len() {
                    break;
                }
                cut.pixels.push((data, data + len));
                cut.data_end = data + len;
            }
            // The pixel data ended with its last chunk.
            _ if !cut.pixels.is_empty() => break,
            _ => {}
        }
        at = data.checked_add(len)?.checked_add(4)?;
    }
    Some(cut)
}

/// What the chunks' data inflates to, no more than `limit` bytes.
fn inflated(bytes: &[u8], pixels: &[(usize, usize)], limit: usize) -> Vec<u8> {
    let mut state = InflateState::new_boxed(DataFormat::Zlib);
    let mut raw = Vec::new();
    let mut out = vec![0; 32 * 1024];
    for &(start, end) in pixels {
        let mut input = &bytes[start..end];
        loop {
            let r = inflate(&mut state, input, &mut out, MZFlush::None);
            input = &input[r.bytes_consumed..];
            let room = limit - raw.len();
            raw.extend_from_slice(&out[..r.bytes_written.min(room)]);
            if raw.len() >= limit {
                return raw;
            }
            match r.status {
                Ok(MZStatus::Ok) if r.bytes_consumed + r.bytes_written > 0 => {}
                // No progress without more input: the next chunk.
                Ok(MZStatus::Ok) | Err(MZError::Buf) => break,
                // The stream ended or broke.
                _ => return raw,
            }
        }
    }
    raw
}

/// A PNG of `bytes`' chunks before its pixel data (which starts at `first`), `height` rows high,
/// with `zlib` as its one `IDAT` chunk; checksums left zero (the reader ignores them).
fn stub(bytes: &[u8], first: usize, height: u32, zlib: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(first + zlib.len() + 24);
    out.extend_from_slice(&bytes[..first - 8]);
    out[20..24].copy_from_slice(&height.to_be_bytes());
    out.extend_from_slice(&(zlib.len() as u32).to_be_bytes());
    out.extend_from_slice(b"IDAT");
    out.extend_from_slice(zlib);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(b"IEND\xAE\x42\x60\x82");
    out
}

/// A reader of `data` giving 8-bit grey or RGB, with or without alpha (checksums not read).
fn decoder(data: Vec<u8>) -> png::Decoder<Cursor<Vec<u8>>> {
    let mut options = png::DecodeOptions::default();
    options.set_ignore_crc(true);
    let mut d = png::Decoder::new_with_options(Cursor::new(data), options);
    d.set_transformations(png::Transformations::normalize_to_color8());
    d
}

/// Rows libspng reads from `available` inflated bytes of rows `stride` bytes long (filter byte
/// included); `None`: not even the first filter byte.
fn rows_read(available: usize, stride: usize, height: usize) -> Option<usize> {
    if available == 0 {
        return None;
    }
    if available >= height * stride {
        return Some(height);
    }
    // Row y needs its own bytes and the next row's filter byte.
    Some(((available - 1) / stride).min(height.saturating_sub(1)))
}

/// The rows sharp reads of `bytes`, a PNG its own decoder refused (the rest black), within the
/// decode `budget`, alpha flattened or dropped as `alpha` says. `None` when the PNG is not cut
/// short (the decoder's own error stands); `Some(Err(text))` with libspng's text when sharp
/// reads no row.
pub(crate) fn decode(bytes: &[u8], budget: u64, alpha: Alpha) -> Option<Result<Decoded, String>> {
    let cut = chunks(bytes)?;
    let eos = || Some(Err(PNG_END_OF_STREAM.to_owned()));
    let Some(&(first, _)) = cut.pixels.first() else {
        return eos();
    };
    let ihdr = bytes.get(16..29)?;
    let (w, h) = (
        u32::from_be_bytes([ihdr[0], ihdr[1], ihdr[2], ihdr[3]]),
        u32::from_be_bytes([ihdr[4], ihdr[5], ihdr[6], ihdr[7]]),
    );
    let interlaced = ihdr[12] != 0;
    // The colour type and row sizes, from the chunks before the pixels.
    let probe = decoder(stub(bytes, first, 1, &[])).read_info().ok()?;
    let stride = probe.info().raw_row_length();
    let (color, _) = probe.output_color_type();
    // A broken EXIF block is ignored, as sharp ignores it.
    let orientation = probe
        .info()
        .exif_metadata
        .as_deref()
        .and_then(Orientation::from_exif_chunk)
        .unwrap_or(Orientation::NoTransforms);
    let line = probe.output_line_size(w)?;
    let bpp = u8::try_from(line / (w as usize).max(1)).ok()?;
    if over_budget(w, h, bpp, budget) {
        return None;
    }
    let height = h as usize;
    let limit = if interlaced {
        // Seven passes, each row with its filter byte: at most twice the rows.
        height
            .checked_mul(stride)?
            .checked_mul(2)?
            .checked_add(64)?
    } else {
        height.checked_mul(stride)?
    };
    let mut raw = inflated(bytes, &cut.pixels, limit);
    let rows = if interlaced {
        height
    } else {
        let Some(rows) = rows_read(raw.len(), stride, height) else {
            return eos();
        };
        raw.truncate(rows * stride);
        rows
    };
    // The rows read, as a PNG of their height with its pixel data whole, read by the `png`
    // crate (libvips decodes an interlaced PNG whole or not at all); the others stay black.
    let mut px = vec![0u8; line.checked_mul(height)?];
    if rows > 0 {
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 0);
        drop(raw);
        let read = decoder(stub(bytes, first, rows as u32, &zlib))
            .read_info()
            .and_then(|mut r| r.next_frame(&mut px[..line * rows]));
        if read.is_err() {
            return eos();
        }
    }
    let img = match color {
        png::ColorType::Grayscale => DynamicImage::ImageLuma8(ImageBuffer::from_raw(w, h, px)?),
        png::ColorType::GrayscaleAlpha => {
            DynamicImage::ImageLumaA8(ImageBuffer::from_raw(w, h, px)?)
        }
        png::ColorType::Rgb => DynamicImage::ImageRgb8(ImageBuffer::from_raw(w, h, px)?),
        png::ColorType::Rgba => DynamicImage::ImageRgba8(ImageBuffer::from_raw(w, h, px)?),
        png::ColorType::Indexed => return None,
    };
    Some(Ok(Decoded {
        px: flatten(img, alpha),
        stored: (w, h),
        orientation,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openclaw::OpenClawVersion;
    use ::base64::Engine;
    use serde_json::Value;

    static FIXTURE: &str = include_str!("../../__test__/fixtures/sharp-texts.json");

    #[test]
    fn a_cut_png_gives_the_rows_sharp_read() {
        // Every recorded cut of the PNGs sharp shrank: the rows it read (at full size), or its
        // end-of-stream text.
        let f: Value = serde_json::from_str(FIXTURE).expect("JSON");
        let mut checked = 0;
        for case in f["cases"].as_array().expect("cases") {
            if case["mimeType"] != "image/png" || case["options"].get("maxDimensionPx").is_none() {
                continue;
            }
            let bytes = ::base64::engine::general_purpose::STANDARD
                .decode(case["data"].as_str().expect("data"))
                .expect("base64");
            let rows = case["cuts"].as_array().expect("rows");
            for (i, row) in rows.iter().enumerate() {
                let from = row[0].as_u64().expect("cut") as usize;
                // The last row holds until the IEND chunk is named (the PNG is whole).
                let to = rows.get(i + 1).map_or(bytes.len() - 5, |r| {
                    r[0].as_u64().expect("cut") as usize - 1
                });
                let outcome = &row[1];
                for cut in from..=to {
                    let got = decode(&bytes[..cut], u64::MAX, Alpha::Onto(0));
                    if let Some(n) = outcome.get("rows").and_then(Value::as_u64) {
                        let d = got
                            .unwrap_or_else(|| panic!("cut at {cut}"))
                            .expect("decoded");
                        // Rows not read are black (an image with no black pixel read).
                        let read = (0..d.px.height as usize)
                            .take_while(|&y| {
                                let line = &d.px.data[y * d.px.width as usize * 3..];
                                line[..d.px.width as usize * 3].iter().any(|&v| v > 0)
                            })
                            .count();
                        assert_eq!(read as u64, n, "{} cut at {cut}", case["name"]);
                        checked += 1;
                    } else if outcome["text"]
                        .as_str()
                        .is_some_and(|t| t.ends_with("Error: pngload_buffer: end of stream"))
                    {
                        let e = got
                            .unwrap_or_else(|| panic!("cut at {cut}"))
                            .expect_err("no rows");
                        assert_eq!(e, PNG_END_OF_STREAM, "cut at {cut}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 2000, "{checked}");
    }

    /// The recorded outputs of small PNGs with transparency or an EXIF orientation, whole or cut
    /// in their pixels (`pixels` in the fixture): this package's result has sharp's size, and
    /// its colours are sharp's within JPEG's error. sharp flattens transparency, and the rows
    /// it could not read, onto black, and turns what it read by the `eXIf` orientation.
    #[test]
    fn cut_and_transparent_pngs_have_sharps_colours() {
        let f: Value = serde_json::from_str(FIXTURE).expect("JSON");
        let cases = f["pixels"].as_array().expect("pixels");
        // Measured: mean 0.8–3.0, largest 15 (flattened onto white: 255 in the clear parts).
        same_colours(&f, cases, OpenClawVersion::V2026_3_23);
        assert_eq!(cases.len(), 7);
    }

    /// The same transparent PNGs re-encoded by 2026.9.6 (`rastermill` in the fixture, recorded
    /// through its `sanitizeSessionHistory`): Photon's JPEG writer drops the alpha channel, so
    /// the clear and half-transparent parts keep their stored colours. Flattened onto white, as
    /// this package did before, the three differ by a mean of 65–75 and up to 156–196.
    #[test]
    fn transparent_pngs_have_photons_colours_in_2026_9_6() {
        let f: Value = serde_json::from_str(FIXTURE).expect("JSON");
        let cases = f["rastermill"]["pixels"]
            .as_array()
            .expect("rastermill pixels");
        same_colours(&f, cases, OpenClawVersion::V2026_9_6);
        assert_eq!(cases.len(), 3);
    }

    /// Each case's image (cut at `cut`) through [`crate::image::sanitize_image`] in `release`
    /// mode: kept as written when `out` says so, else of the recorded size and, channel by
    /// channel, within JPEG's error of the recorded pixels.
    fn same_colours(f: &Value, cases: &[Value], release: OpenClawVersion) {
        use crate::image::{sanitize_image, ImageDecision, ImageLimits};
        let b64 = &::base64::engine::general_purpose::STANDARD;
        for case in cases {
            let name = case["name"].as_str().expect("name");
            let image = b64
                .decode(
                    f["images"][case["image"].as_str().expect("image")]
                        .as_str()
                        .expect("data"),
                )
                .expect("base64");
            let cut = case["cut"].as_u64().expect("cut") as usize;
            let limits = ImageLimits {
                max_dimension_px: case["options"]["maxDimensionPx"].as_u64().unwrap_or(1200) as u32,
                release,
                ..ImageLimits::default()
            };
            let got = sanitize_image(&b64.encode(&image[..cut]), limits);
            let out = &case["out"];
            if out == "kept" {
                assert!(
                    matches!(
                        got,
                        ImageDecision::Keep {
                            canonical_changed: false,
                            ..
                        }
                    ),
                    "{name}: {got:?}"
                );
                continue;
            }
            let ImageDecision::Replaced { data, .. } = got else {
                panic!("{name}: {got:?}");
            };
            let ours = image::load_from_memory(&b64.decode(data).expect("base64"))
                .expect("JPEG")
                .to_rgb8();
            let (w, h) = (
                out["width"].as_u64().expect("w") as u32,
                out["height"].as_u64().expect("h") as u32,
            );
            assert_eq!(ours.dimensions(), (w, h), "{name}");
            let channels = out["channels"].as_u64().expect("channels") as usize;
            let theirs = b64.decode(out["px"].as_str().expect("px")).expect("base64");
            let mut diff = Vec::new();
            for (i, p) in ours.pixels().enumerate() {
                for c in 0..3 {
                    let theirs = theirs[i * channels + c.min(channels - 1)];
                    diff.push(u32::from(p.0[c].abs_diff(theirs)));
                }
            }
            let mean = diff.iter().sum::<u32>() as f64 / diff.len() as f64;
            let max = diff.iter().max().copied().unwrap_or(0);
            assert!(
                mean < 6.0 && max < 40,
                "{name}: mean {mean:.1}, largest {max}"
            );
        }
    }

    #[test]
    fn rows_need_the_next_filter_byte() {
        assert_eq!(rows_read(0, 10, 3), None);
        assert_eq!(rows_read(1, 10, 3), Some(0));
        assert_eq!(rows_read(10, 10, 3), Some(0));
        assert_eq!(rows_read(11, 10, 3), Some(1));
        assert_eq!(rows_read(29, 10, 3), Some(2));
        assert_eq!(rows_read(30, 10, 3), Some(3));
    }
}
