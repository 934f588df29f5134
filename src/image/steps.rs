//! Where the first-pass time goes, step by step, on real files:
//! `IMAGE_STEPS=/path/a.png:/path/b.jpg cargo test --release --lib image_steps -- --ignored --nocapture`
//! (the benchmark writes its generated images to `$TMPDIR/th-bench-4000.{png,jpg}`,
//! which are read when `IMAGE_STEPS` is unset). Medians of 5 runs, in ms.

use std::time::Instant;

use super::base64::{decode_canonical, encode};
use super::decode::decode;
use super::encode::encode_jpeg;
use super::reduce::first_side;
use super::resize::{fit_inside, resize};
use super::{cache, sanitize_image, ImageLimits};

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..5)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[2]
}

#[test]
#[ignore]
fn image_steps() {
    let tmp = std::env::temp_dir();
    let default = format!(
        "{}:{}",
        tmp.join("th-bench-4000.png").display(),
        tmp.join("th-bench-4000.jpg").display()
    );
    let paths = std::env::var("IMAGE_STEPS").unwrap_or(default);
    for path in paths.split(':') {
        let Ok(bytes) = std::fs::read(path) else {
            println!("{path}: not found");
            continue;
        };
        let b64 = encode(&bytes);
        let (w, h) = super::header_dimensions(&bytes).unwrap_or((0, 0));
        println!(
            "{path}: {w}×{h}, {} bytes, base64 {}",
            bytes.len(),
            b64.len()
        );
        println!(
            "  blake3 of the base64     {:7.2}",
            median_ms(|| {
                std::hint::black_box(cache::digest(b64.as_bytes()));
            })
        );
        println!(
            "  base64 decode            {:7.2}",
            median_ms(|| drop(decode_canonical(&b64)))
        );
        let side = first_side(1200, w.max(h));
        println!(
            "  decode (full)            {:7.2}",
            median_ms(|| drop(decode(&bytes, None)))
        );
        println!(
            "  decode (for the resize)  {:7.2}",
            median_ms(|| drop(decode(&bytes, side)))
        );
        let Ok(d) = decode(&bytes, side) else {
            continue;
        };
        let (tw, th) = fit_inside(d.stored.0, d.stored.1, 1200);
        println!(
            "  resize {}×{} → {tw}×{th}  {:7.2}",
            d.px.width,
            d.px.height,
            median_ms(|| drop(resize(&d.px, tw, th)))
        );
        let Ok(small) = resize(&d.px, tw, th) else {
            continue;
        };
        println!(
            "  JPEG encode q85          {:7.2}",
            median_ms(|| drop(encode_jpeg(&small, 85)))
        );
        println!(
            "  whole sanitize_image     {:7.2}",
            median_ms(|| drop(sanitize_image(&b64, ImageLimits::default())))
        );
    }
}
