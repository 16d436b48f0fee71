//! Multimodal requests against transformers and vLLM's rule, on the whole corpus.
//!
//! - The processor path: for every template in `../shared/corpus/templates`,
//!   `tests/reference/processor.py` writes a processor folder (tokenizer, `chat_template.jinja`,
//!   `processor_config.json`) and renders requests that mix text, OpenAI `image_url` parts (object
//!   and string forms), Hugging Face image/video/audio blocks, null keys, malformed parts,
//!   `continue_final_message` and assistant masks with transformers' own
//!   `ProcessorMixin.from_pretrained(folder).apply_chat_template`. chatcodec loads the same folder
//!   (`ModelTemplates::from_processor_dir`), normalizes the request
//!   (`media::normalize_for_processor`) and must render byte for byte the same, or fail where
//!   transformers fails. Folders whose processor template comes from each file transformers
//!   reads (and folders it refuses) are checked the same way.
//! - Content-format detection: `ContentFormat::detect` agrees with the rule of vLLM's
//!   `--chat-template-content-format auto` applied to jinja2's own tree
//!   (`tests/reference/content_format.py`) on every corpus template.
//!
//! Prints `N passed, N failed`. Without python3/transformers or `../shared/corpus` it prints
//! SKIPPED and passes, except with `CI=true`.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use chatcodec::chat::media::{self, ContentFormat, Placeholders};
use chatcodec::load::ModelTemplates;
use chatcodec::{Clock, DateTime, Template};
use serde_json::{json, Value};

fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("media: the reference is required in CI: {why}");
    }
    say(&format!("media: SKIPPED: {why}"));
}

fn corpus_templates() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/templates");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jinja"))
        .collect();
    files.sort();
    Some(files)
}

const PNG: &str = "data:image/png;base64,iVBORw0KGgo=";

/// The requests of the processor path: (label, request, mask).
fn cases() -> Vec<(&'static str, Value, bool)> {
    vec![
        (
            "image_url both forms, null keys",
            json!({"messages": [
                {"role": "user", "name": null, "content": [
                    {"type": "text", "text": "What is in these images?"},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}},
                    {"type": "image_url", "image_url": PNG},
                    {"type": "text", "text": "Compare them."}
                ]}
            ], "add_generation_prompt": true}),
            false,
        ),
        (
            "HF blocks, multi-turn",
            json!({"messages": [
                {"role": "system", "content": "You are a vision assistant."},
                {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Describe."}]},
                {"role": "assistant", "content": "A cat on a mat.", "tool_calls": null},
                {"role": "user", "content": [
                    {"type": "video", "url": "https://example.com/v.mp4"},
                    {"type": "audio", "url": "https://example.com/a.wav"},
                    {"type": "text", "text": "And these?"}
                ]}
            ], "add_generation_prompt": true}),
            false,
        ),
        (
            "assistant parts, no generation prompt",
            json!({"messages": [
                {"role": "user", "content": [
                    {"type": "image_url", "image_url": {"url": PNG}},
                    {"type": "text", "text": "Caption this."}
                ]},
                {"role": "assistant", "content": [{"type": "text", "text": "A red square."}]}
            ]}),
            false,
        ),
        (
            "continue_final_message",
            json!({"messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Describe"},
                    {"type": "image_url", "image_url": {"url": "https://example.com/b.jpg"}}
                ]},
                {"role": "assistant", "content": "The picture shows"}
            ], "continue_final_message": true}),
            false,
        ),
        (
            "assistant mask",
            json!({"messages": [
                {"role": "user", "content": [
                    {"type": "image_url", "image_url": {"url": PNG}},
                    {"type": "text", "text": "What colour?"}
                ]},
                {"role": "assistant", "content": "Red."},
                {"role": "user", "content": [{"type": "text", "text": "Sure?"}]}
            ], "add_generation_prompt": true}),
            true,
        ),
        (
            "malformed parts",
            json!({"messages": [
                {"role": "user", "content": [
                    {"type": "image_url"},
                    {"type": "image_url", "image_url": {}},
                    {"text": "a part without a type"},
                    {"type": "text", "text": "end"}
                ]}
            ], "add_generation_prompt": true}),
            false,
        ),
        (
            "content neither string nor list",
            json!({"messages": [
                {"role": "user", "content": {"type": "text", "text": "an object"}}
            ], "add_generation_prompt": true}),
            false,
        ),
        (
            "tool call with null content",
            json!({"messages": [
                {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "name": null, "content": "22 C"}
            ], "add_generation_prompt": true}),
            false,
        ),
    ]
}

