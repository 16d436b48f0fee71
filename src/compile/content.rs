//! Whether a template reads a message's content as a list of parts: the rule inference
//! servers (vLLM's `--chat-template-content-format auto`) apply to a template's syntax tree.
//!
//! The rule, on the tree of the whole template (macros and call blocks included):
//! 1. the names that hold the messages: `messages` and every `{% set x = ... %}` whose value
//!    is one of those names, possibly sliced (`messages[1:]`), filtered (`messages|list`) or
//!    tested;
//! 2. the loop variables of `{% for m in NAME %}` loops over one of those names;
//! 3. the template reads content as parts when a loop iterates over `m.content` or
//!    `m['content']` (again possibly sliced, filtered or tested) for one of those loop
//!    variables, or over a variable named `content` (the macro idiom
//!    `{% macro render(content) %}{% for item in content %}`).
//!
//! Where the rule meets a construct it cannot follow (a message source assigned to a tuple or
//! a namespace attribute, a loop over messages or content that unpacks its items), the
//! answer is "string", as it is for the servers whose rule this is.

use crate::syntax::ast::{Expr, ExprKind, Lit, Stmt, Target};

/// The statements of interest, in document order.
#[derive(Default)]
struct Nodes<'s, 'a> {
    sets: Vec<(&'s Target<'a>, &'s Expr<'a>)>,
    loops: Vec<(&'s Target<'a>, &'s Expr<'a>)>,
}

fn collect<'s, 'a>(body: &'s [Stmt<'a>], out: &mut Nodes<'s, 'a>) {
    for stmt in body {
        match stmt {
            Stmt::Data(_)
            | Stmt::Print(_)
            | Stmt::Break(_)
            | Stmt::Continue(_)
            | Stmt::NoLoader { .. }
            | Stmt::RequiredBlock { .. } => {}
            Stmt::If {
                branches,
                otherwise,
            } => {
                for (_, b) in branches.iter() {
                    collect(b, out);
                }
                if let Some(o) = otherwise {
                    collect(o, out);
                }
            }
            Stmt::For(f) => {
                out.loops.push((&f.target, &f.iter));
                collect(f.body, out);
                if let Some(o) = f.otherwise {
                    collect(o, out);
                }
            }
            Stmt::Set { target, value } => out.sets.push((target, value)),
            Stmt::SetBlock { body, .. } => collect(body, out),
            Stmt::Macro(m) => collect(m.body, out),
            Stmt::CallBlock { caller, .. } => collect(caller.body, out),
            Stmt::FilterBlock { body, .. } | Stmt::Generation(body) => collect(body, out),
            Stmt::With { body, .. } | Stmt::Autoescape { body, .. } => collect(body, out),
        }
    }
}

/// `name`, or `name.key` / `name['key']` when `key` is given, under any number of filters,
/// tests and slices.
fn is_access(expr: &Expr<'_>, name: &str, key: Option<&str>) -> bool {
    match &expr.kind {
        ExprKind::Filter(inner, _, _) => is_access(inner, name, key),
        ExprKind::Test { value, .. } => is_access(value, name, key),
        ExprKind::Slice(inner, _) => is_access(inner, name, key),
        kind => match key {
            None => matches!(kind, ExprKind::Name(n) if *n == name),
            Some(key) => match kind {
                ExprKind::Attr(base, attr) => {
                    *attr == key && matches!(base.kind, ExprKind::Name(n) if n == name)
                }
                ExprKind::Item(base, index) => {
                    matches!(index.kind, ExprKind::Lit(Lit::Str(s)) if s == key)
                        && matches!(base.kind, ExprKind::Name(n) if n == name)
                }
                _ => false,
            },
        },
    }
}

/// The rule gave up on this template (see the module documentation).
struct GaveUp;

/// The loop variables bound by loops over `sources`; every loop matched must bind a name.
fn loop_vars<'a>(
    nodes: &Nodes<'_, 'a>,
    sources: &[&str],
    key: Option<&str>,
) -> Result<Vec<&'a str>, GaveUp> {
    let mut vars = Vec::new();
    for (target, iter) in &nodes.loops {
        if sources.iter().any(|s| is_access(iter, s, key)) {
            match target {
                Target::Name(n) => vars.push(*n),
                _ => return Err(GaveUp),
            }
        }
    }
    Ok(vars)
}

fn detect(body: &[Stmt<'_>]) -> Result<bool, GaveUp> {
    let mut nodes = Nodes::default();
    collect(body, &mut nodes);
    // 1. Names assigned from the messages, breadth first.
    let mut sources: Vec<&str> = vec!["messages"];
    let mut next = 0;
    while next < sources.len() {
        let from = sources[next];
        next += 1;
        for (target, value) in &nodes.sets {
            if is_access(value, from, None) {
                let Target::Name(n) = target else {
                    return Err(GaveUp);
                };
                if !sources.contains(n) {
                    sources.push(n);
                }
            }
        }
    }
    // 2. Loops over them.
    let message_vars = loop_vars(&nodes, &sources, None)?;
    // 3. Loops over a message's content.
    for (target, iter) in &nodes.loops {
        let over_content = message_vars
            .iter()
            .any(|m| is_access(iter, m, Some("content")));
        if over_content {
            return Ok(matches!(target, Target::Name(_)));
        }
    }
    Ok(nodes.loops.iter().any(|(target, iter)| {
        matches!(iter.kind, ExprKind::Name("content")) && matches!(target, Target::Name(_))
    }))
}

/// Whether the template whose (normalized) source is `source` reads a message's content as a
/// list of parts. A source that does not parse reads it as a string.
pub(crate) fn reads_content_parts(source: &str, max_nesting: usize) -> bool {
    let arena = bumpalo::Bump::new();
    match crate::syntax::parser::parse(source, &arena, max_nesting) {
        Ok(ast) => detect(ast).unwrap_or(false),
        Err(_) => false,
    }
}
