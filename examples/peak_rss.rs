//! Peak memory of rendering a big chat request: builds a request of N MB (default 60) of
//! message text, renders it with a ChatML template (the output limit raised to fit), and
//! prints the request size, the output size and the process's peak resident memory
//! (`VmHWM`), before and after the render.
//!
//!     cargo run --release --example peak_rss [MB] [MESSAGES]
//!
//! Not a test: a measurement (docs/limits.md records the figures).

use chatcodec::{Options, Template};

const CHATML: &str = "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The bytes of `v` as JSON, counted without building the text.
fn json_size(v: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

fn main() -> Result<(), chatcodec::Error> {
    let mut args = std::env::args().skip(1);
    let mb: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(60);
    let count: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let per = (mb << 20) / count;
    let line = "The quick brown fox jumps over the lazy dog, again and again. ";
    let messages: Vec<serde_json::Value> = (0..count)
        .map(|i| {
            let mut content = line.repeat(per / line.len() + 1);
            content.truncate(per);
            let mut m = serde_json::Map::new();
            m.insert(
                "role".into(),
                (if i % 2 == 0 { "user" } else { "assistant" }).into(),
            );
            m.insert("content".into(), content.into());
            serde_json::Value::Object(m)
        })
        .collect();
    let mut request = serde_json::Map::new();
    request.insert("messages".into(), messages.into());
    request.insert("add_generation_prompt".into(), true.into());
    let request = serde_json::Value::Object(request);
    let size = json_size(&request);
    let before = status_kb("VmHWM:");
    let mut options = Options::default();
    options.limits.max_output = size * 2;
    let template = Template::with_options(CHATML, options)?;
    let out = chatcodec::chat::render_request(&template, &request)?;
    let peak = status_kb("VmHWM:");
    println!("request: {size} bytes of JSON ({count} messages)");
    println!("output:  {} bytes", out.len());
    println!(
        "peak RSS: {} KiB before rendering (the request itself), {} KiB after: {:.2}x the request",
        before,
        peak,
        (peak as f64 * 1024.0) / size as f64
    );
    Ok(())
}
