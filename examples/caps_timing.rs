//! Times capability probing over the corpus templates: `cargo run --release --example
//! caps_timing [DIR]` probes every template three times and prints, for each run and for the
//! per-template best of the three (which filters out other processes' noise), the median,
//! 95th percentile and maximum time per template.

use std::time::Instant;

fn summary(label: &str, times: &[(f64, String)]) {
    let mut t = times.to_vec();
    t.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = t.len();
    println!(
        "{label}: {n} templates, median {:.2} ms, p95 {:.2} ms, max {:.2} ms ({})",
        t[n / 2].0,
        t[n * 95 / 100].0,
        t[n - 1].0,
        t[n - 1].1
    );
}

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
    let templates: Vec<(String, chatcodec::Template)> = paths
        .iter()
        .filter_map(|p| {
            let src = std::fs::read_to_string(p).ok()?;
            let t = chatcodec::Template::new(&src).ok()?;
            Some((p.file_name()?.to_string_lossy().into_owned(), t))
        })
        .collect();
    let mut best = vec![f64::MAX; templates.len()];
    for run in 1..=3 {
        let mut times = Vec::new();
        for (i, (name, t)) in templates.iter().enumerate() {
            let start = Instant::now();
            std::hint::black_box(chatcodec::chat::caps::probe(t));
            let ms = start.elapsed().as_secs_f64() * 1e3;
            best[i] = best[i].min(ms);
            times.push((ms, name.clone()));
        }
        summary(&format!("run {run}"), &times);
    }
    let best: Vec<(f64, String)> = best
        .into_iter()
        .zip(templates.iter().map(|(n, _)| n.clone()))
        .collect();
    summary("best of 3", &best);
}
