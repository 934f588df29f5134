//! Results in the XML protocol's shape, `[<desc>] Result:` followed by output blocks, in two kinds
//! of history:
//!
//! - **Calls never recorded** (Kilo v4.106.0–v4.111.0, issue #3237): the model called tools
//!   natively but the assistant message kept only its streamed text (often `""`). The result's
//!   description is all that names the call, so the call is rebuilt from it ([`super::xml_result`])
//!   and reported as `call_not_recorded`: its other arguments are gone.
//! - **Genuine XML protocol**: the assistant's text holds the call ([`super::xml_call`]). This is
//!   a consistent history, left alone unless the caller asks (`xmlProtocol`).
//!
//! The result takes the header block and the blocks after it up to the next header or the
//! `<environment_details>` block, as the same objects.

use super::model::Block;
use super::plan::{slice, PartSpec, ResultSpec, Spec, Val};
use super::recover::{path, Note, Pair, Pass};
use super::xml_call::{self, Found};
use super::xml_result::{self, Header};
use crate::js_text::js_trim;

fn warn(p: &mut Pass<'_>, path: String, kind: &'static str, message: String) {
    p.out.warnings.push(Note {
        path,
        kind,
        message,
    });
}

/// Blocks `hb..end` of user message `u` that make up the result headed at `hb`.
fn result_end(p: &Pass<'_>, u: usize, hb: usize, headers: &[(usize, Header)]) -> usize {
    let blocks = p.h.msgs[u].blocks();
    let mut end = hb + 1;
    while end < blocks.len() {
        let stop = match &blocks[end] {
            Block::Text(ti) => {
                headers.iter().any(|(b, _)| *b == end)
                    || xml_result::is_environment_details(p.h.text(*ti))
            }
            Block::Image { .. } => false,
            _ => true,
        };
        if stop {
            break;
        }
        end += 1;
    }
    end
}

/// Rebuilds the user message with `(header block, end, id)` results.
fn write_results(p: &mut Pass<'_>, u: usize, results: &[(usize, usize, String)]) {
    let old = p.edit(u).clone();
    let mut out = Vec::with_capacity(old.len());
    let mut b = 0;
    while b < old.len() {
        if let Some((hb, end, id)) = results.iter().find(|(hb, _, _)| *hb == b) {
            out.push(Spec::ToolResult {
                base: None,
                id: id.clone(),
                content: ResultSpec::Parts((*hb..*end).map(PartSpec::Block).collect()),
                is_error: None,
            });
            b = *end;
        } else {
            out.push(old[b].clone());
            b += 1;
        }
    }
    p.content[u] = Some(out);
}

/// Whether user message `u` holds an XML-protocol result header.
pub fn has_xml_result(h: &super::model::History, u: usize) -> bool {
    h.msgs[u].blocks().iter().any(|b| match b {
        Block::Text(ti) => xml_result::parse(h.text(*ti)).is_some(),
        _ => false,
    })
}

