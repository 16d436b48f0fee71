//! Stream-parse cost for every output-format family (plain harness, medians of repeated runs).
//!
//! For each corpus family that has a hand-written format (`tests/output_support/families.rs`),
//! the first corpus template of the family whose turn the format parses back as the call
//! renders an assistant turn holding reasoning, content and one tool call whose string
//! argument is long; the assistant part of that render (the text after the generation
//! prompt) is the model output. It is built at about 1 KB and
//! 1 MB and fed 4 bytes ("a token") at a time to one `StreamParser` of the family's format;
//! the table gives the cost per token at both sizes and their ratio (flat means ≤ 1.2x).
//! Then, for every format (families or not), 1 MB of plain prose with no markers is fed in
//! 4 KB chunks: the content throughput.
//!
//! Times are CPU time of the benchmark thread (`/proc/thread-self/schedstat`), so figures
//! stay comparable on a machine busy with other work.
//!
//! Run: `cargo bench --bench parse_formats` (a few minutes). `PARSE_FILTER=substr` limits the
//! formats, `PARSE_RUNS=N` sets the repetitions (default 7; the median is reported).

mod common;
#[path = "../tests/output_support/families.rs"]
#[allow(dead_code)]
mod families;

use chatcodec::chat::ChatTemplate;
use chatcodec::output::{Format, StreamParser};
use serde_json::{json, Map, Value};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Filler prose of exactly `len` bytes (ASCII).
fn fill(len: usize) -> String {
    let words = "the quick brown fox jumps over the lazy dog, 1 < 2 and a > b; ";
    words.repeat(len / words.len() + 1)[..len].to_string()
}

fn template(source: &str) -> Option<ChatTemplate> {
    let mut tokens = Map::new();
    tokens.insert("bos_token".into(), Value::String("<s>".into()));
    tokens.insert("eos_token".into(), Value::String("</s>".into()));
    ChatTemplate::new("bench", source, tokens).ok()
}

/// The assistant turn `t` renders for reasoning, content and one call, each about `n / 3`
/// bytes: the render of the whole conversation after what it shares with the prompt.
fn output(t: &ChatTemplate, n: usize) -> Option<String> {
    let third = n / 3;
    let tools = json!([{"type": "function", "function": {"name": "write_file",
        "description": "Write a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"},
            "content": {"type": "string"}}, "required": ["path", "content"]}}}]);
    let user = json!({"role": "user", "content": "Write the notes."});
    let prompt = t
        .apply(&json!({"messages": [user], "tools": tools, "add_generation_prompt": true}))
        .ok()?;
    let assistant = json!({"role": "assistant", "reasoning_content": fill(third),
        "thinking": fill(third), "content": fill(third),
        "tool_calls": [{"id": "abc123XYZ", "type": "function", "function": {"name": "write_file",
            "arguments": {"path": "notes.txt", "content": fill(third)}}}]});
    let full = t
        .apply(&json!({"messages": [user, assistant], "tools": tools}))
        .ok()?;
    // The turn starts where the render leaves the prompt (a template may write the
    // generation prompt differently from a history turn's header).
    let common = prompt
        .bytes()
        .zip(full.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let start = (0..=common).rev().find(|&i| full.is_char_boundary(i))?;
    let out = &full[start..];
    (out.len() > n / 4).then(|| out.to_string())
}

/// The model output for the formats no corpus template renders back as a call (see the
/// module doc): the same turn (reasoning, content, one `write_file` call with a long string
/// argument, each about `n / 3` bytes) written in the format's documented syntax.
fn written(format_name: &str, n: usize) -> Option<String> {
    let third = n / 3;
    let args = json!({"path": "notes.txt", "content": fill(third)}).to_string();
    let (reasoning, content) = (fill(third), fill(third));
    Some(match format_name {
        // The prompt ends with `<|start|>assistant`.
        "gpt-oss" => format!(
            "<|channel|>analysis<|message|>{reasoning}<|end|><|start|>assistant<|channel|>final<|message|>{content}<|end|><|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{args}<|call|>"
        ),
        // The prompt ends with `>>>`.
        "functionary-v3.2" => format!("all\n{reasoning} {content}>>>write_file\n{args}\n"),
        "firefunction-v2" => format!(
            "{reasoning} {content}functools[{{\"name\": \"write_file\", \"arguments\": {args}}}]"
        ),
        _ => return None,
    })
}

fn feed(format: &Format, text: &[u8], chunk: usize) -> usize {
    let mut p = StreamParser::new(format);
    let mut n = 0;
    for c in text.chunks(chunk) {
        n += p.feed_bytes(c).len();
    }
    n + p.finish().len()
}

