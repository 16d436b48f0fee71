//! Printing rules as GBNF, the grammar format of llama.cpp (`root ::= …`).

use super::ir::Rules;
use super::print::{expr, Dialect};
use std::fmt::Write;

/// The rules as a GBNF grammar; the first rule is `root`.
pub(crate) fn print(rules: &Rules) -> String {
    let mut out = String::new();
    for (name, e) in &rules.rules {
        let _ = writeln!(out, "{name} ::= {}", expr(&Syntax, e, true));
    }
    out
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
    super::print::push_ranges(&mut out, ranges, |c, out| esc(c, out, true));
    out.push(']');
    out
}

/// The GBNF way of writing literals, classes and references.
struct Syntax;

impl Dialect for Syntax {
    fn literal(&self, c: &str) -> String {
        literal(c)
    }

    fn class(&self, negated: bool, ranges: &[(char, char)]) -> String {
        class(negated, ranges)
    }

    fn reference(&self, name: &str) -> String {
        name.to_string()
    }
}
