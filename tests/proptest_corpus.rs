//! Property tests over the real chat-template corpus (../shared/corpus/templates):
//!
//! (a) random chat requests (roles in any order, unicode contents, content parts, tools with
//!     random schemas, tool calls with string or object arguments, reasoning, kwargs such as
//!     `enable_thinking` and `add_generation_prompt`) rendered by every template never panic:
//!     each renders or returns an error;
//! (b) randomly mutated templates (tokens dropped, duplicated, swapped, on a rough
//!     tokenization at `{{ }} {% %} {# #}` boundaries and whitespace) never panic, compiling
//!     or rendering.
//!
//! The corpus lives outside this repository. Without it the tests say so and pass, except in
//! CI (`CI=true`), where they must run. Case counts are modest so the file runs in well under
//! a minute with `cargo test --release --test proptest_corpus`; raise them with
//! `CHATCODEC_PROPTEST_CASES=N`. Every case runs under `catch_unwind`, and a failure names the
//! template and prints the exact request or mutated source.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Once;

use chatcodec::{Limits, Options, Template};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------------------------------------
// The corpus.

struct Corpus {
    /// (file name, source).
    sources: Vec<(String, String)>,
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/templates")
}

/// Loads the corpus; `None` (after saying why) when it is absent outside CI.
fn load_corpus() -> Option<Corpus> {
    let dir = corpus_dir();
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) => {
            assert!(
                !in_ci,
                "CI=true but the template corpus {} is missing: {e}",
                dir.display()
            );
            eprintln!(
                "SKIPPED: template corpus {} not found ({e}); these property tests need it \
                 (they are required in CI)",
                dir.display()
            );
            return None;
        }
    };
    let mut sources: Vec<(String, String)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jinja"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let src = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            (name, src)
        })
        .collect();
    sources.sort();
    assert!(
        !sources.is_empty(),
        "no .jinja templates in {}",
        dir.display()
    );
    Some(Corpus { sources })
}

fn cases(default: u32) -> u32 {
    std::env::var("CHATCODEC_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        // Shrinking re-runs the whole corpus per step; keep it bounded.
        max_shrink_iters: 64,
        ..Config::default()
    })
}

/// Silences the default panic printout (panics are caught and reported with their case).
fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(non-string panic payload)".to_string())
}

/// Limits for fuzzed renders: smaller fuel and output than the defaults so that a mutation
/// which makes a loop run long costs milliseconds, still far above what real templates need.
fn fuzz_options() -> Options {
    Options {
        limits: Limits {
            fuel: 2_000_000,
            max_output: 4 << 20,
            ..Limits::default()
        },
        ..Options::default()
    }
}

// ---------------------------------------------------------------------------------------------
// (a) Random chat requests.

/// Text that chat templates find interesting, mixed with arbitrary unicode.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "\\PC{0,24}",
        2 => any::<String>().prop_map(|s| s.chars().take(40).collect()),
        1 => prop::sample::select(vec![
            "",
            " ",
            "\n",
            "<|im_start|>user\n",
            "<|eot_id|>",
            "</s>",
            "[INST]",
            "<think>\nhmm\n</think>\n\nanswer",
            "</think>",
            "<tool_call>\n{\"name\": \"f\"}\n</tool_call>",
            "{{ messages }}",
            "{% raw %}",
            "'\"\\",
            "héllo wörld 你好 🦀",
            "\u{0}",
            "\r\n",
            "None",
            "true",
        ])
        .prop_map(str::to_string),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_]{0,12}",
        prop::sample::select(vec!["get_weather", "search", "python", "", "a b", "名字"])
            .prop_map(str::to_string),
    ]
}

/// Arbitrary JSON, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((name(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A JSON-schema-ish parameter description.
fn param_schema() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![
            "string", "integer", "number", "boolean", "array", "object", "null",
        ]),
        prop::option::of(text()),
        prop::option::of(prop::collection::vec(text(), 1..4)),
        any::<bool>(),
    )
        .prop_map(|(ty, desc, choices, nested)| {
            let mut m = Map::new();
            m.insert("type".into(), json!(ty));
            if let Some(d) = desc {
                m.insert("description".into(), json!(d));
            }
            if let Some(c) = choices {
                m.insert("enum".into(), json!(c));
            }
            if nested && ty == "array" {
                m.insert("items".into(), json!({"type": "string"}));
            }
            if nested && ty == "object" {
                m.insert(
                    "properties".into(),
                    json!({"inner": {"type": "integer", "description": "n"}}),
                );
            }
            Value::Object(m)
        })
}

