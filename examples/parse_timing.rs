use std::time::Instant;
use transcript_hygiene::transcript::{ops, plan, skeleton, Ctx, NoSource};

fn main() {
    let raw = std::fs::read("/tmp/sk.nums").unwrap();
    let nums: Vec<f64> = raw
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let strs = std::fs::read_to_string("/tmp/sk.strs").unwrap();
    println!(
        "Msg {} Block {} Val {}",
        std::mem::size_of::<transcript_hygiene::transcript::model::Msg>(),
        std::mem::size_of::<transcript_hygiene::transcript::model::Block>(),
        std::mem::size_of::<transcript_hygiene::transcript::model::Val>()
    );
    let n = 20;
    let t = Instant::now();
    for _ in 0..n {
        let m = skeleton::parse(&nums, &strs).unwrap();
        std::hint::black_box(m);
    }
    println!("parse µs {}", t.elapsed().as_micros() as f64 / n as f64);
    let cfg: serde_json::Value = serde_json::json!({"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-sonnet-4-5"});
    let t = Instant::now();
    for _ in 0..n {
        let mut m = skeleton::parse(&nums, &strs).unwrap();
        let mut ctx = Ctx::new(&NoSource, false);
        ops::run("sanitizeSessionHistory", &cfg, &mut m, &mut ctx).unwrap();
        let p = plan::encode_json(&m, m.len());
        std::hint::black_box(p);
    }
    println!(
        "parse+history+plan µs {}",
        t.elapsed().as_micros() as f64 / n as f64
    );
}
#[allow(dead_code)]
fn sizes() {}
