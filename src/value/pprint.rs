//! Python's `pprint.pformat(v)` (width 80, indent 1, dict keys sorted), as jinja2's `pprint`
//! filter prints: a value whose repr fits on its line prints as that repr (with every dict's
//! keys sorted); a longer list, tuple or dict breaks one item a line, indented under its
//! opening bracket; a longer string breaks into adjacent string literals at its words.
//!
//! Widths count characters, as Python's `len` does.

use std::cmp::Ordering;

use crate::value::fmt::{print_limit, write_repr, write_str_repr};
use crate::value::ops::{self, CmpOp};
use crate::value::Value;

/// The line width pformat fills.
const WIDTH: usize = 80;

/// The most bytes of a repr [`format`] looks at: more than a line of [`WIDTH`] characters
/// can take.
const REPR_CAP: usize = 4 * (WIDTH + 2);

/// How deep containers nest before printing falls back to the plain repr.
const MAX_DEPTH: usize = 200;

/// Returns `pprint.pformat(v)`. Like every repr, printing stops once the text passes the
/// render's print limit (the render then fails on the output's size).
pub(crate) fn pformat(v: &Value<'_>) -> String {
    let mut out = String::new();
    format(&mut out, v, 0, 0, 0);
    out
}

/// Whether `out` has passed the print limit.
fn full(out: &str) -> bool {
    out.len() > print_limit()
}

/// A value seen as pprint's dispatch sees it.
enum Shape<'a> {
    /// A dict (or JSON object): its entries, keys sorted.
    Dict(Vec<(Value<'a>, Value<'a>)>),
    /// A list (or JSON array).
    List(Vec<Value<'a>>),
    /// A tuple.
    Tuple(Vec<Value<'a>>),
    /// A plain string (not a Markup).
    Str(&'a str),
    /// Anything printed by its own repr.
    Other,
}

/// How `v` prints.
fn shape<'a>(v: &Value<'a>) -> Shape<'a> {
    match *v {
        Value::Dict(entries) => Shape::Dict(sorted(entries.to_vec())),
        Value::List(items) => Shape::List(items.to_vec()),
        Value::Tuple(items) => Shape::Tuple(items.to_vec()),
        Value::Str(s) => Shape::Str(s),
        Value::Json(serde_json::Value::Object(o)) => Shape::Dict(sorted(
            o.iter()
                .map(|(k, v)| (Value::Str(k), Value::Json(v)))
                .collect(),
        )),
        Value::Json(serde_json::Value::Array(a)) => {
            Shape::List(a.iter().map(Value::Json).collect())
        }
        Value::Json(serde_json::Value::String(s)) => Shape::Str(s),
        _ => Shape::Other,
    }
}

/// Dict entries in pprint's order: by key where keys compare, else by type name (`_safe_key`).
fn sorted<'a>(mut entries: Vec<(Value<'a>, Value<'a>)>) -> Vec<(Value<'a>, Value<'a>)> {
    entries.sort_by(|(a, _), (b, _)| match ops::compare(CmpOp::Lt, a, b) {
        Ok(true) => Ordering::Less,
        Ok(false) if ops::compare(CmpOp::Lt, b, a).unwrap_or(false) => Ordering::Greater,
        Ok(false) => Ordering::Equal,
        Err(_) => class_name(a).cmp(&class_name(b)),
    });
    entries
}

/// `str(type(v))`, which orders keys that do not compare.
fn class_name(v: &Value<'_>) -> String {
    format!("<class '{}'>", v.type_name())
}

/// `_safe_repr`: the one-line repr, with every dict's keys sorted.
fn safe_repr(out: &mut String, v: &Value<'_>, depth: usize, cap: usize) {
    if out.len() > cap {
        return;
    }
    if depth > MAX_DEPTH {
        write_repr(out, v);
        return;
    }
    match shape(v) {
        Shape::Dict(entries) => {
            out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                if out.len() > cap {
                    return;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                safe_repr(out, k, depth + 1, cap);
                out.push_str(": ");
                safe_repr(out, x, depth + 1, cap);
            }
            out.push('}');
        }
        Shape::List(items) => seq_repr(out, "[", &items, "]", depth, cap),
        Shape::Tuple(items) if items.len() == 1 => seq_repr(out, "(", &items, ",)", depth, cap),
        Shape::Tuple(items) => seq_repr(out, "(", &items, ")", depth, cap),
        Shape::Str(s) => write_str_repr(out, s),
        Shape::Other => write_repr(out, v),
    }
}

