//! The shape every printed grammar shares (sequences, alternatives, repetition, grouping);
//! each syntax ([`super::gbnf`], [`super::lark`]) supplies how it writes literals, character
//! classes and rule references.

use super::ir::Expr;

/// What differs between grammar syntaxes.
pub(super) trait Dialect {
    /// One character (given as a string) as a literal.
    fn literal(&self, c: &str) -> String;
    /// A character class.
    fn class(&self, negated: bool, ranges: &[(char, char)]) -> String;
    /// A reference to the rule called `name`.
    fn reference(&self, name: &str) -> String;
}

/// Appends the ranges of a character class to `out` (`a` or `a-b` each), every bound
/// written by the syntax's `esc`.
pub(super) fn push_ranges(
    out: &mut String,
    ranges: &[(char, char)],
    esc: impl Fn(char, &mut String),
) {
    for &(a, b) in ranges {
        esc(a, out);
        if b != a {
            out.push('-');
            esc(b, out);
        }
    }
}

/// `e` in dialect `d`; `top` when it is a whole rule body (no parentheses needed).
pub(super) fn expr(d: &impl Dialect, e: &Expr, top: bool) -> String {
    match e {
        Expr::Empty => "\"\"".into(),
        Expr::Lit(s) => split(d, s, top),
        Expr::Class { negated, ranges } => d.class(*negated, ranges),
        Expr::Ref(n) => d.reference(n),
        Expr::Seq(v) => {
            let s = v
                .iter()
                .map(|x| expr(d, x, false))
                .collect::<Vec<_>>()
                .join(" ");
            if top {
                s
            } else {
                format!("({s})")
            }
        }
        Expr::Alt(v) => {
            let has_empty = v.contains(&Expr::Empty);
            let items: Vec<String> = v
                .iter()
                .filter(|x| **x != Expr::Empty)
                .map(|x| expr(d, x, true))
                .collect();
            let s = items.join(" | ");
            if has_empty {
                format!("({s})?")
            } else if top {
                s
            } else {
                format!("({s})")
            }
        }
        Expr::Opt(x) => format!("{}?", atom(d, x)),
        Expr::Star(x) => format!("{}*", atom(d, x)),
        Expr::Plus(x) => format!("{}+", atom(d, x)),
    }
}

/// `e` as an operand of a postfix operator: grouped unless it already is one unit.
fn atom(d: &impl Dialect, e: &Expr) -> String {
    match e {
        Expr::Seq(_) | Expr::Alt(_) => {
            let s = expr(d, e, false);
            if s.starts_with('(') && s.ends_with(')') {
                s
            } else {
                format!("({s})")
            }
        }
        _ => expr(d, e, false),
    }
}

/// A literal as one literal per character: engines that lex (llguidance) then never have to
/// choose between a marker and free text that starts with the same character.
fn split(d: &impl Dialect, s: &str, top: bool) -> String {
    let parts: Vec<String> = s
        .chars()
        .map(|c| d.literal(c.encode_utf8(&mut [0; 4])))
        .collect();
    if parts.len() == 1 || top {
        parts.join(" ")
    } else {
        format!("({})", parts.join(" "))
    }
}
