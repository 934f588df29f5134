//! The texts the real sharp gave (through OpenClaw 2026.3.23-2's `sanitizeContentBlocksImages`,
//! recorded by benchmark/sharp-texts.mjs into __test__/fixtures/sharp-texts.json, which
//! __test__/image-edge.spec.mjs also runs end to end) for a JPEG cut at every byte of its header,
//! and for headers made wrong one field at a time.

use super::*;
use ::base64::Engine;
use serde_json::Value;

static FIXTURE: &str = include_str!("../../../__test__/fixtures/sharp-texts.json");

/// What `text` (a recorded outcome) says `read` gives: `None` when the header read.
fn error_of(outcome: &Value) -> Option<String> {
    const PREFIX: &str = "omitted image payload: Error: Input buffer has corrupt header: ";
    let text = outcome.get("text")?.as_str()?;
    let at = text.find(PREFIX).expect("a corrupt-header text");
    Some(text[at + PREFIX.len()..].to_owned())
}

fn fixture() -> Value {
    serde_json::from_str(FIXTURE).expect("the fixture is JSON")
}

fn bytes(v: &Value) -> Vec<u8> {
    ::base64::engine::general_purpose::STANDARD
        .decode(v["data"].as_str().expect("data"))
        .expect("base64")
}

#[test]
fn a_header_cut_anywhere_gets_sharps_text() {
    let f = fixture();
    let case = &f["cases"][0];
    let b = bytes(case);
    let rows = case["cuts"].as_array().expect("rows");
    let last = case["to"].as_u64().expect("to") as usize;
    // 330 bytes: SOS at 310, its components end at 320, its header at 324.
    assert_eq!((b.len(), b[310], b[311]), (330, 0xFF, 0xDA));
    for cut in 2..=last {
        let row = rows
            .iter()
            .rev()
            .find(|r| r[0].as_u64().is_some_and(|from| from as usize <= cut))
            .expect("a row");
        let got = read(&b[..cut], true);
        match error_of(&row[1]) {
            Some(text) => assert_eq!(got, Header::Error(text), "cut at {cut}"),
            None => assert!(matches!(got, Header::Read(_)), "cut at {cut}: {got:?}"),
        }
        // Not the whole image: read again with more (libjpeg reads the scan header's last three
        // bytes past the end).
        if cut < 324 {
            assert_eq!(read(&b[..cut], false), Header::NeedMore, "cut at {cut}");
        }
    }
    // What decoding meets: the last table selector past the end names table 0x0f; the last
    // three bytes past the end are only warned of.
    let frame = |cut: usize| match read(&b[..cut], true) {
        Header::Read(frame) => frame,
        other => panic!("cut at {cut}: {other:?}"),
    };
    assert_eq!(
        frame(320).start_error,
        Some(("Huffman table 0x0f was not defined".into(), true))
    );
    for (cut, missing) in [(321, 3), (322, 2), (323, 1), (324, 0), (330, 0)] {
        assert_eq!(frame(cut).start_error, None, "cut at {cut}");
        assert_eq!(frame(cut).scan_header_missing, missing, "cut at {cut}");
    }
}

#[test]
fn a_wrong_field_gets_sharps_text() {
    let f = fixture();
    for case in f["wrong"].as_array().expect("wrong") {
        let name = case["name"].as_str().expect("name");
        let got = read(&bytes(case), true);
        match error_of(&case["outcome"]) {
            Some(text) => assert_eq!(got, Header::Error(text), "{name}"),
            None => assert!(matches!(got, Header::Read(_)), "{name}: {got:?}"),
        }
    }
    // A 12-bit frame reads (libvips refuses it later, when it decodes).
    let mut b = bytes(&f["cases"][0]);
    b[144] = 12;
    assert!(matches!(
        read(&b, true),
        Header::Read(Frame { precision: 12, .. })
    ));
    assert_eq!(
        read(&[0xFF, 0xD8, 0x00], true),
        Header::Error(
            "VipsJpeg: premature end of JPEG image\nVipsJpeg: JPEG datastream contains no image"
                .into()
        )
    );
}

#[test]
fn a_progressive_scan_header_cut_short_has_impossible_parameters() {
    // The first scan of a progressive JPEG (DC, three components), its last selector or
    // parameters past the end: the texts sharp gave when decoding (the progressive case of the
    // fixture, cut from 221 to 224).
    let f = fixture();
    let case = &f["cases"][2];
    let b = bytes(case);
    let sos = (2..b.len() - 1)
        .find(|&i| b[i] == 0xFF && b[i + 1] == 0xDA)
        .expect("a scan");
    for (cut, text) in [
        (sos + 10, "Ss=217 Se=255 Ah=13 Al=9"),
        (sos + 11, "Ss=255 Se=217 Ah=15 Al=15"),
        (sos + 12, "Ss=0 Se=255 Ah=13 Al=9"),
        (sos + 13, "Ss=0 Se=0 Ah=15 Al=15"),
    ] {
        let Header::Read(frame) = read(&b[..cut], true) else {
            panic!("cut at {cut}")
        };
        let want = format!("Invalid progressive/lossless parameters {text}");
        assert_eq!(frame.start_error, Some((want, true)), "cut at {cut}");
    }
}