/// chatcodec's processor path on a folder.
fn ours(dir: &Path, request: &Value, mask: bool) -> Result<(String, Vec<(usize, usize)>), String> {
    let model = ModelTemplates::from_processor_dir(dir).map_err(|e| e.to_string())?;
    let mut chat = model.select(None, false).map_err(|e| e.to_string())?;
    let now = DateTime::parse(common::NOW).map_err(|e| e.to_string())?;
    chat.template_mut().options_mut().clock = Clock::Fixed(now);
    let mut request = request.clone();
    media::normalize_for_processor(&mut request);
    if mask {
        chat.apply_with_mask(&request).map_err(|e| e.to_string())
    } else {
        chat.apply(&request)
            .map(|t| (t, Vec::new()))
            .map_err(|e| e.to_string())
    }
}

struct Tally {
    passed: usize,
    failed: Vec<String>,
}

impl Tally {
    fn check(
        &mut self,
        label: String,
        reference: &Value,
        ours: Result<(String, Vec<(usize, usize)>), String>,
    ) {
        let ok = reference["ok"].as_bool().unwrap_or(false);
        let verdict = match (ok, &ours) {
            (true, Ok((text, spans))) => {
                let want = reference["text"].as_str().unwrap_or("");
                if text != want {
                    Some(common::brief_difference(want, text))
                } else if let Some(mask) = reference.get("mask") {
                    let want: Vec<(usize, usize)> =
                        serde_json::from_value(mask.clone()).unwrap_or_default();
                    (want != *spans).then(|| format!("mask {want:?} != {spans:?}"))
                } else {
                    None
                }
            }
            (false, Err(_)) => None,
            (true, Err(e)) => Some(format!("transformers renders, chatcodec fails: {e}")),
            (false, Ok(_)) => Some(format!(
                "transformers fails ({}), chatcodec renders",
                reference["error"].as_str().unwrap_or("")
            )),
        };
        match verdict {
            None => self.passed += 1,
            Some(why) => self.failed.push(format!("{label}: {why}")),
        }
    }
}

