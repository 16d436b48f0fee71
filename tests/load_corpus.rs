//! The loaders against transformers on the whole corpus: for every template in
//! `../shared/corpus/templates` (read from there), `tests/reference/load_corpus.py` writes a
//! Hugging Face model folder with the template in `tokenizer_config.json`, one with it in
//! `chat_template.jinja`, one whose `tokenizer_config.json` lists named templates (`default`
//! of ours, `tool_use` the corpus template: the selection by tools is tested too), and a GGUF
//! file (gguf's GGUFWriter), then renders corpus scenarios
//! with transformers' own `AutoTokenizer.from_pretrained(folder).apply_chat_template` in one
//! Python process. chatcodec loads the same files (`ModelTemplates::from_model_dir`,
//! `from_gguf`) and must render byte for byte the same: plain scenarios,
//! `continue_final_message` (true on `content` and on content parts, and the
//! `reasoning_content` field), and `return_assistant_tokens_mask` spans for the templates
//! with `{% generation %}`. Where transformers raises, chatcodec must fail too.
//!
//! Prints `N passed, N failed` over (template, case, loader) triples; the known differences of
//! tests/conformance.rs are listed, not failed. Without python3 with
//! transformers/gguf/tokenizers or without `../shared/corpus`, prints SKIPPED and passes;
//! with `CI=true` that is a failure.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use chatcodec::load::ModelTemplates;
use chatcodec::{Clock, DateTime};
use serde_json::{json, Value};

// The clock of both sides is `common::NOW` (oracle.py fixes transformers' to the same time).
use common::NOW;

/// The known differences of tests/conformance.rs, reported here rather than failed (the
/// scenarios here are fewer).
fn known_differences() -> Vec<(String, String)> {
    common::KNOWN_DIFFERENCES
        .iter()
        .map(|(t, why)| (t.to_string(), why.to_string()))
        .collect()
}

/// Prints past libtest's capture, so a passing run shows it too.
fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("load_corpus: the reference is required in CI: {why}");
    }
    say(&format!("load_corpus: SKIPPED: {why}"));
}

/// One rendering case: a request, and whether to ask for the assistant mask.
struct Case {
    label: String,
    request: Value,
    mask: bool,
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sorted_files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

/// The scenarios as they are, three `continue_final_message` variants, and (for templates
/// with `{% generation %}`) every scenario with the assistant mask.
fn cases(scenarios: &[PathBuf]) -> (Vec<Case>, Vec<usize>) {
    let mut cases = Vec::new();
    let mut by_stem = std::collections::BTreeMap::new();
    for path in scenarios {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let request = read_json(path);
        by_stem.insert(stem.clone(), request.clone());
        cases.push(Case {
            label: stem,
            request,
            mask: false,
        });
    }
    let with = |stem: &str, f: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let mut r = by_stem.get(stem).cloned()?;
        let obj = r.as_object_mut()?;
        obj.insert("add_generation_prompt".into(), false.into());
        f(obj);
        Some(r)
    };
    let push_message = |obj: &mut serde_json::Map<String, Value>, m: Value| {
        if let Some(Value::Array(msgs)) = obj.get_mut("messages") {
            msgs.push(m);
        }
    };
    let variants = [
        (
            "continue:02+assistant prefix",
            with("02_system_multiturn", &|o| {
                push_message(o, json!({"role": "assistant", "content": "Sure, here is "}));
                o.insert("continue_final_message".into(), true.into());
            }),
        ),
        (
            "continue:06 content parts",
            with("06_content_parts_no_genprompt", &|o| {
                o.insert("continue_final_message".into(), true.into());
            }),
        ),
        (
            "continue:04 reasoning_content",
            with("04_reasoning_content", &|o| {
                push_message(
                    o,
                    json!({"role": "assistant", "reasoning_content": "Let me think", "content": "The answer"}),
                );
                o.insert("continue_final_message".into(), "reasoning_content".into());
            }),
        ),
    ];
    for (label, request) in variants {
        if let Some(request) = request {
            cases.push(Case {
                label: label.to_string(),
                request,
                mask: false,
            });
        }
    }
    let mut mask_cases = Vec::new();
    for path in scenarios {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        mask_cases.push(cases.len());
        cases.push(Case {
            label: format!("mask:{stem}"),
            request: by_stem.get(&stem).cloned().unwrap_or(Value::Null),
            mask: true,
        });
    }
    (cases, mask_cases)
}

