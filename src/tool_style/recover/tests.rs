use super::*;
use crate::tool_style::flatten::call_text;
use crate::tool_style::model::build::{tool_use, B};
use crate::tool_style::model::Content;
use serde_json::json;

/// A plan string resolved against the history (ASCII texts: UTF-16 offsets are bytes).
fn s(h: &History, pieces: &Str) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Lit(l) => l.clone(),
            Piece::Whole(i) => h.text(*i).to_string(),
            Piece::Slice(i, a, b) => h.text(*i)[*a..*b].to_string(),
        })
        .collect()
}

fn input(h: &History, spec: &Spec) -> Value {
    let Spec::ToolUse { input, .. } = spec else {
        panic!("not a tool_use: {spec:?}")
    };
    Value::Object(
        input
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    Val::Str(p) => json!(s(h, p)),
                    Val::Json(j) => j.clone(),
                };
                (k.clone(), v)
            })
            .collect(),
    )
}

fn edit(r: &Recovery, m: usize) -> &Vec<Spec> {
    &r.edits
        .iter()
        .find(|e| e.msg == m)
        .expect("message edited")
        .content
}

fn flat_pair(b: &mut B, name: &str, inp: Value, result: &str) {
    let prose = b.text("Let me do it.");
    let call = b.text(&call_text(name, Some(&inp)));
    b.msg("assistant", vec![prose, call]);
    let r = b.text(&format!("[{name} Result]\n\n{result}"));
    let env = b.text("<environment_details>\nx\n</environment_details>");
    b.msg("user", vec![r, env]);
}

#[test]
fn rebuilds_a_flattened_pair_with_a_positional_id() {
    let mut b = B::default();
    b.str_msg("user", "task");
    flat_pair(
        &mut b,
        "write_to_file",
        json!({"path": "a.ts", "content": "\nx\n"}),
        "done",
    );
    let r = recover(&b.h, &Options::default());
    let a = edit(&r, 1);
    assert_eq!(a[0], Spec::Keep(0));
    assert_eq!(
        input(&b.h, &a[1]),
        json!({"path": "a.ts", "content": "\nx\n"})
    );
    let Spec::ToolUse { id, name, .. } = &a[1] else {
        panic!()
    };
    assert_eq!(
        (id.as_str(), name.as_str()),
        ("toolu_recovered_1_1", "write_to_file")
    );
    let u = edit(&r, 2);
    let Spec::ToolResult {
        id: rid,
        content: ResultSpec::Str(c),
        ..
    } = &u[0]
    else {
        panic!("{u:?}")
    };
    assert_eq!(rid, id);
    assert_eq!(s(&b.h, c), "done");
    assert_eq!(u[1], Spec::Keep(1));
    assert_eq!(r.recovered.len(), 1);
    assert!(r.unrecoverable.is_empty() && r.warnings.is_empty());
}

#[test]
fn nothing_flattened_means_no_edits() {
    let mut b = B::default();
    b.str_msg("user", "hi");
    let t = b.text("<read_file>\n<path>a</path>\n</read_file>");
    b.msg(
        "assistant",
        vec![t, tool_use("x", "read_file", json!({"path": "a"}))],
    );
    b.msg(
        "user",
        vec![Block::ToolResult {
            id: Some("x".into()),
            content: ResultContent::None,
            is_error: false,
        }],
    );
    let r = recover(&b.h, &Options::default());
    assert!(r.edits.is_empty() && r.recovered.is_empty(), "{r:?}");
}

#[test]
fn schema_types_come_back_and_objects_are_reported_not_guessed() {
    let mut b = B::default();
    flat_pair(
        &mut b,
        "execute_command",
        json!({"command": "ls", "cwd": null, "timeout": 30}),
        "ok",
    );
    flat_pair(
        &mut b,
        "read_file",
        json!({"files": [{"path": "a"}]}),
        "<files/>",
    );
    let opts = Options {
        tools: Tools::from_json(Some(&json!([
            {"name": "execute_command", "input_schema": {"properties": {
                "command": {"type": "string"}, "cwd": {"type": ["string", "null"]}, "timeout": {"type": "integer"}}}},
            {"name": "read_file", "input_schema": {"properties": {"files": {"type": "array", "items": {"type": "object"}}}}}
        ]))),
        xml_protocol: false,
    };
    let r = recover(&b.h, &opts);
    assert_eq!(
        input(&b.h, &edit(&r, 0)[1]),
        json!({"command": "ls", "cwd": null, "timeout": 30})
    );
    assert_eq!(
        input(&b.h, &edit(&r, 2)[1]),
        json!({"files": "[object Object]"})
    );
    assert_eq!(r.unrecoverable.len(), 1);
    assert_eq!(r.unrecoverable[0].path, "history[2].content[1].input.files");
    assert_eq!(r.unrecoverable[0].kind, "object_lost");
    // Without schemas the values stay strings.
    let r = recover(&b.h, &Options::default());
    assert_eq!(
        input(&b.h, &edit(&r, 0)[1]),
        json!({"command": "ls", "cwd": "null", "timeout": "30"})
    );
}

