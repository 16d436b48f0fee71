//! Large media: a request carrying base64 data URLs (tens of MB of images) renders in time
//! linear in its size, with peak memory under 3x the request.
//!
//! `cargo bench --bench large_media` writes requests of 16, 32 and 64 MB (one user message
//! with eight image parts whose data URLs share the size, each with text around), then, for
//! each, runs this same program as a child process that reads the file, parses it, takes the
//! processor path (`normalize_for_processor`) and renders it with a template that prints every
//! URL (the worst case: the output is as large as the media). The child reports the render
//! time and its peak resident memory (`VmHWM`) above what it held before reading the file.
//! Prints one row per size: time, MB/s, and peak memory over request size. No assertion: the
//! figures are for docs/multimodal.md.

use std::io::Write;
use std::time::Instant;

use chatcodec::chat::{media, ChatTemplate};

const TEMPLATE: &str = "{% for m in messages %}<|{{ m.role }}|>{% for c in m.content %}\
{% if c.type == 'image' %}<image src=\"{{ c.url }}\">{% else %}{{ c.text }}{% endif %}\
{% endfor %}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}";

fn vm_hwm_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn vm_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn child(path: &str) {
    let mut template =
        ChatTemplate::new("default", TEMPLATE, Default::default()).expect("compiles");
    // The output is as large as the request: raise the output limit past 64 MB.
    template.template_mut().options_mut().limits.max_output = 1 << 30;
    let base = vm_rss_kb();
    let start = Instant::now();
    let text = std::fs::read_to_string(path).expect("reads the request");
    let bytes = text.len();
    let mut request: serde_json::Value = serde_json::from_str(&text).expect("parses");
    drop(text);
    media::normalize_for_processor(&mut request);
    let prompt = template.apply(&request).expect("renders");
    let elapsed = start.elapsed();
    let peak = vm_hwm_kb().saturating_sub(base);
    println!("{bytes} {} {peak} {}", elapsed.as_secs_f64(), prompt.len());
}

fn request(size: usize) -> String {
    let parts = 8;
    let each = size / parts;
    let mut content = Vec::new();
    for i in 0..parts {
        content.push(serde_json::json!({"type": "text", "text": format!("Image {i}:")}));
        let data = "A".repeat(each.saturating_sub(40));
        content.push(serde_json::json!({
            "type": "image_url",
            "image_url": {"url": format!("data:image/png;base64,{data}"), "detail": "high"}
        }));
    }
    serde_json::json!({
        "messages": [{"role": "user", "content": content}],
        "add_generation_prompt": true
    })
    .to_string()
}

fn main() {
    if let Ok(path) = std::env::var("CHATCODEC_LARGE_MEDIA_CHILD") {
        return child(&path);
    }
    let exe = std::env::current_exe().expect("knows itself");
    let dir = std::env::temp_dir().join(format!("chatcodec-large-media-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    println!(
        "{:>10} {:>10} {:>10} {:>12} {:>14}",
        "request", "time", "MB/s", "peak RSS", "peak/request"
    );
    for mb in [16usize, 32, 64, 128] {
        let path = dir.join(format!("request-{mb}.json"));
        std::fs::File::create(&path)
            .and_then(|mut f| f.write_all(request(mb << 20).as_bytes()))
            .expect("writes the request");
        let out = std::process::Command::new(&exe)
            .env("CHATCODEC_LARGE_MEDIA_CHILD", &path)
            .output()
            .expect("runs the child");
        let line = String::from_utf8_lossy(&out.stdout);
        let f: Vec<f64> = line
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let [bytes, secs, peak_kb, _out] = f[..] else {
            eprintln!("child failed: {}", String::from_utf8_lossy(&out.stderr));
            continue;
        };
        let peak = peak_kb * 1024.0;
        println!(
            "{:>8.1}MB {:>8.1}ms {:>10.0} {:>10.1}MB {:>13.2}x",
            bytes / 1048576.0,
            secs * 1000.0,
            bytes / 1048576.0 / secs,
            peak / 1048576.0,
            peak / bytes
        );
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
}
