//! The cost of the next turn: one message pushed onto a conversation of 1, 10, 100 and
//! 1,000 prior messages (up to 7 more: pushes are measured 8 in a row), through an
//! incremental session (`chat::incremental::Session::push`:
//! the new message's text and the generation prompt) and through a full render of the whole
//! conversation (`chat::render_request`). On a stable template the first is flat in the
//! conversation's length; the second grows with it.
//!
//! Templates: `chat_llama3_style.jinja` (this repository's corpus; stable) and
//! `chat_chatml.jinja` (unstable: it looks at the next message to close a run of tool
//! results, so a push renders in full), and, when ../shared/corpus is next to the
//! repository, Llama 3.1 and Gemma 2 from it (both stable).
//!
//! Run: `cargo bench --bench incremental` (add `-- --measurement-time 1` for a short run).
//! After criterion's report it prints a table of medians read back from criterion's files.

mod common;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use chatcodec::chat::incremental::Incremental;
use chatcodec::Template;
use common::*;
use criterion::{BenchmarkId, Criterion};
use serde_json::{json, Value};

const SIZES: [usize; 4] = [1, 10, 100, 1000];

/// (label, source).
fn templates() -> Vec<(&'static str, String)> {
    let own = |name: &str| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/templates")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let mut out = vec![
        ("llama3-style", own("chat_llama3_style.jinja")),
        ("chatml-unstable", own("chat_chatml.jinja")),
    ];
    if templates_dir().is_dir() {
        out.push((
            "llama-3.1",
            read_template("meta-llama-Llama-3.1-8B-Instruct.jinja"),
        ));
        out.push(("gemma-2", read_template("google-gemma-2-2b-it.jinja")));
    }
    out
}

/// Message `i` of an alternating user/assistant conversation (about 100 bytes each).
fn message(i: usize) -> Value {
    let role = if i % 2 == 0 { "user" } else { "assistant" };
    json!({"role": role, "content": format!("Message number {i}: a sentence of ordinary length about the weather in Paris today.")})
}

fn request(messages: usize) -> Value {
    json!({
        "messages": (0..messages).map(message).collect::<Vec<_>>(),
        "add_generation_prompt": true,
    })
}

fn bench(c: &mut Criterion, label: &str, t: &Template) {
    let inc = Incremental::new(t);
    println!("{label}: {}", inc.stability());
    let mut group = c.benchmark_group(format!("next-turn/{label}"));
    for &n in &SIZES {
        // The conversation has n messages; the next one is pushed.
        let base = inc.session(&request(n)).expect("renders");
        let next = message(n);
        // The session's prompt is the full render's, byte for byte.
        let mut after = base.clone();
        after.push(next.clone()).expect("renders");
        let full = chatcodec::chat::render_request(t, &request(n + 1)).expect("renders");
        assert_eq!(after.prompt().expect("renders"), full, "{label} at {n}");
        // Consecutive pushes, as a server makes them: from a copy of the n-message session
        // (made untimed, reusing buffers), 8 messages are pushed one after the other and
        // each push is timed; then the copy starts again from n messages.
        group.bench_function(BenchmarkId::new("incremental", n), |b| {
            b.iter_custom(|iters| {
                let mut work = base.clone();
                let mut total = Duration::ZERO;
                for i in 0..iters as usize {
                    if i % 8 == 0 {
                        work.clone_from(&base);
                    }
                    let m = message(n + i % 8);
                    let start = Instant::now();
                    black_box(work.push(m).map(str::len).ok());
                    black_box(work.tail().map(str::len).ok());
                    total += start.elapsed();
                }
                total
            })
        });
        let req = request(n + 1);
        let mut out = String::new();
        group.bench_function(BenchmarkId::new("full", n), |b| {
            b.iter(|| {
                chatcodec_render(t, black_box(&req), &mut out).expect("renders");
                black_box(out.len())
            })
        });
    }
    group.finish();
}

fn criterion_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(d);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

fn median_ns(group: &str, id: &str, n: usize) -> Option<f64> {
    let path = criterion_dir()
        .join(group)
        .join(id)
        .join(n.to_string())
        .join("new/estimates.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn main() {
    let sources = templates();
    let compiled: Vec<(&str, Template)> = sources
        .iter()
        .map(|(l, s)| (*l, chatcodec_compile(s).expect("compiles")))
        .collect();
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    for (label, t) in &compiled {
        bench(&mut c, label, t);
    }
    c.final_summary();
    println!();
    println!("| template | prior messages | incremental push | full render |");
    println!("|---|---:|---:|---:|");
    for (label, _) in &compiled {
        let group = format!("next-turn_{label}");
        for n in SIZES {
            let show = |id| {
                median_ns(&group, id, n).map_or("-".to_string(), |ns| format!("{:.2} µs", ns / 1e3))
            };
            println!(
                "| {label} | {n} | {} | {} |",
                show("incremental"),
                show("full")
            );
        }
    }
}
