//! Capabilities and polyfills over the corpus (`../shared/corpus/templates`):
//! - every template's probed capabilities equal the reviewed snapshot `corpus/caps.jsonl`
//!   (`CHATCODEC_BLESS=1` rewrites it; review the diff against the templates);
//! - the canonical request, with every polyfill on, renders on every template (save the
//!   documented exceptions) and the prompt holds every piece of information;
//! - bad input: unknown polyfill names, requests that need a polyfill that is off.

use std::path::{Path, PathBuf};

use chatcodec::chat::caps::{self, Caps, ReasoningFormat, ToolCallIdFormat};
use chatcodec::chat::polyfill::{self, Polyfills};
use chatcodec::chat::render_request;
use chatcodec::Template;
use serde_json::{json, Value};

const CORPUS: &str = "../shared/corpus/templates";
const SNAPSHOT: &str = "corpus/caps.jsonl";

/// Corpus templates the canonical request cannot render on, even adapted, and why: each
/// demands input that no chat request carries (docs/capabilities.md lists them too).
const CANONICAL_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "MiroThinker.jinja",
        "its tool macros read an undefined global `tool` and it assigns attributes of message \
         dicts: any request with tools fails in transformers too",
    ),
    (
        "ai-sage-GigaChat-20B-A3B-instruct.jinja",
        "reads `additional_special_tokens`, a tokenizer attribute no request carries",
    ),
    (
        "fireworks-ai-firefunction-v1.jinja",
        "demands a `functions` role message (its own tool format) right after the system one",
    ),
    (
        "fireworks-ai-llama-3-firefunction-v2.jinja",
        "reads a `functions` kwarg (its own tool format), undefined otherwise",
    ),
    (
        "fireworks-ai-llama-3-firefunction-v2__v2.jinja",
        "reads a `functions` kwarg (its own tool format), undefined otherwise",
    ),
];

fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(CORPUS);
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{CORPUS}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jinja"))
        .collect();
    v.sort();
    v.into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let src = std::fs::read_to_string(&p).unwrap();
            (name, src)
        })
        .collect()
}

fn compiled() -> Vec<(String, Template)> {
    corpus()
        .into_iter()
        .filter_map(|(n, s)| Template::new(&s).ok().map(|t| (n, t)))
        .collect()
}

