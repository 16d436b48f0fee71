//! The static half of the stability decision: facts of the compiled program that make a
//! render of `messages[..n]` pass through the same machine state, at the start of the
//! message loop's iteration `n`, as a render of any longer conversation.
//!
//! The VM is deterministic, so that holds when nothing the template computes before that
//! instant can see a message at index `n` or later. The program is read instruction by
//! instruction and accepted only when every read of `messages` is one of:
//!
//! - the iterable of exactly one `for` loop (the *message loop*), at the top level of the
//!   template, directly or through variables that hold nothing but `messages` or
//!   `messages[k:]` (`loop_messages`), read nowhere else;
//! - `messages[0]`, which no later message changes.
//!
//! and the message loop's `loop` object is read only for `index`, `index0` and `first`
//! (never `last`, `length`, `revindex`, `nextitem`, `cycle`, or as a whole). Everything else
//! (`messages|length`, `messages[-1]`, `messages[::-1]`, a loop that scans ahead for the
//! last user turn, `loop.last`, a filtered loop) is refused with the place it occurs. The
//! rules are conservative: a refused template renders in full, which is only slower.

use crate::compile::{Const, Instr, LoopField, Program, NONE16};
use crate::value::ops::{BinOp, CmpOp};

/// Why a template's renders are not continued incrementally.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// No top-level `for` loop iterates `messages`.
    NoMessageLoop,
    /// More than one loop iterates `messages` (for example a scan for the last user turn
    /// before the loop that renders them).
    SeveralMessageLoops,
    /// The message loop filters its items (`for m in messages if ...`): the filter reads
    /// every message before the first is rendered.
    FilteredLoop,
    /// The message loop runs inside another loop or a macro.
    NestedLoop,
    /// `messages` is read other than by the loop or `messages[0]`: what it is.
    ReadsMessages(&'static str),
    /// The message loop's `loop` object is read for a field that depends on later items
    /// (`last`, `length`, `revindex`, `nextitem`, ...): which.
    LoopLookahead(String),
    /// Probe conversations rendered incrementally differ from their full render (a rule
    /// this analysis does not know; never seen on the corpus): which probe and turn.
    ProbeMismatch {
        /// The probe conversation's name.
        probe: &'static str,
        /// Messages rendered when it differed.
        messages: usize,
    },
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::NoMessageLoop => write!(f, "no top-level loop over messages"),
            Reason::SeveralMessageLoops => write!(f, "several loops read the messages"),
            Reason::FilteredLoop => write!(f, "the message loop is filtered"),
            Reason::NestedLoop => write!(f, "the message loop is inside a loop or macro"),
            Reason::ReadsMessages(what) => write!(f, "reads {what}"),
            Reason::LoopLookahead(field) => write!(f, "reads loop.{field} of the message loop"),
            Reason::ProbeMismatch { probe, messages } => write!(
                f,
                "probe '{probe}' differs from the full render at {messages} messages"
            ),
        }
    }
}

/// What the session needs to continue renders.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The message loop's `Iter` instruction.
    pub(crate) iter_pc: usize,
    /// Root slots holding sliced copies of `messages` (never read once the loop started).
    pub(crate) dead_slots: Vec<u16>,
    /// Checkpoints need at least this many messages (reads of `messages[k]` that must exist).
    pub(crate) min_messages: usize,
}

/// A refusal and the source offset it is about.
pub(crate) type Refusal = (Reason, usize);

