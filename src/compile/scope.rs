//! Compile-time name resolution. jinja2 scopes are static: a name assigned anywhere in a
//! scope (the template body, a loop body, a macro body) is local to that scope, and starts
//! each entry of the scope with the value the enclosing scope gives it. So every variable
//! becomes a slot in its function's frame, and lookups by name vanish from the render.

use std::collections::{HashMap, HashSet};

use crate::syntax::ast::{Stmt, Target};

/// A scope: the names it binds and their slots in its function's frame.
pub(super) struct Scope<'a> {
    /// The function (0 = template body, `k + 1` = macro `k`) whose frame holds the slots.
    pub(super) func: u32,
    /// Names and slots.
    names: Vec<(&'a str, u16)>,
    /// The slot of each name, for scopes too big to search (so that compiling a template
    /// with many variables or macros stays linear).
    index: Option<HashMap<&'a str, u16>>,
}

/// Scopes with more names than this are indexed.
const SEARCHED: usize = 8;

impl<'a> Scope<'a> {
    /// A scope of `func` binding `names` (later names win).
    pub(super) fn new(func: u32, names: Vec<(&'a str, u16)>) -> Scope<'a> {
        let index = (names.len() > SEARCHED).then(|| names.iter().copied().collect());
        Scope { func, names, index }
    }

    /// The slot of `name`, if this scope binds it.
    pub(super) fn lookup(&self, name: &str) -> Option<u16> {
        if let Some(index) = &self.index {
            return index.get(name).copied();
        }
        self.names
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }
}

/// Adds the names `target` binds to `out`.
pub(super) fn target_names<'a>(target: &Target<'a>, out: &mut Vec<&'a str>) {
    match target {
        Target::Name(n) => push_unique(out, n),
        Target::Tuple(items, _) => items.iter().for_each(|t| target_names(t, out)),
        Target::Attr(..) => {}
    }
}

/// Adds the names assigned directly in `body` (not in nested loops, macros or call blocks,
/// which are scopes of their own) to `out`, each once (names already in `out` included).
pub(super) fn stored_names<'a>(body: &[Stmt<'a>], out: &mut Vec<&'a str>) {
    let mut found = Vec::new();
    collect_stored(body, &mut found);
    let mut seen: HashSet<&'a str> = out.iter().copied().collect();
    for name in found {
        if seen.insert(name) {
            out.push(name);
        }
    }
}

/// Every name assigned directly in `body`, repeats included, iteratively over nested ifs.
fn collect_stored<'a>(body: &[Stmt<'a>], out: &mut Vec<&'a str>) {
    for stmt in body {
        match stmt {
            Stmt::Set { target, .. } | Stmt::SetBlock { target, .. } => {
                all_target_names(target, out)
            }
            Stmt::Macro(m) => out.push(m.name),
            Stmt::If {
                branches,
                otherwise,
            } => {
                for (_, b) in branches.iter() {
                    collect_stored(b, out);
                }
                if let Some(b) = otherwise {
                    collect_stored(b, out);
                }
            }
            Stmt::Generation(body) => collect_stored(body, out),
            Stmt::For {
                otherwise: Some(b), ..
            } => collect_stored(b, out),
            _ => {}
        }
    }
}

/// The names `target` binds, repeats included.
fn all_target_names<'a>(target: &Target<'a>, out: &mut Vec<&'a str>) {
    match target {
        Target::Name(n) => out.push(n),
        Target::Tuple(items, _) => items.iter().for_each(|t| all_target_names(t, out)),
        Target::Attr(..) => {}
    }
}

fn push_unique<'a>(out: &mut Vec<&'a str>, name: &'a str) {
    if !out.contains(&name) {
        out.push(name);
    }
}
