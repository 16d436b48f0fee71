//! Printing rules as Lark in the dialect llguidance reads (`start: …`, strings as JSON,
//! character classes as `/…/` regexes).

use super::ir::Rules;
use super::print::{expr, Dialect};
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
        let _ = writeln!(out, "{name}: {}", expr(&Syntax, e, true));
    }
    out
}

fn rule_name(n: &str) -> String {
    n.replace('-', "_")
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
    super::print::push_ranges(&mut out, ranges, esc);
    out.push_str("]/");
    out
}

/// The Lark way of writing literals, classes and references.
struct Syntax;

impl Dialect for Syntax {
    fn literal(&self, c: &str) -> String {
        serde_json::to_string(c).unwrap_or_default()
    }

    fn class(&self, negated: bool, ranges: &[(char, char)]) -> String {
        class(negated, ranges)
    }

    fn reference(&self, name: &str) -> String {
        rule_name(name)
    }
}
