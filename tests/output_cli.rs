//! The `chatcodec parse` contract.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: &[u8]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chatcodec"))
        .arg("parse")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A run that fails early (a bad option) may exit before reading its input: a broken
    // pipe here is that, not a failure of the test.
    if let Err(e) = child.stdin.take().expect("stdin").write_all(stdin) {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing the input: {e}"
        );
    }
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

const OUT: &str = "thinking 日本</think>\n\nHi! <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\"}}\n</tool_call>";

#[test]
fn one_shot_prints_the_final_message() {
    let (code, out) = run(&["--format", "hermes", "--forced-open"], OUT.as_bytes());
    assert_eq!(code, 0);
    let m: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(m["role"], "assistant");
    assert_eq!(m["content"], "Hi! ");
    assert_eq!(m["reasoning_content"], "thinking 日本");
    assert_eq!(m["tool_calls"][0]["type"], "function");
    assert_eq!(m["tool_calls"][0]["function"]["name"], "get_weather");
    assert_eq!(
        m["tool_calls"][0]["function"]["arguments"],
        "{\"city\": \"Zürich\"}"
    );
}

#[test]
fn stream_prints_deltas_then_the_message() {
    for chunk in ["1", "3", "4", "1000"] {
        let (code, out) = run(
            &[
                "--format",
                "hermes",
                "--forced-open",
                "--stream",
                "--chunk-bytes",
                chunk,
            ],
            OUT.as_bytes(),
        );
        assert_eq!(code, 0);
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let (last, deltas) = lines.split_last().unwrap();
        let (mut content, mut reasoning, mut args) = (String::new(), String::new(), String::new());
        for d in deltas {
            assert!(d.get("message").is_none());
            content += d["content"].as_str().unwrap_or("");
            reasoning += d["reasoning_content"].as_str().unwrap_or("");
            if let Some(tc) = d["tool_calls"].as_array() {
                args += tc[0]["function"]["arguments"].as_str().unwrap_or("");
            }
        }
        let m = &last["message"];
        assert_eq!(m["content"], content.as_str());
        assert_eq!(m["reasoning_content"], reasoning.as_str());
        assert_eq!(m["tool_calls"][0]["function"]["arguments"], args.as_str());
    }
}

#[test]
fn list_and_unknown_formats() {
    let (code, out) = run(&["--list-formats"], b"");
    assert_eq!(code, 0);
    for name in [
        "hermes",
        "qwen3-coder",
        "llama3",
        "mistral",
        "deepseek-r1",
        "kimi-k2",
        "glm-4.5",
        "minimax-m2",
        "gpt-oss",
    ] {
        assert!(
            out.lines()
                .any(|l| l.split_whitespace().next() == Some(name)),
            "{name} missing"
        );
    }
    let (code, _) = run(&["--format", "nope"], b"");
    assert_eq!(code, 2);
}

