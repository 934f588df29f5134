//! Unusual payloads (issue #7, point 4) and output quality: each gives a correct result or the
//! documented fallback, with bounded memory, and a resized image matches an independent
//! reference downscale (PSNR ≥ 30 dB).

use ::base64::engine::general_purpose::STANDARD;
use ::base64::Engine as _;
use image::{DynamicImage, GenericImageView, ImageFormat, RgbImage};

use super::test_support::{
    animated_gif, animated_webp, cmyk_jpeg, encode_jpeg, encode_png, encode_png16, gradient_rgb,
    jpeg_with_orientation, noise_rgb, png_with_ihdr,
};
use super::{canonical_payload, sanitize_image, sanitize_image_cached, ImageDecision, ImageLimits};
use crate::openclaw::OpenClawVersion;

fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

fn limits(max_dimension_px: u32) -> ImageLimits {
    ImageLimits {
        max_dimension_px,
        ..ImageLimits::default()
    }
}

/// The re-encoded JPEG, decoded.
fn output(decision: ImageDecision) -> DynamicImage {
    match decision {
        ImageDecision::Replaced { data, mime, .. } => {
            assert_eq!(mime, "image/jpeg");
            let bytes = STANDARD.decode(data).unwrap();
            assert_eq!(image::guess_format(&bytes).unwrap(), ImageFormat::Jpeg);
            image::load_from_memory(&bytes).unwrap()
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

fn mean_rgb(img: &DynamicImage) -> [f64; 3] {
    let rgb = img.to_rgb8();
    let n = f64::from(rgb.width() * rgb.height());
    let mut sum = [0.0; 3];
    for p in rgb.pixels() {
        for (s, &v) in sum.iter_mut().zip(&p.0) {
            *s += f64::from(v);
        }
    }
    sum.map(|s| s / n)
}

fn psnr(a: &RgbImage, b: &RgbImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let n = a.as_raw().len() as f64;
    let mse: f64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum::<f64>()
        / n;
    10.0 * (255.0 * 255.0 / mse.max(1e-12)).log10()
}

/// A screenshot-like picture: a light page with lines of dark "glyphs" (3-pixel strokes),
/// a photo-like panel with gradients and a checkerboard, hard edges everywhere.
fn detailed(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        let in_line = (y % 24) < 14;
        let glyph = (x % 11) < 3 || (y % 24) == 6;
        if x < w / 2 {
            if in_line && glyph && (x / 55) % 5 != 4 {
                image::Rgb([30, 30, 40])
            } else {
                image::Rgb([235, 238, 242])
            }
        } else {
            let check = (((x / 40) + (y / 40)) % 2 * 120 + 60) as u8;
            image::Rgb([(x * 255 / w) as u8, (y * 255 / h) as u8, check])
        }
    })
}

fn assert_close_to_reference(src: &RgbImage, payload: &[u8], max_dim: u32) {
    let out = output(sanitize_image(&b64(payload), limits(max_dim))).to_rgb8();
    let (w, h) = out.dimensions();
    let reference = image::imageops::resize(src, w, h, image::imageops::FilterType::Lanczos3);
    let db = psnr(&reference, &out);
    println!("PSNR {db:.2} dB for {w}×{h}");
    assert!(db >= 30.0, "PSNR {db:.2} dB for {w}×{h}");
}

#[test]
fn png_output_matches_a_reference_lanczos3_downscale() {
    let src = detailed(1200, 750);
    assert_close_to_reference(&src, &encode_png(&src), 600);
}

#[test]
fn jpeg_decoded_at_reduced_scale_matches_the_reference() {
    // 2000 → 600 lets the decoder work at half scale.
    let src = detailed(2000, 750);
    assert_close_to_reference(&src, &encode_jpeg(&src, 95), 600);
}

#[test]
fn large_factor_with_box_pre_shrink_matches_the_reference() {
    // An 8× reduction (box 4×, then Lanczos3 2×) of a photo-like picture: text this small
    // would be below one output pixel, where any two filters disagree.
    let src = RgbImage::from_fn(1200, 800, |x, y| {
        let check = (((x / 120) + (y / 120)) % 2 * 60 + 90) as u8;
        let disc = (x as i64 - 600).pow(2) + (y as i64 - 400).pow(2) < 250 * 250;
        image::Rgb([
            (x * 255 / 1200) as u8,
            if disc { 230 } else { (y * 255 / 800) as u8 },
            check,
        ])
    });
    assert_close_to_reference(&src, &encode_png(&src), 150);
}

#[test]
fn animated_gif_and_webp_give_their_first_frame() {
    for anim in [animated_gif(40, 20), animated_webp(40, 20)] {
        let img = output(sanitize_image(&b64(&anim), limits(16)));
        assert_eq!(img.dimensions(), (16, 8));
        let [r, g, b] = mean_rgb(&img);
        assert!(
            r > 200.0 && g < 60.0 && b < 60.0,
            "first frame is red: {r} {g} {b}"
        );
    }
    // Within limits: kept as it is (the reference keeps animations it need not resize).
    let gif = b64(&animated_gif(10, 10));
    assert!(matches!(
        sanitize_image(&gif, ImageLimits::default()),
        ImageDecision::Keep {
            mime: Some("image/gif"),
            ..
        }
    ));
}

#[test]
fn cmyk_jpeg_is_converted_to_rgb() {
    // Cyan 0, magenta 255, yellow 255, black 0: red.
    let jpeg = cmyk_jpeg(64, 32, [0, 255, 255, 0]);
    let img = output(sanitize_image(&b64(&jpeg), limits(32)));
    assert_eq!(img.dimensions(), (32, 16));
    let [r, g, b] = mean_rgb(&img);
    // Either polarity of Adobe CMYK gives a saturated result; it must not be grey or garbage.
    let spread = r.max(g).max(b) - r.min(g).min(b);
    assert!(spread > 150.0, "{r} {g} {b}");
}

#[test]
fn sixteen_bit_png_is_reduced_to_eight_bits() {
    let png = encode_png16(300, 200);
    let img = output(sanitize_image(&b64(&png), limits(150)));
    assert_eq!(img.dimensions(), (150, 100));
    // Blue was 40000/65535 ≈ 156 of 255 everywhere.
    assert!((mean_rgb(&img)[2] - 156.0).abs() < 6.0);
    let small = b64(&encode_png16(20, 10));
    assert!(matches!(
        sanitize_image(&small, ImageLimits::default()),
        ImageDecision::Keep { .. }
    ));
}

#[test]
fn exif_orientation_on_the_reduced_scale_path() {
    // 2600×1000 stored, orientation 8 (turn 270°): upright 1000×2600 → 462×1200.
    let jpeg = jpeg_with_orientation(&gradient_rgb(2600, 1000), 8);
    let img = output(sanitize_image(&b64(&jpeg), ImageLimits::default()));
    assert_eq!(img.dimensions(), (462, 1200));
    // The stored left edge (dark red channel) is now at the bottom.
    let top = img.crop_imm(0, 0, 462, 50).to_rgb8();
    let bottom = img.crop_imm(0, 1150, 462, 50).to_rgb8();
    let red = |i: &RgbImage| {
        i.pixels().map(|p| f64::from(p.0[0])).sum::<f64>() / f64::from(i.width() * i.height())
    };
    assert!(red(&top) > red(&bottom) + 100.0);
}

#[test]
fn one_pixel_strips() {
    let tall = encode_png(&gradient_rgb(1, 30_000));
    assert_eq!(
        output(sanitize_image(&b64(&tall), ImageLimits::default())).dimensions(),
        (1, 1200)
    );
    let wide = encode_png(&gradient_rgb(30_000, 1));
    assert_eq!(
        output(sanitize_image(&b64(&wide), ImageLimits::default())).dimensions(),
        (1200, 1)
    );
}

#[test]
fn decompression_bombs_are_refused_before_allocating() {
    // Declared 100000², far over sharp's pixel limit: refused from the header.
    let r = reason(sanitize_image(
        &b64(&png_with_ihdr(100_000, 100_000)),
        ImageLimits::default(),
    ));
    assert_eq!(
        r,
        "omitted image payload: Error: Input image exceeds pixel limit"
    );
    // Declared 16000² RGB (768 MB of pixels), under the pixel limit but over the decoder's
    // allocation limit: refused by the decoder's limits, not by running out of memory.
    let r = reason(sanitize_image(
        &b64(&png_with_ihdr(16_000, 16_000)),
        ImageLimits::default(),
    ));
    assert!(r.starts_with("omitted image payload: Error: "), "{r}");
}

#[test]
fn truncated_payloads() {
    let png = encode_png(&noise_rgb(1500, 300, 3));
    for cut in [8, 30, png.len() / 2] {
        let r = sanitize_image(&b64(&png[..cut]), ImageLimits::default());
        assert!(matches!(r, ImageDecision::Omitted { .. }), "cut {cut}");
    }
    // Only the end chunk's checksum is missing: every pixel is there, and the image is used.
    let r = sanitize_image(&b64(&png[..png.len() - 1]), ImageLimits::default());
    assert!(matches!(
        r,
        ImageDecision::Replaced {
            width: 1200,
            height: 240,
            ..
        }
    ));
    let jpeg = encode_jpeg(&gradient_rgb(1600, 900), 90);
    for cut in [2, 100, jpeg.len() / 3] {
        // Omitted, or (zune-jpeg fills what is missing, as libjpeg does) a JPEG within limits.
        match sanitize_image(&b64(&jpeg[..cut]), ImageLimits::default()) {
            ImageDecision::Omitted { .. } => {}
            ImageDecision::Replaced { width, height, .. } => {
                assert!(width <= 1200 && height <= 1200)
            }
            ImageDecision::Keep { .. } => panic!("cut {cut}: kept"),
        }
    }
}

#[test]
fn whitespace_and_data_url_prefixes() {
    let png = b64(&encode_png(&gradient_rgb(40, 30)));
    let wrapped: String = png
        .as_bytes()
        .chunks(60)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join("\r\n");
    for data in [
        format!(" {wrapped}\n"),
        format!("data:image/png;base64,{png}"),
        format!("data:image/png;base64,{wrapped}"),
    ] {
        assert_eq!(
            sanitize_image(&data, ImageLimits::default()),
            ImageDecision::Keep {
                canonical_changed: true,
                mime: Some("image/png"),
            },
            "{}",
            &data[..30]
        );
        assert_eq!(
            canonical_payload(&data, OpenClawVersion::V2026_3_23).as_deref(),
            Some(png.as_str())
        );
    }
    // A data URL of an image that needs resizing is resized.
    let wide = b64(&encode_png(&gradient_rgb(2600, 400)));
    let img = output(sanitize_image(
        &format!("data:image/png;base64,{wide}"),
        ImageLimits::default(),
    ));
    assert_eq!(img.dimensions(), (1200, 185));
    // The URL's type stands in for formats the bytes do not name (WebP).
    let webp = b64(&animated_webp(4, 4));
    assert!(matches!(
        sanitize_image(
            &format!("data:image/webp;base64,{webp}"),
            ImageLimits::default()
        ),
        ImageDecision::Keep {
            mime: Some("image/webp"),
            ..
        }
    ));
    // A percent-encoded data URL is still invalid, as in the reference.
    assert_eq!(
        reason(sanitize_image(
            "data:image/png,%89PNG",
            ImageLimits::default()
        )),
        "omitted image payload: invalid base64"
    );
}

#[test]
fn the_cache_returns_the_same_decision_for_the_same_payload() {
    let wide = b64(&encode_png(&gradient_rgb(2600, 400)));
    let (first, digest) = sanitize_image_cached(wide.as_bytes(), ImageLimits::default());
    let (second, again) = sanitize_image_cached(wide.as_bytes(), ImageLimits::default());
    assert_eq!(first, second);
    if digest.is_some() {
        // Another test may turn the global cache off for a moment; when on, the digest is stable.
        assert_eq!(digest, again);
    }
    // Bytes that are not UTF-8 cannot be base64.
    let (bad, _) = sanitize_image_cached(&[0xFF, 0xFE], ImageLimits::default());
    assert_eq!(
        *bad,
        ImageDecision::Omitted {
            reason: "omitted image payload: invalid base64".into()
        }
    );
}

/// Writes `__test__/fixtures/images.json`, the small images the node specs cannot make
/// themselves (JPEG needs an encoder): `cargo test --lib write_node_fixtures -- --ignored`.
#[test]
#[ignore]
fn write_node_fixtures() {
    let fixtures = serde_json::json!({
        "cmykJpeg": b64(&cmyk_jpeg(64, 32, [0, 255, 255, 0])),
        "exifRotate90Jpeg": b64(&jpeg_with_orientation(&gradient_rgb(60, 20), 6)),
        "animatedGif": b64(&animated_gif(40, 20)),
        "animatedWebp": b64(&animated_webp(40, 20)),
    });
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("__test__/fixtures/images.json");
    std::fs::write(&path, format!("{fixtures:#}\n")).unwrap();
}
