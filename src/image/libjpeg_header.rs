//! The JPEG header as sharp reads it, for OpenClaw 2026.3.23's error texts.
//!
//! 2026.3.23 asks sharp (libvips, libjpeg-turbo) for an image's metadata first
//! ([`super::sharp_header`]); libjpeg reads the markers up to the first scan (`SOS`), and when that fails the image is omitted with libvips's
//! text, whatever its size: `Input buffer has corrupt header: VipsJpeg: Bogus marker length`.
//! This package's own header reader only needs the frame size, so it keeps such an image or fails
//! later with its decoder's words. This file reads the markers as libjpeg's `read_markers` does
//! (the same checks, in the same order, with its messages) so the 3.23 mode gives sharp's text.
//!
//! A payload that ends early reads on as libvips's source does: a fake end-of-image marker
//! (`FF D9`) again and again, and the text opens with `premature end of JPEG image`. So a JPEG cut
//! inside its quantisation table reports `Bogus DQT index 15`, one cut inside its scan header
//! `Invalid component ID 217 in SOS`: the texts the real sharp gives (recorded through OpenClaw
//! 2026.3.23-2 at every cut of a JPEG's header, see the tests).
//!
//! When the image must be shrunk, libvips decodes it, and libjpeg's start of decompression checks
//! the scan header's tables and parameters: a JPEG cut just before its last table selector names
//! table `0x0f` (`Huffman table 0x0f was not defined`), a progressive one cut inside its scan
//! header has impossible parameters; a sequential one cut in its last three bytes only warns and
//! decodes (grey where the data is missing). [`Frame`] carries what decoding will meet.

use super::byte_source::ByteSource;
use super::sharp_header::{Frame, Header};

/// libjpeg's bytes: the input, then `FF D9` for ever.
struct Source<'b> {
    bytes: &'b dyn ByteSource,
    at: usize,
    past_end: bool,
}

impl Source<'_> {
    fn byte(&mut self) -> u8 {
        let b = match self.bytes.at(self.at) {
            Some(b) => b,
            None => {
                self.past_end = true;
                if (self.at - self.bytes.len()).is_multiple_of(2) {
                    0xFF
                } else {
                    0xD9
                }
            }
        };
        self.at += 1;
        b
    }

    fn two(&mut self) -> usize {
        (usize::from(self.byte()) << 8) | usize::from(self.byte())
    }

    fn skip(&mut self, n: usize) {
        // Past the end every byte is read as a fake marker: only where it ends matters.
        self.at = self.at.saturating_add(n);
        if self.at > self.bytes.len() {
            self.past_end = true;
        }
    }
}

const BAD_LENGTH: &str = "Bogus marker length";

/// Reads `bytes` (an image starting `FF D8`) up to its first scan. `complete`: `bytes` is the
/// whole image (otherwise its end answers [`Header::NeedMore`]).
#[cfg(test)]
pub(crate) fn read(bytes: &[u8], complete: bool) -> Header {
    read_from(&bytes, complete)
}

/// [`read`] from any [`ByteSource`]: only the bytes the markers are read from are asked for (a
/// segment's content is skipped by its length).
pub(crate) fn read_from(bytes: &dyn ByteSource, complete: bool) -> Header {
    let mut s = Source {
        bytes,
        at: 0,
        past_end: false,
    };
    let result = markers(&mut s);
    if s.past_end && !complete {
        return Header::NeedMore;
    }
    match result {
        Ok(frame) => Header::Read(frame),
        Err(e) if s.past_end => Header::Error(format!(
            "VipsJpeg: premature end of JPEG image\nVipsJpeg: {e}"
        )),
        Err(e) => Header::Error(format!("VipsJpeg: {e}")),
    }
}

/// `bytes`, a JPEG cut `missing` bytes before the end of its scan header, with those bytes as a
/// sequential scan has them (libjpeg reads them past the end and only warns), then an end of
/// image: what this package's decoder reads as libjpeg reads the cut image (grey where the data
/// is missing).
pub(crate) fn with_scan_header(bytes: &[u8], missing: usize) -> Vec<u8> {
    let tail = [0x00, 0x3F, 0x00];
    let mut out = Vec::with_capacity(bytes.len() + 5);
    out.extend_from_slice(bytes);
    out.extend_from_slice(&tail[3 - missing.min(3)..]);
    out.extend_from_slice(&[0xFF, 0xD9]);
    out
}

