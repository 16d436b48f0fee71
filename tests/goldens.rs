//! Our own corpus against the reference's goldens, in plain `cargo test` (no Python, no
//! ../shared needed): every case in `corpus/goldens/` is rendered by chatcodec and compared
//! byte for byte with what transformers' `render_jinja_template` produced
//! (`tests/reference/make_goldens.py`). Where the reference failed, chatcodec must fail too.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{brief_difference, first_line, line_diff, quiet_panics, render, Input, Outcome};

/// One golden file.
struct Golden {
    file: String,
    template: String,
    /// `("vars" | "request", file name)`.
    input: (&'static str, String),
    now: String,
    expected: Result<String, (String, String)>,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&read(path))
        .unwrap_or_else(|e| panic!("{} is not valid JSON: {e}", path.display()))
}

fn str_field(v: &serde_json::Value, key: &str, file: &str) -> String {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("golden {file}: missing string field {key:?}"))
        .to_string()
}

fn load_goldens() -> Vec<Golden> {
    let dir = corpus().join("goldens");
    let mut files: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| {
            entry
                .expect("readable directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let g = json(&dir.join(&file));
            let input = if g.get("vars").is_some() {
                ("vars", str_field(&g, "vars", &file))
            } else {
                ("request", str_field(&g, "request", &file))
            };
            let expected = if g["ok"].as_bool() == Some(true) {
                Ok(str_field(&g, "text", &file))
            } else {
                Err((
                    str_field(&g, "error_type", &file),
                    str_field(&g, "error", &file),
                ))
            };
            Golden {
                template: str_field(&g, "template", &file),
                now: g["now"].as_str().unwrap_or(common::NOW).to_string(),
                file,
                input,
                expected,
            }
        })
        .collect()
}

#[test]
fn goldens_match_the_reference() {
    let goldens = load_goldens();
    assert!(
        goldens.len() > 100,
        "expected the committed corpus/goldens/, found {} cases",
        goldens.len()
    );
    let mut failures = Vec::new();
    let mut kind_notes = Vec::new();
    quiet_panics(|| {
        for g in &goldens {
            let source = read(&corpus().join("templates").join(&g.template));
            let (kind, name) = &g.input;
            let data = match *kind {
                "vars" => json(&corpus().join("templates").join(name)),
                _ => json(&corpus().join("requests").join(name)),
            };
            let input = match *kind {
                "vars" => Input::Vars(&data),
                _ => Input::Request(&data),
            };
            let outcome = render(&source, input, &g.now);
            let case = format!("{} ({} + {})", g.file, g.template, name);
            match (&g.expected, outcome) {
                (Ok(want), Outcome::Text(got)) if *want == got => {}
                (Ok(want), Outcome::Text(got)) => failures.push(format!(
                    "{case}: output differs\n    {}\n{}",
                    brief_difference(want, &got),
                    line_diff(want, &got)
                )),
                (Ok(_), Outcome::Error { message, .. }) => failures.push(format!(
                    "{case}: the reference renders, we fail: {}",
                    first_line(&message, 200)
                )),
                (Err((ty, msg)), Outcome::Text(got)) => failures.push(format!(
                    "{case}: the reference fails ({ty}: {}), we render {:?}",
                    first_line(msg, 120),
                    first_line(&got, 80)
                )),
                (
                    Err((ty, msg)),
                    Outcome::Error {
                        kind,
                        message,
                        class,
                        ..
                    },
                ) => {
                    // The exception class is part of the contract (callers catch it).
                    if class != ty {
                        failures.push(format!(
                            "{case}: the reference raises {ty}, we raise {class}: {}",
                            first_line(&message, 120)
                        ));
                    }
                    if !kind_matches(ty, &kind) {
                        kind_notes.push(format!(
                            "{case}: reference {ty}: {} / ours {kind}: {}",
                            first_line(msg, 80),
                            first_line(&message, 80)
                        ));
                    }
                }
                (_, Outcome::Panic(p)) => failures.push(format!("{case}: PANIC: {p}")),
            }
        }
    });
    // Known differences: reported, and each must still differ so the list stays true.
    let (known, failures): (Vec<String>, Vec<String>) = failures.into_iter().partition(|f| {
        KNOWN_DIFFERENCES
            .iter()
            .any(|(file, _)| f.starts_with(file))
    });
    for (file, why) in KNOWN_DIFFERENCES {
        let still = known.iter().any(|f| f.starts_with(file));
        println!(
            "KNOWN {file}: {why}{}",
            if still { "" } else { " (NOW MATCHES)" }
        );
    }
    let fixed: Vec<&str> = KNOWN_DIFFERENCES
        .iter()
        .filter(|(file, _)| !known.iter().any(|f| f.starts_with(file)))
        .map(|(file, _)| *file)
        .collect();
    assert!(
        fixed.is_empty(),
        "these cases now match the reference: remove them from KNOWN_DIFFERENCES: {fixed:?}"
    );
    let passed = goldens.len() - failures.len() - known.len();
    if !kind_notes.is_empty() {
        println!(
            "note: {} error case(s) fail as they should, but with another kind of error:",
            kind_notes.len()
        );
        for n in &kind_notes {
            println!("  {n}");
        }
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    println!("{passed} passed, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "{} of {} golden cases differ from the reference (details above)",
        failures.len(),
        goldens.len()
    );
}

/// Golden cases that still differ from the reference, with the cause (also in
/// docs/conformance.md). The test fails if one of them starts matching or any other differs.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// Whether chatcodec's `ErrorKind` (as `{:?}`) is the natural counterpart of the reference's
/// exception class. Only informative: a case passes as long as both fail.
fn kind_matches(python: &str, ours: &str) -> bool {
    let expected: &[&str] = match python {
        "TemplateSyntaxError" => &["Syntax"],
        "TemplateAssertionError" => &["Syntax", "Unknown"],
        "UndefinedError" => &["Undefined"],
        "TypeError" => &["Type"],
        "ValueError" | "IndexError" | "KeyError" => &["Value"],
        "SecurityError" => &["Security"],
        "TemplateError" => &["Raised"],
        "TemplateRuntimeError" => &["Runtime", "Unknown"],
        "OverflowError" => &["Overflow"],
        "ZeroDivisionError" => &["ZeroDivision", "Type"],
        _ => return true,
    };
    expected.contains(&ours)
}
