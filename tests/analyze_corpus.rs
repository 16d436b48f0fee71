//! Template analysis over the real corpus (../shared/corpus/templates):
//!
//! - every template is analysed without a panic, and a template that defeats analysis says so;
//! - on every template of a family with a hand-written format, the derived spec names that
//!   format (tests/output_support/families.rs);
//! - round trip: every template that renders assistant tool calls renders a turn with
//!   reasoning, content and one or two calls (other names and values than the analysis
//!   probes), and the parser for its spec gives back the same reasoning, content, call names
//!   and arguments (as JSON values); the parser built from the spec alone is checked as well.

mod output_support;
use chatcodec::chat::ChatTemplate;
use chatcodec::output::analyze::{
    analyze, assistant_part, difference, loose_difference, options_for, Case,
};
use chatcodec::output::{parse_with, Format, FormatSpec};
use output_support::families::format_of;
use serde_json::{json, Map, Value};
use std::path::Path;

const REASONING: &str = "The user wants two things.";
const CONTENT: &str = "Let me check both.";
const USER: &str = "Weather in Lyon, and search rust peg?";

/// Templates the analysis does not yet handle, and why: they are counted as failures and
/// the test checks that exactly these fail (a fix or a new failure shows up).
const KNOWN_FAILURES: &[(&str, &str)] = &[];

/// Templates whose render cannot be parsed back by any parser, and why.
const QUIRKS: &[(&str, &str)] = &[];

fn tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "lookup_forecast", "description": "Weather for a place",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}, "unit": {"type": "string"},
                "hourly": {"type": "boolean"}}, "required": ["location"]}}},
        {"type": "function", "function": {"name": "find_pages", "description": "Search the web",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"},
                "score": {"type": "number"}}, "required": ["query"]}}},
    ])
}

fn calls() -> Vec<(String, Value)> {
    vec![
        (
            "lookup_forecast".into(),
            json!({"location": "Lyon, France", "unit": "celsius", "hourly": true}),
        ),
        (
            "find_pages".into(),
            json!({"query": "rust peg 日本", "limit": 5, "score": 0.5}),
        ),
    ]
}

/// Renders the round-trip turn with `n` calls (and the reasoning and content of `parts`); the
/// assistant part, if the template accepts the turn and shows every call.
fn render_turn(
    t: &ChatTemplate,
    n: usize,
    string_args: bool,
    kimi: bool,
    parts: (&str, &str),
) -> Option<String> {
    let mut kw = Map::new();
    for (k, v) in [("bos_token", "<s>"), ("eos_token", "</s>")] {
        kw.insert(k.into(), json!(v));
    }
    let calls = calls();
    let tool_calls: Vec<Value> = calls[..n]
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            let id = if kimi {
                format!("functions.{name}:{i}")
            } else {
                format!("call{:05}", i + 1)
            };
            let args = if string_args {
                json!(args.to_string())
            } else {
                args.clone()
            };
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
        })
        .collect();
    for system in [true, false] {
        let mut head = Vec::new();
        if system {
            head.push(json!({"role": "system", "content": "You are helpful."}));
        }
        head.push(json!({"role": "user", "content": USER}));
        let mut full = head.clone();
        let mut turn = json!({"role": "assistant", "content": parts.1, "tool_calls": tool_calls});
        if !parts.0.is_empty() {
            turn["reasoning_content"] = json!(parts.0);
        }
        full.push(turn);
        let req = |m: &Vec<Value>, gen: bool| {
            let mut r = kw.clone();
            r.insert("messages".into(), json!(m));
            r.insert("tools".into(), tools());
            r.insert("add_generation_prompt".into(), json!(gen));
            Value::Object(r)
        };
        let (Ok(p), Ok(f)) = (t.apply(&req(&head, true)), t.apply(&req(&full, false))) else {
            continue;
        };
        let text = assistant_part(&p, &f, USER).to_string();
        if calls[..n]
            .iter()
            .all(|(name, _)| text.contains(name.as_str()))
        {
            return Some(text);
        }
    }
    None
}

