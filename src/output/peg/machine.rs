//! The resumable parsing machine. It runs until the input ends and keeps its whole state
//! (program counter, backtrack stack, call stack, pending captures), so the next chunk
//! continues exactly where the last stopped. Captures are handed to a [`Sink`] as soon as no
//! live backtrack entry can undo them; input before the oldest live entry is released.
//!
//! A failure with no live entry to return to does not fail the parse: the machine reports it
//! to the sink (which degrades it to content plus a malformed event) and resumes at the
//! grammar's `recover` rule from the current position.
//!
//! With a set of known tool names, a name capture that closes on a name outside the set is a
//! committed failure too: the machine rewinds to where the call opened, keeps the call's head
//! as content, reports it malformed and resumes at `recover` (so the rest of the call is read
//! as content as well).

use super::compile::{Inst, Program};
use super::ir::Kind;
use crate::output::scan::{incomplete_utf8_tail, text, utf8_len};
use std::collections::HashSet;
use std::sync::Arc;

/// Receives captures in input order.
pub(crate) trait Sink {
    /// A capture opens.
    fn open(&mut self, kind: Kind);
    /// Text inside the open captures (in pieces; pieces split anywhere between characters).
    fn text(&mut self, s: &str);
    /// A capture closes.
    fn close(&mut self, kind: Kind);
    /// The grammar failed at `at` with nothing to backtrack to. `raw` is the input consumed
    /// since the last emitted event that no capture accounted for. The sink closes what is
    /// open, keeps `raw` as content and reports the malformed region. `call` is the input of
    /// the tool call the failure broke, from the end of the last event before it up to `raw`
    /// (its markers and all that was delivered of it; empty outside a call), so that a call
    /// already announced can be given back as text in the final message.
    fn recover(&mut self, raw: &str, at: usize, reason: &str, call: &str);
    /// A counter of the events emitted so far.
    fn emitted(&self) -> usize;
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    alt: u32,
    pos: usize,
    calls: u32,
    log: u32,
    live: bool,
    /// [`Machine::named`] when the entry was made.
    named: bool,
}

#[derive(Debug, Clone, Copy)]
struct LogItem {
    open: bool,
    kind: Kind,
    pos: usize,
}

/// The machine state; positions are absolute byte offsets in the whole output.
pub(crate) struct Machine {
    prog: &'static Program,
    buf: Vec<u8>,
    base: usize,
    pos: usize,
    pc: u32,
    finished: bool,
    done: bool,
    bt: Vec<Entry>,
    live: usize,
    calls: Vec<u32>,
    log: Vec<LogItem>,
    text_from: usize,
    open_text: u32,
    region: Option<(usize, usize)>,
    recover_pc: u32,
    last_recovery: Option<usize>,
    /// Where the input stops being accounted for by emitted events: the position of the last
    /// delivery that made the sink emit (or of the last recovery), with the sink's counter then.
    emit_at: (usize, usize),
    /// The tool names a call may have (`None`: any).
    known: Option<Arc<HashSet<String>>>,
    /// With `known`: where the current call capture opened, until its name is accepted.
    call_at: Option<usize>,
    /// With `known`: where the current name capture opened.
    name_at: Option<usize>,
    /// Whether the current call capture has closed a name capture holding more than
    /// whitespace. A call that closes without one cannot be reported as a call: it is a
    /// failure, so its text stays content.
    named: bool,
    /// Where the current name capture opened (kept until it closes, to see whether the name
    /// is blank).
    name_from: Option<usize>,
    /// Where the alternative committed since the last close of a top-level capture
    /// (content, reasoning, a call) started: the start of the block a call opens in.
    block_from: Option<usize>,
    /// While a call capture is open: where its block starts (its opening markers included).
    call_from: Option<usize>,
}

enum Step {
    Suspend,
    Done,
}