/// Decides whether `prog` can be continued; on refusal, says why and where.
pub(crate) fn analyze(prog: &Program) -> Result<Plan, Refusal> {
    let code = &prog.code[..];
    let at = |pc: usize| prog.offset_of(pc);
    let Some(msgs) = prog.globals.iter().position(|g| &**g == "messages") else {
        return Err((Reason::NoMessageLoop, 0));
    };
    let msgs = msgs as u16;
    let in_macro = macro_map(prog);
    let length = crate::builtins::filter("length").map(|f| f as usize);
    let loop_ranges = root_loops(code, &in_macro);
    // Stores of `messages` or a slice `messages[k:]` into root slots: (slot, pc, least k,
    // most k). A read sees the stores before it, and those of a loop it shares with them.
    let mut aliases: Vec<(u16, usize, usize, usize)> = Vec::new();
    let sees = |store: usize, read: usize| {
        store < read
            || loop_ranges
                .iter()
                .any(|(a, b)| (*a..=*b).contains(&store) && (*a..=*b).contains(&read))
    };
    let mut loops: Vec<usize>;
    // `messages[loop.index0 - 1]` reads guarded by `loop.first` (pc, loop slot).
    let mut lookbacks: Vec<(usize, u16)>;
    // Reads that need `messages[k]` to exist (a truth test, `[0]`): the largest such k.
    let mut need: Option<usize>;
    loop {
        loops = Vec::new();
        lookbacks = Vec::new();
        need = None;
        let mut grew = false;
        for pc in 0..code.len() {
            let root = !in_macro[pc];
            let (lo, hi) = match code[pc] {
                Instr::LoadGlobal(g) if g == msgs => (0, 0),
                Instr::Load(s) if root => match alias(&aliases, s, pc, &sees) {
                    Some(range) => range,
                    None => continue,
                },
                Instr::LoadRoot(s) | Instr::LoadUp(s)
                    if !root && aliases.iter().any(|a| a.0 == s) =>
                {
                    return Err((Reason::ReadsMessages("the messages inside a macro"), at(pc)))
                }
                Instr::LoadKey { slot, .. }
                | Instr::LoadKeyInSum { slot, .. }
                | Instr::LoopAttr(slot, _)
                    if root && alias(&aliases, slot, pc, &sees).is_some() =>
                {
                    return Err((
                        Reason::ReadsMessages("an attribute of the messages"),
                        at(pc),
                    ))
                }
                _ => continue,
            };
            // An optional `[k:]` with a constant k >= 0.
            let (lo, hi, next) = match (code.get(pc + 1), code.get(pc + 2)) {
                (Some(Instr::Const(c)), Some(Instr::Slice(1))) => match const_int(prog, *c) {
                    Some(k) if k >= 0 => {
                        let k = k as usize;
                        (
                            lo.saturating_add(k),
                            hi.saturating_add(k).min(UNBOUNDED),
                            pc + 3,
                        )
                    }
                    _ => return Err((Reason::ReadsMessages(describe(prog, code, pc + 1)), at(pc))),
                },
                _ => (lo, hi, pc + 1),
            };
            // The end of an inline if's branch jumps to the consumer.
            let next = match code.get(next) {
                Some(Instr::Jump(t)) if (*t as usize) > next => *t as usize,
                _ => next,
            };
            let mut exists = false;
            match code.get(next) {
                Some(Instr::IterInit(slot)) if root && *slot != NONE16 => loops.push(next),
                Some(Instr::IterInit(_) | Instr::CollectStart) => {
                    return Err((Reason::FilteredLoop, at(next)))
                }
                Some(Instr::Store(t)) if root => {
                    match aliases.iter_mut().find(|a| a.0 == *t && a.1 == next) {
                        Some(a) if a.2 <= lo && a.3 >= hi => {}
                        Some(a) => {
                            a.2 = a.2.min(lo);
                            a.3 = a.3.max(hi);
                            grew = true;
                        }
                        None => {
                            aliases.push((*t, next, lo, hi));
                            grew = true;
                        }
                    }
                }
                // Truth tests and `[0]`: their value is fixed once the conversation is long
                // enough for `messages[hi]` to exist (checkpoints are taken only then), and
                // the messages themselves go no further.
                Some(Instr::Not | Instr::JumpIfFalse(_) | Instr::JumpIfFalseOrPop(_)) => {
                    exists = true
                }
                Some(Instr::Const(c))
                    if is_int(prog, *c, 0) && matches!(code.get(next + 1), Some(Instr::Item)) =>
                {
                    exists = true
                }
                // `messages|length > 0`, `messages|length != 0`: a truth test.
                Some(Instr::Filter { f, argc: 0, kw })
                    if *kw == NONE16
                        && length.is_some()
                        && prog.filters.get(usize::from(*f)).map(|f| *f as usize) == length
                        && matches!(code.get(next + 1), Some(Instr::Const(c)) if is_int(prog, *c, 0))
                        && matches!(
                            code.get(next + 2),
                            Some(Instr::Ne | Instr::Cmp(CmpOp::Gt))
                        ) =>
                {
                    exists = true
                }
                Some(Instr::LoopAttr(slot, LoopField::Index0))
                    if hi == 0 && lookback(prog, code, pc, next, *slot) =>
                {
                    lookbacks.push((pc, *slot));
                }
                _ => return Err((Reason::ReadsMessages(describe(prog, code, next)), at(next))),
            }
            if exists {
                if hi >= UNBOUNDED {
                    return Err((
                        Reason::ReadsMessages("a message at an unbounded index"),
                        at(next),
                    ));
                }
                need = Some(need.map_or(hi, |n| n.max(hi)));
            }
        }
        if !grew {
            break;
        }
    }
    let init = match loops.as_slice() {
        [] => return Err((Reason::NoMessageLoop, 0)),
        [one] => *one,
        [_, second, ..] => return Err((Reason::SeveralMessageLoops, at(*second))),
    };
    let iter_pc = init + 1;
    let (Some(Instr::IterInit(loop_slot)), Some(Instr::Iter(_))) =
        (code.get(init), code.get(iter_pc))
    else {
        return Err((Reason::NoMessageLoop, at(init)));
    };
    let loop_slot = *loop_slot;
    if let Some((pc, _)) = lookbacks.iter().find(|(_, slot)| *slot != loop_slot) {
        return Err((
            Reason::ReadsMessages("a message by another loop's index"),
            at(*pc),
        ));
    }
    // Not inside another loop of the template body (macro bodies were excluded above).
    for (pc, instr) in code.iter().enumerate() {
        if let Instr::Iter(e) = instr {
            if pc != iter_pc && !in_macro[pc] && pc < init && init < *e as usize {
                return Err((Reason::NestedLoop, at(init)));
            }
        }
    }
    // The loop object: index, index0 and first only.
    for (pc, instr) in code.iter().enumerate() {
        let root = !in_macro[pc];
        match *instr {
            Instr::LoopAttr(s, field)
                if root
                    && s == loop_slot
                    && !matches!(
                        field,
                        LoopField::Index | LoopField::Index0 | LoopField::First
                    ) =>
            {
                let name = format!("{field:?}").to_lowercase();
                return Err((Reason::LoopLookahead(name), at(pc)));
            }
            Instr::LoadKey { slot, key, .. } | Instr::LoadKeyInSum { slot, key, .. }
                if root && slot == loop_slot =>
            {
                return Err((
                    Reason::LoopLookahead(prog.strs[key as usize].to_string()),
                    at(pc),
                ));
            }
            Instr::Load(s) if root && s == loop_slot => {
                let what = match code.get(pc + 1) {
                    Some(Instr::Attr(i) | Instr::AttrKey(i)) => prog.strs[*i as usize].to_string(),
                    Some(Instr::CallMethod { name, .. }) => prog.strs[*name as usize].to_string(),
                    _ => "<the object itself>".to_string(),
                };
                return Err((Reason::LoopLookahead(what), at(pc)));
            }
            Instr::LoadUp(s) | Instr::LoadRoot(s) if !root && s == loop_slot => {
                return Err((Reason::LoopLookahead("<inside a macro>".into()), at(pc)));
            }
            _ => {}
        }
    }
    Ok(Plan {
        iter_pc,
        // Slots that may hold a slice and are not read after the loop starts: their value
        // (as long as the conversation) need not be saved.
        dead_slots: aliases
            .iter()
            .filter(|a| a.3 > 0)
            .filter(|a| {
                !code.iter().enumerate().any(|(pc, i)| {
                    pc > init && !in_macro[pc] && matches!(i, Instr::Load(s) if *s == a.0)
                })
            })
            .map(|a| a.0)
            .collect(),
        min_messages: need.map_or(0, |k| k + 1),
    })
}

