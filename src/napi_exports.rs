//! The JS boundary's promise that no Rust panic takes the Node process down, checked on the
//! sources: `src/napi` is compiled only into the addon, so this test lives outside it.
/// Every exported function and method is wrapped in `catch_unwind`: a panic anywhere below the
/// boundary (a slice on a bad index, an overflow) becomes a JS error instead of killing the host.
/// Read from the sources, so a new export without it fails here.
#[test]
fn every_export_catches_panics() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/napi");
    let mut missing = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).expect("src/napi") {
        let path = entry.expect("a directory entry").path();
        let text = std::fs::read_to_string(&path).expect("a source file");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let attr = line.trim();
            if !attr.starts_with("#[napi") || attr.starts_with("#[napi_derive") {
                continue;
            }
            let item = lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.starts_with("#[") && !l.starts_with("///"))
                .unwrap_or("");
            if !item.contains("fn ") {
                continue; // a struct, an object or an impl block: nothing runs there
            }
            checked += 1;
            if !attr.contains("catch_unwind") {
                missing.push(format!("{}:{}: {item}", path.display(), i + 1));
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} exports found: the scan is broken"
    );
    assert!(
        missing.is_empty(),
        "exports without catch_unwind:\n{}",
        missing.join("\n")
    );
}
