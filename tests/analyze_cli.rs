//! `chatcodec analyze` and `chatcodec parse --template/--model`: the spec as JSON, parsing with
//! the derived format, and a model folder whose response_template gives the markers.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

const CHATML_TOOLS: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}\
{% for c in m.tool_calls or [] %}<tool_call>\n{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}\n</tool_call>{% endfor %}\
<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/// A template with a twist: calls in `<<call>>…<</call>>` and `name`/`args` keys.
const TWIST: &str = "{% for m in messages %}[{{ m.role }}]{{ m.content }}\
{% for c in m.tool_calls or [] %}<<call>>{{ {'tool': c.function.name, 'args': c.function.arguments} | tojson }}<</call>>{% endfor %}\
[/end]\n{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}";

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chatcodec"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    if let Some(mut i) = child.stdin.take() {
        let _ = i.write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().expect("the binary ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("chatcodec-analyze-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn analyze_prints_the_spec() {
    let d = temp_dir("spec");
    let f = d.join("t.jinja");
    std::fs::write(&f, CHATML_TOOLS).unwrap();
    let (code, out, err) = run(&["analyze", "--template", f.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["format"], "hermes");
    assert_eq!(v["end_of_turn"], "<|im_end|>");
    assert_eq!(v["tools"]["call"]["open"], "<tool_call>");
    assert_eq!(v["tools"]["call"]["close"], "</tool_call>");
    assert_eq!(v["tools"]["syntax"]["kind"], "json_object");
}

#[test]
fn parse_with_a_derived_twist() {
    let d = temp_dir("twist");
    let f = d.join("t.jinja");
    std::fs::write(&f, TWIST).unwrap();
    let (code, out, err) = run(&["analyze", "--template", f.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["format"], Value::Null, "{out}");
    assert_eq!(v["end_of_turn"], "[/end]");
    assert_eq!(v["tools"]["call"]["open"], "<<call>>", "{out}");
    assert_eq!(v["tools"]["syntax"]["name_key"], "tool");
    let text = "Sure.<<call>>{\"tool\": \"f\", \"args\": {\"a\": 1}}<</call>>";
    let (code, out, err) = run(&["parse", "--template", f.to_str().unwrap()], text);
    assert_eq!(code, 0, "{err}");
    let m: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(m["content"], "Sure.");
    assert_eq!(m["tool_calls"][0]["function"]["name"], "f");
    assert_eq!(m["tool_calls"][0]["function"]["arguments"], "{\"a\": 1}");
}

#[test]
fn model_response_template_markers() {
    let d = temp_dir("model");
    std::fs::write(d.join("chat_template.jinja"), CHATML_TOOLS).unwrap();
    let config = serde_json::json!({
        "eos_token": "<|im_end|>",
        "response_template": {"version": 1, "start_anchor": "<|im_start|>assistant\n",
            "fields": {"thinking": {"open": "<reason>", "close": "</reason>"}, "content": {}}}
    });
    std::fs::write(d.join("tokenizer_config.json"), config.to_string()).unwrap();
    let (code, out, err) = run(&["analyze", "--model", d.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["reasoning"]["markers"]["open"], "<reason>", "{out}");
    let (code, out, err) = run(
        &["parse", "--model", d.to_str().unwrap()],
        "<reason>hm</reason>Hi<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
    );
    assert_eq!(code, 0, "{err}");
    let m: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(m["reasoning_content"], "hm", "{out}");
    assert_eq!(m["content"], "Hi");
    assert_eq!(m["tool_calls"][0]["function"]["name"], "f");
}

#[test]
fn defeated_template_is_a_spec_not_an_error() {
    let d = temp_dir("defeated");
    let f = d.join("t.jinja");
    std::fs::write(&f, "{{ raise_exception('no chat here') }}").unwrap();
    let (code, out, err) = run(&["analyze", "--template", f.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["confidence"], 0.0);
    assert!(v["notes"][0]
        .as_str()
        .unwrap_or_default()
        .contains("raises"));
}
