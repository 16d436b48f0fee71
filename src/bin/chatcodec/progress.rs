//! A progress bar on standard error, drawn only when it is a terminal.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Progress of a batch: a bar when the total is known, a counter otherwise.
pub(crate) struct Progress {
    total: Option<usize>,
    last: Instant,
    shown: bool,
}

impl Progress {
    /// A progress display for `total` items, or `None` when stderr is not a terminal.
    pub(crate) fn new(total: Option<usize>) -> Option<Progress> {
        std::io::stderr().is_terminal().then(|| Progress {
            total,
            last: Instant::now(),
            shown: false,
        })
    }

    /// Redraws at most ten times a second.
    pub(crate) fn update(&mut self, done: usize, failed: usize) {
        if self.shown && self.last.elapsed() < Duration::from_millis(100) {
            return;
        }
        self.draw(done, failed);
    }

    /// Draws the final state and ends the line.
    pub(crate) fn finish(&mut self, done: usize, failed: usize) {
        self.draw(done, failed);
        eprintln!();
    }

    fn draw(&mut self, done: usize, failed: usize) {
        self.last = Instant::now();
        self.shown = true;
        let line = match self.total.filter(|t| *t > 0) {
            Some(total) => {
                const WIDTH: usize = 30;
                let filled = (done.min(total) * WIDTH) / total;
                format!(
                    "\r[{}{}] {done}/{total} rendered, {failed} failed",
                    "#".repeat(filled),
                    " ".repeat(WIDTH - filled)
                )
            }
            None => format!("\r{done} rendered, {failed} failed"),
        };
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(line.as_bytes());
        let _ = err.flush();
    }
}

/// The number of non-blank lines of the file at `path` (for the bar's total).
pub(crate) fn count_lines(path: &str) -> Option<usize> {
    let text = std::fs::read(path).ok()?;
    Some(
        text.split(|b| *b == b'\n')
            .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
            .count(),
    )
}
