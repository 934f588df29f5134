//! Outbound text scrubbers: what a user-facing channel must never show of a model's reply.
//!
//! Two families of drop-in replacements for TypeScript agents, each rule in its own file:
//!
//! - OpenClaw's scrubbers (`extractAssistantText` runs them in this order, then trims):
//!   [`minimax_xml`], [`special_tokens`], [`downgraded`], [`reasoning_tags`] (with
//!   [`code_regions`]). Same behaviour as openclaw 2026.3.23-2, so its users can swap them.
//! - Seed 000's API: [`seed`] (`sanitizeToolCall`, `sanitizeThinkingTags`, built on
//!   [`crate::response::clean_response`]), [`seed_config`] (`createResponseSanitizer`'s config)
//!   and [`fallback`] (the never-empty reply).
//!
//! Every function returns `Cow::Borrowed` when it changed nothing, and tests a literal prefilter
//! (one `memchr` pass) before any regex, so text without markers costs one scan. Regexes are
//! compiled once. Nothing here panics on input.

pub mod code_regions;
pub mod downgraded;
pub mod fallback;
pub mod minimax_xml;
pub mod reasoning_tags;
pub mod seed;
pub mod seed_config;
pub mod special_tokens;
pub mod splice;
mod text;
pub mod visible;

/// Every text made of four of `parts` (with repeats, in every order): small exhaustive inputs for
/// the tests that compare a scanner with the rule it stands for.
#[cfg(test)]
pub(crate) fn sequences_of_four<'p>(parts: &'p [&'p str]) -> impl Iterator<Item = String> + 'p {
    let n = parts.len();
    (0..n * n * n * n).map(move |k| {
        [k % n, k / n % n, k / n / n % n, k / n / n / n]
            .iter()
            .map(|&i| parts[i])
            .collect()
    })
}

#[cfg(test)]
mod linearity;
#[cfg(test)]
mod negatives;
#[cfg(test)]
mod proptests;
