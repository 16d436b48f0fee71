//! Stream-parse benchmarks (criterion).
//!
//! - `stream_4b/N`: a Qwen-style output of N bytes (reasoning, content, one tool call with a
//!   long string argument) fed 4 bytes at a time to one `StreamParser`; throughput is in tokens
//!   (4-byte chunks), so criterion's time per element is the per-token cost.
//! - `reparse_4b/N`: the same grammar driven the way llama.cpp drives its parser: at every
//!   4-byte chunk, a fresh parser parses the whole accumulated text.
//! - `content_4k`: 1 MB of plain content fed in 4 KB chunks (bytes/s).
//!
//! Run: `cargo bench --bench parse` (short measurement times are set below).

use chatcodec::output::{Format, StreamParser};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

/// A Qwen3-style output of about `n` bytes: a third reasoning, a third content, a third a
/// string argument of one tool call.
fn qwen_output(n: usize) -> String {
    let words = "the quick brown fox jumps over the lazy dog, 1 < 2 and a > b; ";
    let fill = |len: usize| words.repeat(len / words.len() + 1)[..len].to_string();
    let third = n / 3;
    format!(
        "<think>\n{}\n</think>\n\n{}\n<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"notes.txt\", \"content\": \"{}\"}}}}\n</tool_call>",
        fill(third),
        fill(third),
        fill(third.saturating_sub(90))
    )
}

fn stream(format: &Format, text: &[u8], chunk: usize) -> usize {
    let mut p = StreamParser::new(format);
    let mut n = 0;
    for c in text.chunks(chunk) {
        n += p.feed_bytes(c).len();
    }
    n += p.finish().len();
    n
}

/// llama.cpp's way: re-parse the whole accumulated text at every chunk.
fn reparse(format: &Format, text: &[u8], chunk: usize) -> usize {
    let mut n = 0;
    let mut end = 0;
    while end < text.len() {
        end = (end + chunk).min(text.len());
        let mut p = StreamParser::new(format);
        p.feed_bytes(&text[..end]);
        n += p.message().content.len();
    }
    n
}

fn benches(c: &mut Criterion) {
    let f = Format::by_name("hermes").expect("hermes format");
    let mut g = c.benchmark_group("stream_4b");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for n in [1 << 10, 8 << 10, 64 << 10, 1 << 20] {
        let text = qwen_output(n);
        g.throughput(Throughput::Elements(text.len().div_ceil(4) as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| stream(&f, black_box(t.as_bytes()), 4))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("reparse_4b");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(3));
    for n in [1 << 10, 8 << 10, 32 << 10] {
        let text = qwen_output(n);
        g.throughput(Throughput::Elements(text.len().div_ceil(4) as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| reparse(&f, black_box(t.as_bytes()), 4))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("content_4k");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let words = "Plain answer text with no markers at all, just prose and numbers 12345. ";
    let text = words.repeat((1 << 20) / words.len());
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("1MB", |b| {
        b.iter(|| stream(&f, black_box(text.as_bytes()), 4096))
    });
    g.finish();
}

criterion_group!(parse, benches);
criterion_main!(parse);
