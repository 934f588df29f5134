//! Which OpenClaw release a rule reproduces. The package matches two: 2026.3.23 (the 2026.3.23-2
//! build its rules were first written against) and 2026.9.6 (the current release, where many
//! rules changed). A rule whose behaviour differs between them takes an [`OpenClawVersion`]; a
//! caller that names none gets the process-wide default ([`default_version`], set from JS with
//! `setOpenClawVersion()`), which is shared by every thread on purpose: a gateway picks the
//! release it mirrors once, for all its workers.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

/// An OpenClaw release whose behaviour the rules reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpenClawVersion {
    /// openclaw 2026.3.23-2.
    V2026_3_23,
    /// openclaw 2026.9.6.
    V2026_9_6,
}

impl OpenClawVersion {
    /// Every version, oldest first.
    pub const ALL: [OpenClawVersion; 2] = [OpenClawVersion::V2026_3_23, OpenClawVersion::V2026_9_6];

    /// The version as callers write it (`"2026.3.23"`, `"2026.9.6"`).
    ///
    /// ```
    /// use transcript_hygiene::openclaw::OpenClawVersion;
    /// assert_eq!(OpenClawVersion::V2026_9_6.as_str(), "2026.9.6");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            OpenClawVersion::V2026_3_23 => "2026.3.23",
            OpenClawVersion::V2026_9_6 => "2026.9.6",
        }
    }

    /// The version named `s`, or `None` for anything else.
    ///
    /// ```
    /// use transcript_hygiene::openclaw::OpenClawVersion;
    /// assert_eq!(OpenClawVersion::parse("2026.3.23"), Some(OpenClawVersion::V2026_3_23));
    /// assert_eq!(OpenClawVersion::parse("2026.9"), None);
    /// ```
    pub fn parse(s: &str) -> Option<OpenClawVersion> {
        OpenClawVersion::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Whether this release is at least `other`.
    pub fn at_least(self, other: OpenClawVersion) -> bool {
        self as u8 >= other as u8
    }
}

impl fmt::Display for OpenClawVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The release a process starts with: the current OpenClaw release. The one definition of the
/// package default (JS reads it through `getOpenClawVersion()`).
pub const DEFAULT_VERSION: OpenClawVersion = OpenClawVersion::V2026_9_6;

/// The process-wide default, as the enum's discriminant.
static DEFAULT: AtomicU8 = AtomicU8::new(DEFAULT_VERSION as u8);

/// The version a call that names none uses ([`DEFAULT_VERSION`] until [`set_default_version`]
/// changes it).
pub fn default_version() -> OpenClawVersion {
    OpenClawVersion::ALL
        .into_iter()
        .find(|v| *v as u8 == DEFAULT.load(Ordering::Relaxed))
        .unwrap_or(DEFAULT_VERSION)
}

/// Sets the process-wide default for every thread.
pub fn set_default_version(version: OpenClawVersion) {
    DEFAULT.store(version as u8, Ordering::Relaxed);
}

/// `version`, or the default when the caller named none.
pub fn resolve(version: Option<OpenClawVersion>) -> OpenClawVersion {
    version.unwrap_or_else(default_version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_holds() {
        for v in OpenClawVersion::ALL {
            assert_eq!(OpenClawVersion::parse(v.as_str()), Some(v));
        }
        assert!(OpenClawVersion::V2026_9_6.at_least(OpenClawVersion::V2026_3_23));
        assert!(!OpenClawVersion::V2026_3_23.at_least(OpenClawVersion::V2026_9_6));
        assert_eq!(OpenClawVersion::parse("2026.3.23-2"), None);
    }

    #[test]
    fn an_explicit_version_wins_over_the_default() {
        assert_eq!(
            resolve(Some(OpenClawVersion::V2026_9_6)),
            OpenClawVersion::V2026_9_6
        );
    }
}
