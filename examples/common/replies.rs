//! The 50 KB replies the Rust-only examples time, shared so that `clean_rate` and `scrub_rate`
//! measure the same text `benchmark/reply-vs-openclaw.mjs` and `benchmark/response.mjs` send
//! through Node. Included by each example with `#[path = "common/replies.rs"] mod replies;`
//! (an example is its own crate; not every example uses every builder).
#![allow(dead_code)]

/// One unit of the ASCII prose.
pub const EN: &str = "The build failed on the second step, so I checked the log, the lockfile and the cache; the fix is to pin the toolchain and rerun it. ";
/// One unit of the Chinese prose (after [`EN`] in the half-Chinese reply).
pub const ZH: &str = "构建在第二步失败了，我检查了日志、锁文件和缓存；解决办法是固定工具链的版本，然后重新运行一次。";

/// `unit` repeated to 50 KB with a paragraph break every eight, a `<think>` block before it and a
/// MiniMax call at the paragraph break nearest the middle.
pub fn with_call(unit: &str) -> String {
    let mut p = String::new();
    let mut i = 0;
    while p.len() < 50_000 {
        p.push_str(unit);
        i += 1;
        if i % 8 == 0 {
            p.push_str("\n\n");
        }
    }
    let half = (p.len() / 2..)
        .find(|&k| p.is_char_boundary(k))
        .unwrap_or(0);
    let mid = p[half..].find("\n\n").map_or(p.len(), |k| k + half);
    format!(
        "<think>The user wants the weather; 先查一下北京的天气，再回答。</think>\n{}\n<minimax:tool_call>\n<invoke name=\"search_web\">\n<parameter name=\"query\">北京天气</parameter>\n</invoke>\n</minimax:tool_call>\n{}",
        &p[..mid],
        &p[mid..]
    )
}

/// The half-Chinese reply with a `<think>` block and one MiniMax call.
pub fn half_chinese() -> String {
    with_call(&format!("{EN}{ZH}"))
}
