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
    // Root slots that hold `messages` or a slice of it (`true`: possibly sliced).
    let mut aliases: Vec<(u16, bool)> = Vec::new();
    let mut loops: Vec<usize>;
    loop {
        loops = Vec::new();
        let mut grew = false;
        for pc in 0..code.len() {
            let root = !in_macro[pc];
            let sliced = match code[pc] {
                Instr::LoadGlobal(g) if g == msgs => false,
                Instr::Load(s) if root => match alias(&aliases, s) {
                    Some(sliced) => sliced,
                    None => continue,
                },
                Instr::LoadRoot(s) | Instr::LoadUp(s) if !root && alias(&aliases, s).is_some() => {
                    return Err((Reason::ReadsMessages("the messages inside a macro"), at(pc)))
                }
                Instr::LoadKey { slot, .. } | Instr::LoopAttr(slot, _)
                    if root && alias(&aliases, slot).is_some() =>
                {
                    return Err((
                        Reason::ReadsMessages("an attribute of the messages"),
                        at(pc),
                    ))
                }
                _ => continue,
            };
            // An optional `[k:]` with a constant k >= 0.
            let (sliced, next) = match (code.get(pc + 1), code.get(pc + 2)) {
                (Some(Instr::Const(c)), Some(Instr::Slice(1))) if nonneg_int(prog, *c) => {
                    (true, pc + 3)
                }
                _ => (sliced, pc + 1),
            };
            match code.get(next) {
                Some(Instr::IterInit(slot)) if root && *slot != NONE16 => loops.push(next),
                Some(Instr::IterInit(_)) => return Err((Reason::FilteredLoop, at(next))),
                Some(Instr::Store(t)) if root => match aliases.iter_mut().find(|a| a.0 == *t) {
                    Some(a) if a.1 || !sliced => {}
                    Some(a) => {
                        a.1 = true;
                        grew = true;
                    }
                    None => {
                        aliases.push((*t, sliced));
                        grew = true;
                    }
                },
                Some(Instr::Const(c)) if !sliced && is_int(prog, *c, 0) => {
                    if !matches!(code.get(next + 1), Some(Instr::Item)) {
                        return Err((Reason::ReadsMessages(describe(code, next)), at(next)));
                    }
                }
                _ => return Err((Reason::ReadsMessages(describe(code, next)), at(next))),
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
            Instr::LoopAttr(s, field) if root && s == loop_slot => {
                if !matches!(
                    field,
                    LoopField::Index | LoopField::Index0 | LoopField::First
                ) {
                    let name = format!("{field:?}").to_lowercase();
                    return Err((Reason::LoopLookahead(name), at(pc)));
                }
            }
            Instr::LoadKey { slot, key, .. } if root && slot == loop_slot => {
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
        dead_slots: aliases.iter().filter(|a| a.1).map(|a| a.0).collect(),
    })
}

fn alias(aliases: &[(u16, bool)], slot: u16) -> Option<bool> {
    aliases.iter().find(|a| a.0 == slot).map(|a| a.1)
}

fn is_int(prog: &Program, c: u32, want: i64) -> bool {
    matches!(prog.consts.get(c as usize), Some(Const::Int(i)) if *i == want)
}

fn nonneg_int(prog: &Program, c: u32) -> bool {
    matches!(prog.consts.get(c as usize), Some(Const::Int(i)) if *i >= 0)
}

/// What a read of the messages followed by `code[pc]` is, in words.
fn describe(code: &[Instr], pc: usize) -> &'static str {
    match (code.get(pc), code.get(pc + 1)) {
        (Some(Instr::Filter { .. }), _) => "a filter of the messages (length, last, map, ...)",
        (Some(Instr::Const(_)), Some(Instr::Item)) => "a message at an index other than 0",
        (Some(Instr::Neg), _) | (Some(Instr::Const(_)), Some(Instr::Neg)) => {
            "a message counted from the end"
        }
        (Some(Instr::Slice(_)), _) | (Some(Instr::Const(_)), Some(Instr::Slice(_))) => {
            "a slice of the messages with a stop or a step (reversal)"
        }
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
