//! Lowers a grammar to parsing-machine instructions (LPeg style: choice/commit pairs,
//! call/return, with `Span` for `[set]*` and `Until` for marker scans).

use super::ir::{ByteSet, Expr, Grammar, Kind};
use crate::output::scan::Markers;

/// One instruction of the parsing machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inst {
    /// Match literal `lits[i]`.
    Lit(u32),
    /// Match one character of `sets[i]`.
    Set(u32),
    /// Match zero or more characters of `sets[i]`.
    Span(u32),
    /// Match any one character.
    Any,
    /// Consume up to the earliest marker of `untils[i]` (or the end of input).
    Until(u32),
    /// Push a backtrack entry resuming at the target.
    Choice(u32),
    /// Pop the top entry and jump.
    Commit(u32),
    /// Update the top entry to the current position (loop iteration) and jump.
    PartialCommit(u32),
    /// Pop the top entry, restore its position, and jump (and-predicate success).
    BackCommit(u32),
    /// Fail.
    Fail,
    /// Pop the top entry, then fail (not-predicate success).
    FailTwice,
    /// Mark every live entry dead (commit).
    Cut,
    /// Call a rule.
    Call(u32),
    /// Return from a rule.
    Ret,
    /// Open a capture.
    Open(Kind),
    /// Close a capture.
    Close(Kind),
    /// Stop: the entry rule returned.
    End,
}

/// A compiled grammar.
#[derive(Debug)]
pub(crate) struct Program {
    pub(crate) code: Vec<Inst>,
    pub(crate) lits: Vec<Vec<u8>>,
    pub(crate) sets: Vec<ByteSet>,
    pub(crate) untils: Vec<Markers>,
    /// (rule name, pc of its `Call rule; End` prelude) for each entry rule.
    pub(crate) entries: Vec<(String, u32)>,
}

impl Program {
    pub(crate) fn entry(&self, name: &str) -> Option<u32> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, pc)| pc)
    }
}

/// Compiles `g`, with a prelude for each of the `entries` rules that exist.
pub(crate) fn compile(g: &Grammar, entries: &[&str]) -> Result<Program, String> {
    let mut c = C {
        code: Vec::new(),
        lits: Vec::new(),
        sets: Vec::new(),
        untils: Vec::new(),
        calls: Vec::new(),
    };
    let mut entry_pcs = Vec::new();
    for &name in entries {
        if let Some(r) = g.rule_index(name) {
            entry_pcs.push((name.to_string(), c.code.len() as u32));
            c.calls.push((c.code.len(), r));
            c.code.push(Inst::Call(0));
            c.code.push(Inst::End);
        }
    }
    if entry_pcs.is_empty() {
        return Err("the grammar defines none of the entry rules".into());
    }
    let mut starts = Vec::with_capacity(g.rules.len());
    for rule in &g.rules {
        starts.push(c.code.len() as u32);
        c.expr(rule);
        c.code.push(Inst::Ret);
    }
    for (at, r) in std::mem::take(&mut c.calls) {
        c.code[at] = Inst::Call(starts[r]);
    }
    Ok(Program {
        code: c.code,
        lits: c.lits,
        sets: c.sets,
        untils: c.untils,
        entries: entry_pcs,
    })
}

struct C {
    code: Vec<Inst>,
    lits: Vec<Vec<u8>>,
    sets: Vec<ByteSet>,
    untils: Vec<Markers>,
    calls: Vec<(usize, usize)>,
}

impl C {
    fn here(&self) -> u32 {
        self.code.len() as u32
    }

    fn patch(&mut self, at: usize, target: u32) {
        self.code[at] = match self.code[at] {
            Inst::Choice(_) => Inst::Choice(target),
            Inst::Commit(_) => Inst::Commit(target),
            Inst::BackCommit(_) => Inst::BackCommit(target),
            other => other,
        };
    }

    fn set_id(&mut self, s: &ByteSet) -> u32 {
        if let Some(i) = self.sets.iter().position(|x| x == s) {
            return i as u32;
        }
        self.sets.push(s.clone());
        (self.sets.len() - 1) as u32
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Lit(l) if l.is_empty() => {}
            Expr::Lit(l) => {
                let id = match self.lits.iter().position(|x| x == l) {
                    Some(i) => i,
                    None => {
                        self.lits.push(l.clone());
                        self.lits.len() - 1
                    }
                };
                self.code.push(Inst::Lit(id as u32));
            }
            Expr::Set(s) => {
                let id = self.set_id(s);
                self.code.push(Inst::Set(id));
            }
            Expr::Any => self.code.push(Inst::Any),
            Expr::Until(ms) => {
                self.untils.push(Markers::new(ms.clone()));
                self.code.push(Inst::Until((self.untils.len() - 1) as u32));
            }
            Expr::Seq(items) => items.iter().for_each(|i| self.expr(i)),
            Expr::Choice(alts) => {
                let mut ends = Vec::new();
                for (i, alt) in alts.iter().enumerate() {
                    if i + 1 == alts.len() {
                        self.expr(alt);
                    } else {
                        let ch = self.code.len();
                        self.code.push(Inst::Choice(0));
                        self.expr(alt);
                        ends.push(self.code.len());
                        self.code.push(Inst::Commit(0));
                        let next = self.here();
                        self.patch(ch, next);
                    }
                }
                let end = self.here();
                for at in ends {
                    self.patch(at, end);
                }
            }
            Expr::Star(inner) => {
                if let Expr::Set(s) = &**inner {
                    let id = self.set_id(s);
                    self.code.push(Inst::Span(id));
                    return;
                }
                let top = self.here();
                let ch = self.code.len();
                self.code.push(Inst::Choice(0));
                self.expr(inner);
                // PartialCommit jumps back to the body, keeping the (updated) entry.
                self.code.push(Inst::PartialCommit(top + 1));
                let end = self.here();
                self.patch(ch, end);
            }
            Expr::Plus(inner) => {
                self.expr(inner);
                self.expr(&Expr::Star(inner.clone()));
            }
            Expr::Opt(inner) => {
                let ch = self.code.len();
                self.code.push(Inst::Choice(0));
                self.expr(inner);
                let cm = self.code.len();
                self.code.push(Inst::Commit(0));
                let end = self.here();
                self.patch(ch, end);
                self.patch(cm, end);
            }
            Expr::And(inner) => {
                let ch = self.code.len();
                self.code.push(Inst::Choice(0));
                self.expr(inner);
                let bc = self.code.len();
                self.code.push(Inst::BackCommit(0));
                let fail = self.here();
                self.code.push(Inst::Fail);
                let end = self.here();
                self.patch(ch, fail);
                self.patch(bc, end);
            }
            Expr::Not(inner) => {
                let ch = self.code.len();
                self.code.push(Inst::Choice(0));
                self.expr(inner);
                self.code.push(Inst::FailTwice);
                let end = self.here();
                self.patch(ch, end);
            }
            Expr::Cut => self.code.push(Inst::Cut),
            Expr::Cap(k, inner) => {
                self.code.push(Inst::Open(*k));
                self.expr(inner);
                self.code.push(Inst::Close(*k));
            }
            Expr::Rule(r) => {
                self.calls.push((self.code.len(), *r));
                self.code.push(Inst::Call(0));
            }
        }
    }
}