/// Assistant message `a` (no flattened results follow it) and the user message `u` after it.
pub fn recover_pair(p: &mut Pass<'_>, a: usize, u: usize) {
    let h = p.h;
    let headers: Vec<(usize, Header)> = h.msgs[u]
        .blocks()
        .iter()
        .enumerate()
        .filter_map(|(b, blk)| match blk {
            Block::Text(ti) => xml_result::parse(h.text(*ti)).map(|hd| (b, hd)),
            _ => None,
        })
        .collect();
    if headers.is_empty() {
        return;
    }
    let mut xml = None;
    let mut mentions = false;
    for (b, blk) in h.msgs[a].blocks().iter().enumerate() {
        let Block::Text(ti) = blk else { continue };
        let t = h.text(*ti);
        match xml_call::find(t) {
            Found::Call(c) if xml.is_none() => xml = Some((b, *ti, c)),
            Found::Partial { .. } => mentions = true,
            _ => {}
        }
        mentions |= headers
            .iter()
            .any(|(_, hd)| t.contains(&format!("<{}>", hd.name)));
    }
    if let Some((tb, ti, call)) = xml {
        if !p.opts.xml_protocol {
            return;
        }
        let (hb, hd) = &headers[0];
        if hd.name != call.name {
            let m = format!(
                "the XML call is {} but the result names {}; left as text",
                call.name, hd.name
            );
            warn(p, path(a, tb), "name_mismatch", m);
            return;
        }
        let text = h.text(ti);
        let at = path(a, tb);
        let id = p.ids.at("recovered", a, tb);
        p.check_tool(call.name, &at);
        let input = p.input(call.name, ti, &call.params, &at);
        let mut specs = Vec::new();
        let before = text.get(..call.span.start).unwrap_or("");
        if !js_trim(before).is_empty() {
            specs.push(Spec::Text(vec![slice(ti, text, 0, call.span.start)]));
        }
        specs.push(Spec::ToolUse {
            id: id.clone(),
            name: call.name.to_string(),
            input,
        });
        let after = text.get(call.span.end..).unwrap_or("");
        if !js_trim(after).is_empty() {
            specs.push(Spec::Text(vec![slice(ti, text, call.span.end, text.len())]));
        }
        let v = p.edit(a);
        let tail = v.split_off(tb + 1);
        v.pop();
        v.extend(specs);
        v.extend(tail);
        let end = result_end(p, u, *hb, &headers);
        write_results(p, u, &[(*hb, end, id.clone())]);
        p.out.recovered.push(Pair {
            id,
            name: call.name.to_string(),
            call: at,
            result: Some(path(u, *hb)),
            source: "xml",
        });
        return;
    }
    if mentions {
        // Call text the parser cannot read (a tool it does not know, or cut off): not call-less.
        return;
    }
    let mut results = Vec::new();
    let mut uses = Vec::new();
    for (hb, hd) in &headers {
        let at = path(u, *hb);
        let id = p.ids.at("unrecorded", u, *hb);
        p.check_tool(&hd.name, &at);
        p.out.unrecoverable.push(Note {
            path: at.clone(),
            kind: "call_not_recorded",
            message: format!(
                "the {} call was never recorded; rebuilt from the result's description with only the arguments it states",
                hd.name
            ),
        });
        let input = hd
            .input
            .iter()
            .map(|(k, v)| (k.clone(), Val::Json(v.clone())))
            .collect();
        uses.push(Spec::ToolUse {
            id: id.clone(),
            name: hd.name.clone(),
            input,
        });
        results.push((*hb, result_end(p, u, *hb, &headers), id.clone()));
        p.out.recovered.push(Pair {
            id,
            name: hd.name.clone(),
            call: at.clone(),
            result: Some(at),
            source: "unrecorded",
        });
    }
    // The empty text the assistant message kept carries nothing, and Anthropic rejects it.
    let empty: Vec<usize> = h.msgs[a]
        .blocks()
        .iter()
        .enumerate()
        .filter_map(|(b, blk)| {
            matches!(blk, Block::Text(ti) if h.text(*ti).is_empty()).then_some(b)
        })
        .collect();
    let v = p.edit(a);
    v.retain(|s| !matches!(s, Spec::Keep(b) if empty.contains(b)));
    v.extend(uses);
    write_results(p, u, &results);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_style::ids::Ids;
    use crate::tool_style::model::build::B;
    use crate::tool_style::recover::{Options, Recovery};

    fn pass<'h>(h: &'h crate::tool_style::model::History, opts: &'h Options) -> Pass<'h> {
        Pass {
            h,
            opts,
            ids: Ids::default(),
            content: vec![None; h.msgs.len()],
            out: Recovery::default(),
        }
    }

    #[test]
    fn a_result_runs_to_the_next_header_or_the_environment_details() {
        let mut b = B::default();
        let h1 = b.text("[execute_command for 'a'] Result:");
        let o1 = b.text("out a");
        let h2 = b.text("[list_files for '.'] Result:");
        let o2 = b.text("x.ts");
        let env = b.text("<environment_details>\n</environment_details>");
        let tail = b.text("after");
        b.msg(
            "user",
            vec![h1, o1, Block::Image { url: false }, h2, o2, env, tail],
        );
        let opts = Options::default();
        let p = pass(&b.h, &opts);
        let headers: Vec<(usize, Header)> = [0, 3]
            .iter()
            .map(|&i| {
                (
                    i,
                    xml_result::parse(match &b.h.msgs[0].blocks()[i] {
                        Block::Text(t) => b.h.text(*t),
                        _ => "",
                    })
                    .unwrap(),
                )
            })
            .collect();
        assert_eq!(
            result_end(&p, 0, 0, &headers),
            3,
            "text and image outputs, up to the next header"
        );
        assert_eq!(
            result_end(&p, 0, 3, &headers),
            5,
            "up to the environment details"
        );
    }

    #[test]
    fn an_assistant_that_names_the_tool_in_unreadable_xml_is_not_call_less() {
        let mut b = B::default();
        let t = b.text("Running.\n<my_tool>\n<x>1</x>\n</my_tool>\n<execute_command>");
        b.msg("assistant", vec![t]);
        let head = b.text("[execute_command for 'ls'] Result:");
        b.msg("user", vec![head]);
        let opts = Options::default();
        let mut p = pass(&b.h, &opts);
        recover_pair(&mut p, 0, 1);
        assert!(p.content.iter().all(Option::is_none), "left alone");
    }
}
