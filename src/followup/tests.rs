use super::pairing::Item;
use super::*;

fn chat(calls: &[(&str, &str)], results: &[&str]) -> Followup {
    Followup {
        protocol: Protocol::Chat,
        server_tools: vec!["web_search".into()],
        keys: vec![
            "model".into(),
            "messages".into(),
            "stream".into(),
            "tool_choice".into(),
            "tools".into(),
        ],
        tools: Some(vec![Some("web_search".into()), Some("read".into()), None]),
        calls: calls
            .iter()
            .map(|(id, n)| (Some(id.to_string()), Some(n.to_string())))
            .collect(),
        results: results.iter().map(|r| Some(r.to_string())).collect(),
        ..Followup::default()
    }
}

#[test]
fn results_follow_call_order_and_server_tools_leave_the_tool_list() {
    let p = plan(&chat(
        &[("a", "web_search"), ("b", "web_search")],
        &["b", "a"],
    ))
    .expect("plan");
    assert_eq!(p.drop, vec!["stream", "tool_choice"]);
    assert_eq!(p.keep_tools, Some(vec![1, 2]));
    assert!(p.append_assistant);
    let ids: Vec<&str> = p
        .append
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(p.append[0]["role"], "tool");
    assert_eq!(p.append[0]["name"], "web_search");
    // Result 1 answers call a, result 0 answers call b.
    assert_eq!(
        p.fills,
        vec![
            (vec![json!(0), json!("content")], 1),
            (vec![json!(1), json!("content")], 0)
        ]
    );
}

#[test]
fn pairing_errors_name_the_id() {
    let unknown = plan(&chat(&[("a", "web_search")], &["a", "zz"])).unwrap_err();
    assert_eq!(unknown.id.as_deref(), Some("zz"));
    let missing = plan(&chat(&[("a", "web_search"), ("b", "read")], &["a"])).unwrap_err();
    assert_eq!(missing.id.as_deref(), Some("b"));
    assert!(missing.message.contains("synthesize"));
    let twice = plan(&chat(&[("a", "web_search")], &["a", "a"])).unwrap_err();
    assert_eq!(twice.id.as_deref(), Some("a"));
    let dup_call = plan(&chat(&[("a", "web_search"), ("a", "read")], &["a"])).unwrap_err();
    assert_eq!(dup_call.id.as_deref(), Some("a"));
    let mut no_id = chat(&[("a", "web_search")], &["a"]);
    no_id.calls[0].0 = None;
    assert!(plan(&no_id).unwrap_err().message.contains("no id"));
}

#[test]
fn a_missing_result_can_be_synthesized() {
    let mut f = chat(&[("a", "web_search"), ("b", "read")], &["a"]);
    f.synthesize = true;
    let o = pairing::order(&f).expect("order");
    assert_eq!(
        o.items[1],
        Item::Synthetic {
            id: "b".into(),
            name: Some("read".into())
        }
    );
    let p = plan(&f).expect("plan");
    assert_eq!(p.append[1]["content"], DEFAULT_SYNTHETIC_TEXT);
    assert_eq!(p.fills.len(), 1);
}

#[test]
fn a_follow_up_fed_back_is_not_applied_twice() {
    let mut f = chat(&[("a", "web_search")], &["a"]);
    f.history_calls = vec!["a".into()];
    f.history_results = vec!["a".into()];
    let p = plan(&f).expect("plan");
    assert!(!p.append_assistant);
    assert!(p.append.is_empty());
}

#[test]
fn responses_and_anthropic_shapes() {
    let mut f = chat(&[("a", "web_search"), ("b", "read")], &["a"]);
    f.synthesize = true;
    f.protocol = Protocol::Responses;
    f.input_is_string = true;
    let p = plan(&f).expect("plan");
    assert_eq!(p.prepend.len(), 1);
    assert_eq!(
        p.append[0],
        json!({"type": "function_call_output", "call_id": "a", "output": null})
    );
    assert_eq!(p.append[1]["output"], DEFAULT_SYNTHETIC_TEXT);
    f.protocol = Protocol::Anthropic;
    let p = plan(&f).expect("plan");
    assert_eq!(p.append.len(), 1);
    assert_eq!(p.append[0]["role"], "user");
    assert_eq!(p.append[0]["content"][1]["is_error"], true);
    assert_eq!(
        p.fills,
        vec![(
            vec![json!(0), json!("content"), json!(0), json!("content")],
            0
        )]
    );
}

#[test]
fn strip_keeps_client_calls() {
    let server = vec!["web_search".to_string()];
    let a = strip::Answer {
        tool_calls: Some(vec![Some("web_search".into()), Some("read".into())]),
        ..Default::default()
    };
    let s = strip::strip(&a, &server).expect("strip");
    assert_eq!(s.keep, vec![1]);
    let none = strip::Answer {
        tool_calls: Some(vec![Some("read".into())]),
        ..Default::default()
    };
    assert_eq!(strip::strip(&none, &server), None);
    let anthropic = strip::Answer {
        content: Some(vec![
            (Some("text".into()), None),
            (Some("tool_use".into()), Some("web_search".into())),
            (Some("server_tool_use".into()), Some("web_search".into())),
        ]),
        ..Default::default()
    };
    assert_eq!(
        strip::strip(&anthropic, &server).map(|s| s.keep),
        Some(vec![0, 2])
    );
}

#[test]
fn a_tool_list_of_server_tools_only_is_dropped() {
    let mut f = chat(&[("a", "web_search")], &["a"]);
    f.tools = Some(vec![Some("web_search".into())]);
    let p = plan(&f).expect("plan");
    assert_eq!(p.keep_tools, None);
    assert_eq!(p.drop, vec!["stream", "tool_choice", "tools"]);
}

#[test]
fn the_canonical_envelope_loses_stream_and_tool_choice_from_its_parameters() {
    let mut f = chat(&[("a", "web_search")], &["a"]);
    f.keys = vec!["model".into(), "messages".into(), "parameters".into()];
    f.parameter_keys = Some(vec![
        "temperature".into(),
        "tool_choice".into(),
        "stream".into(),
        "stream_options".into(),
    ]);
    let p = plan(&f).expect("plan");
    assert!(p.drop.is_empty());
    assert_eq!(
        p.drop_parameters,
        vec!["stream", "stream_options", "tool_choice"]
    );
    // `parameters` that is not an object (or absent) is left to be copied as it is.
    f.parameter_keys = None;
    assert!(plan(&f).expect("plan").drop_parameters.is_empty());
}
