//! Typed requests: a parsed `ChatRequest` renders exactly like the JSON it came from (unknown
//! fields, key order and nulls included), and parse errors name the message index and field.

use std::path::Path;

use chatcodec::chat::{ChatRequest, ChatTemplate, Content, Message, ToolCall};
use serde_json::{json, Map, Value};

/// Shows every message key in order, the tools and the kwargs: any change of order, of a
/// value or of a null shows in the output.
const SHOW_ALL: &str = "{% for m in messages %}[{% for k, v in m.items() %}{{ k }}={{ v | tojson }};{% endfor %}]\n{% endfor %}\
tools={{ tools | tojson }}\ndocs={{ documents | tojson }}\nkw={{ tool_choice | tojson }} {{ custom | tojson }}\n\
{% if add_generation_prompt %}<gen>{% endif %}";

fn template() -> ChatTemplate {
    ChatTemplate::new("show", SHOW_ALL, Map::new()).expect("compiles")
}

const REQUEST: &str = r#"{
  "tool_choice": "auto",
  "messages": [
    {"content": "be brief", "role": "system", "x-meta": {"b": 1, "a": [2, 1]}},
    {"role": "user", "name": "ann", "content": [
      {"text": "look", "type": "text", "cache": true},
      {"type": "image_url", "image_url": {"url": "http://x/y.png", "detail": "low"}}
    ]},
    {"tool_calls": [
        {"function": {"arguments": {"z": 1, "a": 2.50}, "name": "f", "strict": false},
         "type": "function", "id": "c1", "index": 0}
      ], "role": "assistant", "content": null, "reasoning_content": "hmm", "weight": 0},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"ok\": true}", "name": "f"},
    {"role": "assistant", "content": "done", "thinking": null, "reasoning": "r2"}
  ],
  "tools": [{"function": {"parameters": {"type": "object", "properties": {}}, "name": "f",
             "description": "does f"}, "type": "function", "x": 1}],
  "custom": {"k": [1, "two", null]},
  "add_generation_prompt": true
}"#;

#[test]
fn typed_request_serializes_to_the_callers_json() {
    let value: Value = serde_json::from_str(REQUEST).expect("JSON");
    let typed = ChatRequest::from_json(REQUEST).expect("parses");
    let back = typed.to_value().expect("serializes");
    // Compare texts: serde_json's map equality ignores key order.
    assert_eq!(back.to_string(), value.to_string());
    // Plain serde gives the same.
    let via_serde: ChatRequest = serde_json::from_str(REQUEST).expect("serde parses");
    assert_eq!(
        serde_json::to_string(&via_serde).expect("serializes"),
        value.to_string()
    );
    // The typed fields are there.
    assert_eq!(typed.messages.len(), 5);
    assert_eq!(typed.messages[1].name.as_deref(), Some("ann"));
    assert!(matches!(&typed.messages[1].content, Some(Content::Parts(p)) if p.len() == 2));
    let calls = typed.messages[2].tool_calls.as_deref().unwrap_or_default();
    assert_eq!(calls[0].function.name, "f");
    assert_eq!(calls[0].extra["index"], 0);
    assert_eq!(typed.messages[2].reasoning_content.as_deref(), Some("hmm"));
    assert_eq!(typed.extra["tool_choice"], "auto");
    assert_eq!(typed.add_generation_prompt, Some(true));
}

