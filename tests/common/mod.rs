//! Helpers shared by the differential tests (`goldens.rs`, `conformance.rs`): rendering one
//! case with chatcodec the way the reference renders it, and describing where two outputs
//! differ in a way a person can read.

#![allow(dead_code)] // each test binary uses a different subset

use std::panic::{catch_unwind, AssertUnwindSafe};

use chatcodec::{Clock, DateTime, Template};

/// Corpus templates whose renders still differ from the reference, with the cause: shared by
/// `conformance.rs` (which fails if one starts matching, or any other pair differs) and
/// `load_corpus.rs` (which reports them).
pub const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// The fixed time every reference render uses unless a case says otherwise.
pub const NOW: &str = "2026-01-15T10:30:00";

/// What a case gives the template: plain variables or a chat request.
pub enum Input<'a> {
    /// `Template::render` with the object's keys as variables.
    Vars(&'a serde_json::Value),
    /// `chat::render_request`, as transformers' `render_jinja_template`.
    Request(&'a serde_json::Value),
}

/// chatcodec's outcome for one case.
#[derive(Debug)]
pub enum Outcome {
    /// Rendered this text.
    Text(String),
    /// Failed with this error (compile or render).
    Error {
        /// `ErrorKind` as `{:?}`.
        kind: String,
        /// The whole error as displayed (location and excerpt included).
        message: String,
        /// The message alone, without location.
        detail: String,
        /// The exception class transformers raises for it (`Error::exception_class`).
        class: &'static str,
    },
    /// The library panicked (never acceptable).
    Panic(String),
}

/// Compiles `source` and renders `input` with the clock fixed at `now`, catching panics.
pub fn render(source: &str, input: Input<'_>, now: &str) -> Outcome {
    let result = catch_unwind(AssertUnwindSafe(|| -> Result<String, chatcodec::Error> {
        let mut t = Template::new(source)?;
        t.options_mut().clock = Clock::Fixed(DateTime::parse(now)?);
        match input {
            Input::Vars(v) => t.render(v),
            Input::Request(r) => chatcodec::chat::render_request(&t, r),
        }
    }));
    match result {
        Ok(Ok(text)) => Outcome::Text(text),
        Ok(Err(e)) => Outcome::Error {
            kind: format!("{:?}", e.kind()),
            message: e.to_string(),
            detail: e.message().to_string(),
            class: e.exception_class().name(),
        },
        Err(payload) => Outcome::Panic(
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "(non-string panic payload)".to_string()),
        ),
    }
}

/// Silences the default panic message while `f` runs (panics are reported as outcomes).
pub fn quiet_panics<R>(f: impl FnOnce() -> R) -> R {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = f();
    std::panic::set_hook(previous);
    r
}

/// The byte offset of the first difference between `a` and `b` (they differ).
pub fn first_difference(a: &str, b: &str) -> usize {
    let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    // Back up to a char boundary of both strings so slicing stays valid.
    let mut i = n;
    while i > 0 && !(a.is_char_boundary(i) && b.is_char_boundary(i)) {
        i -= 1;
    }
    i
}

/// `s[at..]` clipped to about `len` bytes at a char boundary.
fn clip(s: &str, at: usize, len: usize) -> &str {
    let start = at.min(s.len());
    let mut end = (start + len).min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[start..end]
}

/// `s[..at]`'s last `len` bytes, at a char boundary.
fn clip_before(s: &str, at: usize, len: usize) -> &str {
    let mut start = at.saturating_sub(len);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..at]
}

/// One line: where `expected` and `actual` first differ (byte offset, line:col) and a little
/// context of each, escaped so whitespace is visible.
pub fn brief_difference(expected: &str, actual: &str) -> String {
    let at = first_difference(expected, actual);
    let line = expected[..at].matches('\n').count() + 1;
    let col = expected[..at]
        .rsplit('\n')
        .next()
        .map_or(0, |l| l.chars().count())
        + 1;
    format!(
        "first difference at byte {at} (line {line}, col {col}; expected {} bytes, got {}): \
         ...{:?} then expected {:?} got {:?}",
        expected.len(),
        actual.len(),
        clip_before(expected, at, 30),
        clip(expected, at, 40),
        clip(actual, at, 40),
    )
}

/// A small line diff around the first difference: a few common lines, then the differing
/// lines of each side (`-` expected, `+` ours), each shown escaped.
pub fn line_diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.split('\n').collect();
    let a: Vec<&str> = actual.split('\n').collect();
    let first = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    // Common suffix, not overlapping the prefix.
    let max_suffix = e.len().min(a.len()) - first;
    let suffix = e
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    let mut out = String::new();
    for (i, l) in e
        .iter()
        .enumerate()
        .take(first)
        .skip(first.saturating_sub(2))
    {
        out.push_str(&format!("      {:>4}  {:?}\n", i + 1, l));
    }
    const MAX: usize = 8;
    let (e_end, a_end) = (e.len() - suffix, a.len() - suffix);
    for (i, l) in e[first..e_end].iter().enumerate().take(MAX) {
        out.push_str(&format!("    - {:>4}  {:?}\n", first + i + 1, l));
    }
    if e_end - first > MAX {
        out.push_str(&format!(
            "    - ...   ({} more lines)\n",
            e_end - first - MAX
        ));
    }
    for (i, l) in a[first..a_end].iter().enumerate().take(MAX) {
        out.push_str(&format!("    + {:>4}  {:?}\n", first + i + 1, l));
    }
    if a_end - first > MAX {
        out.push_str(&format!(
            "    + ...   ({} more lines)\n",
            a_end - first - MAX
        ));
    }
    out
}

/// The first line of `s`, at most `max` characters.
pub fn first_line(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > max {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}...")
    } else {
        line.to_string()
    }
}