/// CPU time of this thread in nanoseconds (`/proc/thread-self/schedstat`), so that time the
/// thread spends waiting for a core on a loaded machine is not counted; wall-clock time where
/// that file does not exist.
fn cpu_ns(start: Instant) -> u128 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| start.elapsed().as_nanos())
}

/// The median time of `runs` runs of `f`, each run repeating `f` for at least 50 ms of CPU.
fn median(runs: usize, mut f: impl FnMut() -> usize) -> Duration {
    let origin = Instant::now();
    let mut reps = 1u32;
    loop {
        let start = cpu_ns(origin);
        for _ in 0..reps {
            black_box(f());
        }
        if cpu_ns(origin) - start >= 50_000_000 || reps >= 1 << 24 {
            break;
        }
        reps *= 2;
    }
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = cpu_ns(origin);
            for _ in 0..reps {
                black_box(f());
            }
            let ns = (cpu_ns(origin) - start) / u128::from(reps);
            Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let runs = std::env::var("PARSE_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7usize)
        .max(1);
    let filter = std::env::var("PARSE_FILTER").unwrap_or_default();
    let templates = common::all_templates();

    println!("## Per token (4-byte feeds), one corpus template per family\n");
    println!("| format | template | ns/token at 1 KB | ns/token at 1 MB | 1 MB / 1 KB |");
    println!("|---|---|---:|---:|---:|");
    let mut worst: (f64, &str) = (0.0, "");
    let mut done: Vec<&str> = Vec::new();
    for (_, format_name) in families::FAMILIES {
        if done.contains(format_name) || !format_name.contains(&filter) {
            continue;
        }
        let Ok(format) = Format::by_name(format_name) else {
            continue;
        };
        // Whether the format reads `text` back as the `write_file` call.
        let reads_back = |text: &str| {
            let calls = chatcodec::output::parse(&format, text).tool_calls;
            calls.first().map(|c| c.name.as_str()) == Some("write_file")
        };
        let found = templates.iter().find_map(|(file, src)| {
            if families::format_of(file) != Some(*format_name) {
                return None;
            }
            let t = template(src)?;
            let small = output(&t, 1 << 10)?;
            // Only a template whose turn the format reads back as a call represents it.
            if !reads_back(&small) {
                return None;
            }
            let large = output(&t, 1 << 20)?;
            Some((file.clone(), small, large))
        });
        // Formats no corpus template renders back: the turn as the format documents it,
        // checked to parse back as the call like the rendered ones.
        let found = found.or_else(|| {
            let small = written(format_name, 1 << 10)?;
            if !reads_back(&small) {
                return None;
            }
            Some((
                "(written by hand)".to_string(),
                small,
                written(format_name, 1 << 20)?,
            ))
        });
        let Some((file, small, large)) = found else {
            println!("| {format_name} | (no corpus template renders the turn) | | | |");
            continue;
        };
        done.push(format_name);
        let per_token = |text: &str| {
            let tokens = text.len().div_ceil(4) as f64;
            median(runs, || feed(&format, text.as_bytes(), 4)).as_nanos() as f64 / tokens
        };
        let (a, b) = (per_token(&small), per_token(&large));
        let ratio = b / a;
        if ratio > worst.0 {
            worst = (ratio, format_name);
        }
        println!(
            "| {format_name} | {} | {a:.0} | {b:.0} | {ratio:.2}x |",
            file.trim_end_matches(".jinja")
        );
    }
    println!("\nworst 1 MB / 1 KB ratio: {:.2}x ({})\n", worst.0, worst.1);

    println!("## Plain content, 1 MB in 4 KB chunks, every format\n");
    println!("| format | MiB/s |");
    println!("|---|---:|");
    let words = "Plain answer text with no markers at all, just prose and numbers 12345. ";
    let plain = words.repeat((1 << 20) / words.len());
    let mut rates: Vec<(f64, &str)> = Vec::new();
    for (name, _) in Format::names() {
        if !name.contains(&filter) {
            continue;
        }
        let Ok(format) = Format::by_name(name) else {
            continue;
        };
        let t = median(runs, || feed(&format, plain.as_bytes(), 4096));
        let rate = plain.len() as f64 / t.as_secs_f64() / f64::from(1u32 << 20);
        rates.push((rate, name));
        println!("| {name} | {rate:.0} |");
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    if let (Some(lo), Some(mid)) = (rates.first(), rates.get(rates.len() / 2)) {
        println!(
            "\nplain content: median {:.0} MiB/s, lowest {:.0} MiB/s ({})",
            mid.0, lo.0, lo.1
        );
    }
}