/// Whether the read of the messages at `pc` is `messages[loop.index0 - 1]` (from `next`
/// on) right behind a guard that skips it on the loop's first iteration:
/// `loop.first or ...`, `loop.index0 == 0 or ...`, `loop.index0 > 0 and ...`,
/// `not loop.first and ...`, with no jump into the read.
fn lookback(prog: &Program, code: &[Instr], pc: usize, next: usize, slot: u16) -> bool {
    let read = matches!(
        (code.get(next + 1), code.get(next + 2), code.get(next + 3)),
        (Some(Instr::Const(c)), Some(Instr::Bin(BinOp::Sub)), Some(Instr::Item))
            if is_int(prog, *c, 1)
    );
    if !read || pc < 2 {
        return false;
    }
    let end = next + 3;
    let attr = |i: usize, f: LoopField| matches!(code.get(i), Some(Instr::LoopAttr(s, g)) if *s == slot && *g == f);
    let zero = |i: usize| matches!(code.get(i), Some(Instr::Const(c)) if is_int(prog, *c, 0));
    let guarded = match code[pc - 1] {
        Instr::JumpIfTrueOrPop(t) if t as usize > end => {
            attr(pc - 2, LoopField::First)
                || (pc >= 4
                    && attr(pc - 4, LoopField::Index0)
                    && zero(pc - 3)
                    && matches!(code[pc - 2], Instr::Eq))
        }
        Instr::JumpIfFalseOrPop(t) if t as usize > end => {
            (pc >= 3 && attr(pc - 3, LoopField::First) && matches!(code[pc - 2], Instr::Not))
                || (pc >= 4
                    && attr(pc - 4, LoopField::Index0)
                    && zero(pc - 3)
                    && matches!(code[pc - 2], Instr::Cmp(CmpOp::Gt) | Instr::Ne))
        }
        _ => false,
    };
    guarded
        && !code
            .iter()
            .any(|i| jump_target(i).is_some_and(|t| t >= pc && t <= end))
}

