//! Loader tests on real files: GGUF files written by the `gguf` package (llama.cpp's writer)
//! and Hugging Face model folders with real tokenizers, made by tests/reference/fixtures.py.
//! Model-folder renders are compared with transformers' own `apply_chat_template`.
//! Without python/gguf/transformers these tests print SKIPPED and pass, except in CI.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use chatcodec::load::ModelTemplates;
use serde_json::{json, Value};

fn python(args: &[&str], stdin: Option<&str>) -> Option<Vec<u8>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/fixtures.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return skip(&format!("python3: {e}")),
    };
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        use std::io::Write;
        pipe.write_all(input.as_bytes()).expect("write to python");
    }
    let out = child.wait_with_output().expect("python runs");
    match out.status.code() {
        Some(0) => Some(out.stdout),
        Some(3) => skip(&String::from_utf8_lossy(&out.stderr)),
        _ => panic!(
            "fixtures.py {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

fn skip<T>(why: &str) -> Option<T> {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("the reference is required in CI: {why}");
    }
    eprintln!("SKIPPED: {why}");
    None
}

fn fixtures(kind: &str) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "chatcodec-load-{kind}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    python(&[kind, dir.to_str()?], None)?;
    Some(dir)
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

#[test]
fn gguf_metadata_is_read_from_real_files() {
    let Some(dir) = fixtures("gguf") else { return };
    let single = ModelTemplates::from_gguf(&dir.join("single.gguf")).expect("single.gguf");
    assert_eq!(single.names().collect::<Vec<_>>(), ["default"]);
    assert!(!single.is_builtin());
    let tokens = single.special_tokens();
    assert_eq!(tokens["bos_token"], "<s>");
    assert_eq!(tokens["eos_token"], "</s>");
    assert_eq!(tokens["unk_token"], "<unk>");
    let t = single.select(None, false).expect("select");
    let req = json!({"messages": [user("hi")], "add_generation_prompt": true});
    assert_eq!(
        t.apply(&req).expect("apply"),
        "<s><|user|>hi</s>\n<|assistant|>"
    );

    let named = ModelTemplates::from_gguf(&dir.join("named.gguf")).expect("named.gguf");
    let mut names: Vec<&str> = named.names().collect();
    names.sort_unstable();
    assert_eq!(names, ["default", "rag", "tool_use"]);
    assert_eq!(named.select_name(None, true).expect("tools"), "tool_use");
    assert_eq!(named.select_name(None, false).expect("no tools"), "default");
    assert_eq!(named.select_name(Some("rag"), true).expect("rag"), "rag");
    let e = named.select_name(Some("nope"), false).unwrap_err();
    assert!(e.message().contains("no chat template named 'nope'"), "{e}");

    let none = ModelTemplates::from_gguf(&dir.join("notemplate.gguf")).expect("notemplate");
    assert!(none.is_builtin());
    assert_eq!(none.names().collect::<Vec<_>>(), ["default"]);

    let e = ModelTemplates::from_gguf(&dir.join("truncated.gguf")).unwrap_err();
    assert!(e.message().contains("truncated"), "{e}");
    let e = ModelTemplates::from_gguf(&dir.join("badmagic.gguf")).unwrap_err();
    assert!(e.message().contains("not a GGUF file"), "{e}");
    let e = ModelTemplates::from_gguf(&dir.join("missing.gguf")).unwrap_err();
    assert!(e.message().contains("cannot open"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each case: (model folder, request, template name, mask).
fn cases() -> Vec<(&'static str, Value, Option<&'static str>, bool)> {
    let tools = json!([{"type": "function", "function": {"name": "f", "parameters": {}}}]);
    let convo = json!([user("hi"), {"role": "assistant", "content": "yo", "tool_calls": null}]);
    vec![
        ("jinja", json!({"messages": convo}), None, true),
        (
            "jinja",
            json!({"messages": convo, "add_generation_prompt": true}),
            None,
            true,
        ),
        (
            "jinja",
            json!({"messages": [user("hi")], "tools": tools}),
            None,
            false,
        ),
        (
            "jinja",
            json!({"messages": [user("hi")], "documents": [{"t": 1}]}),
            Some("rag"),
            false,
        ),
        (
            "config_str",
            json!({"messages": [user("hi")], "add_generation_prompt": true}),
            None,
            false,
        ),
        (
            "config_str",
            json!({"messages": [user("a"), {"role": "assistant", "content": "par"}], "continue_final_message": true}),
            None,
            false,
        ),
        (
            "config_str",
            json!({"messages": [user("hi")], "bos_token": "[BOS]"}),
            None,
            false,
        ),
        (
            "config_str",
            json!({"messages": [{"role": "user", "content": "x", "name": null}]}),
            None,
            false,
        ),
        (
            "config_list",
            json!({"messages": [user("hi")]}),
            None,
            false,
        ),
        (
            "config_list",
            json!({"messages": [user("hi")], "tools": tools}),
            None,
            false,
        ),
        (
            "config_list",
            json!({"messages": [user("hi")], "tools": tools}),
            Some("default"),
            false,
        ),
        (
            "config_list_nodefault",
            json!({"messages": [user("hi")]}),
            None,
            false,
        ),
        (
            "config_list_nodefault",
            json!({"messages": [user("hi")]}),
            Some("rag"),
            false,
        ),
        ("none", json!({"messages": [user("hi")]}), None, false),
        ("config_str", json!({"messages": []}), None, false),
        (
            "config_str",
            json!({"messages": [user("a")], "continue_final_message": true, "add_generation_prompt": true}),
            None,
            false,
        ),
    ]
}

#[test]
fn model_folders_render_like_transformers_apply_chat_template() {
    let Some(dir) = fixtures("models") else {
        return;
    };
    let cases = cases();
    let jobs: Vec<Value> = cases
        .iter()
        .map(|(m, req, name, mask)| {
            json!({"model": dir.join(m), "request": req, "template_name": name, "mask": mask})
        })
        .collect();
    let Some(out) = python(&["apply"], Some(&Value::from(jobs).to_string())) else {
        return;
    };
    let expected: Vec<Value> = serde_json::from_slice(&out).expect("reference JSON");
    for ((model, req, name, mask), want) in cases.iter().zip(&expected) {
        let loaded = ModelTemplates::from_model_dir(&dir.join(model));
        let has_tools = req.get("tools").is_some();
        let got = loaded.and_then(|m| {
            if *model == "none" {
                // transformers has no template here; chatcodec falls back to a built-in.
                assert!(m.is_builtin());
                return Err(chatcodec::Error::new(
                    chatcodec::ErrorKind::Input,
                    "no template",
                ));
            }
            let t = m.select(*name, has_tools)?;
            if *mask {
                t.apply_with_mask(req)
            } else {
                t.apply(req).map(|text| (text, Vec::new()))
            }
        });
        match (want["ok"].as_bool(), got) {
            (Some(true), Ok((text, spans))) => {
                assert_eq!(
                    text,
                    want["text"].as_str().unwrap_or_default(),
                    "{model} {req}"
                );
                if *mask {
                    let spans: Vec<[usize; 2]> = spans.iter().map(|(a, b)| [*a, *b]).collect();
                    let want_spans: Vec<[usize; 2]> =
                        serde_json::from_value(want["mask"].clone()).expect("mask");
                    assert_eq!(spans, want_spans, "{model} {req}");
                }
            }
            (Some(false), Err(_)) => {}
            (_, got) => panic!("{model} {req}: transformers says {want}, chatcodec {got:?}"),
        }
    }
    // The legacy processor file chat_template.json holds the same template as config_str.
    let json_folder = ModelTemplates::from_model_dir(&dir.join("json")).expect("json folder");
    assert!(json_folder.origin().ends_with("(chat_template.json)"));
    let req = json!({"messages": [user("hi")], "add_generation_prompt": true});
    let ok = expected[4]["text"].as_str().unwrap_or_default();
    assert_eq!(
        json_folder
            .select(None, false)
            .and_then(|t| t.apply(&req))
            .ok()
            .as_deref(),
        Some(ok)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_renders_and_shows_gguf_and_model_folders() {
    let Some(dir) = fixtures("gguf") else { return };
    let bin = env!("CARGO_BIN_EXE_chatcodec");
    let show = Command::new(bin)
        .args(["show", "--gguf"])
        .arg(dir.join("named.gguf"))
        .output()
        .expect("show runs");
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(show.status.success(), "{show:?}");
    assert!(text.contains("template: tool_use"), "{text}");
    assert!(text.contains("token: bos_token = \"<s>\""), "{text}");

    let req = dir.join("req.json");
    std::fs::write(&req, r#"{"messages":[{"role":"user","content":"hi"}]}"#).expect("write");
    let out = Command::new(bin)
        .args(["render", "--gguf"])
        .arg(dir.join("single.gguf"))
        .arg("--input")
        .arg(&req)
        .arg("--assistant-mask")
        .output()
        .expect("render runs");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "<s><|user|>hi</s>\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        r#"{"mask":[]}"#
    );

    let bad = Command::new(bin)
        .args(["render", "--gguf"])
        .arg(dir.join("truncated.gguf"))
        .arg("--input")
        .arg(&req)
        .output()
        .expect("render runs");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("truncated"));

    let jsonl = dir.join("batch.jsonl");
    std::fs::write(
        &jsonl,
        concat!(
            r#"{"id":1,"input":{"messages":[{"role":"user","content":"a"}]}}"#,
            "\n",
            r#"{"id":2,"input":{"messages":[{"role":"tool","content":"r","tool_call_id":"x"}]}}"#,
            "\n",
        ),
    )
    .expect("write");
    let out = Command::new(bin)
        .args(["render", "--validate", "--assistant-mask", "--jsonl"])
        .arg(&jsonl)
        .arg("--gguf")
        .arg(dir.join("single.gguf"))
        .output()
        .expect("render runs");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSONL"))
        .collect();
    assert_eq!(
        lines[0],
        json!({"id": 1, "ok": true, "text": "<s><|user|>a</s>\n", "mask": []})
    );
    assert_eq!(lines[1]["ok"], false);
    assert!(lines[1]["error"]
        .as_str()
        .unwrap_or_default()
        .contains("message 0: rule no-orphan-tool-response"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the CLI; returns (status, stdout, stderr).
fn cli(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chatcodec"))
        .args(args)
        .output()
        .expect("chatcodec runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_options_on_model_folders_match_transformers() {
    let Some(dir) = fixtures("models") else {
        return;
    };
    let convo = json!([user("hi"), {"role": "assistant", "content": "yo"}, user("more")]);
    let partial = json!([user("a"), {"role": "assistant", "content": "par"}]);
    let docs = json!({"messages": [user("q")], "documents": [{"title": "t", "text": "x"}]});
    // (model, request, template name, mask)
    let cases = [
        ("jinja", json!({"messages": convo}), None, true),
        (
            "config_str",
            json!({"messages": partial, "continue_final_message": true}),
            None,
            false,
        ),
        ("config_list", docs.clone(), Some("rag"), false),
    ];
    let jobs: Vec<Value> = cases
        .iter()
        .map(|(m, req, name, mask)| {
            json!({"model": dir.join(m), "request": req, "template_name": name, "mask": mask})
        })
        .collect();
    let Some(out) = python(&["apply"], Some(&Value::from(jobs).to_string())) else {
        return;
    };
    let want: Vec<Value> = serde_json::from_slice(&out).expect("reference JSON");
    assert!(want.iter().all(|w| w["ok"] == true), "{want:?}");
    let os = |s: &str| std::ffi::OsString::from(s);
    let write = |name: &str, v: &Value| {
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).expect("write");
        p.into_os_string()
    };

    // --assistant-mask: the text on stdout, the generation spans as JSON on stderr.
    let req = write("mask.json", &json!({"messages": convo}));
    let (code, text, err) = cli(&[
        &os("render"),
        &os("--model"),
        dir.join("jinja").as_os_str(),
        &os("--input"),
        &req,
        &os("--assistant-mask"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(text, want[0]["text"].as_str().unwrap_or_default());
    assert_eq!(
        serde_json::from_str::<Value>(err.trim()).expect("mask JSON"),
        json!({"mask": want[0]["mask"]})
    );
    assert_ne!(
        want[0]["mask"],
        json!([]),
        "the fixture has generation blocks"
    );

    // --continue-final-message: the request does not set it, the flag does.
    let req = write("cont.json", &json!({"messages": partial}));
    let (code, text, err) = cli(&[
        &os("render"),
        &os("--model"),
        dir.join("config_str").as_os_str(),
        &os("--input"),
        &req,
        &os("--continue-final-message"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(text, want[1]["text"].as_str().unwrap_or_default());
    assert!(text.ends_with("par"), "{text}");

    // --template-name picks a named template.
    let req = write("rag.json", &docs);
    let (code, text, err) = cli(&[
        &os("render"),
        &os("--model"),
        dir.join("config_list").as_os_str(),
        &os("--template-name"),
        &os("rag"),
        &os("--input"),
        &req,
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(text, want[2]["text"].as_str().unwrap_or_default());

    // --continue-final-message with --assistant-mask is refused, as transformers refuses it.
    let req = write("both.json", &json!({"messages": partial}));
    let (code, _, err) = cli(&[
        &os("render"),
        &os("--model"),
        dir.join("jinja").as_os_str(),
        &os("--input"),
        &req,
        &os("--continue-final-message"),
        &os("--assistant-mask"),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("not compatible with return_assistant_tokens_mask"),
        "{err}"
    );

    // The JSONL batch with every option: masks per line, continuation, template name.
    let batch = |name: &str, lines: &[Value]| {
        let p = dir.join(name);
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&p, text).expect("write");
        p.into_os_string()
    };
    let read_lines = |stdout: &str| -> Vec<Value> {
        stdout
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSONL"))
            .collect()
    };
    let jsonl = batch(
        "mask.jsonl",
        &[
            json!({"id": "a", "input": {"messages": convo}}),
            json!({"id": "b", "input": {"messages": [user("x")]}}),
        ],
    );
    let (code, stdout, err) = cli(&[
        &os("render"),
        &os("--model"),
        dir.join("jinja").as_os_str(),
        &os("--assistant-mask"),
        &os("--validate"),
        &os("--jsonl"),
        &jsonl,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let lines = read_lines(&stdout);
    assert_eq!(
        lines[0],
        json!({"id": "a", "ok": true, "text": want[0]["text"], "mask": want[0]["mask"]})
    );
    assert_eq!(lines[1]["mask"], json!([]));
    let jsonl = batch(
        "cont.jsonl",
        &[json!({"id": 1, "input": {"messages": partial}})],
    );
    let (code, stdout, err) = cli(&[
        &os("render"),
        &os("--model"),
        dir.join("config_str").as_os_str(),
        &os("--continue-final-message"),
        &os("--jsonl"),
        &jsonl,
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        read_lines(&stdout)[0],
        json!({"id": 1, "ok": true, "text": want[1]["text"]})
    );
    let jsonl = batch("rag.jsonl", &[json!({"id": 1, "input": docs})]);
    let (code, stdout, err) = cli(&[
        &os("render"),
        &os("--model"),
        dir.join("config_list").as_os_str(),
        &os("--template-name"),
        &os("rag"),
        &os("--jsonl"),
        &jsonl,
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(read_lines(&stdout)[0]["text"], want[2]["text"]);

    // show --model: templates, tokens, family.
    let (code, text, err) = cli(&[&os("show"), &os("--model"), dir.join("jinja").as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    for line in [
        "template: default",
        "template: rag",
        "template: tool_use",
        "token: bos_token = \"<s>\"",
        "family: ",
        "format: ",
        "(chat_template.jinja)",
    ] {
        assert!(text.contains(line), "{line} not in {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
