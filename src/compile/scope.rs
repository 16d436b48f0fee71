//! Compile-time name resolution. jinja2 scopes are static: a name assigned anywhere in a
//! scope (the template body, a loop body, a macro body) is local to that scope, and starts
//! each entry of the scope with the value the enclosing scope gives it. So every variable
//! becomes a slot in its function's frame, and lookups by name vanish from the render.

use crate::syntax::ast::{Stmt, Target};

/// A scope: the names it binds and their slots in its function's frame.
pub(super) struct Scope<'a> {
    /// The function (0 = template body, `k + 1` = macro `k`) whose frame holds the slots.
    pub(super) func: u32,
    /// Names and slots.
    pub(super) names: Vec<(&'a str, u16)>,
}

impl<'a> Scope<'a> {
    /// The slot of `name`, if this scope binds it.
    pub(super) fn lookup(&self, name: &str) -> Option<u16> {
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
/// which are scopes of their own) to `out`.
pub(super) fn stored_names<'a>(body: &[Stmt<'a>], out: &mut Vec<&'a str>) {
    for stmt in body {
        match stmt {
            Stmt::Set { target, .. } | Stmt::SetBlock { target, .. } => target_names(target, out),
            Stmt::Macro(m) => push_unique(out, m.name),
            Stmt::If {
                branches,
                otherwise,
            } => {
                for (_, b) in branches.iter() {
                    stored_names(b, out);
                }
                if let Some(b) = otherwise {
                    stored_names(b, out);
                }
            }
            Stmt::Generation(body) => stored_names(body, out),
            Stmt::For {
                otherwise: Some(b), ..
            } => stored_names(b, out),
            _ => {}
        }
    }
}

fn push_unique<'a>(out: &mut Vec<&'a str>, name: &'a str) {
    if !out.contains(&name) {
        out.push(name);
    }
}