fn run_python(script: &str, args: &[String], stdin: Option<&[u8]>) -> Result<Value, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(script);
    let mut child = Command::new("python3")
        .arg(&path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(input).map_err(|e| e.to_string())?;
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.code() == Some(3) {
        return Err(format!(
            "reference unavailable: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    if !out.status.success() {
        panic!("{script} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("{script} printed bad JSON: {e}"))
}

#[test]
fn processor_path_matches_transformers() {
    let Some(templates) = corpus_templates() else {
        return skip("../shared/corpus/templates is missing");
    };
    let cases = cases();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("media_processor");
    let _ = std::fs::remove_dir_all(&out);
    let job = json!({
        "out": out,
        "templates": templates,
        "cases": cases.iter().map(|(_, r, m)| json!({"request": r, "mask": m})).collect::<Vec<_>>(),
    });
    let reference = match run_python("processor.py", &[], Some(job.to_string().as_bytes())) {
        Ok(r) => r,
        Err(why) => return skip(&why),
    };
    let mut tally = Tally {
        passed: 0,
        failed: Vec::new(),
    };
    let Some(per_template) = reference["templates"].as_array() else {
        panic!("processor.py gave no templates");
    };
    for (template, entry) in templates.iter().zip(per_template) {
        let dir = PathBuf::from(entry["dir"].as_str().unwrap_or_default());
        let name = template.file_name().unwrap_or_default().to_string_lossy();
        for ((label, request, mask), want) in cases
            .iter()
            .zip(entry["results"].as_array().into_iter().flatten())
        {
            let got = common::quiet_panics(|| ours(&dir, request, *mask));
            tally.check(format!("{name} / {label}"), want, got);
        }
    }
    let first = &cases[0].1;
    for layout in reference["layouts"].as_array().into_iter().flatten() {
        let dir = PathBuf::from(layout["dir"].as_str().unwrap_or_default());
        let label = format!("layout {}", layout["name"].as_str().unwrap_or(""));
        tally.check(label, &layout["result"], ours(&dir, first, false));
    }
    for f in tally.failed.iter().take(20) {
        say(&format!("FAIL {f}"));
    }
    say(&format!(
        "media processor path: {} passed, {} failed",
        tally.passed,
        tally.failed.len()
    ));
    assert!(tally.passed > 0, "nothing was compared");
    assert!(
        tally.failed.is_empty(),
        "{} cases differ from transformers",
        tally.failed.len()
    );
}

#[test]
fn content_format_agrees_with_the_servers_rule() {
    let Some(templates) = corpus_templates() else {
        return skip("../shared/corpus/templates is missing");
    };
    let args: Vec<String> = templates.iter().map(|p| p.display().to_string()).collect();
    let reference = match run_python("content_format.py", &args, None) {
        Ok(r) => r,
        Err(why) => return skip(&why),
    };
    let mut failed = Vec::new();
    let mut counts = [0usize; 2];
    for (path, want) in templates
        .iter()
        .zip(reference.as_array().into_iter().flatten())
    {
        let source = std::fs::read_to_string(path).unwrap_or_default();
        let got = match Template::new(&source) {
            Ok(t) => ContentFormat::detect(&t),
            Err(_) => ContentFormat::String,
        };
        counts[(got == ContentFormat::OpenAi) as usize] += 1;
        if Some(got.name()) != want.as_str() {
            failed.push(format!("{}: {} vs {}", path.display(), got.name(), want));
        }
    }
    for f in &failed {
        say(&format!("FAIL {f}"));
    }
    say(&format!(
        "content format: {} passed, {} failed ({} string, {} openai)",
        templates.len() - failed.len(),
        failed.len(),
        counts[0],
        counts[1]
    ));
    assert!(failed.is_empty());
}

fn placeholders(pairs: &[(&str, &str)]) -> Placeholders {
    let mut p = Placeholders::default();
    for (k, v) in pairs {
        p.set_from_arg(&format!("{k}={v}"))
            .expect("a valid placeholder");
    }
    p
}

#[test]
fn string_format_joins_text_and_puts_placeholders_first() {
    let mut r = json!({"messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "first"},
            {"type": "image_url", "image_url": {"url": PNG}},
            {"type": "text", "text": "second"},
            {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            {"type": "image_url", "image_url": {"url": PNG}}
        ]},
        {"role": "assistant", "content": "plain"},
        {"role": "user", "content": [{"type": "text", "text": "has <image> already"}, {"type": "image"}]},
        {"role": "assistant", "content": null}
    ]});
    media::flatten_content(
        &mut r,
        &placeholders(&[("image", "<image>"), ("audio", "<audio>")]),
    )
    .expect("flattens");
    let m = &r["messages"];
    assert_eq!(m[0]["content"], "<image>\n<image>\n<audio>\nfirst\nsecond");
    assert_eq!(m[1]["content"], "plain");
    assert_eq!(m[2]["content"], "has <image> already");
    assert_eq!(m[3]["content"], Value::Null);
}

#[test]
fn bad_parts_name_the_message_and_the_part() {
    let p = placeholders(&[("image", "<image>")]);
    let bad = [
        (
            json!([{"text": "x"}, {"kind": "image"}]),
            "message 0, content part 1",
        ),
        (json!([{"type": "image_url"}]), "image_url.url"),
        (
            json!([{"type": "image_url", "image_url": {}}]),
            "message 0, content part 0",
        ),
        (
            json!([{"type": "video_url", "video_url": {"url": "v.mp4"}}]),
            "no placeholder is known for video",
        ),
        (
            json!([{"type": "hologram"}]),
            "unknown content part type 'hologram'",
        ),
        (json!([7]), "must be an object"),
        (
            json!({"type": "text"}),
            "message 0: content must be a string or a list",
        ),
        (
            json!([{"type": "text", "text": "<image> <image>"}, {"type": "image"}]),
            "Found more '<image>' placeholders",
        ),
    ];
    for (content, want) in bad {
        let mut r = json!({"messages": [{"role": "user", "content": content}]});
        let e = media::flatten_content(&mut r, &p).expect_err("refused");
        assert!(e.to_string().contains(want), "{e} should say {want}");
    }
    let mut p = Placeholders::default();
    assert!(p.set_from_arg("smell=<s>").is_err());
    assert!(p.set_from_arg("image").is_err());
}

#[test]
fn processor_normalization_moves_urls_without_touching_other_parts() {
    let mut r = json!({"messages": [
        {"role": "user", "name": null, "content": [
            {"type": "image_url", "image_url": {"url": "u1", "detail": "high"}},
            {"type": "image_url", "image_url": "u2"},
            {"type": "image_url", "image_url": {}},
            {"type": "image_url"},
            {"type": "input_audio", "input_audio": {"data": "AAAA"}},
            "bare string"
        ]},
        {"role": "assistant", "content": "x", "tool_calls": null}
    ]});
    media::normalize_for_processor(&mut r);
    assert_eq!(
        r,
        json!({"messages": [
            {"role": "user", "content": [
                {"type": "image", "url": "u1"},
                {"type": "image", "url": "u2"},
                {"type": "image", "url": ""},
                {"type": "image_url"},
                {"type": "input_audio", "input_audio": {"data": "AAAA"}},
                "bare string"
            ]},
            {"role": "assistant", "content": "x"}
        ]})
    );
}

#[test]
fn detection_follows_names_macros_and_unpacking() {
    let detect = |src: &str| ContentFormat::detect(&Template::new(src).expect("compiles"));
    let openai = [
        "{% for m in messages %}{% for p in m['content'] %}{{ p.text }}{% endfor %}{% endfor %}",
        "{% set msgs = messages[1:] %}{% for m in msgs %}{% for p in m.content|list %}{% endfor %}{% endfor %}",
        "{% macro r(content) %}{% for item in content %}{{ item }}{% endfor %}{% endmacro %}{% for m in messages %}{{ r(m.content) }}{% endfor %}",
        "{% for m in messages %}{% if m.content is string %}{{ m.content }}{% else %}{% for p in m.content if p.type == 'text' %}{{ p.text }}{% endfor %}{% endif %}{% endfor %}",
    ];
    let string = [
        "{% for m in messages %}{{ m.content }}{% endfor %}",
        "{% for m in messages %}{{ m.content[0].text }}{% endfor %}",
        "{% for i, m in messages|list %}{% for p in m.content %}{% endfor %}{% endfor %}",
        "{% set ns = namespace(x=1) %}{% set ns.x = messages %}{% for m in messages %}{% for p in m.content %}{% endfor %}{% endfor %}",
        "{% for m in messages %}{% for k, v in m.content %}{% endfor %}{% endfor %}",
    ];
    for s in openai {
        assert_eq!(detect(s), ContentFormat::OpenAi, "{s}");
    }
    for s in string {
        assert_eq!(detect(s), ContentFormat::String, "{s}");
    }
}

#[test]
fn cli_renders_the_processor_path_and_string_content() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("media_cli");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let template = "{% for m in messages %}{{ m.role }}:{% if m.content is string %}{{ m.content }}\
{% else %}{% for c in m.content %}{% if c.type == 'image' %}<img {{ c.url }}>{% else %}{{ c.text }}{% endif %}{% endfor %}{% endif %}\n{% endfor %}";
    std::fs::write(dir.join("chat_template.jinja"), template).expect("writes");
    std::fs::write(
        dir.join("processor_config.json"),
        r#"{"image_token": "<|img|>"}"#,
    )
    .expect("writes");
    std::fs::write(dir.join("tokenizer_config.json"), r#"{"bos_token": "<s>"}"#).expect("writes");
    let request = json!({"messages": [{"role": "user", "name": null, "content": [
        {"type": "text", "text": "Look:"},
        {"type": "image_url", "image_url": {"url": "http://x/a.png"}}
    ]}]});
    let input = dir.join("request.json");
    std::fs::write(&input, request.to_string()).expect("writes");
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_chatcodec"))
            .args(["render", "--model"])
            .arg(&dir)
            .arg("--input")
            .arg(&input)
            .args(extra)
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(run(&["--processor"]).1, "user:Look:<img http://x/a.png>");
    // The tokenizer path passes the OpenAI part through: the template shows no image.
    assert_eq!(run(&[]).1, "user:Look:");
    // String content: the placeholder the processor config names, before the text.
    assert_eq!(
        run(&["--content-format", "string"]).1,
        "user:<|img|>\nLook:"
    );
    assert_eq!(
        run(&[
            "--content-format",
            "string",
            "--media-placeholder",
            "image=[IMG]"
        ])
        .1,
        "user:[IMG]\nLook:"
    );
    // The template loops over content: auto keeps the parts.
    assert_eq!(
        run(&["--content-format", "auto", "--processor"]).1,
        "user:Look:<img http://x/a.png>"
    );
    let (code, _, err) = run(&[
        "--media-placeholder",
        "smell=x",
        "--content-format",
        "string",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown modality 'smell'"), "{err}");
    let show = Command::new(env!("CARGO_BIN_EXE_chatcodec"))
        .args(["show", "--model"])
        .arg(&dir)
        .output()
        .expect("runs");
    let show = String::from_utf8_lossy(&show.stdout);
    assert!(
        show.contains("processor: yes (processor_config.json)"),
        "{show}"
    );
    assert!(show.contains("content format: openai"), "{show}");
    assert!(show.contains("placeholder: image = <|img|>"), "{show}");
}