/// The templates analysed: `../shared/corpus/templates`, or the `.jinja` files of the folder
/// `ANALYZE_DIR` names (to run the same checks on templates from elsewhere).
fn corpus() -> Option<Vec<(String, String)>> {
    let dir = match std::env::var_os("ANALYZE_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/templates"),
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jinja"))
        .collect();
    files.sort();
    Some(
        files
            .into_iter()
            .filter_map(|p| {
                let name = p.file_name()?.to_string_lossy().to_string();
                Some((name, std::fs::read_to_string(&p).ok()?))
            })
            .collect(),
    )
}

fn summary(s: &FormatSpec) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[test]
fn corpus_analysis() {
    let Some(files) = corpus() else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("../shared/corpus/templates is missing");
        }
        println!("skipped: ../shared/corpus/templates is missing");
        return;
    };
    let verbose = std::env::var("ANALYZE_VERBOSE").is_ok();
    let (mut analysed, mut uncompiled, mut with_tools) = (0, 0, 0);
    let (mut rt_ok, mut rt_loose, mut rt_spec_ok, mut rt_total) = (0, 0, 0, 0);
    let mut quirks = Vec::new();
    let mut streamed = 0;
    let (mut agree, mut known) = (0, 0);
    let mut failures = Vec::new();
    let mut spec_failures = Vec::new();
    for (file, src) in &files {
        let Ok(t) = ChatTemplate::new("default", src, Map::new()) else {
            uncompiled += 1;
            continue;
        };
        let spec = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| analyze(&t)))
            .unwrap_or_else(|_| panic!("{file}: analysis panicked"));
        analysed += 1;
        assert!(
            (0.0..=1.0).contains(&spec.confidence),
            "{file}: confidence {}",
            spec.confidence
        );
        if spec.confidence < 0.5 {
            assert!(!spec.notes.is_empty(), "{file}: unsure without a reason");
        }
        if verbose {
            println!("{file}: {}", summary(&spec));
        }
        if spec.tools.is_some() {
            with_tools += 1;
        }
        if let Some(want) = format_of(file) {
            if spec.tools.is_some() && !QUIRKS.iter().any(|(f, _)| f == file) {
                known += 1;
                if spec.format.as_deref() == Some(want) {
                    agree += 1;
                } else {
                    failures.push(format!(
                        "{file}: names {:?}, the family's format is {want}: {}",
                        spec.format,
                        summary(&spec)
                    ));
                }
            }
        }
        if spec.tools.is_none() {
            continue;
        }
        // The fullest turn the template accepts: reasoning and content with the calls, else
        // without one of them (some templates refuse content next to calls).
        let end = match spec.tools.as_ref().and_then(|t| t.section.as_ref()) {
            Some(m) if m.open.is_empty() && !m.close.is_empty() => Some(m.close.as_str()),
            _ => spec.end_of_turn.as_deref(),
        };
        let mut found = None;
        'find: for parts in [
            (REASONING, CONTENT),
            (REASONING, ""),
            ("", CONTENT),
            ("", ""),
        ] {
            for (n, sa, k) in [
                (2, false, false),
                (2, true, false),
                (2, false, true),
                (1, false, false),
                (1, true, false),
                (1, false, true),
            ] {
                let Some(x) = render_turn(&t, n, sa, k, parts) else {
                    continue;
                };
                let case = Case::from_render(&x, end, parts.0, parts.1, calls()[..n].to_vec());
                // A template that puts the calls in a second message after the end of
                // turn: the model writes them in a turn of their own.
                if case
                    .calls
                    .iter()
                    .all(|(name, _)| case.text.contains(name.as_str()))
                {
                    found = Some(case);
                    break 'find;
                }
            }
        }
        let Some(case) = found else {
            failures.push(format!(
                "{file}: analysis found calls, the round-trip turn shows none"
            ));
            continue;
        };
        rt_total += 1;
        if let Some((_, why)) = QUIRKS.iter().find(|(f, _)| f == file) {
            quirks.push(format!("{file}: {why}"));
            continue;
        }
        let o = options_for(&spec, &case.text);
        match Format::for_spec(&spec) {
            Ok(f) => {
                let m = parse_with(&f, &case.text, o.clone());
                match (difference(&m, &case), loose_difference(&m, &case)) {
                    (None, _) => rt_ok += 1,
                    (Some(_), None) => rt_loose += 1,
                    (Some(d), Some(_)) => failures.push(format!(
                        "{file} ({}): round trip: {d}\n  {:?}",
                        f.name(),
                        case.text
                    )),
                }
            }
            Err(e) => failures.push(format!("{file}: no parser: {e}")),
        }
        match Format::from_spec(&spec) {
            Ok(f) => {
                let whole = parse_with(&f, &case.text, o.clone());
                // Streaming: byte by byte (markers and UTF-8 split), every prefix's message
                // is a prefix of what the events add up to, the final one is the one-shot
                // parse, and it is that sum with broken calls given back.
                let (_, msgs, fin, events) =
                    output_support::stream(&f, &o, case.text.as_bytes(), &[1]);
                assert_eq!(fin, whole, "{file}: streamed and one-shot parses differ");
                let sum = output_support::event_sum(&events);
                output_support::assert_gives_back(&sum, &whole, file);
                for m in &msgs {
                    assert!(
                        output_support::is_prefix(m, &sum),
                        "{file}: {m:?} is not a prefix"
                    );
                }
                streamed += 1;
                match loose_difference(&whole, &case) {
                    None => rt_spec_ok += 1,
                    Some(d) => spec_failures.push(format!("{file}: spec-built parser: {d}")),
                }
            }
            Err(e) => spec_failures.push(format!("{file}: no spec-built parser: {e}")),
        }
    }
    println!("templates: {} ({uncompiled} do not compile), analysed {analysed}, with tool calls {with_tools}", files.len());
    println!("agreement with hand-written formats: {agree} of {known}");
    println!(
        "round trip (parser for the spec): {} of {} ({rt_ok} exact, {rt_loose} equal once \
         the template's untyped scalars are read as text); {} template quirks not counted",
        rt_ok + rt_loose,
        rt_total - quirks.len(),
        quirks.len()
    );
    for q in &quirks {
        println!("  quirk: {q}");
    }
    println!(
        "round trip (parser built from the spec alone): {rt_spec_ok} of {}",
        rt_total - quirks.len()
    );
    println!("spec-built parsers streamed byte by byte: {streamed}");
    for f in &spec_failures {
        println!("  {f}");
    }
    for f in &failures {
        println!("FAILED {f}");
    }
    println!(
        "{} templates fail (known: {})",
        failures
            .iter()
            .map(|f| f
                .split(':')
                .next()
                .unwrap_or_default()
                .split(' ')
                .next()
                .unwrap_or_default())
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        KNOWN_FAILURES.len()
    );
    let failing: std::collections::BTreeSet<&str> = failures
        .iter()
        .map(|f| f.split([':', ' ']).next().unwrap_or_default())
        .collect();
    let known: std::collections::BTreeSet<&str> = KNOWN_FAILURES.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        failing, known,
        "the failing templates differ from the known ones"
    );
}

/// A template that shows no calls but names its model's call markers in its tool
/// instructions (LFM2's `<|tool_list_start|>`) is read with the family format those markers
/// name, at a lower confidence, so `parse --template` still parses the model's calls.
#[test]
fn markers_named_by_a_template_that_shows_no_calls() {
    let Some(files) = corpus() else { return };
    let Some((_, src)) = files.iter().find(|(f, _)| f == "LFM2-8B-A1B.jinja") else {
        return;
    };
    let t = ChatTemplate::new("default", src, Map::new()).unwrap();
    let spec = analyze(&t);
    assert_eq!(spec.format.as_deref(), Some("lfm2"), "{}", summary(&spec));
    assert!(spec.tools.is_none());
    assert!(spec.confidence < 1.0);
    let f = Format::for_spec(&spec).unwrap();
    let m = parse_with(
        &f,
        "<|tool_call_start|>[get_weather(city=\"Tokyo\")]<|tool_call_end|>",
        chatcodec::output::Options::default(),
    );
    assert_eq!(m.tool_calls.len(), 1, "{m:?}");
}