/// Whether the template has a `{% generation %}` block.
fn has_generation(source: &str) -> bool {
    source.match_indices("generation").any(|(i, _)| {
        source[..i]
            .trim_end_matches([' ', '\t', '\n', '-', '+'])
            .ends_with("{%")
    })
}

/// Runs the reference; `None` when it is not available here.
fn reference(job: &Value) -> Option<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/load_corpus.py");
    let mut child = match Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            skip(&format!("python3: {e}"));
            return None;
        }
    };
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(job.to_string().as_bytes())
            .expect("write the job");
    }
    let out = child.wait_with_output().expect("python runs");
    match out.status.code() {
        Some(0) => Some(serde_json::from_slice(&out.stdout).expect("reference JSON")),
        Some(3) => {
            skip(String::from_utf8_lossy(&out.stderr).trim());
            None
        }
        _ => panic!(
            "load_corpus.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// A render: the text and the mask, or the error message.
type Rendered = Result<(String, Vec<(usize, usize)>), String>;

/// Renders `case` with the model loaded from `path` (folder or GGUF): text and mask, or the
/// error message.
fn ours(model: &ModelTemplates, case: &Case) -> Rendered {
    let has_tools = case.request.get("tools").is_some_and(|t| !t.is_null());
    let mut t = model
        .select(None, has_tools)
        .map_err(|e| format!("select: {e}"))?;
    let now = DateTime::parse(NOW).map_err(|e| e.to_string())?;
    t.template_mut().options_mut().clock = Clock::Fixed(now);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if case.mask {
            t.apply_with_mask(&case.request)
        } else {
            t.apply(&case.request).map(|text| (text, Vec::new()))
        }
    }));
    match result {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err("PANIC".to_string()),
    }
}

/// Compares one render with the reference's; `None` when they agree.
fn compare(got: &Rendered, want: &Value, mask: bool) -> Option<String> {
    match (want["ok"].as_bool(), got) {
        (Some(true), Ok((text, spans))) => {
            let want_text = want["text"].as_str().unwrap_or_default();
            if text != want_text {
                let at = text
                    .char_indices()
                    .zip(want_text.chars())
                    .find(|((_, a), b)| a != b)
                    .map_or(text.len().min(want_text.len()), |((i, _), _)| i);
                let from = text.floor_char_boundary_compat(at.saturating_sub(20));
                return Some(format!(
                    "text differs at byte {at}: ours {:?} vs {:?}",
                    text.get(from..)
                        .unwrap_or_default()
                        .chars()
                        .take(60)
                        .collect::<String>(),
                    want_text
                        .get(from..)
                        .unwrap_or_default()
                        .chars()
                        .take(60)
                        .collect::<String>()
                ));
            }
            if mask {
                let spans: Vec<[usize; 2]> = spans.iter().map(|(a, b)| [*a, *b]).collect();
                let want_spans: Vec<[usize; 2]> =
                    serde_json::from_value(want["mask"].clone()).unwrap_or_default();
                if spans != want_spans {
                    return Some(format!("mask {spans:?} vs {want_spans:?}"));
                }
            }
            None
        }
        (Some(false), Err(_)) => None,
        (_, got) => Some(format!(
            "transformers: {}, chatcodec: {}",
            if want["ok"] == true {
                "ok".to_string()
            } else {
                want["error"].to_string()
            },
            match got {
                Ok(_) => "ok".to_string(),
                Err(e) => e.chars().take(200).collect(),
            }
        )),
    }
}

