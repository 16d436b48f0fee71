//! Compile and render: the input is a template, then a NUL byte, then the variables (a JSON
//! object; anything else renders with a small chat). Small limits keep every run short.
#![no_main]

use chatcodec::{Options, Template};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (src, vars) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b""[..]),
    };
    let Ok(source) = std::str::from_utf8(src) else {
        return;
    };
    let vars = serde_json::from_slice::<serde_json::Value>(vars)
        .ok()
        .filter(|v| v.is_object())
        .unwrap_or_else(|| {
            serde_json::json!({
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "hi <|im_start|>"},
                    {"role": "assistant", "content": "yo", "tool_calls": [
                        {"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
                    ]},
                    {"role": "tool", "content": "42"}
                ],
                "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
                "add_generation_prompt": true,
                "bos_token": "<s>"
            })
        });
    let mut options = Options::default();
    options.limits.fuel = 200_000;
    options.limits.max_output = 1 << 16;
    options.limits.max_source = 1 << 20;
    if let Ok(t) = Template::with_options(source, options) {
        let _ = t.render(&vars);
    }
});