fn tool() -> impl Strategy<Value = Value> {
    (
        name(),
        prop::option::of(text()),
        prop::collection::vec((name(), param_schema()), 0..4),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(name, desc, params, required_all, wrapped)| {
            let required: Vec<&String> = if required_all {
                params.iter().map(|(n, _)| n).collect()
            } else {
                vec![]
            };
            let mut props = Map::new();
            for (n, s) in &params {
                props.insert(n.clone(), s.clone());
            }
            let mut function = json!({
                "name": name,
                "parameters": {"type": "object", "properties": props, "required": required}
            });
            if let Some(d) = desc {
                function["description"] = json!(d);
            }
            if wrapped {
                json!({"type": "function", "function": function})
            } else {
                function
            }
        })
}

fn tool_call() -> impl Strategy<Value = Value> {
    (
        name(),
        prop_oneof![
            json_value(),
            prop::collection::vec((name(), json_value()), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ],
        any::<bool>(),
        "[A-Za-z0-9]{9}",
    )
        .prop_map(|(name, args, as_string, id)| {
            let arguments = if as_string {
                Value::String(args.to_string())
            } else {
                args
            };
            json!({"id": id, "type": "function",
                   "function": {"name": name, "arguments": arguments}})
        })
}

/// Message content: a string, null, or a list of content parts.
fn content() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => text().prop_map(Value::String),
        1 => Just(Value::Null),
        2 => prop::collection::vec(
            prop_oneof![
                text().prop_map(|t| json!({"type": "text", "text": t})),
                Just(json!({"type": "image"})),
                Just(json!({"type": "image_url", "image_url": {"url": "http://x/y.png"}})),
            ],
            0..3
        )
        .prop_map(Value::Array),
    ]
}

fn message() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["user", "assistant", "system", "tool"]),
        content(),
        prop::option::of(prop::collection::vec(tool_call(), 1..3)),
        prop::option::of(text()),
        prop::option::of(name()),
        0u8..4,
    )
        .prop_map(|(role, content, calls, reasoning, tname, extra)| {
            let mut m = Map::new();
            m.insert("role".into(), json!(role));
            m.insert("content".into(), content);
            if role == "assistant" {
                if let Some(c) = calls {
                    m.insert("tool_calls".into(), Value::Array(c));
                }
                if let Some(r) = reasoning {
                    let key = [
                        "reasoning_content",
                        "thinking",
                        "reasoning",
                        "reasoning_content",
                    ][extra as usize];
                    m.insert(key.into(), json!(r));
                }
            }
            if role == "tool" {
                if let Some(n) = tname {
                    m.insert("name".into(), json!(n));
                    m.insert("tool_call_id".into(), json!("abcdefghi"));
                }
            }
            Value::Object(m)
        })
}

fn request() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(message(), 0..7),
        prop::option::of(prop::collection::vec(tool(), 0..3)),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::option::of(text()),
        prop::option::of(json_value()),
        0u8..8,
    )
        .prop_map(|(messages, tools, gen, thinking, bos, extra, pick)| {
            let mut r = Map::new();
            r.insert("messages".into(), Value::Array(messages));
            if let Some(t) = tools {
                r.insert("tools".into(), Value::Array(t));
            }
            if let Some(g) = gen {
                r.insert("add_generation_prompt".into(), json!(g));
            }
            if let Some(t) = thinking {
                r.insert("enable_thinking".into(), json!(t));
            }
            if let Some(b) = bos {
                r.insert("bos_token".into(), json!(b));
                r.insert("eos_token".into(), json!("</s>"));
            }
            // One more kwarg some templates read, with an arbitrary value.
            if let Some(v) = extra {
                let key = [
                    "reasoning_effort",
                    "documents",
                    "tools_in_user_message",
                    "date_string",
                    "builtin_tools",
                    "custom_instructions",
                    "continue_final_message",
                    "thinking",
                ][pick as usize];
                r.insert(key.into(), v);
            }
            Value::Object(r)
        })
}