/// `str::floor_char_boundary` for the crate's MSRV.
trait FloorBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl FloorBoundary for String {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        while i > 0 && !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

#[test]
fn every_loader_renders_the_corpus_like_transformers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../shared/corpus");
    if !corpus.join("templates").is_dir() || !corpus.join("scenarios").is_dir() {
        skip("../shared/corpus is missing");
        return;
    }
    let templates = sorted_files(&corpus.join("templates"), ".jinja");
    let scenarios = sorted_files(&corpus.join("scenarios"), ".json");
    let (cases, mask_cases) = cases(&scenarios);
    let n_plain = cases.len() - mask_cases.len();
    let sources: Vec<String> = templates
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    let out = std::env::temp_dir().join(format!("chatcodec-load-corpus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let job = json!({
        "out": out,
        "templates": templates.iter().zip(&sources).map(|(p, src)| {
            let mut listed: Vec<usize> = (0..n_plain).collect();
            if has_generation(src) {
                listed.extend(&mask_cases);
            }
            json!({"path": p, "cases": listed})
        }).collect::<Vec<_>>(),
        "cases": cases.iter().map(|c| json!({"request": c.request, "mask": c.mask})).collect::<Vec<_>>(),
    });
    let started = Instant::now();
    let Some(reference) = reference(&job) else {
        return;
    };
    let python_secs = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let mut passed = 0usize;
    let mut failures: Vec<(String, String)> = Vec::new();
    let mut masked = 0usize;
    // Agreements that are errors on both sides, non-empty masks, continued renders.
    let (mut both_failed, mut masks_seen, mut continued) = (0usize, 0usize, 0usize);
    for (i, path) in templates.iter().enumerate() {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let files = &reference["templates"][i];
        let dir = |k: &str| PathBuf::from(files[k].as_str().unwrap_or_default());
        let loaders = [
            (
                "tokenizer_config.json",
                "config",
                ModelTemplates::from_model_dir(&dir("config")),
            ),
            (
                "chat_template.jinja",
                "jinja",
                ModelTemplates::from_model_dir(&dir("jinja")),
            ),
            (
                "named tokenizer_config.json",
                "named",
                ModelTemplates::from_model_dir(&dir("named")),
            ),
            ("gguf", "config", ModelTemplates::from_gguf(&dir("gguf"))),
        ];
        for (loader, reference_kind, model) in &loaders {
            let model = match model {
                Ok(m) if !m.is_builtin() => m,
                Ok(_) => {
                    failures.push((name.clone(), format!("{loader}: fell back to a built-in")));
                    continue;
                }
                Err(e) => {
                    failures.push((name.clone(), format!("{loader}: cannot load: {e}")));
                    continue;
                }
            };
            // The text transformers' tokenizer holds (the GGUF file has the folder's).
            // The named folder's tokenizer holds a map of templates: check the corpus one.
            let (source_name, want_source) = if *reference_kind == "named" {
                ("tool_use", files["sources"]["named"]["tool_use"].as_str())
            } else {
                ("default", files["sources"][reference_kind].as_str())
            };
            if model.source(source_name) != want_source {
                failures.push((
                    name.clone(),
                    format!("{loader}: the template text differs from the tokenizer's"),
                ));
                continue;
            }
            for (c, case) in cases.iter().enumerate() {
                let want = &reference["results"][i][c];
                if want.is_null() {
                    continue;
                }
                masked += usize::from(case.mask);
                let got = ours(model, case);
                match compare(&got, &want[*reference_kind], case.mask) {
                    None => {
                        passed += 1;
                        match &got {
                            Err(_) => both_failed += 1,
                            Ok((_, spans)) if case.mask && !spans.is_empty() => masks_seen += 1,
                            Ok(_) if case.label.starts_with("continue") => continued += 1,
                            Ok(_) => {}
                        }
                    }
                    Some(why) => {
                        failures.push((name.clone(), format!("{loader} x {}: {why}", case.label)))
                    }
                }
            }
        }
    }
    let ours_secs = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&out);

    let known_differences = known_differences();
    let known = |t: &str| known_differences.iter().any(|(k, _)| k == t);
    for (t, why) in &known_differences {
        let n = failures.iter().filter(|(f, _)| f == t).count();
        say(&format!("KNOWN {t}: {n} render(s) differ: {why}"));
    }
    let failed: Vec<&(String, String)> = failures.iter().filter(|(t, _)| !known(t)).collect();
    for (t, why) in &failed {
        say(&format!("FAIL {t}: {why}"));
    }
    say(&format!(
        "load_corpus: {} templates x {} cases ({} with masks) x 4 loaders (tokenizer_config.json, chat_template.jinja, named templates in tokenizer_config.json, GGUF); transformers took {python_secs:.1}s (files included), chatcodec {ours_secs:.1}s",
        templates.len(),
        n_plain,
        masked / 3,
    ));
    say(&format!(
        "load_corpus: of the passes, {both_failed} are errors on both sides, {continued} continued a final message, {masks_seen} have a non-empty assistant mask"
    ));
    say(&format!("{passed} passed, {} failed", failed.len()));
    assert!(
        failed.is_empty(),
        "{} render(s) differ from transformers (see above)",
        failed.len()
    );
}