/// libjpeg's `read_markers` until `SOS`: what decoding will meet, or its error message.
fn markers(s: &mut Source) -> Result<Frame, String> {
    let (c, c2) = (s.byte(), s.byte());
    if c != 0xFF || c2 != 0xD8 {
        return Err(format!("Not a JPEG file: starts with 0x{c:02x} 0x{c2:02x}"));
    }
    let mut frame: Option<Sof> = None;
    loop {
        // `next_marker`: skip to an FF, then past fill FFs.
        let mut m = s.byte();
        while m != 0xFF {
            m = s.byte();
        }
        while m == 0xFF {
            m = s.byte();
        }
        match m {
            0xD8 => return Err("Invalid JPEG file structure: two SOI markers".into()),
            // Baseline, extended, progressive, lossless, arithmetic.
            0xC0..=0xC3 | 0xC9 | 0xCA => {
                frame = Some(sof(s, m, frame.is_some())?);
            }
            0xC5..=0xC7 | 0xCB | 0xCD..=0xCF => {
                return Err(format!("Unsupported JPEG process: SOF type 0x{m:02x}"))
            }
            0xDA => {
                let Some(Sof {
                    marker: sof,
                    precision,
                    ids,
                    size,
                }) = frame
                else {
                    return Err("Invalid JPEG file structure: SOS before SOF".into());
                };
                let scan = sos(s, &ids)?;
                return Ok(Frame {
                    precision,
                    start_error: scan.start_error(sof).map(|e| (e, s.past_end)),
                    scan_header_missing: scan.missing,
                    size: Some(size),
                });
            }
            0xD9 if frame.is_some() => {
                return Err("Invalid JPEG file structure: missing SOS marker".into())
            }
            0xD9 => return Err("JPEG datastream contains no image".into()),
            0xCC => dac(s)?,
            0xC4 => dht(s)?,
            0xDB => dqt(s)?,
            0xDD => {
                if s.two() != 4 {
                    return Err(BAD_LENGTH.into());
                }
                s.skip(2);
            }
            0xE0..=0xEF | 0xFE | 0xDC => {
                let length = s.two();
                s.skip(length.saturating_sub(2));
            }
            0xD0..=0xD7 | 0x01 => {}
            _ => return Err(format!("Unsupported marker type 0x{m:02x}")),
        }
    }
}

/// A frame header as libjpeg read it.
struct Sof {
    marker: u8,
    precision: u8,
    /// The component ids.
    ids: Vec<u8>,
    /// Width and height.
    size: (u32, u32),
}

/// `get_sof` for the frame of `marker`; `seen`: a frame came before.
fn sof(s: &mut Source, marker: u8, seen: bool) -> Result<Sof, String> {
    let length = s.two();
    let precision = s.byte();
    let height = s.two();
    let width = s.two();
    let n = usize::from(s.byte());
    if seen {
        return Err("Invalid JPEG file structure: two SOF markers".into());
    }
    if height == 0 || width == 0 || n == 0 {
        return Err("Empty JPEG image (DNL not supported)".into());
    }
    if length.checked_sub(8) != Some(n * 3) {
        return Err(BAD_LENGTH.into());
    }
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        ids.push(s.byte());
        s.skip(2);
    }
    Ok(Sof {
        marker,
        precision,
        ids,
        size: (width as u32, height as u32),
    })
}

/// A scan header as libjpeg read it.
struct Scan {
    /// Each component's table selectors (DC in the high half, AC in the low).
    tables: Vec<u8>,
    ss: u8,
    se: u8,
    ah_al: u8,
    /// How many of `ss`, `se`, `ah_al` were read past the end of the data.
    missing: usize,
}

