//! Round trip over the real corpus: render an assistant turn with known tool calls through each
//! template of a family that has a format here (with transformers' reference renderer, run as
//! tests/output_roundtrip.py), parse the assistant part with that format, and get the same calls
//! back. Skipped (with a message) when the corpus or python/transformers are missing, except in
//! CI (CI=true), where it must run.

mod output_support;
use chatcodec::output::{parse_with, Format, Options, Reasoning};
use output_support::families::FAMILIES;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Templates whose render cannot be parsed back by any parser of the family, and why.
const QUIRKS: &[(&str, &str)] = &[
    (
        "NousResearch-Hermes-2-Pro-Llama-3-8B-JSON-Schema.jinja",
        "writes <tool_call> only before the first of several calls",
    ),
    (
        "vllm-tool_chat_template_llama3.2_pythonic.jinja",
        "writes string arguments unquoted (location=Paris, France)",
    ),
];

/// Calls with scalar argument values stringified: untyped formats (FunctionGemma, pythonic
/// templates that quote everything) cannot tell `5` from `"5"` without the tool schema.
fn normalize(calls: &[(String, Value)]) -> Vec<(String, Value)> {
    fn norm(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), norm(v))).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(norm).collect()),
            Value::String(s) => Value::String(s.clone()),
            other => Value::String(other.to_string()),
        }
    }
    calls.iter().map(|(n, a)| (n.clone(), norm(a))).collect()
}

fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("round trip cannot run in CI: {why}");
    }
    println!("round trip skipped: {why}");
}

#[test]
fn corpus_round_trip() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../shared/corpus/templates");
    let Ok(dir) = std::fs::read_dir(&corpus) else {
        return skip("../shared/corpus/templates is missing");
    };
    let mut templates = Vec::new();
    let mut files: Vec<_> = dir.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if let Some((_, format)) = FAMILIES
            .iter()
            .find(|(pats, _)| pats.iter().any(|p| name.contains(p)))
        {
            templates.push(json!({"file": path.to_string_lossy(), "format": format}));
        }
    }
    let calls = json!([
        {"name": "get_weather", "arguments": {"location": "Paris, France", "unit": "celsius"}},
        {"name": "search", "arguments": {"query": "rust peg 日本", "limit": 5}}
    ]);
    let request =
        json!({"templates": templates, "calls": calls, "reasoning": "The user wants two things."});
    let child = Command::new("python3")
        .arg(root.join("tests/output_roundtrip.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        return skip("python3 is not available");
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(request.to_string().as_bytes());
    }
    let out = child.wait_with_output().expect("python3 runs");
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("No module named") {
            return skip("python transformers is not installed");
        }
        panic!("tests/output_roundtrip.py failed:\n{err}");
    }
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).expect("the script prints JSON");
    let (mut ok, mut failed, mut unrendered) = (Vec::new(), Vec::new(), Vec::new());
    let mut families = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for r in &results {
        let file = r["file"]
            .as_str()
            .unwrap_or_default()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string();
        let format = r["format"].as_str().unwrap_or_default();
        let Some(text) = r["assistant"].as_str() else {
            unrendered.push(format!(
                "{file} ({format}): {}",
                r["error"].as_str().unwrap_or("?")
            ));
            continue;
        };
        let f = Format::by_name(format).expect("known format");
        let forced = r["forced_open"].as_bool().unwrap_or(false);
        let o = Options {
            reasoning: if forced {
                Reasoning::ForcedOpen
            } else {
                Reasoning::Auto
            },
            id_seed: 1,
            tools: None,
            keep_unknown_tools: false,
            tool_schemas: None,
        };
        let m = parse_with(&f, text, o);
        let got: Vec<(String, Value)> = m
            .tool_calls
            .iter()
            .map(|c| {
                (
                    c.name.clone(),
                    serde_json::from_str(&c.arguments).unwrap_or(Value::Null),
                )
            })
            .collect();
        let want: Vec<(String, Value)> = r["calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                (
                    c["name"].as_str().unwrap_or_default().to_string(),
                    c["arguments"].clone(),
                )
            })
            .collect();
        let fam = families
            .entry(
                FAMILIES
                    .iter()
                    .find(|(_, n)| *n == format)
                    .map_or("", |(_, n)| n),
            )
            .or_default();
        if let Some((_, why)) = QUIRKS.iter().find(|(f, _)| *f == file) {
            unrendered.push(format!("{file} ({format}): template quirk: {why}"));
            continue;
        }
        if normalize(&got) == normalize(&want) {
            fam.0 += 1;
            ok.push(file);
        } else {
            fam.1 += 1;
            failed.push(format!("{file} ({format}): {text:?}\n  got {got:?}"));
        }
    }
    println!(
        "round trip: {} templates of known families, {} rendered with calls",
        results.len(),
        ok.len() + failed.len()
    );
    println!(
        "round trip: {} recovered the calls exactly, {} did not",
        ok.len(),
        failed.len()
    );
    for (fam, (good, bad)) in &families {
        println!("  {fam:<18} {good} ok, {bad} failed");
    }
    println!(
        "not rendered (template refused or dropped the calls): {}",
        unrendered.len()
    );
    for u in &unrendered {
        println!("  {u}");
    }
    for f in &failed {
        println!("FAILED {f}");
    }
    assert!(
        failed.is_empty(),
        "{} templates did not round-trip",
        failed.len()
    );
}

/// Templates whose markers tell another format than their file name, and why.
const DETECTED_OTHERWISE: &[(&str, Option<&str>, &str)] = &[
    (
        "hermes-3-llama-3.1-70b.jinja",
        Some("hermes"),
        "ChatML with Hermes <tool_call>; llama-3.1 is only the base model",
    ),
    (
        "nousresearch-hermes-3-llama-3.1-70b-default.jinja",
        Some("hermes"),
        "ChatML with Hermes <tool_call>; llama-3.1 is only the base model",
    ),
    (
        "unsloth-liquid_lfm2.jinja",
        Some("hermes"),
        "plain ChatML: no tool or reasoning marker tells LFM2",
    ),
    (
        "indischepartij-minicpm-3b-openhermes-2.5-v2.jinja",
        None,
        "MiniCPM's <用户>/<AI> turns, no tool syntax",
    ),
];

/// `Format::for_template` (what `chatcodec show` prints) names, from a template's markers, the
/// format its file name puts it in above, for every corpus template of a known family.
#[test]
fn format_detected_from_template_markers() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/templates");
    let Ok(dir) = std::fs::read_dir(&corpus) else {
        return skip("../shared/corpus/templates is missing");
    };
    let mut files: Vec<_> = dir.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    let (mut checked, mut wrong) = (0, Vec::new());
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let Some((_, want)) = FAMILIES
            .iter()
            .find(|(pats, _)| pats.iter().any(|p| name.contains(p)))
        else {
            continue;
        };
        let source = std::fs::read_to_string(&path).expect("template");
        let got = Format::for_template(&source).map(|f| f.name());
        checked += 1;
        let want = match DETECTED_OTHERWISE.iter().find(|(n, _, _)| *n == name) {
            Some((_, other, _)) => *other,
            None => Some(*want),
        };
        if got != want {
            wrong.push(format!("{name}: {got:?}, want {want:?}"));
        }
    }
    assert!(checked > 50, "only {checked} templates");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
