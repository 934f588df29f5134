//! `imageCacheStats()`, `clearImageCache()`, `configureImageCache(maxBytes)`: the process-wide
//! image decision cache (`image::cache`) seen from JS.

use crate::image::cache::{self, CacheStats};
use napi_derive::napi;

/// The cache's figures. Byte counts are numbers (a budget can exceed 4 GiB).
#[napi(object)]
pub struct ImageCacheStats {
    pub entries: f64,
    pub bytes: f64,
    pub max_bytes: f64,
    pub hits: f64,
    pub misses: f64,
    pub evictions: f64,
}

impl From<CacheStats> for ImageCacheStats {
    fn from(s: CacheStats) -> Self {
        ImageCacheStats {
            entries: s.entries as f64,
            bytes: s.bytes as f64,
            max_bytes: s.max_bytes as f64,
            hits: s.hits as f64,
            misses: s.misses as f64,
            evictions: s.evictions as f64,
        }
    }
}

#[napi(catch_unwind, js_name = "imageCacheStats")]
pub fn image_cache_stats() -> ImageCacheStats {
    cache::global().stats().into()
}

#[napi(catch_unwind, js_name = "clearImageCache")]
pub fn clear_image_cache() {
    cache::global().clear();
}

/// Sets the budget (the JS wrapper has checked it is a whole number ≥ 0) and returns the figures.
#[napi(catch_unwind, js_name = "configureImageCacheBytes")]
pub fn configure_image_cache_bytes(max_bytes: f64) -> ImageCacheStats {
    let bytes = if max_bytes.is_finite() && max_bytes > 0.0 {
        // Saturates at usize::MAX for absurd values.
        max_bytes as usize
    } else {
        0
    };
    cache::global().configure(bytes);
    cache::global().stats().into()
}