#[test]
fn random_requests_never_panic() {
    let Some(corpus) = load_corpus() else { return };
    quiet_panics();
    let options = fuzz_options();
    let templates: Vec<(String, Template)> = corpus
        .sources
        .iter()
        .filter_map(|(name, src)| {
            let t = catch_unwind(AssertUnwindSafe(|| Template::with_options(src, options)))
                .unwrap_or_else(|p| panic!("{name}: compiling panicked: {}", panic_text(&*p)));
            t.ok().map(|t| (name.clone(), t))
        })
        .collect();
    assert!(
        templates.len() * 10 >= corpus.sources.len() * 9,
        "only {} of {} corpus templates compile",
        templates.len(),
        corpus.sources.len()
    );
    let rendered = Cell::new(0usize);
    let failed = Cell::new(0usize);
    let result = runner(cases(1000)).run(&request(), |req| {
        for (name, t) in &templates {
            match catch_unwind(AssertUnwindSafe(|| {
                chatcodec::chat::render_request(t, &req)
            })) {
                Ok(Ok(_)) => rendered.set(rendered.get() + 1),
                Ok(Err(e)) => {
                    failed.set(failed.get() + 1);
                    // An error is fine; it must still say something.
                    prop_assert!(!e.message().is_empty(), "{name}: empty error message");
                }
                Err(p) => {
                    return Err(TestCaseError::fail(format!(
                        "{name} PANICKED: {}\nrequest: {req}",
                        panic_text(&*p)
                    )))
                }
            }
        }
        Ok(())
    });
    eprintln!(
        "random requests x {} templates: {} renders, {} errors",
        templates.len(),
        rendered.get(),
        failed.get()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        rendered.get() > 0,
        "no random request rendered with any template"
    );
}

// ---------------------------------------------------------------------------------------------
// (b) Mutated templates.

/// Splits `src` into rough tokens: the delimiters `{{ }} {% %} {# #}` (with their `-`/`+`
/// markers) and runs of whitespace each stand alone; everything else between them is one
/// token. Concatenating the tokens gives back `src`.
fn tokenize(src: &str) -> Vec<&str> {
    let bytes = src.as_bytes();
    let mut tokens = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let delim_len = match (bytes[i], bytes.get(i + 1)) {
            (b'{', Some(b'{' | b'%' | b'#')) => {
                if matches!(bytes.get(i + 2), Some(b'-' | b'+')) {
                    3
                } else {
                    2
                }
            }
            (b'-' | b'+', Some(b'}' | b'%' | b'#')) if matches!(bytes.get(i + 2), Some(b'}')) => 3,
            (b'}', Some(b'}')) | (b'%' | b'#', Some(b'}')) => 2,
            _ => 0,
        };
        let ws = bytes[i].is_ascii_whitespace();
        if delim_len > 0 || ws {
            if start < i {
                tokens.push(&src[start..i]);
            }
            let mut end = i + delim_len.max(1);
            if ws {
                while end < bytes.len() && bytes[end].is_ascii_whitespace() {
                    end += 1;
                }
            }
            tokens.push(&src[i..end]);
            i = end;
            start = end;
        } else {
            i += 1;
        }
    }
    if start < bytes.len() {
        tokens.push(&src[start..]);
    }
    tokens
}

