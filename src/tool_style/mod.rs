//! Tool-call style consistency (issue #4, seed 001).
//!
//! Agents of the Cline / Roo Code / Kilo Code lineage store Anthropic-format histories and, for
//! months, flattened every native `tool_use` / `tool_result` block to XML text on each task
//! resume and saved the result. Histories on disk now mix XML text with native calls, and a model
//! offered native tools that sees XML calls in its own past turns starts answering in XML. The
//! upstream fix stopped new damage; this module is the migration back, plus the conversions an
//! agent needs around it:
//!
//! - [`flatten`]: native blocks to text, byte for byte as the agents wrote it (`'xml'` style).
//! - [`recover`]: flattened text (and, on request, genuine XML-protocol text) back to native
//!   `tool_use` / `tool_result` pairs, reporting what cannot be restored exactly.
//! - [`detect`]: which style a history is in.
//! - [`openai`]: the history as OpenAI chat messages.
//!
//! Only a skeleton crosses from JS ([`model`]): roles, block kinds, ids, names, tool inputs when a
//! rule needs them, and text strings when a rule reads them. The answer is a plan ([`plan`]) that
//! refers back to the caller's blocks and to slices of the caller's strings (UTF-16 offsets), so
//! untouched messages and blocks come back as the same objects and large texts never cross back.

pub mod call_less;
pub mod detect;
pub mod flat_call;
pub mod flat_result;
pub mod flatten;
pub mod ids;
pub mod js_string;
pub mod model;
pub mod openai;
pub mod plan;
pub mod recover;
pub mod schema;
pub mod skeleton;
pub mod text_result;
pub mod xml_call;
pub mod xml_result;

/// Runs one operation on a skeleton (JSON text, see [`model`]) and its texts, and returns the
/// answer as JSON text. `op`: `"xml"`, `"recover"`, `"detect"` or `"openai"`.
///
/// ```
/// use transcript_hygiene::tool_style::run;
///
/// // One assistant turn whose call was flattened to text (Cline / Roo style), then its result.
/// let skeleton = r#"{"op":"detect","n":2,"options":null,"msgs":[["assistant",[["t",0]]],["user",[["t",1]]]]}"#;
/// let texts = vec![
///     Some("我先读文件。\n<read_file>\n<path>src/main.rs</path>\n</read_file>".to_string()),
///     Some("[read_file for 'src/main.rs'] Result:\nfn main() {}".to_string()),
/// ];
/// let answer: serde_json::Value = serde_json::from_str(&run(skeleton, texts).unwrap()).unwrap();
/// assert_eq!(answer["style"], "xml");
/// assert!(run("[1]", vec![]).is_err());
/// ```
pub fn run(skeleton: &str, texts: Vec<Option<String>>) -> Result<String, String> {
    let skeleton::Skeleton {
        op,
        options,
        history: h,
    } = skeleton::Skeleton::read(skeleton, texts)?;
    match op.as_str() {
        "xml" => Ok(flatten::flatten(&h).to_json_string()),
        "recover" => {
            let opts = recover::Options::from_json(options.as_ref())?;
            Ok(recover::recover(&h, &opts).to_json_string())
        }
        "detect" => Ok(detect::detect(&h).to_json().to_string()),
        "openai" => Ok(openai::to_json_string(&openai::to_openai(&h))),
        other => Err(format!("unknown operation {other:?}")),
    }
}
