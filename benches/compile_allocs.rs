//! Heap allocations of one compile (drop of the template included) for every corpus template
//! in ../shared/corpus/templates, counted with a counting global allocator. No timing: the
//! counts are exact and the same on every machine.
//!
//! Run: `cargo bench --bench compile_allocs` (a few seconds). `ALLOCS_FILTER=substr` keeps
//! the templates whose file name contains `substr` and lists them one per line.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting calls and requested bytes.
struct Counting;

static CALLS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/templates");
    let filter = std::env::var("ALLOCS_FILTER").ok();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jinja"))
        .filter(|n| match filter.as_deref() {
            Some(f) => n.contains(f),
            None => true,
        })
        .collect();
    names.sort();
    let mut counts = Vec::new();
    for name in &names {
        let src = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        // Once to warm the per-thread compile arena, then counted.
        if chatcodec::Template::new(&src).is_err() {
            continue;
        }
        let (c0, b0) = (CALLS.load(Ordering::Relaxed), BYTES.load(Ordering::Relaxed));
        drop(std::hint::black_box(chatcodec::Template::new(&src)));
        let calls = CALLS.load(Ordering::Relaxed) - c0;
        let bytes = BYTES.load(Ordering::Relaxed) - b0;
        if filter.is_some() {
            println!("{calls:5} allocations {bytes:8} bytes  {name}");
        }
        counts.push((calls, name));
    }
    counts.sort();
    let Some(median) = counts.get(counts.len() / 2) else {
        println!("no template compiles");
        return;
    };
    let last = counts.len() - 1;
    println!(
        "compile allocations over {} templates: median {} ({}), min {} ({}), max {} ({})",
        counts.len(),
        median.0,
        median.1,
        counts[0].0,
        counts[0].1,
        counts[last].0,
        counts[last].1
    );
}