#[test]
fn corpus_caps_match_the_reviewed_snapshot() {
    let mut lines = Vec::new();
    for (name, t) in compiled() {
        let caps = caps::probe(&t);
        lines.push(json!({"template": name, "caps": caps.to_json()}).to_string());
    }
    let text = lines.join("\n") + "\n";
    if std::env::var_os("CHATCODEC_BLESS").is_some() {
        std::fs::write(SNAPSHOT, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(SNAPSHOT).unwrap_or_default();
    let mut diffs = Vec::new();
    let want_lines: Vec<&str> = want.lines().collect();
    for (i, line) in text.lines().enumerate() {
        if want_lines.get(i) != Some(&line) && diffs.len() < 5 {
            diffs.push(format!(
                "got:  {line}\nwant: {}",
                want_lines.get(i).unwrap_or(&"")
            ));
        }
    }
    let differing = text
        .lines()
        .enumerate()
        .filter(|(i, l)| want_lines.get(*i) != Some(l))
        .count();
    assert!(
        differing == 0 && want_lines.len() == lines.len(),
        "{differing} of {} templates differ from {SNAPSHOT} (first 5 below; CHATCODEC_BLESS=1 \
         rewrites it, then review the diff):\n{}",
        lines.len(),
        diffs.join("\n")
    );
}

/// The canonical request of issue 9 and the texts its prompt must hold.
fn canonical() -> (Value, Vec<&'static str>) {
    let request = json!({
        "messages": [
            {"role": "system", "content": "You are helpful. Codeword: Zebra42."},
            {"role": "user", "content": "What is the weather in Paris? (first question)"},
            {"role": "assistant", "content": null,
             "reasoning_content": "The user wants the weather: ThinkMark7.",
             "tool_calls": [{"id": "call_abc123", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
            {"role": "tool", "tool_call_id": "call_abc123", "content": "Sunny, 22C ResultMark9"},
            {"role": "user", "content": "And tomorrow? (second question)"}
        ],
        "tools": [{"type": "function", "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city DescMark3",
            "parameters": {"type": "object",
                "properties": {"city": {"type": "string", "description": "City name"}},
                "required": ["city"]}}}],
        "add_generation_prompt": true,
        "bos_token": "<s>",
        "eos_token": "</s>"
    });
    let needed = vec![
        "first question",
        "second question",
        "Zebra42",
        "get_weather",
        "DescMark3",
        "Paris",
        "ResultMark9",
    ];
    (request, needed)
}

#[test]
fn canonical_request_renders_everywhere_with_polyfills() {
    let (request, needed) = canonical();
    let mut failures = Vec::new();
    let mut passed = 0;
    let mut excepted = 0;
    for (name, t) in compiled() {
        let caps = caps::probe(&t);
        let result = polyfill::render_with(&request, &caps, &Polyfills::all(), |r| {
            render_request(&t, r)
        });
        let exception = CANONICAL_EXCEPTIONS.iter().any(|(n, _)| *n == name);
        let problem = match &result {
            Err(e) => Some(format!("error: {e}")),
            Ok(out) => {
                let mut missing: Vec<&str> = needed
                    .iter()
                    .copied()
                    .filter(|w| !out.contains(w))
                    .collect();
                // Past reasoning is asked for where the template shows it.
                if caps.shows_past_reasoning && !out.contains("ThinkMark7") {
                    missing.push("ThinkMark7 (reasoning)");
                }
                (!missing.is_empty()).then(|| format!("missing {missing:?}"))
            }
        };
        match (problem, exception) {
            (None, false) => passed += 1,
            (Some(_), true) => excepted += 1,
            (None, true) => failures.push(format!("{name}: listed as an exception but passes")),
            (Some(p), false) => failures.push(format!("{name}: {p}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures ({passed} pass, {excepted} documented exceptions):\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("canonical request: {passed} templates pass, {excepted} documented exceptions");
    assert!(passed >= 300, "only {passed} templates checked");
}

fn corpus_template(name: &str) -> Template {
    let src = std::fs::read_to_string(Path::new(CORPUS).join(name)).unwrap();
    Template::new(&src).unwrap()
}

fn probe_corpus(name: &str) -> Caps {
    caps::probe(&corpus_template(name))
}

#[test]
fn what_minja_misses_is_found() {
    // Kimi-K2 renders calls by id (`functions.get_weather:0`-style ids, no name): both calls
    // of a parallel message show.
    let kimi = probe_corpus("moonshotai-Kimi-K2.jinja");
    assert!(kimi.supports_parallel_tool_calls && kimi.supports_tool_call_id);
    // DeepSeek-V3.2 shows reasoning only under `thinking=true`, EXAONE 4 only under
    // `skip_think=false`.
    let ds = probe_corpus("deepseek-ai-DeepSeek-V3.2.jinja");
    assert_eq!(ds.reasoning_format, ReasoningFormat::ReasoningContentField);
    assert_eq!(
        ds.reasoning_kwargs,
        json!({"thinking": true}).as_object().unwrap().clone()
    );
    assert!(ds.kwargs.contains(&"thinking".to_string()));
    let exaone = probe_corpus("LGAI-EXAONE-EXAONE-4.0.jinja");
    assert_eq!(
        exaone.reasoning_kwargs,
        json!({"skip_think": false}).as_object().unwrap().clone()
    );
    // Arguments in other syntaxes: DSML parameters (DeepSeek-V3.2), pythonic calls.
    assert!(ds.supports_tool_calls);
    assert!(probe_corpus("vllm-tool_chat_template_llama3.2_pythonic.jinja").supports_tool_calls);
    // gpt-oss: the kwargs a server needs, no reasoning block opened by the prompt.
    let oss = probe_corpus("openai-gpt-oss-120b.jinja");
    for k in ["reasoning_effort", "builtin_tools", "model_identity"] {
        assert!(
            oss.kwargs.contains(&k.to_string()),
            "{k} in {:?}",
            oss.kwargs
        );
    }
    // GLM-5.1 opens `<think>` in the generation prompt and honours `clear_thinking`.
    let glm = probe_corpus("zai-org-GLM-5.1.jinja");
    assert!(glm.generation_prompt_opens_reasoning && glm.supports_clear_thinking);
    // The template's own refusals.
    let nemo = probe_corpus("mistralai-Mistral-Nemo-Instruct-2407.jinja");
    assert_eq!(nemo.tool_call_id_format, ToolCallIdFormat::Alphanumeric9);
    assert!(nemo
        .raises
        .iter()
        .any(|r| r.contains("alphanumeric strings with length 9")));
    // The seed's examples.
    let minicpm = probe_corpus("openbmb-MiniCPM3-4B.jinja");
    assert_eq!(minicpm.reasoning_format, ReasoningFormat::ThoughtField);
    let ministral = probe_corpus("mistralai-Ministral-3-14B-Reasoning-2512.jinja");
    assert_eq!(
        ministral.reasoning_format,
        ReasoningFormat::ThinkingContentBlock
    );
    let r7b = probe_corpus("CohereForAI-c4ai-command-r7b-12-2024-tool_use__v2.jinja");
    assert_eq!(r7b.reasoning_format, ReasoningFormat::ToolPlanField);
    assert!(r7b.reasoning_requires_tools);
    let apertus = probe_corpus("Apertus-8B-Instruct.jinja");
    assert_eq!(
        apertus.reasoning_format,
        ReasoningFormat::ThoughtsContentBlock
    );
    assert!(apertus.reasoning_blocks_in_mapping);
}

#[test]
fn printing_every_block_text_is_not_reasoning() {
    let t = Template::new(
        "{% for m in messages %}{{ m.role }}: {% if m.content is string %}{{ m.content }}\
         {% else %}{% for b in m.content %}{{ b.text }}{% endfor %}{% endif %}\n{% endfor %}",
    )
    .unwrap();
    let c = caps::probe(&t);
    assert!(!c.supports_reasoning, "{c:?}");
    assert_eq!(c.reasoning_format, ReasoningFormat::None);
}

/// JSON-string arguments printed with `tojson` come out encoded twice: the template needs
/// objects (minja's `requires_object_arguments`); one that prints strings as they are does not.
#[test]
fn double_encoded_arguments_need_objects() {
    let body = |args: &str| {
        format!(
            "{{% for m in messages %}}{{{{ m.role }}}}: {{{{ m.content or '' }}}}\
             {{% for c in m.tool_calls or [] %}}{{{{ c.function.name }}}} {args}{{% endfor %}}\n{{% endfor %}}"
        )
    };
    let c = caps::probe(&Template::new(&body("{{ c.function.arguments | tojson }}")).unwrap());
    assert!(
        c.supports_tool_calls && c.requires_object_arguments,
        "{c:?}"
    );
    let t = body(
        "{% if c.function.arguments is string %}{{ c.function.arguments }}\
         {% else %}{{ c.function.arguments | tojson }}{% endif %}",
    );
    let c = caps::probe(&Template::new(&t).unwrap());
    assert!(
        c.supports_tool_calls && !c.requires_object_arguments,
        "{c:?}"
    );
    let c = probe_corpus("meta-llama-Llama-3.1-8B-Instruct.jinja");
    assert!(c.requires_object_arguments, "{c:?}");
}

#[test]
fn a_template_that_raises_on_everything_has_no_capabilities() {
    let t = Template::new("{{ raise_exception('no') }}").unwrap();
    let c = caps::probe(&t);
    assert_eq!(c.probe_error.as_deref(), Some("no"));
    assert!(!c.supports_system_role && !c.supports_tools);
    assert_eq!(c.raises, vec!["no".to_string()]);
    // Endless loops stop at the probe budget.
    let t = Template::new(
        "{% for i in range(99999) %}{% for j in range(99999) %}x{% endfor %}{% endfor %}",
    )
    .unwrap();
    assert!(caps::probe(&t).probe_error.is_some());
}

#[test]
fn mistral_ids_are_mapped_consistently() {
    let t = corpus_template("mistralai-Mistral-Nemo-Instruct-2407.jinja");
    let caps = caps::probe(&t);
    let (request, _) = canonical();
    let adapted = polyfill::apply(&request, &caps, &Polyfills::all()).unwrap();
    let msgs = adapted["messages"].as_array().unwrap();
    let call_id = msgs[2]["tool_calls"][0]["id"].as_str().unwrap();
    assert_eq!(call_id.len(), 9);
    assert!(call_id.bytes().all(|b| b.is_ascii_alphanumeric()));
    assert_eq!(msgs[3]["tool_call_id"], call_id);
    // Polyfills off: the same request is refused, naming the message.
    let e = polyfill::apply(&request, &caps, &Polyfills::none()).unwrap_err();
    assert!(e.message().contains("message 2"), "{e}");
}

#[test]
fn requests_that_need_a_polyfill_that_is_off_are_refused() {
    // Zephyr shows no tool calls and no tool results.
    let t = corpus_template("HuggingFaceH4-zephyr-7b-beta.jinja");
    let caps = caps::probe(&t);
    assert!(!caps.supports_tool_calls);
    let (mut request, _) = canonical();
    request.as_object_mut().unwrap().remove("tools");
    let only_calls = Polyfills::parse("tool_responses").unwrap();
    let e = polyfill::apply(&request, &caps, &only_calls).unwrap_err();
    assert!(
        e.message()
            .starts_with("message 2: 1 tool call(s), but the template does not show tool calls"),
        "{e}"
    );
    assert!(e.message().contains("'tool_calls' polyfill is off"), "{e}");
    let e = polyfill::apply(&request, &caps, &Polyfills::parse("tool_calls").unwrap()).unwrap_err();
    assert!(e.message().starts_with("message 3:"), "{e}");
    let ok = polyfill::apply(
        &request,
        &caps,
        &Polyfills::parse("tool_calls,tool_responses").unwrap(),
    );
    assert!(ok.is_ok());
}

#[test]
fn unknown_polyfill_names_are_refused() {
    let e = Polyfills::parse("system_role,tool_cals").unwrap_err();
    assert_eq!(e.kind(), chatcodec::ErrorKind::Input);
    assert!(e.message().contains("unknown polyfill 'tool_cals'"), "{e}");
    assert_eq!(Polyfills::parse("all").unwrap(), Polyfills::all());
    assert_eq!(Polyfills::parse("none").unwrap(), Polyfills::none());
}

#[test]
fn polyfills_off_leave_the_request_alone() {
    // A request that needs nothing comes back equal, and renders as without polyfills.
    let t = corpus_template("Qwen-Qwen3-0.6B.jinja");
    let caps = caps::probe(&t);
    let (request, _) = canonical();
    let adapted = polyfill::apply(&request, &caps, &Polyfills::all()).unwrap();
    let mut expected = request.clone();
    // The result's name is taken from its call.
    expected["messages"][3]["name"] = json!("get_weather");
    assert_eq!(adapted, expected);
}

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_chatcodec"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cli_caps_and_polyfill() {
    let tpl = format!("{CORPUS}/openbmb-MiniCPM3-4B.jinja");
    let out = cli(&["caps", "--template", &tpl]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["reasoning_format"], "thought_field");
    assert_eq!(v["supports_tools"], true);
    let dir = std::env::temp_dir().join(format!("chatcodec-caps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("canonical.json");
    std::fs::write(&input, canonical().0.to_string()).unwrap();
    let input = input.to_string_lossy().into_owned();
    let zephyr = format!("{CORPUS}/HuggingFaceH4-zephyr-7b-beta.jinja");
    let out = cli(&[
        "render",
        "--template",
        &zephyr,
        "--input",
        &input,
        "--polyfill=bogus",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown polyfill 'bogus'"));
    let out = cli(&[
        "render",
        "--template",
        &zephyr,
        "--input",
        &input,
        "--polyfill=none",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("field 'tools'") && err.contains("polyfill is off"),
        "{err}"
    );
    let out = cli(&[
        "render",
        "--template",
        &zephyr,
        "--input",
        &input,
        "--polyfill",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Paris") && text.contains("ResultMark9"),
        "{text}"
    );
    // Without polyfills the prompt is transformers': the null content of the call message
    // fails to concatenate.
    let plain = cli(&["render", "--template", &zephyr, "--input", &input]);
    assert_eq!(plain.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&plain.stderr).contains("can only concatenate str"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_caps_of_a_model_folder_use_its_special_tokens() {
    // A model folder is probed through `ChatTemplate::caps`: with its own special tokens and
    // `apply_chat_template`'s null dropping.
    let dir = std::env::temp_dir().join(format!("chatcodec-caps-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = std::fs::read_to_string(format!("{CORPUS}/Qwen-Qwen3-0.6B.jinja")).unwrap();
    let config = json!({"chat_template": source, "bos_token": null, "eos_token": "<|im_end|>"});
    std::fs::write(dir.join("tokenizer_config.json"), config.to_string()).unwrap();
    let out = cli(&["caps", "--model", &dir.to_string_lossy()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["reasoning_format"], "reasoning_content_field");
    assert_eq!(v["supports_enable_thinking"], true);
    assert_eq!(v["shows_past_reasoning"], false);
    assert_eq!(v["kwargs"], json!(["enable_thinking"]));
}

#[test]
fn free_variables_and_raise_messages_come_from_the_compiled_program() {
    let t = Template::new(
        "{% set local = 1 %}{% if strict %}{{ raise_exception('bad role: ' + role + '!') }}\
         {% endif %}{% if x is not defined %}{{ raise_exception('x is required') }}{% endif %}\
         {{ local }}{{ foo.bar }}",
    )
    .unwrap();
    let names = t.global_names();
    for n in ["strict", "raise_exception", "role", "x", "foo"] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    // Top-level names are template-level variables, looked up by name like the caller's:
    // listed, and left out of `kwargs` by rendering (setting them changes nothing).
    assert!(!caps::probe(&t).kwargs.contains(&"local".to_string()));
    assert_eq!(
        t.raise_messages(),
        vec!["bad role: …!".to_string(), "x is required".to_string()]
    );
}