#[test]
fn tools_file_rejects_unknown_names() {
    let dir = std::env::temp_dir().join(format!("chatcodec-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        r#"[{"type": "function", "function": {"name": "search", "parameters": {}}}]"#,
    )
    .unwrap();
    let tools = tools.to_string_lossy().into_owned();
    for extra in [&[][..], &["--stream", "--chunk-bytes", "3"][..]] {
        let mut args = vec!["--format", "hermes", "--forced-open", "--tools", &tools];
        args.extend_from_slice(extra);
        let (code, out) = run(&args, OUT.as_bytes());
        assert_eq!(code, 0);
        let last = out.lines().last().unwrap();
        let v: Value = serde_json::from_str(last).unwrap();
        let m = if extra.is_empty() { &v } else { &v["message"] };
        assert!(m.get("tool_calls").is_none(), "{out}");
        assert_eq!(
            m["content"],
            "Hi! <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\"}}\n</tool_call>"
        );
    }
    // Without --tools the call is a call; a bad file is an error.
    let (_, out) = run(&["--format", "hermes", "--forced-open"], OUT.as_bytes());
    assert!(out.contains("tool_calls"));
    std::fs::write(dir.join("bad.json"), "{").unwrap();
    let bad = dir.join("bad.json").to_string_lossy().into_owned();
    let (code, _) = run(&["--format", "hermes", "--tools", &bad], b"x");
    assert_eq!(code, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs with stderr captured too.
fn run_err(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chatcodec"))
        .arg("parse")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            let _ = c.stdin.take().expect("stdin").write_all(stdin);
            c.wait_with_output()
        })
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn vllm_parser_names() {
    let t = "<think>plan</think>Hi<tool_call>{\"name\": \"other\", \"arguments\": {}}</tool_call>";
    // A tool parser alone: no reasoning.
    let (code, out) = run(&["--tool-call-parser", "hermes"], t.as_bytes());
    assert_eq!(code, 0);
    let m: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(m["content"], "<think>plan</think>Hi");
    assert_eq!(m["tool_calls"][0]["function"]["name"], "other");
    // Both: reasoning too.
    let (_, out) = run(
        &[
            "--tool-call-parser",
            "hermes",
            "--reasoning-parser",
            "qwen3",
        ],
        t.as_bytes(),
    );
    let m: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(m["reasoning_content"], "plan");
    assert_eq!(m["content"], "Hi");
    // A tool not offered stays a call, unless --strict-tools.
    let dir = std::env::temp_dir().join(format!("chatcodec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        r#"[{"type": "function", "function": {"name": "get_weather"}}]"#,
    )
    .unwrap();
    let tools = tools.to_str().unwrap();
    let (_, out) = run(
        &["--tool-call-parser", "hermes", "--tools", tools],
        t.as_bytes(),
    );
    let m: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(m["tool_calls"][0]["function"]["name"], "other");
    let (_, out) = run(
        &[
            "--tool-call-parser",
            "hermes",
            "--tools",
            tools,
            "--strict-tools",
        ],
        t.as_bytes(),
    );
    let m: Value = serde_json::from_str(out.trim()).unwrap();
    assert!(m["tool_calls"].is_null(), "{m}");
    // A reasoning parser alone reads no calls, also in families whose format has call
    // markers of their own: the calls are text.
    for (name, t, content) in [
        ("qwen3", t, "Hi<tool_call>{\"name\": \"other\", \"arguments\": {}}</tool_call>"),
        ("mistral", "[THINK]plan[/THINK]Hi[TOOL_CALLS]f[ARGS]{}", "Hi[TOOL_CALLS]f[ARGS]{}"),
        (
            "kimi_k3",
            "<|open|>think<|sep|>plan<|close|>think<|sep|>Hi<|open|>tools<|sep|><|open|>call tool=\"a\"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
            "Hi<|open|>tools<|sep|><|open|>call tool=\"a\"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
        ),
    ] {
        let (_, out) = run(&["--reasoning-parser", name], t.as_bytes());
        let m: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(m["reasoning_content"], "plan", "{name}: {m}");
        assert_eq!(m["content"], content, "{name}: {m}");
        assert!(m["tool_calls"].is_null(), "{name}: {m}");
    }
    // An unknown name is an error that says so.
    let (code, _, err) = run_err(&["--tool-call-parser", "nope"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("unknown tool-call parser `nope`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn list_formats_shows_aliases() {
    let (code, out) = run(&["--list-formats"], b"");
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.starts_with("gpt-oss "))
        .unwrap();
    assert!(lines[i + 1].contains("aliases:"), "{}", lines[i + 1]);
    assert!(lines[i + 1].contains("openai") && lines[i + 1].contains("openai_gptoss"));
}

#[test]
fn user_grammar_file() {
    let dir = std::env::temp_dir().join(format!("chatcodec-peg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("mine.peg");
    std::fs::write(
        &good,
        "# A call is <call>{json}</call>.\nstart <- (call / &. ~ @content(. until(\"<call>\")))*\ncall <- \"<call>\" ~ ws hcall ws \"</call>\"\n",
    )
    .unwrap();
    let (code, out) = run(
        &[
            "--grammar",
            good.to_str().unwrap(),
            "--stream",
            "--chunk-bytes",
            "1",
        ],
        "Hi <call>{\"name\": \"f\", \"arguments\": {\"x\": \"é\"}}</call>".as_bytes(),
    );
    assert_eq!(code, 0);
    let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["message"]["content"], "Hi ");
    assert_eq!(
        last["message"]["tool_calls"][0]["function"]["arguments"],
        "{\"x\": \"é\"}"
    );
    let bad = dir.join("bad.peg");
    std::fs::write(&bad, "start <- call\ncall <- \"<call>\" ~ hcal\n").unwrap();
    let (code, _, err) = run_err(&["--grammar", bad.to_str().unwrap()], b"");
    assert_eq!(code, 2);
    assert!(
        err.contains("line 2, column 20: rule `hcal` is used but not defined"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn call_ids_are_fresh_unless_seeded() {
    let id = |args: &[&str]| {
        let (code, out) = run(args, OUT.as_bytes());
        assert_eq!(code, 0);
        let m: Value = serde_json::from_str(out.trim()).unwrap();
        m["tool_calls"][0]["id"].as_str().unwrap().to_string()
    };
    let base = ["--format", "hermes", "--forced-open"];
    let (a, b) = (id(&base), id(&base));
    assert!(a.starts_with("call_") && b.starts_with("call_"), "{a} {b}");
    assert_ne!(a, b, "two runs drew the same id");
    let seeded = ["--format", "hermes", "--forced-open", "--id-seed", "7"];
    assert_eq!(id(&seeded), id(&seeded));
}

/// `--tools` also types tagged parameters by the tools' schemas, one-shot and streamed.
#[test]
fn tools_file_types_tagged_parameters() {
    let dir = std::env::temp_dir().join(format!("chatcodec-typed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        r#"[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]"#,
    )
    .unwrap();
    let tools = tools.to_string_lossy().into_owned();
    let out = "<tool_call>\n<function=get_weather>\n<parameter=city>\n1984\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";
    for stream in [false, true] {
        let mut args = vec![
            "--format",
            "qwen3-coder",
            "--id-seed",
            "1",
            "--tools",
            &tools,
        ];
        if stream {
            args.extend(["--stream", "--chunk-bytes", "1"]);
        }
        let (code, text) = run(&args, out.as_bytes());
        assert_eq!(code, 0);
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        let msg = if stream { &last["message"] } else { &last };
        let a: Value = serde_json::from_str(
            msg["tool_calls"][0]["function"]["arguments"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            a,
            serde_json::json!({"city": "1984", "days": 3}),
            "stream {stream}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
