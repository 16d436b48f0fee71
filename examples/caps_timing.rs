//! Times capability probing over the corpus templates: `cargo run --release --example
//! caps_timing [DIR]` prints the median and maximum probe time per template.

use std::time::Instant;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/corpus/templates".into());
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jinja"))
        .collect();
    paths.sort();
    let mut times = Vec::new();
    for p in &paths {
        let Ok(src) = std::fs::read_to_string(p) else {
            continue;
        };
        let Ok(t) = chatcodec::Template::new(&src) else {
            continue;
        };
        let start = Instant::now();
        let caps = chatcodec::chat::caps::probe(&t);
        let el = start.elapsed().as_secs_f64() * 1e3;
        std::hint::black_box(caps);
        times.push((el, p.file_name().map(|f| f.to_string_lossy().into_owned())));
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = times.len();
    let total: f64 = times.iter().map(|t| t.0).sum();
    println!(
        "{n} templates: median {:.2} ms, max {:.2} ms ({:?}), total {:.0} ms",
        times[n / 2].0,
        times[n - 1].0,
        times[n - 1].1,
        total
    );
    for t in times.iter().rev().take(5) {
        println!("  {:.2} ms {:?}", t.0, t.1);
    }
}
