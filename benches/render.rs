//! chatcodec against minijinja 3 (+ minijinja-contrib pycompat), side by side, on five named
//! corpus templates: compile, and request-to-prompt (request conversion included) for a
//! tool-call turn and a 50-message chat.
//!
//! Run: `cargo bench --bench render` (needs ../shared/corpus next to the repository).
//! After criterion's own report it prints a table of medians and minijinja/chatcodec ratios,
//! read back from criterion's `estimates.json` files.

mod common;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use common::*;
use criterion::{BenchmarkId, Criterion};

/// The five templates: (label, file name in ../shared/corpus/templates).
fn templates() -> Vec<(&'static str, String)> {
    vec![
        (
            "chatml-qwen2.5",
            first_existing(&["Qwen-Qwen2.5-7B-Instruct.jinja"]),
        ),
        (
            "llama-3.1",
            first_existing(&[
                "meta-llama-Llama-3.1-8B-Instruct.jinja",
                "Meta-Llama-3.1-8B-Instruct.jinja",
            ]),
        ),
        ("qwen3-coder", first_existing(&["Qwen3-Coder.jinja"])),
        // Mistral-Nemo-Instruct-2407 fails the tool scenario in transformers itself
        // (`"]" + eos_token` with no eos_token in the request), so the Mistral is Small 3.2,
        // which renders both requests.
        (
            "mistral-small-3.2",
            first_existing(&[
                "Mistral-Small-3.2-24B-Instruct-2506.jinja",
                "mistralai-Mistral-Nemo-Instruct-2407.jinja",
            ]),
        ),
        ("gpt-oss", first_existing(&["openai-gpt-oss-120b.jinja"])),
    ]
}

const GROUPS: [&str; 3] = ["compile", "render_tools", "render_chat50"];

/// Renders every pair with both engines once and says whether the outputs agree.
/// chatcodec is the reference here: it is byte-exact with transformers on these pairs
/// (tests/conformance.rs), so a difference is minijinja's.
fn check_outputs(sources: &[(&str, String)], requests: &[(&str, serde_json::Value)]) {
    let env = minijinja_env();
    println!("output check (chatcodec == transformers on these pairs; see docs/conformance.md):");
    for (label, src) in sources {
        let cc = chatcodec_compile(src).expect("chatcodec compiles");
        let mj = env.template_from_str(src);
        for (rname, req) in requests {
            let mut out = String::new();
            let a = chatcodec_render(&cc, req, &mut out).map(|_| out);
            let b = match &mj {
                Ok(t) => minijinja_render(t, req).map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            let verdict = match (&a, &b) {
                (Ok(x), Ok(y)) if x == y => format!("identical ({} bytes)", x.len()),
                (Ok(x), Ok(y)) => {
                    let at = x
                        .bytes()
                        .zip(y.bytes())
                        .position(|(p, q)| p != q)
                        .unwrap_or(x.len().min(y.len()));
                    let lo = at.saturating_sub(20);
                    format!(
                        "MINIJINJA DIFFERS at byte {at}: chatcodec {:?} / minijinja {:?}",
                        x.get(lo..(at + 30).min(x.len())).unwrap_or(""),
                        y.get(lo..(at + 30).min(y.len())).unwrap_or("")
                    )
                }
                (Err(e), _) => format!("chatcodec error: {e}"),
                (_, Err(e)) => format!("minijinja error: {e}"),
            };
            println!("  {label:15} {rname:7} {verdict}");
        }
    }
}

fn bench(c: &mut Criterion, sources: &[(&str, String)], requests: &[(&str, serde_json::Value)]) {
    let env = minijinja_env();

    let mut g = c.benchmark_group("compile");
    for (label, src) in sources {
        g.bench_with_input(BenchmarkId::new("chatcodec", label), src, |b, src| {
            b.iter(|| chatcodec_compile(black_box(src)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("minijinja", label), src, |b, src| {
            b.iter(|| {
                env.template_from_str(black_box(src.as_str()))
                    .unwrap()
                    .name()
                    .len()
            })
        });
    }
    g.finish();

    for (rname, req) in requests {
        let mut g = c.benchmark_group(format!("render_{rname}"));
        for (label, src) in sources {
            let cc = chatcodec_compile(src).unwrap();
            let mut out = String::new();
            if chatcodec_render(&cc, req, &mut out).is_ok() {
                g.bench_with_input(BenchmarkId::new("chatcodec", label), req, |b, req| {
                    b.iter(|| {
                        chatcodec_render(&cc, black_box(req), &mut out).unwrap();
                        out.len()
                    })
                });
            }
            let mj = env.template_from_str(src).unwrap();
            if minijinja_render(&mj, req).is_ok() {
                g.bench_with_input(BenchmarkId::new("minijinja", label), req, |b, req| {
                    b.iter(|| minijinja_render(&mj, black_box(req)).unwrap())
                });
            }
        }
        g.finish();
    }
}

/// Where criterion writes its results.
fn criterion_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(d);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

/// criterion's median estimate (ns) for one benchmark, if it ran.
fn median_ns(group: &str, engine: &str, label: &str) -> Option<f64> {
    let path = criterion_dir()
        .join(group)
        .join(engine)
        .join(label)
        .join("new/estimates.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn fmt_us(ns: f64) -> String {
    format!("{:.2} µs", ns / 1000.0)
}

/// A markdown table of criterion's medians and minijinja/chatcodec ratios.
fn summary(sources: &[(&str, String)]) {
    println!();
    println!("| template | step | chatcodec | minijinja | minijinja / chatcodec |");
    println!("|---|---|---:|---:|---:|");
    for group in GROUPS {
        for (label, _) in sources {
            let a = median_ns(group, "chatcodec", label);
            let b = median_ns(group, "minijinja", label);
            let ratio = match (a, b) {
                (Some(a), Some(b)) => format!("{:.1}x", b / a),
                _ => "-".to_string(),
            };
            println!(
                "| {label} | {group} | {} | {} | {ratio} |",
                a.map_or("-".into(), fmt_us),
                b.map_or("-".into(), fmt_us)
            );
        }
    }
}

fn main() {
    let names = templates();
    let sources: Vec<(&str, String)> = names
        .iter()
        .map(|(label, file)| {
            println!("{label}: {file}");
            (*label, read_template(file))
        })
        .collect();
    let requests = requests();
    check_outputs(&sources, &requests);

    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    bench(&mut c, &sources, &requests);
    c.final_summary();
    summary(&sources);
}