impl Machine {
    /// A machine at the start of `entry`; unprotected failures resume at `recover`.
    pub(crate) fn new(prog: &'static Program, entry: u32, recover: u32) -> Machine {
        Machine {
            prog,
            buf: Vec::new(),
            base: 0,
            pos: 0,
            pc: entry,
            finished: false,
            done: false,
            bt: Vec::new(),
            live: 0,
            calls: Vec::new(),
            log: Vec::new(),
            text_from: 0,
            open_text: 0,
            region: None,
            recover_pc: recover,
            last_recovery: None,
            emit_at: (0, 0),
            known: None,
            call_at: None,
            name_at: None,
            named: false,
            name_from: None,
            block_from: None,
            call_from: None,
        }
    }

    /// Restricts tool calls to these names: a call with any other name is malformed.
    pub(crate) fn set_known(&mut self, names: Arc<HashSet<String>>) {
        self.known = Some(names);
    }

    /// Appends input and runs until it is exhausted.
    pub(crate) fn feed(&mut self, bytes: &[u8], sink: &mut dyn Sink) {
        if self.finished {
            return;
        }
        self.buf.extend_from_slice(bytes);
        self.run(sink);
    }

    /// Marks the end of input and runs to completion, flushing everything held back.
    pub(crate) fn finish(&mut self, sink: &mut dyn Sink) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.run(sink);
        self.flush(sink);
    }

    fn end(&self) -> usize {
        self.base + self.buf.len()
    }

    fn avail(&self) -> &[u8] {
        &self.buf[self.pos - self.base..]
    }

    fn run(&mut self, sink: &mut dyn Sink) {
        if !self.done {
            if let Step::Done = self.exec(sink) {
                self.done = true;
            }
        }
        self.flush(sink);
        self.release();
    }

    fn exec(&mut self, sink: &mut dyn Sink) -> Step {
        let prog = self.prog;
        loop {
            let Some(&inst) = prog.code.get(self.pc as usize) else {
                return Step::Done;
            };
            match inst {
                Inst::Lit(i) => {
                    let lit = &prog.lits[i as usize];
                    let avail = self.avail();
                    if avail.len() >= lit.len() {
                        if avail.starts_with(lit) {
                            self.pos += lit.len();
                            self.pc += 1;
                        } else if !self.fail(sink) {
                            return Step::Done;
                        }
                    } else if lit.starts_with(avail) && !self.finished {
                        return Step::Suspend;
                    } else if !self.fail(sink) {
                        return Step::Done;
                    }
                }
                Inst::Set(_) | Inst::Any => {
                    let Some(&b) = self.avail().first() else {
                        if !self.finished {
                            return Step::Suspend;
                        }
                        if !self.fail(sink) {
                            return Step::Done;
                        }
                        continue;
                    };
                    let ok = match inst {
                        Inst::Set(i) => prog.sets[i as usize].contains(b),
                        _ => true,
                    };
                    if !ok {
                        if !self.fail(sink) {
                            return Step::Done;
                        }
                        continue;
                    }
                    let n = utf8_len(b);
                    if self.avail().len() < n && !self.finished {
                        return Step::Suspend;
                    }
                    self.pos += n.min(self.avail().len());
                    self.pc += 1;
                }
                Inst::Span(i) => {
                    let set = &prog.sets[i as usize];
                    let n = self.avail().iter().position(|&b| !set.contains(b));
                    match n {
                        Some(n) => {
                            self.pos += n;
                            self.pc += 1;
                        }
                        None => {
                            self.pos = self.end();
                            if !self.finished {
                                return Step::Suspend;
                            }
                            self.pc += 1;
                        }
                    }
                }
                Inst::Until(i) => {
                    let m = &prog.untils[i as usize];
                    let avail = self.avail();
                    match m.find(avail) {
                        Some(at) => {
                            self.pos += at;
                            self.pc += 1;
                        }
                        None if self.finished => {
                            self.pos = self.end();
                            self.pc += 1;
                        }
                        None => {
                            self.pos = self.end() - m.holdback(avail);
                            return Step::Suspend;
                        }
                    }
                }
                Inst::Choice(alt) => {
                    self.bt.push(Entry {
                        alt,
                        pos: self.pos,
                        calls: self.calls.len() as u32,
                        log: self.log.len() as u32,
                        live: true,
                        named: self.named,
                    });
                    self.live += 1;
                    self.pc += 1;
                }
                Inst::Commit(to) => {
                    self.pop_entry();
                    self.pc = to;
                }
                Inst::PartialCommit(to) => {
                    let pos = self.pos;
                    let log = self.log.len() as u32;
                    let named = self.named;
                    match self.bt.last_mut() {
                        Some(e) if e.pos == pos => {
                            // An iteration that consumed nothing ends the loop.
                            let alt = e.alt;
                            self.pop_entry();
                            self.pc = alt;
                        }
                        Some(e) => {
                            e.pos = pos;
                            e.log = log;
                            e.named = named;
                            if !e.live {
                                e.live = true;
                                self.live += 1;
                            }
                            self.pc = to;
                        }
                        None => self.pc = to,
                    }
                }
                Inst::BackCommit(to) => {
                    if let Some(e) = self.pop_entry() {
                        self.pos = e.pos;
                        self.log.truncate(e.log as usize);
                        self.named = e.named;
                    }
                    self.pc = to;
                }
                Inst::Fail => {
                    if !self.fail(sink) {
                        return Step::Done;
                    }
                }
                Inst::FailTwice => {
                    // The predicate consumed nothing: restore its position before failing.
                    if let Some(e) = self.pop_entry() {
                        self.pos = e.pos;
                    }
                    if !self.fail(sink) {
                        return Step::Done;
                    }
                }
                Inst::Cut => {
                    // Commit: no live entry may be backtracked to any more. Live entries form
                    // the top of the stack (an entry below a dead one is revived only once it
                    // is on top again), so scanning stops at the first dead one.
                    let mut start = self.pos;
                    for e in self.bt.iter_mut().rev() {
                        if !e.live {
                            break;
                        }
                        e.live = false;
                        start = e.pos;
                    }
                    self.live = 0;
                    if self.region.is_none() {
                        self.region = Some((start, sink.emitted()));
                    }
                    self.block_from.get_or_insert(start);
                    self.pc += 1;
                }
                Inst::Call(to) => {
                    self.calls.push(self.pc + 1);
                    self.pc = to;
                }
                Inst::Ret => match self.calls.pop() {
                    Some(pc) => self.pc = pc,
                    None => return Step::Done,
                },
                Inst::Open(kind) | Inst::Close(kind) => {
                    if self.known.is_some() {
                        match self.check_name(inst, kind, sink) {
                            Some(true) => continue,
                            Some(false) => return Step::Done,
                            None => {}
                        }
                    }
                    match (inst, kind) {
                        (Inst::Open(_), Kind::Call | Kind::WholeCall) => self.named = false,
                        (Inst::Open(_), Kind::Name) => self.name_from = Some(self.pos),
                        (Inst::Close(_), Kind::Name) => {
                            // An empty or blank name is no name: such a call is not a call.
                            self.named = self.name_from.take().map_or(true, |from| {
                                let from = from.clamp(self.base, self.pos) - self.base;
                                !text(&self.buf[from..self.pos - self.base])
                                    .trim()
                                    .is_empty()
                            });
                        }
                        (Inst::Close(_), Kind::Call | Kind::WholeCall) if !self.named => {
                            // A call without a name: not a call after all.
                            if !self.fail(sink) {
                                return Step::Done;
                            }
                            continue;
                        }
                        _ => {}
                    }
                    match (inst, kind) {
                        (Inst::Open(_), Kind::Call | Kind::WholeCall) => {
                            // Opened before any cut since the last part: the block is the
                            // alternative the call is in (the oldest live entry's start).
                            let alt = self
                                .bt
                                .iter()
                                .rev()
                                .take_while(|e| e.live)
                                .last()
                                .map_or(self.pos, |e| e.pos);
                            self.call_from = Some(self.block_from.unwrap_or(alt));
                        }
                        (Inst::Close(_), _) if kind.top_level() => {
                            self.block_from = None;
                            if !kind.has_text() {
                                self.call_from = None;
                            }
                        }
                        _ => {}
                    }
                    self.log.push(LogItem {
                        open: matches!(inst, Inst::Open(_)),
                        kind,
                        pos: self.pos,
                    });
                    self.pc += 1;
                    if self.live == 0 {
                        self.flush(sink);
                    }
                }
                Inst::End => {
                    if self.pos == self.end() && self.finished {
                        return Step::Done;
                    }
                    if self.pos == self.end() {
                        return Step::Suspend;
                    }
                    // The entry rule stopped before the end: continue at the recovery rule.
                    if !self.fail(sink) {
                        return Step::Done;
                    }
                }
            }
        }
    }

    /// With known tool names: tracks where calls and names open, and on the close of a name
    /// that is not known rejects the call (see the module doc). Returns `None` when the
    /// instruction is to run as usual, else whether the machine has anything left to do.
    fn check_name(&mut self, inst: Inst, kind: Kind, sink: &mut dyn Sink) -> Option<bool> {
        let open = matches!(inst, Inst::Open(_));
        match kind {
            Kind::Call | Kind::WholeCall if open => self.call_at = Some(self.pos),
            Kind::Call | Kind::WholeCall => self.call_at = None,
            Kind::Name if open => self.name_at = Some(self.pos),
            Kind::Name => {
                let at = self.name_at.take()?;
                let known = self.known.as_ref()?;
                let start = at.max(self.base) - self.base;
                let name = text(&self.buf[start..self.pos - self.base])
                    .trim()
                    .to_string();
                if known.contains(&name) {
                    self.call_at = None;
                    return None;
                }
                return Some(self.reject(sink, at, &name));
            }
            _ => {}
        }
        None
    }

    /// Rejects the current call (its name `name`, at `at`, is unknown): a committed failure at
    /// the position where the call opened. Returns false when the machine has nothing left to
    /// do.
    fn reject(&mut self, sink: &mut dyn Sink, at: usize, name: &str) -> bool {
        let call_at = self.call_at.take();
        let back = call_at.unwrap_or(at).max(self.base);
        // The call's captures still in the log are undone; if the call's opening was already
        // delivered, everything logged since is inside it, and the sink's recovery drops the
        // unannounced call.
        match self
            .log
            .iter()
            .rposition(|l| l.open && matches!(l.kind, Kind::Call | Kind::WholeCall))
        {
            Some(i) => self.log.truncate(i),
            None if call_at.is_some() => self.log.clear(),
            None => {}
        }
        for e in &mut self.bt {
            e.live = false;
        }
        self.live = 0;
        self.pos = back;
        self.recover_at(sink, at, &format!("unknown tool `{name}`"))
    }

    fn pop_entry(&mut self) -> Option<Entry> {
        let e = self.bt.pop()?;
        if e.live {
            self.live -= 1;
        }
        Some(e)
    }

    /// Backtracks to the newest live entry; with none, recovers. Returns false when the
    /// machine has nothing left to do.
    fn fail(&mut self, sink: &mut dyn Sink) -> bool {
        while let Some(e) = self.bt.pop() {
            if !e.live {
                continue;
            }
            self.live -= 1;
            self.pos = e.pos;
            if self.call_at.is_some_and(|a| a > e.pos) {
                self.call_at = None;
            }
            if self.name_at.is_some_and(|a| a > e.pos) {
                self.name_at = None;
            }
            if self.name_from.is_some_and(|a| a > e.pos) {
                self.name_from = None;
            }
            self.calls.truncate(e.calls as usize);
            if self.call_from.is_some()
                && self.log[(e.log as usize).min(self.log.len())..]
                    .iter()
                    .any(|l| l.open && !l.kind.has_text())
            {
                self.call_from = None;
            }
            self.log.truncate(e.log as usize);
            self.named = e.named;
            self.pc = e.alt;
            return true;
        }
        self.recover(sink)
    }

    fn recover(&mut self, sink: &mut dyn Sink) -> bool {
        let reason = if self.pos == self.end() {
            "unexpected end of output"
        } else {
            "unexpected text"
        };
        self.recover_at(sink, self.pos, reason)
    }

    /// Recovery (see [`Machine::recover`]) reporting the failure at `at` for `reason`.
    fn recover_at(&mut self, sink: &mut dyn Sink, at: usize, reason: &str) -> bool {
        self.flush_upto(sink, self.pos, true);
        // The raw text is the region since the last cut if nothing was emitted since; else what
        // was consumed after the last emitted event (a separator read before the failure).
        let raw_start = match self.region {
            Some((start, mark)) if mark == sink.emitted() => start,
            _ => self.emit_at.0,
        }
        .clamp(self.base, self.pos);
        let raw = text(&self.buf[raw_start - self.base..self.pos - self.base]).into_owned();
        let call = match self.call_from.take() {
            Some(from) => {
                let from = from.clamp(self.base, raw_start);
                text(&self.buf[from - self.base..raw_start - self.base]).into_owned()
            }
            None => String::new(),
        };
        sink.recover(&raw, at, reason, &call);
        self.block_from = None;
        self.call_at = None;
        self.name_at = None;
        self.named = false;
        self.name_from = None;
        self.bt.clear();
        self.live = 0;
        self.calls.clear();
        self.log.clear();
        self.open_text = 0;
        self.region = None;
        self.text_from = self.pos;
        if self.last_recovery == Some(self.pos) {
            // No progress since the last recovery: take one character as content.
            let Some(&b) = self.avail().first() else {
                return false;
            };
            let n = utf8_len(b).min(self.avail().len());
            let s = text(&self.avail()[..n]).into_owned();
            sink.open(Kind::Content);
            sink.text(&s);
            sink.close(Kind::Content);
            self.pos += n;
            self.text_from = self.pos;
        }
        self.last_recovery = Some(self.pos);
        self.emit_at = (self.pos, sink.emitted());
        self.pc = self.recover_pc;
        true
    }

    /// Hands the captures no live entry can undo to the sink, with their text.
    fn flush(&mut self, sink: &mut dyn Sink) {
        let safe_pos = match self.bt.iter().find(|e| e.live) {
            Some(e) => e.pos,
            None => self.pos,
        };
        self.flush_upto(sink, safe_pos, self.finished);
    }

    fn flush_upto(&mut self, sink: &mut dyn Sink, safe_pos: usize, complete: bool) {
        let safe_log = match self.bt.iter().find(|e| e.live) {
            Some(e) => e.log as usize,
            None => self.log.len(),
        };
        for i in 0..safe_log {
            let item = self.log[i];
            self.deliver(sink, item.pos, true);
            if item.open {
                sink.open(item.kind);
                if item.kind.has_text() {
                    self.open_text += 1;
                }
            } else {
                sink.close(item.kind);
                if item.kind.has_text() {
                    self.open_text = self.open_text.saturating_sub(1);
                }
            }
            self.note_emitted(sink, item.pos);
        }
        if safe_log > 0 {
            self.log.drain(..safe_log);
            for e in &mut self.bt {
                e.log = e.log.saturating_sub(safe_log as u32);
            }
        }
        self.deliver(sink, safe_pos, complete);
        if let Some((_, mark)) = self.region {
            if mark != sink.emitted() {
                self.region = None;
            }
        }
    }

    fn deliver(&mut self, sink: &mut dyn Sink, to: usize, complete: bool) {
        if to <= self.text_from {
            return;
        }
        if self.open_text == 0 {
            self.text_from = to;
            return;
        }
        let bytes = &self.buf[self.text_from - self.base..to - self.base];
        let keep = if complete {
            0
        } else {
            incomplete_utf8_tail(bytes)
        };
        let bytes = &bytes[..bytes.len() - keep];
        if !bytes.is_empty() {
            sink.text(&text(bytes));
        }
        self.text_from = to - keep;
        self.note_emitted(sink, self.text_from);
    }

    /// Records `at` as accounted for if the sink emitted something since the last record.
    fn note_emitted(&mut self, sink: &dyn Sink, at: usize) {
        let n = sink.emitted();
        if n != self.emit_at.1 {
            self.emit_at = (at, n);
        }
    }

    /// Drops input no live entry, pending capture or recovery region or the text
    /// consumed since the last emitted event can still need.
    fn release(&mut self) {
        let mut keep = self.pos.min(self.text_from);
        if let Some(e) = self.bt.iter().find(|e| e.live) {
            keep = keep.min(e.pos);
        }
        if let Some(l) = self.log.first() {
            keep = keep.min(l.pos);
        }
        if let Some((start, _)) = self.region {
            keep = keep.min(start);
        }
        keep = keep.min(self.emit_at.0);
        for at in [self.call_at, self.name_at, self.name_from, self.call_from]
            .into_iter()
            .flatten()
        {
            keep = keep.min(at);
        }
        let drop = keep.saturating_sub(self.base);
        if drop > 0 && (drop * 2 >= self.buf.len() || drop >= 1 << 16) {
            self.buf.drain(..drop);
            self.base += drop;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::peg::build;

    #[derive(Default)]
    struct Rec {
        out: Vec<String>,
        n: usize,
        cur: Option<Kind>,
    }

    impl Sink for Rec {
        fn open(&mut self, kind: Kind) {
            self.cur = Some(kind);
            self.out.push(format!("<{kind:?}>"));
        }
        fn text(&mut self, s: &str) {
            // Like the assembler: only content counts as emitted; names are buffered.
            if self.cur == Some(Kind::Content) {
                self.n += 1;
            }
            self.out.push(s.to_string());
        }
        fn close(&mut self, kind: Kind) {
            self.out.push(format!("</{kind:?}>"));
        }
        fn recover(&mut self, raw: &str, at: usize, _: &str, _: &str) {
            self.n += 1;
            self.out.push(format!("!{at}:{raw}"));
        }
        fn emitted(&self) -> usize {
            self.n
        }
    }

    fn machine(src: &str) -> Machine {
        let prog: &'static Program =
            Box::leak(Box::new(build(src, &[], &["start", "recover"]).unwrap()));
        Machine::new(
            prog,
            prog.entry("start").unwrap(),
            prog.entry("recover").unwrap(),
        )
    }

    const G: &str = "start <- (\"<a>\" ~ @name([a-z]+) \";\" / &. ~ @content(. until(\"<a>\")))*\nrecover <- start";

    #[test]
    fn long_content_is_released_as_it_streams() {
        let mut m = machine(G);
        let mut rec = Rec::default();
        for _ in 0..10_000 {
            m.feed(b"some text <b> more ", &mut rec);
        }
        assert!(m.buf.len() < 64, "retained {} bytes", m.buf.len());
        m.feed(b"<a", &mut rec);
        assert!(
            !rec.out.last().unwrap().ends_with("<a"),
            "a partial marker is held back"
        );
        m.feed(b">xy;z", &mut rec);
        m.finish(&mut rec);
        let all = rec.out.concat();
        assert!(
            all.ends_with("</Content><Name>xy</Name><Content>z</Content>"),
            "{}",
            &all[all.len() - 60..]
        );
    }

    #[test]
    fn a_committed_failure_recovers_with_the_raw_region() {
        let mut m = machine(G);
        let mut rec = Rec::default();
        m.feed(b"hi <a>x1", &mut rec);
        m.finish(&mut rec);
        let all = rec.out.concat();
        assert!(all.contains("<Name>x</Name>!7:<a>x"), "{all}");
        assert!(all.ends_with("<Content>1</Content>"), "{all}");
    }
}
