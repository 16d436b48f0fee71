//! Printing rules as Lark in the dialect llguidance reads (`start: …`, strings as JSON,
//! character classes as `/…/` regexes).

use super::ir::{Expr, Rules};
use std::fmt::Write;

/// The rules as a Lark grammar; the first rule is `start`.
pub(crate) fn print(rules: &Rules) -> String {
    let mut out = String::new();
    for (i, (name, e)) in rules.rules.iter().enumerate() {
        let name = if i == 0 {
            "start".to_string()
        } else {
            rule_name(name)
        };
        let _ = writeln!(out, "{name}: {}", expr(e, true));
    }
    out
}

fn rule_name(n: &str) -> String {
    n.replace('-', "_")
}

fn expr(e: &Expr, top: bool) -> String {
    match e {
        Expr::Empty => "\"\"".into(),
        Expr::Lit(s) => split(s, top, |c| serde_json::to_string(c).unwrap_or_default()),
        Expr::Class { negated, ranges } => class(*negated, ranges),
        Expr::Ref(n) => rule_name(n),
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

fn esc(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\\' | ']' | '[' | '^' | '-' | '/' | '&' | '~' => {
            out.push('\\');
            out.push(c);
        }
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            let _ = write!(out, "\\x{{{:X}}}", c as u32);
        }
        c => out.push(c),
    }
}

fn class(negated: bool, ranges: &[(char, char)]) -> String {
    if negated && ranges.is_empty() {
        return "/(?s:.)/".into();
    }
    let mut out = String::from(if negated { "/[^" } else { "/[" });
    for &(a, b) in ranges {
        esc(a, &mut out);
        if b != a {
            out.push('-');
            esc(b, &mut out);
        }
    }
    out.push_str("]/");
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
