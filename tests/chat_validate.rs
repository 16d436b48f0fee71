//! History validation: each rule fails with the message index and the rule's name.

use chatcodec::chat::validate::{validate_history, Rule};
use serde_json::{json, Value};

fn call(ids: &[&str]) -> Value {
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}}))
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

fn tool(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "ok"})
}

fn user() -> Value {
    json!({"role": "user", "content": "hi"})
}

fn assistant() -> Value {
    json!({"role": "assistant", "content": "done"})
}

fn check(messages: Vec<Value>) -> Option<(usize, Rule)> {
    validate_history(&messages).err().map(|e| (e.index, e.rule))
}

#[test]
fn well_formed_histories_pass() {
    assert_eq!(check(vec![user(), assistant()]), None);
    assert_eq!(
        check(vec![
            user(),
            call(&["a", "b"]),
            tool("b"),
            tool("a"),
            assistant(),
            user()
        ]),
        None
    );
    assert_eq!(
        check(vec![
            user(),
            call(&["a"]),
            tool("a"),
            call(&["b"]),
            tool("b"),
            assistant()
        ]),
        None
    );
}

#[test]
fn each_rule_names_the_message() {
    assert_eq!(
        check(vec![user(), call(&["a"]), user()]),
        Some((2, Rule::ToolCallAnswered))
    );
    assert_eq!(
        check(vec![user(), call(&["a", "b"]), tool("a"), assistant()]),
        Some((3, Rule::ToolCallAnswered))
    );
    assert_eq!(
        check(vec![user(), call(&["a"])]),
        Some((1, Rule::ToolCallAnswered))
    );
    assert_eq!(
        check(vec![user(), call(&["a"]), tool("z")]),
        Some((2, Rule::ToolIdMatch))
    );
    assert_eq!(
        check(vec![user(), tool("a")]),
        Some((1, Rule::NoOrphanToolResponse))
    );
    assert_eq!(
        check(vec![user(), call(&["a"]), tool("a"), tool("a")]),
        Some((3, Rule::NoOrphanToolResponse))
    );
    assert_eq!(
        check(vec![user(), call(&["a"]), tool("a"), user()]),
        Some((3, Rule::AssistantAfterToolResponse))
    );
}

#[test]
fn the_error_text_names_index_and_rule() {
    let e = validate_history(&[user(), call(&["a"]), tool("zz")]).unwrap_err();
    let text = e.to_string();
    assert!(text.starts_with("message 2: rule tool-id-match:"), "{text}");
    assert!(text.contains("'zz'") && text.contains("'a'"), "{text}");
}