/// `open item, item close` with each item's [`safe_repr`].
fn seq_repr(
    out: &mut String,
    open: &str,
    items: &[Value<'_>],
    close: &str,
    depth: usize,
    cap: usize,
) {
    out.push_str(open);
    for (i, item) in items.iter().enumerate() {
        if out.len() > cap {
            return;
        }
        if i > 0 {
            out.push_str(", ");
        }
        safe_repr(out, item, depth + 1, cap);
    }
    out.push_str(close);
}

/// Characters in `s`.
fn width(s: &str) -> usize {
    s.chars().count()
}

/// `PrettyPrinter._format`: `v` at column `indent`, leaving `allowance` columns for what
/// follows it on its last line, `level` containers deep.
fn format(out: &mut String, v: &Value<'_>, indent: usize, allowance: usize, level: usize) {
    // Only whether the repr fits matters here, so it is printed no further than the most
    // bytes a line of WIDTH characters can take: past that it cannot fit.
    let mut rep = String::new();
    safe_repr(&mut rep, v, 0, REPR_CAP);
    let max_width = WIDTH as isize - indent as isize - allowance as isize;
    if rep.len() <= REPR_CAP && (width(&rep) as isize) <= max_width {
        out.push_str(&rep);
        return;
    }
    if level > MAX_DEPTH {
        safe_repr(out, v, 0, print_limit());
        return;
    }
    match shape(v) {
        Shape::Dict(entries) => {
            out.push('{');
            if !entries.is_empty() {
                dict_items(out, &entries, indent + 1, allowance + 1, level + 1);
            }
            out.push('}');
        }
        Shape::List(items) => {
            out.push('[');
            seq_items(out, &items, indent + 1, allowance + 1, level + 1);
            out.push(']');
        }
        Shape::Tuple(items) => {
            let end = if items.len() == 1 { ",)" } else { ")" };
            out.push('(');
            seq_items(out, &items, indent + 1, allowance + end.len(), level + 1);
            out.push_str(end);
        }
        Shape::Str(s) => string(out, s, indent, allowance, level + 1),
        Shape::Other => write_repr(out, v),
    }
}

/// `_format_dict_items`, `indent` already past the brace.
fn dict_items(
    out: &mut String,
    entries: &[(Value<'_>, Value<'_>)],
    indent: usize,
    allowance: usize,
    level: usize,
) {
    let last_index = entries.len() - 1;
    for (i, (k, v)) in entries.iter().enumerate() {
        if full(out) {
            return;
        }
        let last = i == last_index;
        let mut key = String::new();
        safe_repr(&mut key, k, 0, print_limit());
        out.push_str(&key);
        out.push_str(": ");
        let at = indent + width(&key) + 2;
        format(out, v, at, if last { allowance } else { 1 }, level);
        if !last {
            out.push_str(",\n");
            push_spaces(out, indent);
        }
    }
}

/// `_format_items`, `indent` already past the bracket.
fn seq_items(out: &mut String, items: &[Value<'_>], indent: usize, allowance: usize, level: usize) {
    for (i, item) in items.iter().enumerate() {
        if full(out) {
            return;
        }
        let last = i + 1 == items.len();
        if i > 0 {
            out.push_str(",\n");
            push_spaces(out, indent);
        }
        format(out, item, indent, if last { allowance } else { 1 }, level);
    }
}

/// Appends `n` spaces.
fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat(' ').take(n));
}

/// Python's `str.isspace()` for one character (what `\s` matches in a `str` pattern).
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.splitlines(True)`.
fn split_lines(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' => match chars.peek() {
                Some(&(j, '\n')) => {
                    chars.next();
                    j + 1
                }
                _ => i + 1,
            },
            '\n' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        lines.push(&s[start..end]);
        start = end;
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// `re.findall(r'\S*\s*', line)` without its final empty match: runs of non-space then space.
fn words(line: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in line.char_indices() {
        let space = is_space(c);
        if in_space && !space {
            parts.push(&line[start..i]);
            start = i;
        }
        in_space = space;
    }
    if start < line.len() {
        parts.push(&line[start..]);
    }
    parts
}

/// The repr of `s` as a `String`.
fn str_repr(s: &str) -> String {
    let mut r = String::new();
    write_str_repr(&mut r, s);
    r
}

/// `_pprint_str`: a long string as adjacent literals, one a line, broken at lines and words;
/// parenthesized at the top level.
fn string(out: &mut String, s: &str, indent: usize, allowance: usize, level: usize) {
    let (indent, allowance) = if level == 1 {
        (indent + 1, allowance + 1)
    } else {
        (indent, allowance)
    };
    let max_width = WIDTH as isize - indent as isize;
    let mut max_width1 = max_width;
    let lines = split_lines(s);
    let mut chunks: Vec<String> = Vec::new();
    let mut last_rep = String::new();
    for (i, line) in lines.iter().enumerate() {
        let line_rep = str_repr(line);
        let last_line = i + 1 == lines.len();
        if last_line {
            max_width1 -= allowance as isize;
        }
        if width(&line_rep) as isize <= max_width1 {
            chunks.push(line_rep.clone());
        } else {
            let parts = words(line);
            let mut max_width2 = max_width;
            let mut current = String::new();
            for (j, part) in parts.iter().enumerate() {
                let mut candidate = current.clone();
                candidate.push_str(part);
                if j + 1 == parts.len() && last_line {
                    max_width2 -= allowance as isize;
                }
                if width(&str_repr(&candidate)) as isize > max_width2 {
                    if !current.is_empty() {
                        chunks.push(str_repr(&current));
                    }
                    current = (*part).to_string();
                } else {
                    current = candidate;
                }
            }
            if !current.is_empty() {
                chunks.push(str_repr(&current));
            }
        }
        last_rep = line_rep;
    }
    if chunks.len() <= 1 {
        // Python writes `rep`, which by now is the last line's repr.
        if lines.is_empty() {
            write_str_repr(out, s);
        } else {
            out.push_str(&last_rep);
        }
        return;
    }
    if level == 1 {
        out.push('(');
    }
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            push_spaces(out, indent);
        }
        out.push_str(chunk);
    }
    if level == 1 {
        out.push(')');
    }
}