#[derive(Debug, Clone)]
enum Mutation {
    Drop(usize),
    Duplicate(usize),
    Swap(usize, usize),
    /// Replace token `a` with a copy of token `b`.
    Replace(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Indices are taken modulo the token count when applied.
    prop_oneof![
        any::<usize>().prop_map(Mutation::Drop),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
    ]
}

fn mutate(tokens: &[&str], mutations: &[Mutation]) -> String {
    let mut toks: Vec<&str> = tokens.to_vec();
    for m in mutations {
        if toks.is_empty() {
            break;
        }
        let n = toks.len();
        match *m {
            Mutation::Drop(i) => {
                toks.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let t = toks[i % n];
                toks.insert(i % n, t);
            }
            Mutation::Swap(a, b) => toks.swap(a % n, b % n),
            Mutation::Replace(a, b) => toks[a % n] = toks[b % n],
        }
    }
    toks.concat()
}

#[test]
fn tokenize_round_trips() {
    let src = "a {{- x }}\n{% if y -%}b{%+ endif %}{# c #} {{ '}}' }}";
    let toks = tokenize(src);
    assert_eq!(toks.concat(), src);
    assert!(toks.contains(&"{{-"));
    assert!(toks.contains(&"-%}"));
    assert!(toks.contains(&"{%+"));
    assert!(toks.contains(&"{#"));
    assert!(toks.contains(&"\n"));
    assert_eq!(
        mutate(&["a", "b", "c"], &[Mutation::Swap(0, 2), Mutation::Drop(1)]),
        "ca"
    );
}

/// A request most templates accept: system, user, a tool call with its result, an answer.
fn sample_request() -> Value {
    json!({
        "messages": [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "", "reasoning_content": "Let me check.",
             "tool_calls": [{"id": "call12345", "type": "function",
                             "function": {"name": "get_weather",
                                          "arguments": {"city": "Paris"}}}]},
            {"role": "tool", "tool_call_id": "call12345", "name": "get_weather",
             "content": "{\"t\": 22}"},
            {"role": "assistant", "content": "It is 22 degrees."},
            {"role": "user", "content": "Thanks!"}
        ],
        "tools": [{"type": "function", "function": {
            "name": "get_weather", "description": "Get the weather",
            "parameters": {"type": "object",
                           "properties": {"city": {"type": "string"}},
                           "required": ["city"]}}}],
        "add_generation_prompt": true,
        "enable_thinking": true,
        "bos_token": "<s>",
        "eos_token": "</s>"
    })
}

#[test]
fn mutated_templates_never_panic() {
    let Some(corpus) = load_corpus() else { return };
    quiet_panics();
    let options = fuzz_options();
    let request = sample_request();
    let per_template = cases(100);
    let compiled = Cell::new(0usize);
    let rendered = Cell::new(0usize);
    let total = Cell::new(0usize);
    for (name, src) in &corpus.sources {
        let tokens = tokenize(src);
        assert_eq!(tokens.concat(), *src, "{name}: tokenize must round-trip");
        let strategy = prop::collection::vec(mutation(), 1..5);
        let result = runner(per_template).run(&strategy, |mutations| {
            let mutated = mutate(&tokens, &mutations);
            total.set(total.get() + 1);
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let t = Template::with_options(&mutated, options)?;
                compiled.set(compiled.get() + 1);
                chatcodec::chat::render_request(&t, &request)
            }));
            match outcome {
                Ok(Ok(_)) => rendered.set(rendered.get() + 1),
                Ok(Err(e)) => {
                    prop_assert!(!e.message().is_empty(), "{name}: empty error message")
                }
                Err(p) => {
                    return Err(TestCaseError::fail(format!(
                        "{name} PANICKED: {}\nmutations: {mutations:?}\nmutated source:\n{mutated}",
                        panic_text(&*p)
                    )))
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
    }
    eprintln!(
        "mutated templates: {} mutants of {} templates, {} compiled, {} rendered",
        total.get(),
        corpus.sources.len(),
        compiled.get(),
        rendered.get()
    );
    assert!(
        compiled.get() > 0 && total.get() > compiled.get(),
        "mutations should both break and keep templates"
    );
}

#[test]
fn unmutated_corpus_renders_the_sample_without_panic() {
    // The baseline for (b): every corpus template, as is, with the sample request.
    let Some(corpus) = load_corpus() else { return };
    quiet_panics();
    let request = sample_request();
    let mut panics = Vec::new();
    for (name, src) in &corpus.sources {
        let r = catch_unwind(AssertUnwindSafe(|| {
            Template::new(src).and_then(|t| chatcodec::chat::render_request(&t, &request))
        }));
        if let Err(p) = r {
            panics.push(format!("{name}: {}", panic_text(&*p)));
        }
    }
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
}
