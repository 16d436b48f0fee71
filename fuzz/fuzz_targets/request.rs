//! The request JSON path: random bytes parsed as a chat request and applied with each
//! built-in family template (aliasing, continue_final_message, tools, documents).
#![no_main]

use std::sync::OnceLock;

use chatcodec::chat::{ChatRequest, Family};
use chatcodec::{Options, Template};
use libfuzzer_sys::fuzz_target;

fn templates() -> &'static [Template] {
    static T: OnceLock<Vec<Template>> = OnceLock::new();
    T.get_or_init(|| {
        let mut options = Options::default();
        options.limits.fuel = 500_000;
        options.limits.max_output = 1 << 18;
        ["chatml", "qwen3", "llama2", "llama3", "glm4", "generic"]
            .iter()
            .filter_map(|n| Family::from_name(n))
            .filter_map(|f| Template::with_options(f.builtin_template(), options).ok())
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, json)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(json) else {
        return;
    };
    let ts = templates();
    if ts.is_empty() {
        return;
    }
    let t = &ts[pick as usize % ts.len()];
    if let Ok(request) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = chatcodec::chat::render_request(t, &request);
    }
    if let Ok(request) = ChatRequest::from_json(text) {
        if let Ok(v) = request.to_value() {
            let _ = chatcodec::chat::render_request(t, &v);
        }
    }
});
