//! Whether a piece of a template mentions a name anywhere (nested loops, macros and call
//! blocks included): a conservative question the code generator asks before choosing a
//! cheaper or lazier form that is only right when a name is never read; and whether it
//! assigns a name anywhere, which jinja2 refuses for some names.

use crate::syntax::ast::{Args, Expr, ExprKind, MacroDef, Stmt, Target};

/// Whether a `set`, a block `set` or a `for` target anywhere in `body` (nested loops,
/// macros and call blocks included) assigns `name`: what jinja2 calls a store of it.
pub(super) fn stores(body: &[Stmt<'_>], name: &str) -> bool {
    body.iter().any(|s| match s {
        Stmt::Set { target, .. } => target_has(target, name),
        Stmt::SetBlock { target, body, .. } => target_has(target, name) || stores(body, name),
        Stmt::For(f) => {
            target_has(&f.target, name)
                || stores(f.body, name)
                || f.otherwise.is_some_and(|b| stores(b, name))
        }
        Stmt::If {
            branches,
            otherwise,
        } => {
            branches.iter().any(|(_, b)| stores(b, name))
                || otherwise.is_some_and(|b| stores(b, name))
        }
        Stmt::Macro(m) => stores(m.body, name),
        Stmt::CallBlock { caller, .. } => stores(caller.body, name),
        Stmt::FilterBlock { body, .. }
        | Stmt::Generation(body)
        | Stmt::Autoescape { body, .. }
        | Stmt::With { body, .. } => stores(body, name),
        Stmt::Data(_)
        | Stmt::Print(_)
        | Stmt::Break(_)
        | Stmt::Continue(_)
        | Stmt::NoLoader { .. }
        | Stmt::RequiredBlock { .. } => false,
    })
}

/// Whether `target` binds `name` (a namespace attribute binds none).
pub(super) fn target_has(target: &Target<'_>, name: &str) -> bool {
    match target {
        Target::Name(n) => *n == name,
        Target::Tuple(items, _) => items.iter().any(|t| target_has(t, name)),
        Target::Attr(..) => false,
    }
}

/// Whether any statement of `body` mentions `name`.
pub(super) fn stmts(body: &[Stmt<'_>], name: &str) -> bool {
    body.iter().any(|s| stmt(s, name))
}

fn stmt(s: &Stmt<'_>, name: &str) -> bool {
    match s {
        Stmt::Data(_) | Stmt::Break(_) | Stmt::Continue(_) | Stmt::RequiredBlock { .. } => false,
        Stmt::Print(e) => expr(e, name),
        Stmt::If {
            branches,
            otherwise,
        } => {
            branches
                .iter()
                .any(|(c, b)| expr(c, name) || stmts(b, name))
                || otherwise.is_some_and(|b| stmts(b, name))
        }
        Stmt::For(f) => {
            expr(&f.iter, name)
                || f.filter.as_ref().is_some_and(|e| expr(e, name))
                || stmts(f.body, name)
                || f.otherwise.is_some_and(|b| stmts(b, name))
        }
        Stmt::Set { value, .. } => expr(value, name),
        Stmt::SetBlock { filter, body, .. } => {
            filter.is_some_and(|e| expr(e, name)) || stmts(body, name)
        }
        Stmt::Macro(m) => macro_def(m, name),
        Stmt::CallBlock { caller, call } => macro_def(caller, name) || expr(call, name),
        Stmt::FilterBlock { filter, body } => expr(filter, name) || stmts(body, name),
        Stmt::Generation(body) => stmts(body, name),
        Stmt::Autoescape { on, body } => expr(on, name) || stmts(body, name),
        Stmt::NoLoader { template, .. } => expr(template, name),
        Stmt::With { assigns, body } => {
            assigns.iter().any(|(_, e)| expr(e, name)) || stmts(body, name)
        }
    }
}

fn macro_def(m: &MacroDef<'_>, name: &str) -> bool {
    m.params
        .iter()
        .any(|(_, d)| d.as_ref().is_some_and(|e| expr(e, name)))
        || stmts(m.body, name)
}

fn args(a: &Args<'_>, name: &str) -> bool {
    a.pos.iter().any(|e| expr(e, name))
        || a.kw.iter().any(|(_, e)| expr(e, name))
        || a.star.is_some_and(|e| expr(e, name))
        || a.dstar.is_some_and(|e| expr(e, name))
}

/// Whether `e` mentions `name`.
pub(super) fn expr(e: &Expr<'_>, name: &str) -> bool {
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::Hole => false,
        ExprKind::Name(n) => *n == name,
        ExprKind::Attr(x, _) | ExprKind::Unary(_, x) => expr(x, name),
        ExprKind::Item(a, b)
        | ExprKind::Bin(_, a, b)
        | ExprKind::And(a, b)
        | ExprKind::Or(a, b) => expr(a, name) || expr(b, name),
        ExprKind::Slice(x, parts) => expr(x, name) || parts.iter().flatten().any(|p| expr(p, name)),
        ExprKind::Compare(x, rest) => expr(x, name) || rest.iter().any(|(_, r)| expr(r, name)),
        ExprKind::Cond {
            cond,
            then,
            otherwise,
        } => expr(cond, name) || expr(then, name) || otherwise.is_some_and(|o| expr(o, name)),
        ExprKind::List(items) | ExprKind::Tuple(items) => items.iter().any(|i| expr(i, name)),
        ExprKind::Dict(pairs) => pairs.iter().any(|(k, v)| expr(k, name) || expr(v, name)),
        ExprKind::Call(f, a) => expr(f, name) || args(a, name),
        ExprKind::Filter(x, _, a) => expr(x, name) || args(a, name),
        ExprKind::Test { value, args: a, .. } => expr(value, name) || args(a, name),
    }
}

#[cfg(test)]
mod tests {
    use super::stmts;

    fn mentions(src: &str, name: &str) -> bool {
        let arena = bumpalo::Bump::new();
        let body = crate::syntax::parser::parse(src, &arena, 64).expect("parses");
        stmts(body, name)
    }

    #[test]
    fn finds_a_name_wherever_it_is_read() {
        for src in [
            "{{ loop.index }}",
            "{% if x %}{% else %}{{ f(a=loop) }}{% endif %}",
            "{% for y in z %}{{ [1, {2: loop}] }}{% endfor %}",
            "{% macro m(a=loop) %}{% endmacro %}",
            "{% call(x) m() %}{{ loop }}{% endcall %}",
            "{% set a %}{{ x | default(loop) }}{% endset %}",
            "{{ a[1:loop] }}",
            "{{ 1 if loop is defined }}",
        ] {
            assert!(mentions(src, "loop"), "{src}");
        }
        for src in [
            "{{ x.loop }}",
            "{{ 'loop' }}",
            "{% set loop2 = 1 %}{{ loop2 }}",
            "{{ x | loop_filter }}",
        ] {
            assert!(!mentions(src, "loop"), "{src}");
        }
    }
}