#[test]
fn typed_request_renders_like_its_json() {
    let t = template();
    let value: Value = serde_json::from_str(REQUEST).expect("JSON");
    let typed = ChatRequest::from_json(REQUEST).expect("parses");
    let from_json = t.apply(&value).expect("JSON renders");
    assert_eq!(t.apply_request(&typed).expect("typed renders"), from_json);
    assert!(
        from_json.contains(r#"[content="be brief";role="system";x-meta={"b": 1, "a": [2, 1]};]"#)
    );
    assert!(from_json.contains(r#"{"z": 1, "a": 2.5}"#), "{from_json}");
    // The Value fast path of render_jinja_template, too (nulls kept there).
    let plain = chatcodec::Template::new(SHOW_ALL).expect("compiles");
    assert_eq!(
        chatcodec::chat::render_request(&plain, &typed.to_value().expect("value"))
            .expect("renders"),
        chatcodec::chat::render_request(&plain, &value).expect("renders")
    );
    // With the mask API too.
    let (text, spans) = t.apply_request_with_mask(&typed).expect("mask");
    assert_eq!(text, from_json);
    assert!(spans.is_empty());
}

#[test]
fn built_requests_serialize_in_declaration_order_then_extra() {
    let mut msg = Message {
        role: "assistant".into(),
        content: Some(Content::Text("hi".into())),
        ..Message::default()
    };
    msg.extra.insert("zz".into(), json!(1));
    msg.tool_calls = Some(vec![ToolCall {
        id: Some("c".into()),
        ..ToolCall::default()
    }]);
    let req = ChatRequest {
        messages: vec![msg],
        ..ChatRequest::default()
    };
    assert_eq!(
        req.to_value().expect("value").to_string(),
        r#"{"messages":[{"role":"assistant","content":"hi","tool_calls":[{"id":"c","function":{"name":""}}],"zz":1}]}"#
    );
    // A parsed field set to None later stays at its place, as null.
    let mut parsed =
        ChatRequest::from_json(r#"{"messages":[{"name":"a","role":"user","content":"x"}]}"#)
            .expect("parses");
    parsed.messages[0].name = None;
    parsed.messages[0].extra.insert("new".into(), json!(true));
    assert_eq!(
        parsed.to_value().expect("value").to_string(),
        r#"{"messages":[{"name":null,"role":"user","content":"x","new":true}]}"#
    );
}

#[test]
fn parse_errors_name_the_message_index_and_field() {
    let cases = [
        (
            r#"{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"},
               {"role":"assistant","tool_calls":[{"id":"1","function":{"arguments":"{}"}}]}]}"#,
            "messages[2].tool_calls[0].function: missing field name",
        ),
        (
            r#"{"messages":[{"content":"a"}]}"#,
            "messages[0]: missing field role",
        ),
        (
            r#"{"messages":[{"role":7}]}"#,
            "messages[0].role: invalid type: integer 7, expected a string",
        ),
        (
            r#"{"messages":[{"role":"user","content":[{"type":"text","text":3}]}]}"#,
            "messages[0].content[0].text: invalid type: integer 3, expected a string",
        ),
        (
            r#"{"messages":[{"role":"user","content":{"a":1}}]}"#,
            "messages[0].content: expected a string or a list of content parts",
        ),
        (
            r#"{"messages":[],"tools":[{"type":"function","function":{"description":"d"}}]}"#,
            "tools[0].function: missing field name",
        ),
        (
            r#"{"messages":[],"add_generation_prompt":"yes"}"#,
            "add_generation_prompt: invalid type: string \"yes\", expected a boolean",
        ),
        (
            r#"{"tools":[]}"#,
            "invalid chat request: missing field messages",
        ),
        (r#"[1]"#, "invalid chat request: invalid type: sequence"),
        ("{", "the request is not valid JSON"),
    ];
    for (text, want) in cases {
        let e = ChatRequest::from_json(text).expect_err(text);
        assert!(
            e.message().starts_with(want),
            "{text}: got {:?}, want {want:?}",
            e.message()
        );
        assert_eq!(e.kind(), chatcodec::ErrorKind::Input);
    }
}

/// Every request of both corpora round-trips through the typed form exactly.
#[test]
fn corpus_requests_round_trip_through_types() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("corpus/requests")];
    let shared = root.join("../shared/corpus/scenarios");
    if shared.is_dir() {
        dirs.push(shared);
    }
    let mut n = 0;
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("readable");
            let value: Value = serde_json::from_str(&text).expect("JSON");
            let typed =
                ChatRequest::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                typed.to_value().expect("value").to_string(),
                value.to_string(),
                "{}",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n >= 16, "only {n} requests found");
}