#[test]
fn a_second_result_for_the_same_call_is_merged_and_the_kilo_header_split_out() {
    let mut b = B::default();
    let call = b.text(&call_text("read_file", Some(&json!({"path": "a"}))));
    b.msg("assistant", vec![call]);
    let r1 = b.text("[read_file Result]\n\n[read_file for 'a'] Result:\n\nThe user approved.");
    let r2 = b.text("[read_file Result]\n\n<files/>");
    b.msg("user", vec![r1, r2]);
    let r = recover(&b.h, &Options::default());
    let u = edit(&r, 1);
    assert_eq!(u.len(), 1);
    let Spec::ToolResult {
        content: ResultSpec::Parts(parts),
        ..
    } = &u[0]
    else {
        panic!("{u:?}")
    };
    let texts: Vec<String> = parts
        .iter()
        .map(|p| match p {
            PartSpec::Text(t) => s(&b.h, t),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        texts,
        vec![
            "[read_file for 'a'] Result:",
            "The user approved.",
            "<files/>"
        ]
    );
    assert_eq!(r.warnings[0].kind, "merged_results");
}

#[test]
fn calls_without_results_get_an_error_result_and_lone_results_stay_text() {
    let mut b = B::default();
    let c1 = b.text(&call_text("list_files", Some(&json!({"path": "."}))));
    let c2 = b.text(&call_text("read_file", Some(&json!({"path": "a"}))));
    b.msg("assistant", vec![c1, c2]);
    let r2 = b.text("[read_file Result]\n\nbody");
    let lone = b.text("[Unknown Tool Result]\n\nwho knows");
    b.msg("user", vec![r2, lone]);
    let r = recover(&b.h, &Options::default());
    let u = edit(&r, 1);
    assert!(
        matches!(&u[0], Spec::ToolResult { is_error: None, id, .. } if id == "toolu_recovered_0_1")
    );
    assert!(
        matches!(&u[1], Spec::ToolResult { is_error: Some(true), id, .. } if id == "toolu_recovered_0_0")
    );
    assert_eq!(u[2], Spec::Keep(1));
    let kinds: Vec<&str> = r.warnings.iter().map(|w| w.kind).collect();
    assert_eq!(kinds, vec!["call_without_result", "result_without_call"]);
    assert_eq!(r.warnings[1].path, "history[1].content[1]");
}

#[test]
fn truncated_calls_and_unknown_tools_are_reported() {
    let mut b = B::default();
    let full = call_text(
        "write_to_file",
        Some(&json!({"path": "a", "content": "long"})),
    );
    let cut = b.text(&full[..full.len() - 10]);
    b.msg("assistant", vec![cut]);
    b.str_msg("user", "next");
    flat_pair(&mut b, "my_tool", json!({"x": "1"}), "r");
    let opts = Options {
        tools: Tools::from_json(Some(&json!([{"name": "read_file"}]))),
        xml_protocol: false,
    };
    let r = recover(&b.h, &opts);
    assert_eq!(r.unrecoverable[0].kind, "truncated_call");
    assert_eq!(r.unrecoverable[0].path, "history[0].content[0]");
    assert!(r.edits.iter().all(|e| e.msg != 0));
    assert_eq!(r.warnings[0].kind, "unknown_tool");
    assert_eq!(r.recovered.len(), 1);
}

#[test]
fn call_less_kilo_histories_rebuild_the_call_from_the_description() {
    let mut b = B::default();
    let empty = b.text("");
    b.msg("assistant", vec![empty]);
    let head = b.text("[execute_command for 'npm test'] Result:");
    let out = b.text("Command executed in terminal  within working directory '/w'. Exit code: 0");
    let env = b.text("<environment_details>\n</environment_details>");
    b.msg("user", vec![head, out, env]);
    let r = recover(&b.h, &Options::default());
    let a = edit(&r, 0);
    assert_eq!(a.len(), 1, "the empty text block goes: {a:?}");
    assert_eq!(input(&b.h, &a[0]), json!({"command": "npm test"}));
    let u = edit(&r, 1);
    assert!(
        matches!(&u[0], Spec::ToolResult { content: ResultSpec::Parts(p), .. } if *p == vec![PartSpec::Block(0), PartSpec::Block(1)])
    );
    assert_eq!(u[1], Spec::Keep(2));
    assert_eq!(r.unrecoverable[0].kind, "call_not_recorded");
}

#[test]
fn genuine_xml_protocol_is_left_alone_unless_asked() {
    let mut b = B::default();
    let t = b.text("I'll read it.\n\n<read_file>\n<path>src/a.ts</path>\n</read_file>");
    b.msg("assistant", vec![t]);
    let head = b.text("[read_file for 'src/a.ts'] Result:");
    let out = b.text("<files/>");
    b.msg("user", vec![head, out]);
    assert!(recover(&b.h, &Options::default()).edits.is_empty());
    let r = recover(
        &b.h,
        &Options {
            xml_protocol: true,
            ..Options::default()
        },
    );
    let a = edit(&r, 0);
    assert_eq!(
        s(
            &b.h,
            match &a[0] {
                Spec::Text(t) => t,
                o => panic!("{o:?}"),
            }
        ),
        "I'll read it.\n\n"
    );
    assert_eq!(input(&b.h, &a[1]), json!({"path": "src/a.ts"}));
    assert_eq!(r.recovered[0].source, "xml");
}

#[test]
fn native_results_sharing_an_id_are_merged() {
    let mut b = B::default();
    b.msg("assistant", vec![tool_use("t1", "read_file", json!({}))]);
    let a = b.t("[read_file for 'a'] Result:");
    let c = b.t("body");
    b.msg(
        "user",
        vec![
            Block::ToolResult {
                id: Some("t1".into()),
                content: ResultContent::Parts(vec![Part::Text(a)]),
                is_error: false,
            },
            Block::ToolResult {
                id: Some("t1".into()),
                content: ResultContent::Str(c),
                is_error: true,
            },
        ],
    );
    let r = recover(&b.h, &Options::default());
    let u = edit(&r, 1);
    assert_eq!(
        u,
        &vec![Spec::ToolResult {
            base: Some(0),
            id: "t1".into(),
            content: ResultSpec::Parts(vec![
                PartSpec::Sub(0, 0),
                PartSpec::Text(vec![Piece::Whole(c)])
            ]),
            is_error: Some(true),
        }]
    );
    assert!(matches!(b.h.msgs[1].content, Content::Blocks(_)));
}

#[test]
fn a_padded_xml_call_answered_in_the_xml_protocol_is_not_taken_for_a_flattened_one() {
    let mut b = B::default();
    let t = b.text("<attempt_completion>\n<result>\nDone.\n</result>\n</attempt_completion>");
    b.msg("assistant", vec![t]);
    let head = b.text("[attempt_completion] Result:");
    let out = b.text("The user denied this operation.");
    b.msg("user", vec![head, out]);
    let r = recover(&b.h, &Options::default());
    assert!(r.edits.is_empty() && r.warnings.is_empty(), "{r:?}");
    let r = recover(
        &b.h,
        &Options {
            xml_protocol: true,
            ..Options::default()
        },
    );
    assert_eq!(input(&b.h, &edit(&r, 0)[0]), json!({"result": "Done."}));
    assert!(
        matches!(&edit(&r, 1)[0], Spec::ToolResult { content: ResultSpec::Parts(p), .. } if p.len() == 2)
    );
}

#[test]
fn result_texts_of_native_calls_become_their_tool_results_and_survive_a_flattening() {
    let mut b = B::default();
    b.msg(
        "assistant",
        vec![tool_use("t1", "execute_command", json!({"command": "ls"}))],
    );
    let note = b.text("用户反馈：好");
    let r = b.text("[execute_command for 'ls'] Result:\n文件.txt");
    let env = b.text("<environment_details>\nx\n</environment_details>");
    b.msg("user", vec![note, r, env]);
    let out = recover(&b.h, &Options::default());
    assert_eq!(
        edit(&out, 1),
        &vec![
            text_result::result_spec("t1", 1),
            Spec::Keep(0),
            Spec::Keep(2)
        ],
        "the result first, whole, with the call's id"
    );
    assert_eq!(out.recovered[0].source, "text_result");
    assert!(out.warnings.is_empty());
    // The same history flattened ('xml' style): the call is text, the result text answers it.
    let mut f = B::default();
    let call = f.text(&call_text(
        "execute_command",
        Some(&json!({"command": "ls"})),
    ));
    f.msg("assistant", vec![call]);
    let r = f.text("[execute_command for 'ls'] Result:\n文件.txt");
    f.msg("user", vec![r]);
    let out = recover(&f.h, &Options::default());
    let id = out.recovered[0].id.clone();
    assert_eq!(edit(&out, 1), &vec![text_result::result_spec(&id, 1)]);
    assert!(
        out.warnings.iter().all(|w| w.kind != "call_without_result"),
        "no interrupted-call error: {:?}",
        out.warnings
    );
}
