//! Corpus-wide sweep: every template in ../shared/corpus/templates, compiled by chatcodec and by
//! minijinja 3 (+ pycompat, configured as in `render.rs`), and every (template, request) pair
//! that both engines render without error, for the tool-call scenario and the 50-message
//! chat. Each measurement is the median of interleaved batches (chatcodec batch, minijinja
//! batch, ...), so drift on a shared machine hits both engines alike.
//!
//! Run: `cargo bench --bench sweep` (about a minute on 2 cores).
//! Environment:
//! - `SWEEP_SAMPLES` (default 51): batches per engine and measurement.
//! - `SWEEP_FILTER=substr`: only templates whose file name contains `substr`.
//! - `SWEEP_TSV=path`: also write every measurement as TSV.
//! - `SWEEP_STEP=compile`: measure compile only (renders are still checked, not timed).
//! - `SWEEP_PROFILE=a.jinja,b.jinja` and `SWEEP_SECONDS` (default 10): no comparison; render
//!   those templates with chatcodec only, in a loop, for a profiler (`perf record -g`);
//!   with `SWEEP_PROFILE_STEP=compile`, compile them in a loop instead.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::*;

/// A batch lasts at least this long, so timer overhead is negligible.
const BATCH: Duration = Duration::from_micros(500);

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Iterations of `f` that take at least [`BATCH`].
fn calibrate(f: &mut dyn FnMut()) -> u32 {
    let mut k = 1u32;
    loop {
        let t = Instant::now();
        for _ in 0..k {
            f();
        }
        if t.elapsed() >= BATCH || k >= 1 << 20 {
            return k;
        }
        k *= 2;
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Median ns per call of `a` and of `b`, measured in interleaved batches.
fn measure_pair(samples: usize, a: &mut dyn FnMut(), b: &mut dyn FnMut()) -> (f64, f64) {
    let ka = calibrate(a);
    let kb = calibrate(b);
    let mut ta = Vec::with_capacity(samples);
    let mut tb = Vec::with_capacity(samples);
    for _ in 0..samples {
        let t = Instant::now();
        for _ in 0..ka {
            a();
        }
        ta.push(t.elapsed().as_nanos() as f64 / ka as f64);
        let t = Instant::now();
        for _ in 0..kb {
            b();
        }
        tb.push(t.elapsed().as_nanos() as f64 / kb as f64);
    }
    (median(&mut ta), median(&mut tb))
}

struct Row {
    template: String,
    step: &'static str,
    chatcodec_ns: f64,
    minijinja_ns: f64,
}

impl Row {
    fn ratio(&self) -> f64 {
        self.minijinja_ns / self.chatcodec_ns
    }
}

fn profile(list: &str) {
    let secs = env_usize("SWEEP_SECONDS", 10) as u64;
    let requests = requests();
    let sources: Vec<String> = list.split(',').map(|n| read_template(n.trim())).collect();
    let start = Instant::now();
    let mut n = 0u64;
    if std::env::var("SWEEP_PROFILE_STEP").as_deref() == Ok("compile") {
        while start.elapsed() < Duration::from_secs(secs) {
            for src in &sources {
                for _ in 0..100 {
                    black_box(chatcodec_compile(black_box(src)).expect("compiles"));
                    n += 1;
                }
            }
        }
        println!("{n} compiles in {:?}", start.elapsed());
        return;
    }
    let templates: Vec<_> = sources
        .iter()
        .map(|src| chatcodec_compile(src).expect("compiles"))
        .collect();
    let mut out = String::new();
    while start.elapsed() < Duration::from_secs(secs) {
        for t in &templates {
            for (_, req) in &requests {
                for _ in 0..100 {
                    let _ = chatcodec_render(t, black_box(req), &mut out);
                    n += 1;
                }
            }
        }
    }
    println!("{n} renders in {:?}", start.elapsed());
}

fn main() {
    if let Ok(list) = std::env::var("SWEEP_PROFILE") {
        return profile(&list);
    }
    let started = Instant::now();
    let samples = env_usize("SWEEP_SAMPLES", 51).max(1);
    let filter = std::env::var("SWEEP_FILTER").unwrap_or_default();
    let compile_only = std::env::var("SWEEP_STEP").as_deref() == Ok("compile");
    let env = minijinja_env();
    let requests = requests();
    let templates: Vec<_> = all_templates()
        .into_iter()
        .filter(|(n, _)| n.contains(&filter))
        .collect();

    let mut rows: Vec<Row> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    let mut differs: Vec<String> = Vec::new();
    let mut pairs_total = 0usize;
    for (name, src) in &templates {
        let cc = chatcodec_compile(src);
        let mj = env.template_from_str(src);
        let (cc, mj) = match (cc, mj) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                let why = match (a.err(), b.err()) {
                    (Some(e), _) => format!("chatcodec: {e}"),
                    (_, Some(e)) => {
                        format!("minijinja: {}", e.to_string().lines().next().unwrap_or(""))
                    }
                    _ => unreachable!(),
                };
                skipped.push(format!("{name} (compile; {why})"));
                pairs_total += requests.len();
                continue;
            }
        };
        let mut rendered_any = false;
        for (rname, req) in &requests {
            pairs_total += 1;
            let mut out = String::new();
            let a = chatcodec_render(&cc, req, &mut out).map(|_| out);
            let b = minijinja_render(&mj, req);
            let (a, b) = match (a, b) {
                (Ok(a), Ok(b)) => (a, b),
                (a, b) => {
                    let why = match (a.err(), b.err()) {
                        (Some(_), Some(_)) => "both engines fail".to_string(),
                        (Some(e), None) => {
                            format!("chatcodec: {}", e.to_string().lines().next().unwrap_or(""))
                        }
                        (None, Some(e)) => {
                            format!("minijinja: {}", e.to_string().lines().next().unwrap_or(""))
                        }
                        _ => unreachable!(),
                    };
                    skipped.push(format!("{name} x {rname} ({why})"));
                    continue;
                }
            };
            if a != b {
                differs.push(format!("{name} x {rname}"));
            }
            rendered_any = true;
            if compile_only {
                continue;
            }
            let mut buf = String::new();
            let (c, m) = measure_pair(
                samples,
                &mut || {
                    chatcodec_render(&cc, black_box(req), &mut buf).unwrap();
                },
                &mut || {
                    black_box(minijinja_render(&mj, black_box(req)).unwrap());
                },
            );
            rows.push(Row {
                template: name.clone(),
                step: if *rname == "tools" {
                    "render_tools"
                } else {
                    "render_chat50"
                },
                chatcodec_ns: c,
                minijinja_ns: m,
            });
        }
        if rendered_any {
            let (c, m) = measure_pair(
                samples,
                &mut || {
                    black_box(chatcodec_compile(black_box(src)).unwrap());
                },
                &mut || {
                    black_box(env.template_from_str(black_box(src)).unwrap());
                },
            );
            rows.push(Row {
                template: name.clone(),
                step: "compile",
                chatcodec_ns: c,
                minijinja_ns: m,
            });
        }
    }

    if let Ok(path) = std::env::var("SWEEP_TSV") {
        let mut tsv = String::from("template\tstep\tchatcodec_ns\tminijinja_ns\tratio\n");
        for r in &rows {
            tsv.push_str(&format!(
                "{}\t{}\t{:.0}\t{:.0}\t{:.3}\n",
                r.template,
                r.step,
                r.chatcodec_ns,
                r.minijinja_ns,
                r.ratio()
            ));
        }
        std::fs::write(&path, tsv).unwrap_or_else(|e| panic!("{path}: {e}"));
    }

    let compiled = rows.iter().filter(|r| r.step == "compile").count();
    let rendered = rows.iter().filter(|r| r.step != "compile").count();
    println!(
        "sweep: {} templates, {compiled} compiled and rendered by both engines; \
         {rendered} of {pairs_total} (template, request) pairs rendered by both; {samples} samples each",
        templates.len()
    );
    println!(
        "minijinja output differs from chatcodec (= transformers) on {} of {rendered} pairs",
        differs.len()
    );
    println!();
    println!("| step | n | chatcodec median | minijinja median | median ratio (minijinja / chatcodec) | worst ratio (template) | chatcodec slower on |");
    println!("|---|---:|---:|---:|---:|---|---:|");
    let steps: [(&str, &[&str]); 4] = [
        ("compile", &["compile"]),
        ("render_tools", &["render_tools"]),
        ("render_chat50", &["render_chat50"]),
        ("render (both requests)", &["render_tools", "render_chat50"]),
    ];
    for (label, which) in steps {
        let sel: Vec<&Row> = rows.iter().filter(|r| which.contains(&r.step)).collect();
        if sel.is_empty() {
            continue;
        }
        let mut ratios: Vec<f64> = sel.iter().map(|r| r.ratio()).collect();
        let mut cc: Vec<f64> = sel.iter().map(|r| r.chatcodec_ns).collect();
        let mut mj: Vec<f64> = sel.iter().map(|r| r.minijinja_ns).collect();
        let worst = sel
            .iter()
            .min_by(|a, b| a.ratio().total_cmp(&b.ratio()))
            .unwrap();
        let slower = sel.iter().filter(|r| r.ratio() < 1.0).count();
        println!(
            "| {label} | {} | {:.2} µs | {:.2} µs | {:.2}x | {:.2}x ({}{}) | {slower} |",
            sel.len(),
            median(&mut cc) / 1000.0,
            median(&mut mj) / 1000.0,
            median(&mut ratios),
            worst.ratio(),
            worst.template,
            if which.len() > 1 {
                format!(", {}", worst.step)
            } else {
                String::new()
            },
        );
    }
    println!();
    println!("lowest ratios:");
    let mut by_ratio: Vec<&Row> = rows.iter().collect();
    by_ratio.sort_by(|a, b| a.ratio().total_cmp(&b.ratio()));
    for r in by_ratio.iter().take(12) {
        println!(
            "  {:.2}x  {:14} {:>9.2} µs vs {:>9.2} µs  {}",
            r.ratio(),
            r.step,
            r.chatcodec_ns / 1000.0,
            r.minijinja_ns / 1000.0,
            r.template
        );
    }
    println!();
    println!("slowest chatcodec renders:");
    let mut by_time: Vec<&Row> = rows.iter().filter(|r| r.step != "compile").collect();
    by_time.sort_by(|a, b| b.chatcodec_ns.total_cmp(&a.chatcodec_ns));
    for r in by_time.iter().take(8) {
        println!(
            "  {:>9.2} µs  {:14} ({:.2}x)  {}",
            r.chatcodec_ns / 1000.0,
            r.step,
            r.ratio(),
            r.template
        );
    }
    if std::env::var_os("SWEEP_VERBOSE").is_some() {
        println!();
        println!("skipped ({}):", skipped.len());
        for s in &skipped {
            println!("  {s}");
        }
        println!("minijinja differs ({}):", differs.len());
        for s in &differs {
            println!("  {s}");
        }
    } else {
        println!();
        println!(
            "{} pairs skipped (an engine fails), {} differ; SWEEP_VERBOSE=1 lists them",
            skipped.len(),
            differs.len()
        );
    }
    println!("sweep took {:.1} s", started.elapsed().as_secs_f64());
}
