//! Printing rules as GBNF, the grammar format of llama.cpp (`root ::= …`).

use super::ir::{Expr, Rules};
use std::fmt::Write;

/// The rules as a GBNF grammar; the first rule is `root`.
pub(crate) fn print(rules: &Rules) -> String {
    let mut out = String::new();
    for (name, e) in &rules.rules {
        let _ = writeln!(out, "{name} ::= {}", expr(e, true));
    }
    out
}

fn expr(e: &Expr, top: bool) -> String {
    match e {
        Expr::Empty => "\"\"".into(),
        Expr::Lit(s) => split(s, top, literal),
        Expr::Class { negated, ranges } => class(*negated, ranges),
        Expr::Ref(n) => n.clone(),
        Expr::Seq(v) => {
            let s = v
                .iter()
                .map(|x| expr(x, false))
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
                .map(|x| expr(x, true))
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
        Expr::Opt(x) => format!("{}?", atom(x)),
        Expr::Star(x) => format!("{}*", atom(x)),
        Expr::Plus(x) => format!("{}+", atom(x)),
    }
}

fn atom(e: &Expr) -> String {
    match e {
        Expr::Seq(_) | Expr::Alt(_) => {
            let s = expr(e, false);
            if s.starts_with('(') && s.ends_with(')') {
                s
            } else {
                format!("({s})")
            }
        }
        _ => expr(e, false),
    }
}

fn esc(c: char, out: &mut String, in_class: bool) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\\' => out.push_str("\\\\"),
        '"' => out.push_str("\\\""),
        ']' | '[' | '^' | '-' if in_class => {
            let _ = write!(out, "\\x{:02X}", c as u32);
        }
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            let _ = write!(out, "\\x{:02X}", c as u32);
        }
        c => out.push(c),
    }
}

fn literal(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        esc(c, &mut out, false);
    }
    out.push('"');
    out
}

fn class(negated: bool, ranges: &[(char, char)]) -> String {
    if negated && ranges.is_empty() {
        // Any character.
        return "([^\\n] | \"\\n\")".into();
    }
    let mut out = String::from(if negated { "[^" } else { "[" });
    for &(a, b) in ranges {
        esc(a, &mut out, true);
        if b != a {
            out.push('-');
            esc(b, &mut out, true);
        }
    }
    out.push(']');
    out
}

/// A literal as one literal per character: engines that lex (llguidance) then never have to
/// choose between a marker and free text that starts with the same character.
fn split(s: &str, top: bool, lit: impl Fn(&str) -> String) -> String {
    let parts: Vec<String> = s.chars().map(|c| lit(c.encode_utf8(&mut [0; 4]))).collect();
    if parts.len() == 1 || top {
        parts.join(" ")
    } else {
        format!("({})", parts.join(" "))
    }
}