impl Scan {
    /// libjpeg's error when decompression starts with this scan in a frame of marker `sof`:
    /// `jdphuff.c`'s parameter check for a progressive frame, then (both Huffman kinds) each
    /// component's DC then AC table. Indexes 0 and 1 always exist (libjpeg installs the standard
    /// tables); only an index over 3 is reported (one read past the end is 13 or 15).
    fn start_error(&self, sof: u8) -> Option<String> {
        let (ss, se, ah, al) = (self.ss, self.se, self.ah_al >> 4, self.ah_al & 0x0F);
        let progressive = matches!(sof, 0xC2 | 0xCA);
        if progressive {
            let band = if ss == 0 {
                se != 0
            } else {
                ss > se || se >= 64 || self.tables.len() != 1
            };
            let bad = band || (ah != 0 && al != ah.wrapping_sub(1)) || al > 13;
            if bad {
                return Some(format!(
                    "Invalid progressive/lossless parameters Ss={ss} Se={se} Ah={ah} Al={al}"
                ));
            }
        }
        if !matches!(sof, 0xC0..=0xC2) {
            // Arithmetic coding and lossless frames check other things.
            return None;
        }
        self.tables.iter().find_map(|&t| {
            let (dc, ac) = (t >> 4, t & 0x0F);
            let first = match (progressive, ss == 0 && ah == 0) {
                (false, _) => [Some(dc), Some(ac)],
                (true, true) => [Some(dc), None],
                (true, false) => [(ss != 0).then_some(ac), None],
            };
            first
                .into_iter()
                .flatten()
                .find(|&i| i >= 4)
                .map(|i| format!("Huffman table 0x{i:02x} was not defined"))
        })
    }
}

/// `get_sos`, up to the scan: its components among the frame's, and its parameters.
fn sos(s: &mut Source, ids: &[u8]) -> Result<Scan, String> {
    let length = s.two();
    let n = usize::from(s.byte());
    if length != n * 2 + 6 || !(1..=4).contains(&n) {
        return Err(BAD_LENGTH.into());
    }
    let mut tables = Vec::with_capacity(n);
    for _ in 0..n {
        let cc = s.byte();
        tables.push(s.byte());
        if !ids.contains(&cc) {
            return Err(format!("Invalid component ID {cc} in SOS"));
        }
    }
    let before = s.past_end;
    let end = ByteSource::len(s.bytes);
    let first = s.at;
    let (ss, se, ah_al) = (s.byte(), s.byte(), s.byte());
    let missing = if before {
        3
    } else {
        (first + 3).saturating_sub(end).min(3)
    };
    Ok(Scan {
        tables,
        ss,
        se,
        ah_al,
        missing,
    })
}

/// `get_dht`: tables of at most 256 codes that fit the segment, indexes 0–3.
fn dht(s: &mut Source) -> Result<(), String> {
    let mut length = s.two() as isize - 2;
    while length > 16 {
        let index = s.byte();
        let count: isize = (0..16).map(|_| isize::from(s.byte())).sum();
        length -= 17;
        if count > 256 || count > length {
            return Err("Bogus Huffman table definition".into());
        }
        s.skip(count as usize);
        length -= count;
        let index = if index & 0x10 != 0 {
            index - 0x10
        } else {
            index
        };
        if index >= 4 {
            return Err(format!("Bogus DHT index {index}"));
        }
    }
    if length != 0 {
        return Err(BAD_LENGTH.into());
    }
    Ok(())
}

/// `get_dqt`: tables 0–3 of 64 entries of one or two bytes (fewer when the segment ends first).
fn dqt(s: &mut Source) -> Result<(), String> {
    let mut length = s.two() as isize - 2;
    while length > 0 {
        length -= 1;
        let n = s.byte();
        let (precision, index) = (n >> 4, n & 0x0F);
        if index >= 4 {
            return Err(format!("Bogus DQT index {index}"));
        }
        let width = if precision != 0 { 2 } else { 1 };
        let count = if length < 64 * width {
            length / width
        } else {
            64
        };
        s.skip((count * width) as usize);
        length -= count * width;
    }
    if length != 0 {
        return Err(BAD_LENGTH.into());
    }
    Ok(())
}

/// `get_dac`: pairs of an index under 32 and a value.
fn dac(s: &mut Source) -> Result<(), String> {
    let mut length = s.two() as isize - 2;
    while length > 0 {
        let index = s.byte();
        let value = s.byte();
        length -= 2;
        if index >= 32 {
            return Err(format!("Bogus DAC index {index}"));
        }
        if index < 16 && (value & 0x0F) > (value >> 4) {
            return Err(format!("Bogus DAC value 0x{value:x}"));
        }
    }
    if length != 0 {
        return Err(BAD_LENGTH.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