/// Where an instruction may jump.
fn jump_target(i: &Instr) -> Option<usize> {
    match *i {
        Instr::Jump(t)
        | Instr::JumpIfFalse(t)
        | Instr::JumpIfFalseOrPop(t)
        | Instr::JumpIfTrueOrPop(t)
        | Instr::Iter(t)
        | Instr::LoopEnd(t)
        | Instr::JumpIfBound(_, t) => Some(t as usize),
        _ => None,
    }
}

/// Slice starts beyond this are not tracked.
const UNBOUNDED: usize = 1 << 16;

/// The slice starts slot `slot` may hold when read at `pc`, if any store of the messages
/// reaches that read.
fn alias(
    aliases: &[(u16, usize, usize, usize)],
    slot: u16,
    pc: usize,
    sees: &dyn Fn(usize, usize) -> bool,
) -> Option<(usize, usize)> {
    aliases
        .iter()
        .filter(|a| a.0 == slot && sees(a.1, pc))
        .map(|a| (a.2, a.3))
        .reduce(|x, y| (x.0.min(y.0), x.1.max(y.1)))
}

/// The `[Iter, exit]` instruction ranges of the template body's loops.
fn root_loops(code: &[Instr], in_macro: &[bool]) -> Vec<(usize, usize)> {
    code.iter()
        .enumerate()
        .filter_map(|(pc, i)| match i {
            Instr::Iter(exit) if !in_macro[pc] => Some((pc, *exit as usize)),
            _ => None,
        })
        .collect()
}

fn const_int(prog: &Program, c: u32) -> Option<i64> {
    match prog.consts.get(c as usize) {
        Some(Const::Int(i)) => Some(*i),
        _ => None,
    }
}

fn is_int(prog: &Program, c: u32, want: i64) -> bool {
    matches!(prog.consts.get(c as usize), Some(Const::Int(i)) if *i == want)
}

/// What a read of the messages followed by `code[pc]` is, in words.
fn describe(prog: &Program, code: &[Instr], pc: usize) -> &'static str {
    let window = code.get(pc..(pc + 4).min(code.len())).unwrap_or(&[]);
    let end = window
        .iter()
        .position(|i| matches!(i, Instr::Item | Instr::Slice(_)))
        .map_or(window, |e| &window[..=e]);
    let negative = end.iter().any(|i| match i {
        Instr::Neg => true,
        Instr::Const(c) => const_int(prog, *c).is_some_and(|k| k < 0),
        _ => false,
    });
    match (window.first(), end.last()) {
        (Some(Instr::Filter { .. }), _) => "a filter of the messages (length, last, map, ...)",
        (_, Some(Instr::Slice(_))) => "a slice of the messages with a stop or a step (reversal)",
        (_, Some(Instr::Item)) if end.iter().any(|i| matches!(i, Instr::LoopAttr(..))) => {
            "a message by the loop's index (a look-ahead, or a look-back without a loop.first guard)"
        }
        (_, Some(Instr::Item)) if negative => "a message counted from the end",
        (_, Some(Instr::Item)) => "a message at an index other than 0",
        (Some(Instr::Call { .. } | Instr::CallMethod { .. } | Instr::CallSplat { .. }), _) => {
            "the messages passed to a call"
        }
        (Some(Instr::Attr(_) | Instr::AttrKey(_) | Instr::ItemStr(_)), _) => {
            "an attribute of the messages"
        }
        _ => "the messages as a whole (an index, a comparison, a copy)",
    }
}

/// For every instruction, whether it belongs to a macro (or call block) body.
fn macro_map(prog: &Program) -> Vec<bool> {
    let mut in_macro = vec![false; prog.code.len()];
    for m in &prog.macros {
        let entry = m.entry as usize;
        // A macro body is skipped over by the `Jump` just before it.
        let end = match entry.checked_sub(1).and_then(|p| prog.code.get(p)) {
            Some(Instr::Jump(after)) => *after as usize,
            _ => prog.code.len(),
        };
        for flag in in_macro.iter_mut().take(end).skip(entry) {
            *flag = true;
        }
    }
    in_macro
}
