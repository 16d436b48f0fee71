//! Errors that help, through the command line: a bad JSONL line is reported and the batch
//! goes on; invalid UTF-8 says the byte offset; a lone surrogate is named; an empty model
//! folder and a GGUF whose chat template is not a string are errors; `--validate` checks
//! tool-call arguments and names.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chatcodec-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs the CLI; (exit code, stdout, stderr).
fn run(args: &[&str], extra: &[&Path]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chatcodec"))
        .args(args)
        .args(extra)
        .output()
        .expect("chatcodec runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const TEMPLATE: &str = "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}";

#[test]
fn jsonl_reports_bad_lines_and_goes_on() {
    let dir = scratch("jsonl");
    let t = dir.join("t.jinja");
    std::fs::write(&t, TEMPLATE).unwrap();
    let mut batch = Vec::new();
    batch.extend_from_slice(
        br#"{"id": 1, "input": {"messages": [{"role": "user", "content": "a"}]}}"#,
    );
    batch.extend_from_slice(b"\n{not json\n");
    batch.extend_from_slice(
        b"{\"id\": 3, \"input\": {\"messages\": [{\"role\": \"user\", \"content\": \"\xff\"}]}}\n",
    );
    batch.extend_from_slice(
        br#"{"id": 4, "input": {"messages": [{"role": "user", "content": "\ud800"}]}}"#,
    );
    batch.extend_from_slice(b"\n");
    batch.extend_from_slice(
        br#"{"id": 5, "input": {"messages": [{"role": "user", "content": "b"}]}}"#,
    );
    batch.extend_from_slice(b"\n");
    let jsonl = dir.join("b.jsonl");
    std::fs::write(&jsonl, batch).unwrap();
    let (code, out, err) = run(
        &["render", "--template"],
        &[&t, Path::new("--jsonl"), &jsonl],
    );
    assert_eq!(code, Some(1), "some lines failed: {err}");
    let records: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 5, "{out}");
    assert_eq!(
        records[0],
        json!({"id": 1, "ok": true, "text": "[user] a\n"})
    );
    assert_eq!(records[1]["line"], 2);
    assert_eq!(records[1]["ok"], false);
    assert!(records[1]["error"]
        .as_str()
        .unwrap()
        .contains("not valid JSON"));
    assert!(
        records[2]["error"]
            .as_str()
            .unwrap()
            .contains("byte offset 62"),
        "{}",
        records[2]
    );
    assert!(
        records[3]["error"].as_str().unwrap().contains("surrogate"),
        "{}",
        records[3]
    );
    assert_eq!(
        records[4],
        json!({"id": 5, "ok": true, "text": "[user] b\n"})
    );
    assert!(
        err.contains("line 2:") && err.contains("3 of 5 lines failed"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn input_errors_say_where_and_what() {
    let dir = scratch("input");
    let t = dir.join("t.jinja");
    std::fs::write(&t, b"ok {{ 1 }}\n\xc3\x28").unwrap();
    let v = dir.join("v.json");
    std::fs::write(&v, "{}").unwrap();
    let (code, _, err) = run(&["render", "--template"], &[&t, Path::new("--vars"), &v]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("not valid UTF-8") && err.contains("byte offset 11"),
        "{err}"
    );

    std::fs::write(&t, TEMPLATE).unwrap();
    let req = dir.join("r.json");
    std::fs::write(
        &req,
        r#"{"messages": [{"role": "user", "content": "x\udc00"}]}"#,
    )
    .unwrap();
    let (code, _, err) = run(&["render", "--template"], &[&t, Path::new("--input"), &req]);
    assert_eq!(code, Some(2));
    assert!(err.contains("surrogate"), "{err}");

    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = chatcodec::load::ModelTemplates::from_model_dir(&empty).unwrap_err();
    assert!(e.message().contains("holds no model files"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A GGUF header with one key `tokenizer.chat_template` whose value is a uint32.
fn gguf_with_int_template() -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend(0u64.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    let key = b"tokenizer.chat_template";
    b.extend((key.len() as u64).to_le_bytes());
    b.extend(key);
    b.extend(4u32.to_le_bytes());
    b.extend(7u32.to_le_bytes());
    b
}

#[test]
fn gguf_template_of_the_wrong_type_is_an_error() {
    let e =
        chatcodec::load::ModelTemplates::from_gguf_bytes(&gguf_with_int_template()).unwrap_err();
    assert!(e.message().contains("not a string"), "{e}");
}

#[test]
fn validate_checks_tool_call_arguments_and_names() {
    use chatcodec::chat::validate::{validate_tool_calls, Rule};
    let call = |name: &str, args: Value| {
        json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": name, "arguments": args}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ])
    };
    let tools = json!([{"type": "function", "function": {"name": "f", "parameters": {}}}]);
    let ok = call("f", json!("{\"a\": 1}"));
    assert_eq!(
        validate_tool_calls(ok.as_array().unwrap(), Some(&tools)),
        Ok(())
    );
    let bad = call("f", json!("{\"a\": "));
    let e = validate_tool_calls(bad.as_array().unwrap(), Some(&tools)).unwrap_err();
    assert_eq!((e.index, e.rule), (1, Rule::ToolArgumentsJson), "{e}");
    let unknown = call("g", json!({"a": 1}));
    let e = validate_tool_calls(unknown.as_array().unwrap(), Some(&tools)).unwrap_err();
    assert_eq!((e.index, e.rule), (1, Rule::ToolExists), "{e}");
    // Without a tools list, names are not checked.
    assert_eq!(
        validate_tool_calls(unknown.as_array().unwrap(), None),
        Ok(())
    );
}
