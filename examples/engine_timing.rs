//! Times the engine alone on every corpus template and scenario, the way the Python binding
//! calls it: `cargo run --release --example engine_timing [CORPUS]` renders each request
//! given as `chat::Data` (built once, outside the timing) and as JSON, 20 times each, and
//! prints the median over requests of the per-request median time. Compare with
//! `python/bench/bench_render.py`, which adds the binding's cost (converting Python objects,
//! building the result) and transformers' time.
//!
//! `engine_timing --loop TEMPLATE REQUEST N` renders one request (a JSON file) with one
//! template N times through the same path and prints the prompt's length: a fixed loop for
//! `valgrind --tool=callgrind`, whose instruction counts for N and N + 2000 renders give the
//! cost of one render exactly (docs/performance.md, "Render, fourth round").

use std::borrow::Cow;
use std::time::Instant;

use chatcodec::chat::{self, Data, DataRequest};

fn data(v: &serde_json::Value) -> Data<'_> {
    match v {
        serde_json::Value::Null => Data::None,
        serde_json::Value::Bool(b) => Data::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Data::Int(i),
            None => Data::Float(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => Data::Str(Cow::Borrowed(s)),
        serde_json::Value::Array(a) => Data::List(a.iter().map(data).collect()),
        serde_json::Value::Object(o) => Data::Dict(
            o.iter()
                .map(|(k, v)| (Data::Str(Cow::Borrowed(k)), data(v)))
                .collect(),
        ),
    }
}

fn request(req: &serde_json::Map<String, serde_json::Value>) -> DataRequest<'_> {
    let mut r = DataRequest::default();
    for (k, v) in req {
        match k.as_str() {
            "messages" => {
                r.messages = v
                    .as_array()
                    .map(|m| m.iter().map(data).collect())
                    .unwrap_or_default()
            }
            "tools" => r.tools = data(v),
            "documents" => r.documents = data(v),
            "add_generation_prompt" => r.add_generation_prompt = data(v),
            "description" => {}
            _ => r.kwargs.push((Cow::Borrowed(k), data(v))),
        }
    }
    r
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `--loop TEMPLATE REQUEST N` (see the module doc).
fn render_loop(template: &str, request_file: &str, n: usize) {
    let src = std::fs::read_to_string(template).expect("template file");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(request_file).expect("request file"))
            .expect("request JSON");
    let t = chatcodec::Template::new(&src).expect("template compiles");
    let req = request(json.as_object().expect("request object"));
    let mut out = String::new();
    for _ in 0..n {
        out.clear();
        chat::render_data_spans(&t, &req, &mut out).expect("request renders");
    }
    println!("{}", out.len());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, template, request_file, n] = &args[..] {
        if flag == "--loop" {
            return render_loop(template, request_file, n.parse().expect("N"));
        }
    }
    let corpus = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/corpus".into());
    let list = |dir: &str, ext: &str| {
        let mut p: Vec<_> = std::fs::read_dir(format!("{corpus}/{dir}"))
            .expect("corpus dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        p.sort();
        p
    };
    let scenarios: Vec<serde_json::Value> = list("scenarios", "json")
        .iter()
        .filter_map(|p| serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok())
        .collect();
    let (mut by_data, mut by_json) = (Vec::new(), Vec::new());
    for path in list("templates", "jinja") {
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(t) = chatcodec::Template::new(&src) else {
            continue;
        };
        for s in &scenarios {
            let Some(obj) = s.as_object() else { continue };
            let mut json = obj.clone();
            json.remove("description");
            let json = serde_json::Value::Object(json);
            let req = request(obj);
            let mut out = String::new();
            if chat::render_data_spans(&t, &req, &mut out).is_err() {
                continue;
            }
            let mut a = Vec::new();
            let mut b = Vec::new();
            for _ in 0..20 {
                out.clear();
                let t0 = Instant::now();
                let _ = chat::render_data_spans(&t, &req, &mut out);
                a.push(t0.elapsed().as_secs_f64() * 1e6);
                out.clear();
                let t0 = Instant::now();
                let _ = chat::render_request_spans(&t, &json, &mut out);
                b.push(t0.elapsed().as_secs_f64() * 1e6);
            }
            by_data.push(median(&mut a));
            by_json.push(median(&mut b));
        }
    }
    println!(
        "{} requests: engine median {:.2} us (Data), {:.2} us (JSON)",
        by_data.len(),
        median(&mut by_data),
        median(&mut by_json)
    );
}
