//! The texts the real sharp gave (0.35.5, through OpenClaw 2026.3.23-2's
//! `sanitizeContentBlocksImages`, recorded with benchmark/sharp-jpeg-texts.mjs) for a JPEG cut at
//! every byte of its header, and for headers made wrong one field at a time.

use super::*;
use ::base64::Engine;

/// The first 330 bytes of a 300×200 JPEG sharp wrote at quality 90: DQT at 2 and 71, SOF0 at
/// 140, DHT at 159, 187, 230 and 256, SOS at 310 (its components end at 320, its header at 324).
const HEAD: &str = "/9j/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBT/wAARCADIASwDASIAAhEBAxEB/8QAGgAAAwEBAQEAAAAAAAAAAAAAAgMEAAUBBv/EACkQAAIDAAICAgICAgMBAQAAAAECAwQFBhIREwAhFCIVIzNCFjFDBzL/xAAYAQEBAQEBAAAAAAAAAAAAAAABAAIDBP/EADQRAQABAwMCAwYGAwACAwAAAAERAiExAEFREmEDInEygZHR8PETQqGxweEEI1JyooKSwv/aAAwDAQACEQMRAD8Ako4FR8qm";

fn head() -> Vec<u8> {
    ::base64::engine::general_purpose::STANDARD
        .decode(HEAD)
        .expect("base64")
}

const NO_IMAGE: &str = "JPEG datastream contains no image";
const NO_SOS: &str = "Invalid JPEG file structure: missing SOS marker";
const HUFFMAN: &str = "Bogus Huffman table definition";

/// From each cut on (until the next row), what sharp said after `premature end of JPEG image`.
const CUTS: &[(usize, &str)] = &[
    (2, NO_IMAGE),
    (4, "Bogus DQT index 15"),
    (5, "Bogus DQT index 9"),
    (6, "Bogus DQT index 15"),
    (7, NO_IMAGE),
    (73, "Bogus DQT index 15"),
    (74, "Bogus DQT index 9"),
    (75, "Bogus DQT index 15"),
    (76, NO_IMAGE),
    (142, BAD_LENGTH),
    (150, NO_SOS),
    (161, HUFFMAN),
    (180, NO_SOS),
    (189, HUFFMAN),
    (208, NO_SOS),
    (232, HUFFMAN),
    (251, NO_SOS),
    (258, HUFFMAN),
    (277, NO_SOS),
    (312, BAD_LENGTH),
    (315, "Invalid component ID 255 in SOS"),
    (316, "Invalid component ID 217 in SOS"),
    (317, "Invalid component ID 255 in SOS"),
    (318, "Invalid component ID 217 in SOS"),
    (319, "Invalid component ID 255 in SOS"),
];

#[test]
fn a_header_cut_anywhere_gets_sharps_text() {
    let b = head();
    for cut in 2..=b.len() {
        let want = match CUTS.iter().rev().find(|(from, _)| *from <= cut) {
            Some((_, text)) if cut < 320 => Header::Error(format!(
                "VipsJpeg: premature end of JPEG image\nVipsJpeg: {text}"
            )),
            _ => Header::Read { precision: 8 },
        };
        assert_eq!(read(&b[..cut], true), want, "cut at {cut}");
        // Not the whole image: read again with more (libjpeg reads the scan header's last three
        // bytes, past the end, without checking them).
        let more = if cut < 324 { Header::NeedMore } else { want };
        assert_eq!(read(&b[..cut], false), more, "cut at {cut}, more to come");
    }
}

#[test]
fn a_wrong_field_gets_sharps_text() {
    let b = head();
    let with = |at: usize, v: u8| {
        let mut m = b.clone();
        m[at] = v;
        m
    };
    let spliced = |at: usize, piece: &[u8]| [&b[..at], piece, &b[at..]].concat();
    let (dqt, sof, dht, sos) = (2, 140, 159, 310);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "SOF height 0",
            {
                let mut m = with(sof + 5, 0);
                m[sof + 6] = 0;
                m
            },
            "Empty JPEG image (DNL not supported)",
        ),
        ("SOF 7 components", with(sof + 9, 7), BAD_LENGTH),
        (
            "SOF5",
            with(sof + 1, 0xC5),
            "Unsupported JPEG process: SOF type 0xc5",
        ),
        (
            "SOS before SOF",
            with(sof + 1, 0xE1),
            "Invalid JPEG file structure: SOS before SOF",
        ),
        (
            "unknown marker",
            with(dqt + 1, 0x02),
            "Unsupported marker type 0x02",
        ),
        ("DQT index 5", with(dqt + 4, 0x05), "Bogus DQT index 5"),
        ("DHT index 7", with(dht + 4, 0x07), "Bogus DHT index 7"),
        ("DHT AC index 6", with(dht + 4, 0x16), "Bogus DHT index 6"),
        ("DQT length + 1", with(dqt + 3, 0x44), "Bogus DQT index 15"),
        (
            "DRI length 5",
            spliced(sos, &[0xFF, 0xDD, 0, 5, 0, 0]),
            BAD_LENGTH,
        ),
        (
            "two SOI",
            spliced(2, &[0xFF, 0xD8]),
            "Invalid JPEG file structure: two SOI markers",
        ),
        (
            "two SOF",
            spliced(sos, &b[sof..sof + 19]),
            "Invalid JPEG file structure: two SOF markers",
        ),
        (
            "SOS component 9",
            with(sos + 5, 9),
            "Invalid component ID 9 in SOS",
        ),
        ("SOS 5 components", with(sos + 4, 5), BAD_LENGTH),
        (
            "DAC index 40",
            spliced(sos, &[0xFF, 0xCC, 0, 4, 40, 0x10]),
            "Bogus DAC index 40",
        ),
        (
            "DAC value",
            spliced(sos, &[0xFF, 0xCC, 0, 4, 1, 0x1F]),
            "Bogus DAC value 0x1f",
        ),
    ];
    for (name, bytes, text) in cases {
        assert_eq!(
            read(&bytes, true),
            Header::Error(format!("VipsJpeg: {text}")),
            "{name}"
        );
    }
    // What sharp reads: bytes before a marker, a lossless frame, a 12-bit one (refused later, when
    // decoded).
    assert_eq!(
        read(&spliced(2, &[1, 2, 3]), true),
        Header::Read { precision: 8 }
    );
    assert_eq!(
        read(&with(sof + 1, 0xC3), true),
        Header::Read { precision: 8 }
    );
    assert_eq!(
        read(&with(sof + 4, 12), true),
        Header::Read { precision: 12 }
    );
    assert_eq!(
        read(&[0xFF, 0xD8, 0x00], true),
        Header::Error(format!(
            "VipsJpeg: premature end of JPEG image\nVipsJpeg: {NO_IMAGE}"
        ))
    );
}
