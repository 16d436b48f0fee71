//! Replays a `render` fuzz input (template NUL variables) with the fuzz target's limits and
//! prints the outcome and the time it took.
//!
//!     cargo run --release --example fuzz_replay FILE

use chatcodec::{Options, Template};

fn main() {
    let path = std::env::args().nth(1).expect("a fuzz input file");
    let data = std::fs::read(&path).expect("readable");
    let (src, vars) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&data[..], &b""[..]),
    };
    let source = String::from_utf8_lossy(src);
    let vars = serde_json::from_slice::<serde_json::Value>(vars)
        .ok()
        .filter(|v| v.is_object())
        .unwrap_or_else(|| serde_json::json!({"messages": [{"role": "user", "content": "hi"}]}));
    let mut options = Options::default();
    options.limits.fuel = 200_000;
    options.limits.max_output = 1 << 16;
    let start = std::time::Instant::now();
    let result = Template::with_options(&source, options).and_then(|t| t.render(&vars));
    let took = start.elapsed();
    match result {
        Ok(text) => println!("rendered {} bytes in {took:?}", text.len()),
        Err(e) => println!("error in {took:?}: {e}"),
    }
}
