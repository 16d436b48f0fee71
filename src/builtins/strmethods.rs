//! Python `str` methods, indexing by code point as Python does.

use crate::error::{err, Error, ExceptionClass};
use crate::value::ops;
use crate::value::{Ctx, VResult, Value};
use std::borrow::Cow;

use super::args::{bind, int_arg, is_py_space, no_args, opt_int_arg, splitlines_keep, str_arg};
use super::Kwargs;

/// The `str` methods that take keyword arguments (CPython 3.11); the others raise
/// `TypeError` on any.
fn takes_keywords(name: &str) -> bool {
    matches!(
        name,
        "split" | "rsplit" | "splitlines" | "expandtabs" | "format" | "encode"
    )
}

/// Calls `s.name(args, kwargs)`.
pub(super) fn call<'a>(
    ctx: &Ctx<'a>,
    s: &'a str,
    name: &str,
    args: &[Value<'a>],
    kw: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let b = |v: bool| Ok(Value::Bool(v));
    if !kw.is_empty() && !takes_keywords(name) {
        return Err(err!(Type, "str.{name}() takes no keyword arguments"));
    }
    match name {
        "strip" | "lstrip" | "rstrip" => {
            let [chars] = bind(name, ["chars"], args, kw)?;
            let how = match name {
                "strip" => Strip::Both,
                "lstrip" => Strip::Left,
                _ => Strip::Right,
            };
            Ok(Value::Str(py_strip(s, chars.as_ref(), how)?))
        }
        "split" | "rsplit" => {
            let [sep, maxsplit] = bind(name, ["sep", "maxsplit"], args, kw)?;
            let max = opt_int_arg(maxsplit)?.unwrap_or(-1);
            let max = usize::try_from(max).unwrap_or(usize::MAX);
            let parts = match sep {
                None | Some(Value::None) => split_ws(s, max, name == "rsplit"),
                Some(sep) => {
                    let sep = str_arg(name, &sep)?;
                    if sep.is_empty() {
                        return Err(err!(Value, "empty separator"));
                    }
                    if name == "rsplit" {
                        let mut v: Vec<&str> = s.rsplitn(max.saturating_add(1), sep).collect();
                        v.reverse();
                        v
                    } else {
                        s.splitn(max.saturating_add(1), sep).collect()
                    }
                }
            };
            Ok(ctx.list(parts.into_iter().map(Value::Str)))
        }
        "splitlines" => {
            let [keep] = bind(name, ["keepends"], args, kw)?;
            let keep = keep.is_some_and(|k| k.is_true());
            Ok(ctx.list(splitlines_keep(s, keep).into_iter().map(Value::Str)))
        }
        "startswith" | "endswith" => {
            let [fix, start, end] = bind(name, ["prefix", "start", "end"], args, kw)?;
            let (bs, be, _) = char_range(s, start, end)?;
            let hay = &s[bs..be];
            let test = |p: &str| {
                if name == "startswith" {
                    hay.starts_with(p)
                } else {
                    hay.ends_with(p)
                }
            };
            match fix.unwrap_or(Value::None) {
                Value::Str(p) => b(bs <= be && test(p)),
                Value::Tuple(items) => {
                    for it in items {
                        let Value::Str(p) = it else {
                            return Err(err!(
                                Type,
                                "tuple for {name} must only contain str, not {}",
                                it.type_name()
                            ));
                        };
                        if test(p) {
                            return b(true);
                        }
                    }
                    b(false)
                }
                other => Err(err!(
                    Type,
                    "{name} first arg must be str or a tuple of str, not {}",
                    other.type_name()
                )),
            }
        }
        "replace" => {
            let [old, new, count] = bind(name, ["old", "new", "count"], args, kw)?;
            let old = str_arg(name, &old.unwrap_or(Value::None))?;
            let new = str_arg(name, &new.unwrap_or(Value::None))?;
            let count = opt_int_arg(count)?.unwrap_or(-1);
            check_replace(ctx, s, old, new, count)?;
            Ok(cow_value(ctx, py_replace(s, old, new, count)))
        }
        "upper" | "lower" | "title" | "capitalize" | "swapcase" | "casefold" => {
            no_args(name, args, kw)?;
            let r = match name {
                "upper" => s.to_uppercase(),
                "lower" => s.to_lowercase(),
                "casefold" => casefold(s),
                "title" => py_title(s),
                "capitalize" => return Ok(cow_value(ctx, capitalize(s))),
                _ => swapcase(s),
            };
            Ok(ctx.str(&r))
        }
        "find" | "rfind" | "index" | "rindex" | "count" => {
            let [sub, start, end] = bind(name, ["sub", "start", "end"], args, kw)?;
            let sub = str_arg(name, &sub.unwrap_or(Value::None))?;
            let (bs, be, cs) = match char_range(s, start, end) {
                Ok(r) if r.0 <= r.1 => r,
                Ok(_) if name == "count" => return Ok(Value::Int(0)),
                Ok(_) => return not_found(name),
                Err(e) => return Err(e),
            };
            let hay = &s[bs..be];
            if name == "count" {
                let n = if sub.is_empty() {
                    hay.chars().count() + 1
                } else {
                    hay.matches(sub).count()
                };
                return Ok(Value::Int(n as i64));
            }
            let found = if name.starts_with('r') {
                hay.rfind(sub)
            } else {
                hay.find(sub)
            };
            match found {
                Some(off) => Ok(Value::Int((cs + hay[..off].chars().count()) as i64)),
                None => not_found(name),
            }
        }
        "join" => {
            let [items] = bind(name, ["iterable"], args, kw)?;
            let items = ops::iterate(ctx, items.unwrap_or(Value::None))?;
            let mut out = String::new();
            for (i, it) in items.iter().enumerate() {
                // A Markup item joins as its text (`str.join` of a `str` subclass).
                let (Value::Str(p) | Value::Markup(p)) = it else {
                    return Err(err!(
                        Type,
                        "sequence item {i}: expected str instance, {} found",
                        it.type_name()
                    ));
                };
                if i > 0 {
                    out.push_str(s);
                }
                out.push_str(p);
                if out.len() > ctx.max_value {
                    return Err(ctx.too_large());
                }
            }
            Ok(ctx.str(&out))
        }
        "format" | "format_map" => format_method(ctx, s, name, args, kw, false),
        "isidentifier" => no_args(name, args, kw).and_then(|_| {
            let mut cs = s.chars();
            b(cs.next()
                .is_some_and(|c| c == '_' || unicode_ident_start(c))
                && cs.all(unicode_ident_continue))
        }),
        "encode" => super::bytes::encode(ctx, s, args, kw),
        "isprintable" => no_args(name, args, kw).and_then(|_| b(s.chars().all(is_printable))),
        "isascii" => no_args(name, args, kw).and_then(|_| b(s.is_ascii())),
        "isdigit" | "isdecimal" | "isnumeric" | "isalpha" | "isalnum" | "isspace" => {
            no_args(name, args, kw)?;
            let pred: fn(char) -> bool = match name {
                "isdigit" => |c| is_digit(c, false),
                "isdecimal" => |c| is_digit(c, true),
                "isnumeric" => char::is_numeric,
                "isalpha" => super::pyunicode::is_alpha,
                "isalnum" => super::pyunicode::is_alnum,
                _ => is_py_space,
            };
            b(!s.is_empty() && s.chars().all(pred))
        }
        "isupper" => no_args(name, args, kw).and_then(|_| b(is_cased(s, true))),
        "islower" => no_args(name, args, kw).and_then(|_| b(is_cased(s, false))),
        "istitle" => no_args(name, args, kw).and_then(|_| b(is_title(s))),
        "zfill" => {
            let [w] = bind(name, ["width"], args, kw)?;
            let w = int_arg(&w.unwrap_or(Value::None))?;
            let n = s.chars().count() as i64;
            if w <= n {
                return Ok(Value::Str(s));
            }
            check_pad(ctx, s, w - n, '0')?;
            let zeros = "0".repeat((w - n) as usize);
            let (sign, rest) = match s.chars().next() {
                Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                _ => (String::new(), s),
            };
            Ok(ctx.str(&format!("{sign}{zeros}{rest}")))
        }
        "ljust" | "rjust" | "center" => {
            let [w, fill] = bind(name, ["width", "fillchar"], args, kw)?;
            let w = int_arg(&w.unwrap_or(Value::None))?;
            let fill = match fill {
                None => ' ',
                Some(f) => {
                    let f = str_arg(name, &f)?;
                    let mut cs = f.chars();
                    match (cs.next(), cs.next()) {
                        (Some(c), None) => c,
                        _ => {
                            return Err(err!(
                                Type,
                                "The fill character must be exactly one character long"
                            ))
                        }
                    }
                }
            };
            let n = s.chars().count() as i64;
            if w <= n {
                return Ok(Value::Str(s));
            }
            check_pad(ctx, s, w - n, fill)?;
            let pad = |k: i64| std::iter::repeat(fill).take(k as usize).collect::<String>();
            Ok(ctx.str(&match name {
                "ljust" => format!("{s}{}", pad(w - n)),
                "rjust" => format!("{}{s}", pad(w - n)),
                _ => center(ctx, s, w, fill)?,
            }))
        }
        "removeprefix" | "removesuffix" => {
            let [a] = bind(name, ["fix"], args, kw)?;
            let a = str_arg(name, &a.unwrap_or(Value::None))?;
            let r = if name == "removeprefix" {
                s.strip_prefix(a)
            } else {
                s.strip_suffix(a)
            };
            Ok(Value::Str(r.unwrap_or(s)))
        }
        "partition" | "rpartition" => {
            let [sep] = bind(name, ["sep"], args, kw)?;
            let sep = str_arg(name, &sep.unwrap_or(Value::None))?;
            if sep.is_empty() {
                return Err(err!(Value, "empty separator"));
            }
            let found = if name == "partition" {
                s.find(sep)
            } else {
                s.rfind(sep)
            };
            let parts = match found {
                Some(i) => [&s[..i], sep, &s[i + sep.len()..]],
                None if name == "partition" => [s, "", ""],
                None => ["", "", s],
            };
            Ok(Value::Tuple(ctx.slice(parts.map(Value::Str))))
        }
        "expandtabs" => {
            let [size] = bind(name, ["tabsize"], args, kw)?;
            let size = size.map_or(Ok(8), |v| int_arg(&v))?;
            let mut out = String::with_capacity(s.len());
            let mut col: i64 = 0;
            for c in s.chars() {
                match c {
                    '\t' => {
                        if size > 0 {
                            let n = size - col % size;
                            ctx.check_bytes(out.len().saturating_add(n as usize))?;
                            out.extend(std::iter::repeat(' ').take(n as usize));
                            col += n;
                        }
                    }
                    '\n' | '\r' => {
                        out.push(c);
                        col = 0;
                    }
                    c => {
                        out.push(c);
                        col += 1;
                    }
                }
            }
            Ok(ctx.str(&out))
        }
        _ => Err(err!(Type, "'str' object has no attribute '{name}'")
            .with_class(ExceptionClass::AttributeError)),
    }
}

/// The error of `find`-like methods when the substring is absent (`-1` for `find`).
fn not_found<'a>(name: &str) -> VResult<'a> {
    match name {
        "find" | "rfind" => Ok(Value::Int(-1)),
        _ => Err(err!(Value, "substring not found")),
    }
}

/// Which ends `py_strip` strips.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strip {
    /// Both ends (`strip`).
    Both,
    /// The start (`lstrip`).
    Left,
    /// The end (`rstrip`).
    Right,
}

/// `s.strip(chars)`: whitespace when `chars` is `None`, else any of `chars`.
pub(crate) fn py_strip<'a>(
    s: &'a str,
    chars: Option<&Value<'_>>,
    how: Strip,
) -> Result<&'a str, Error> {
    let set: Option<&str> = match chars {
        None | Some(Value::None) => None,
        Some(Value::Str(c)) => Some(c),
        Some(Value::Undefined(_)) => Some(""),
        Some(other) => {
            return Err(err!(
                Type,
                "strip arg must be None or str, not {}",
                other.type_name()
            ))
        }
    };
    if set.is_none() {
        // The common case: printable ASCII at the ends to be stripped, nothing to do.
        let solid = |b: Option<&u8>| b.is_some_and(|b| (0x21..0x7f).contains(b));
        let bytes = s.as_bytes();
        let done = match how {
            Strip::Both => solid(bytes.first()) && solid(bytes.last()),
            Strip::Left => solid(bytes.first()),
            Strip::Right => solid(bytes.last()),
        };
        if done {
            return Ok(s);
        }
    }
    let pred = |c: char| match set {
        None => is_py_space(c),
        Some(set) => set.contains(c),
    };
    Ok(match how {
        Strip::Both => s.trim_matches(pred),
        Strip::Left => s.trim_start_matches(pred),
        Strip::Right => s.trim_end_matches(pred),
    })
}

/// `s.split()` / `s.rsplit()` with no separator: runs of whitespace, at most `max` splits.
fn split_ws(s: &str, max: usize, from_right: bool) -> Vec<&str> {
    let mut out = Vec::new();
    if from_right {
        let mut rest = s.trim_end_matches(is_py_space);
        while !rest.is_empty() {
            if out.len() == max {
                out.push(rest);
                break;
            }
            match rest.rfind(is_py_space) {
                Some(i) => {
                    let c = rest[i..].chars().next().map_or(1, char::len_utf8);
                    out.push(&rest[i + c..]);
                    rest = rest[..i].trim_end_matches(is_py_space);
                }
                None => {
                    out.push(rest);
                    break;
                }
            }
        }
        out.reverse();
    } else {
        let mut rest = s.trim_start_matches(is_py_space);
        while !rest.is_empty() {
            if out.len() == max {
                out.push(rest);
                break;
            }
            match rest.find(is_py_space) {
                Some(i) => {
                    out.push(&rest[..i]);
                    rest = rest[i..].trim_start_matches(is_py_space);
                }
                None => {
                    out.push(rest);
                    break;
                }
            }
        }
    }
    out
}

/// The byte range of `s[start:end]` (code-point indices, Python slice rules) and the code-point
/// index where it starts. When `start > len`, the range is empty with `start > end`.
fn char_range(
    s: &str,
    start: Option<Value<'_>>,
    end: Option<Value<'_>>,
) -> Result<(usize, usize, usize), Error> {
    let len = s.chars().count() as i64;
    let fix = |v: Option<i64>, dflt: i64| -> i64 {
        match v {
            None => dflt,
            Some(i) if i < 0 => (i + len).max(0),
            Some(i) => i,
        }
    };
    let cs = fix(opt_int_arg(start)?, 0);
    let ce = fix(opt_int_arg(end)?, len).min(len);
    if cs > len {
        return Ok((s.len(), 0, len as usize));
    }
    let byte = |c: i64| s.char_indices().nth(c as usize).map_or(s.len(), |(i, _)| i);
    let bs = byte(cs);
    let be = if ce <= cs { bs } else { byte(ce) };
    Ok((bs, be, cs as usize))
}

/// Fails with `Limit(Output)` when `s.replace(old, new, count)` would be larger than the
/// value limit. Counts the matches only when a cheap bound (every position a match) does not
/// already show the result fits.
pub(crate) fn check_replace(
    ctx: &Ctx<'_>,
    s: &str,
    old: &str,
    new: &str,
    count: i64,
) -> Result<(), Error> {
    let Some(growth) = new.len().checked_sub(old.len()).filter(|g| *g > 0) else {
        return Ok(());
    };
    let max = usize::try_from(count).unwrap_or(usize::MAX);
    let bound = (s.len() / old.len().max(1) + 1).min(max);
    let size = |matches: usize| {
        matches
            .checked_mul(growth)
            .and_then(|g| g.checked_add(s.len()))
    };
    if size(bound).is_some_and(|b| b <= ctx.max_value) {
        return Ok(());
    }
    let matches = if old.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(old).count()
    };
    match size(matches.min(max)) {
        Some(b) => ctx.check_bytes(b),
        None => Err(ctx.too_large()),
    }
}

/// `s.replace(old, new, count)`; a negative `count` replaces all.
pub(crate) fn py_replace<'s>(s: &'s str, old: &str, new: &str, count: i64) -> Cow<'s, str> {
    let max = usize::try_from(count).unwrap_or(usize::MAX);
    if max == 0 || (!old.is_empty() && memchr::memmem::find(s.as_bytes(), old.as_bytes()).is_none())
    {
        // Nothing to replace: the string itself, not a copy.
        return Cow::Borrowed(s);
    }
    if old.is_empty() {
        let mut out = String::with_capacity(s.len() + new.len() * 2);
        let mut n = 0;
        for c in s.chars() {
            if n < max {
                out.push_str(new);
                n += 1;
            }
            out.push(c);
        }
        if n < max {
            out.push_str(new);
        }
        return Cow::Owned(out);
    }
    Cow::Owned(s.replacen(old, new, max))
}

/// A string result as a value: borrowed text stays borrowed, new text moves to the arena.
pub(crate) fn cow_value<'a>(ctx: &Ctx<'a>, s: Cow<'a, str>) -> Value<'a> {
    match s {
        Cow::Borrowed(b) => Value::Str(b),
        Cow::Owned(o) => ctx.str(&o),
    }
}

/// `s.capitalize()`: the first character upper-cased, the rest lower-cased.
pub(crate) fn capitalize(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    if s.is_ascii()
        && !b.first().is_some_and(u8::is_ascii_lowercase)
        && !b.iter().skip(1).any(u8::is_ascii_uppercase)
    {
        // Already capitalized ASCII: the string itself.
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut lower = Lower::new(s);
    for (i, c) in s.chars().enumerate() {
        if i == 0 {
            push_title(&mut out, c);
            lower.next(c);
        } else {
            lower.push(&mut out, c);
        }
    }
    Cow::Owned(out)
}

/// `s.swapcase()`: upper case lowered (a capital sigma by its context), lower case raised,
/// anything else (title-case letters too) kept.
fn swapcase(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut lower = Lower::new(s);
    for c in s.chars() {
        if c.is_uppercase() {
            lower.push(&mut out, c);
            continue;
        }
        lower.next(c);
        if c.is_lowercase() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Lower-cases the characters of a string one by one, in context: a capital sigma becomes
/// `ς` where Unicode's Final_Sigma rule says (as Python's `lower`, `capitalize` and `title`
/// do), read from `str::to_lowercase` of the whole string, which applies that rule.
struct Lower {
    /// The whole string lower-cased and how far it is read, when it has a capital sigma.
    lowered: Option<(String, usize)>,
}

impl Lower {
    fn new(s: &str) -> Lower {
        Lower {
            lowered: s.contains('Σ').then(|| (s.to_lowercase(), 0)),
        }
    }

    /// Appends the lower case of `c`, the next character of the string.
    fn push(&mut self, out: &mut String, c: char) {
        match self.next(c) {
            Some(l) => out.push_str(l),
            None => out.extend(c.to_lowercase()),
        }
    }

    /// The lower case of `c`, the next character, from the lowered string (`None` when the
    /// string has no capital sigma: then a character's lower case needs no context).
    fn next(&mut self, c: char) -> Option<&str> {
        let (lowered, at) = self.lowered.as_mut()?;
        // Only a sigma depends on its context: every other character lower-cases alone.
        let n = if c == 'Σ' {
            1
        } else {
            c.to_lowercase().count()
        };
        let rest = lowered.get(*at..).unwrap_or("");
        let end = rest.char_indices().nth(n).map_or(rest.len(), |(i, _)| i);
        let from = *at;
        *at += end;
        lowered.get(from..*at)
    }
}

/// `s.center(width, fill)` with CPython's split of the padding; a result larger than the
/// value limit fails before anything is allocated.
pub(crate) fn center(ctx: &Ctx<'_>, s: &str, width: i64, fill: char) -> Result<String, Error> {
    let n = s.chars().count() as i64;
    if width <= n {
        return Ok(s.to_string());
    }
    let marg = width - n;
    let bytes = check_pad(ctx, s, marg, fill)?;
    let left = marg / 2 + (marg & width & 1);
    let mut out = String::with_capacity(bytes);
    out.extend(std::iter::repeat(fill).take(left as usize));
    out.push_str(s);
    out.extend(std::iter::repeat(fill).take((marg - left) as usize));
    Ok(out)
}

/// The size in bytes of `s` padded with `extra` (> 0) copies of `fill`, or a `Limit(Output)`
/// error when that is larger than the value limit: checked before the padding is allocated.
pub(crate) fn check_pad(ctx: &Ctx<'_>, s: &str, extra: i64, fill: char) -> Result<usize, Error> {
    let bytes = usize::try_from(extra)
        .ok()
        .and_then(|e| e.checked_mul(fill.len_utf8()))
        .and_then(|b| b.checked_add(s.len()))
        .ok_or_else(|| ctx.too_large())?;
    ctx.check_bytes(bytes)?;
    Ok(bytes)
}

/// Appends the title case of `c` (Python's full title-case mapping): upper case, except for
/// the characters whose title case differs from it (generated by comparing `c.title()` with
/// `c.upper()` over every code point): Latin digraphs, ß and the ligatures (`Ss`, `Ff`, ...),
/// Georgian Mkhedruli (its own title case), Greek with the iota subscript.
pub(crate) fn push_title(out: &mut String, c: char) {
    match c {
        '\u{1c4}'..='\u{1c6}' => out.push('\u{1c5}'),
        '\u{1c7}'..='\u{1c9}' => out.push('\u{1c8}'),
        '\u{1ca}'..='\u{1cc}' => out.push('\u{1cb}'),
        '\u{1f1}'..='\u{1f3}' => out.push('\u{1f2}'),
        'ß' => out.push_str("Ss"),
        '\u{587}' => out.push_str("\u{535}\u{582}"),
        '\u{10d0}'..='\u{10fa}' | '\u{10fd}'..='\u{10ff}' => out.push(c),
        // Greek capitals with the prosgegrammeni: each lowercase one (low nibble 0-7) maps
        // to the one eight above it, which is its own title case.
        '\u{1f80}'..='\u{1faf}' => {
            out.push(char::from_u32(u32::from(c) | 8).unwrap_or(c));
        }
        '\u{1fb3}' | '\u{1fbc}' => out.push('\u{1fbc}'),
        '\u{1fc3}' | '\u{1fcc}' => out.push('\u{1fcc}'),
        '\u{1ff3}' | '\u{1ffc}' => out.push('\u{1ffc}'),
        '\u{1fb2}' => out.push_str("\u{1fba}\u{345}"),
        '\u{1fb4}' => out.push_str("\u{386}\u{345}"),
        '\u{1fb7}' => out.push_str("\u{391}\u{342}\u{345}"),
        '\u{1fc2}' => out.push_str("\u{1fca}\u{345}"),
        '\u{1fc4}' => out.push_str("\u{389}\u{345}"),
        '\u{1fc7}' => out.push_str("\u{397}\u{342}\u{345}"),
        '\u{1ff2}' => out.push_str("\u{1ffa}\u{345}"),
        '\u{1ff4}' => out.push_str("\u{38f}\u{345}"),
        '\u{1ff7}' => out.push_str("\u{3a9}\u{342}\u{345}"),
        '\u{fb00}' => out.push_str("Ff"),
        '\u{fb01}' => out.push_str("Fi"),
        '\u{fb02}' => out.push_str("Fl"),
        '\u{fb03}' => out.push_str("Ffi"),
        '\u{fb04}' => out.push_str("Ffl"),
        '\u{fb05}' | '\u{fb06}' => out.push_str("St"),
        '\u{fb13}' => out.push_str("\u{544}\u{576}"),
        '\u{fb14}' => out.push_str("\u{544}\u{565}"),
        '\u{fb15}' => out.push_str("\u{544}\u{56b}"),
        '\u{fb16}' => out.push_str("\u{54e}\u{576}"),
        '\u{fb17}' => out.push_str("\u{544}\u{56d}"),
        c => out.extend(c.to_uppercase()),
    }
}

/// Python's `str.isdigit` (`decimal = false`) or `str.isdecimal`, approximately: numeric
/// characters except fractions and Roman numerals, and for `isdecimal` also except
/// superscripts and circled digits.
pub(crate) fn is_digit(c: char, decimal: bool) -> bool {
    if !c.is_numeric() {
        return false;
    }
    let fraction = matches!(c, '\u{bc}'..='\u{be}' | '\u{2150}'..='\u{215f}' | '\u{2189}');
    let roman = matches!(c, '\u{2160}'..='\u{2188}');
    let special = matches!(
        c,
        '\u{b2}' | '\u{b3}' | '\u{b9}' | '\u{2070}'..='\u{209f}' | '\u{2460}'..='\u{24ff}'
            | '\u{2776}'..='\u{2793}'
    );
    !(fraction || roman || (decimal && special))
}

/// Whether `c` has case (Unicode's Cased: upper, lower or title case).
fn cased(c: char) -> bool {
    c.is_uppercase() || c.is_lowercase() || is_titlecase(c)
}

/// A title-case letter (category Lt): the Latin digraphs' middle forms and the Greek
/// capitals with the prosgegrammeni.
fn is_titlecase(c: char) -> bool {
    matches!(
        c,
        '\u{1c5}' | '\u{1c8}' | '\u{1cb}' | '\u{1f2}'
            | '\u{1f88}'..='\u{1f8f}'
            | '\u{1f98}'..='\u{1f9f}'
            | '\u{1fa8}'..='\u{1faf}'
            | '\u{1fbc}' | '\u{1fcc}' | '\u{1ffc}'
    )
}

/// `s.isupper()` (`upper`) or `s.islower()`: some cased character, and all of that case.
pub(crate) fn is_cased(s: &str, upper: bool) -> bool {
    let mut any = false;
    for c in s.chars() {
        if upper && c.is_lowercase() || !upper && c.is_uppercase() {
            return false;
        }
        any |= cased(c);
    }
    any
}

/// `s.istitle()`.
fn is_title(s: &str) -> bool {
    let (mut prev_cased, mut any) = (false, false);
    for c in s.chars() {
        // Python's istitle: a title-case letter counts as upper case.
        if c.is_uppercase() || is_titlecase(c) {
            if prev_cased {
                return false;
            }
            prev_cased = true;
            any = true;
        } else if c.is_lowercase() {
            if !prev_cased {
                return false;
            }
            prev_cased = true;
            any = true;
        } else {
            prev_cased = false;
        }
    }
    any
}

/// Python's `str.title()`: upper-case after an uncased character, lower-case after a cased one.
pub(crate) fn py_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    let mut lower = Lower::new(s);
    for c in s.chars() {
        if prev_cased {
            lower.push(&mut out, c);
        } else {
            push_title(&mut out, c);
            lower.next(c);
        }
        prev_cased = cased(c);
    }
    out
}

/// `str.casefold()`: lowercase, then the full case foldings that differ from it (every
/// character whose `casefold()` is not its `lower()` in Python's tables).
fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\u{13a0}'..='\u{13f5}' => out.push(c),
            '\u{13f8}'..='\u{13fd}' | '\u{ab70}'..='\u{abbf}' => out.push(cherokee_capital(c)),
            '\u{1f80}'..='\u{1faf}' => {
                // The letter without the iota (alpha, eta, omega rows), then the iota.
                let row = match u32::from(c) {
                    x if x < 0x1f90 => 0x1f00,
                    x if x < 0x1fa0 => 0x1f20,
                    _ => 0x1f60,
                };
                let base = row + (u32::from(c) & 7);
                out.extend(char::from_u32(base));
                out.push('\u{3b9}');
            }
            '\u{b5}' => out.push('\u{3bc}'),
            '\u{df}' | '\u{1e9e}' => out.push_str("ss"),
            '\u{149}' => out.push_str("\u{2bc}n"),
            '\u{17f}' => out.push('\u{73}'),
            '\u{1f0}' => out.push_str("j\u{30c}"),
            '\u{345}' | '\u{1fbe}' => out.push('\u{3b9}'),
            '\u{390}' | '\u{1fd3}' => out.push_str("\u{3b9}\u{308}\u{301}"),
            '\u{3b0}' | '\u{1fe3}' => out.push_str("\u{3c5}\u{308}\u{301}"),
            '\u{3c2}' => out.push('\u{3c3}'),
            '\u{3d0}' => out.push('\u{3b2}'),
            '\u{3d1}' => out.push('\u{3b8}'),
            '\u{3d5}' => out.push('\u{3c6}'),
            '\u{3d6}' => out.push('\u{3c0}'),
            '\u{3f0}' => out.push('\u{3ba}'),
            '\u{3f1}' => out.push('\u{3c1}'),
            '\u{3f5}' => out.push('\u{3b5}'),
            '\u{587}' => out.push_str("\u{565}\u{582}"),
            '\u{1c80}' => out.push('\u{432}'),
            '\u{1c81}' => out.push('\u{434}'),
            '\u{1c82}' => out.push('\u{43e}'),
            '\u{1c83}' => out.push('\u{441}'),
            '\u{1c84}' | '\u{1c85}' => out.push('\u{442}'),
            '\u{1c86}' => out.push('\u{44a}'),
            '\u{1c87}' => out.push('\u{463}'),
            '\u{1c88}' => out.push('\u{a64b}'),
            '\u{1e96}' => out.push_str("h\u{331}"),
            '\u{1e97}' => out.push_str("t\u{308}"),
            '\u{1e98}' => out.push_str("w\u{30a}"),
            '\u{1e99}' => out.push_str("y\u{30a}"),
            '\u{1e9a}' => out.push_str("a\u{2be}"),
            '\u{1e9b}' => out.push('\u{1e61}'),
            '\u{1f50}' => out.push_str("\u{3c5}\u{313}"),
            '\u{1f52}' => out.push_str("\u{3c5}\u{313}\u{300}"),
            '\u{1f54}' => out.push_str("\u{3c5}\u{313}\u{301}"),
            '\u{1f56}' => out.push_str("\u{3c5}\u{313}\u{342}"),
            '\u{1fb2}' => out.push_str("\u{1f70}\u{3b9}"),
            '\u{1fb3}' | '\u{1fbc}' => out.push_str("\u{3b1}\u{3b9}"),
            '\u{1fb4}' => out.push_str("\u{3ac}\u{3b9}"),
            '\u{1fb6}' => out.push_str("\u{3b1}\u{342}"),
            '\u{1fb7}' => out.push_str("\u{3b1}\u{342}\u{3b9}"),
            '\u{1fc2}' => out.push_str("\u{1f74}\u{3b9}"),
            '\u{1fc3}' | '\u{1fcc}' => out.push_str("\u{3b7}\u{3b9}"),
            '\u{1fc4}' => out.push_str("\u{3ae}\u{3b9}"),
            '\u{1fc6}' => out.push_str("\u{3b7}\u{342}"),
            '\u{1fc7}' => out.push_str("\u{3b7}\u{342}\u{3b9}"),
            '\u{1fd2}' => out.push_str("\u{3b9}\u{308}\u{300}"),
            '\u{1fd6}' => out.push_str("\u{3b9}\u{342}"),
            '\u{1fd7}' => out.push_str("\u{3b9}\u{308}\u{342}"),
            '\u{1fe2}' => out.push_str("\u{3c5}\u{308}\u{300}"),
            '\u{1fe4}' => out.push_str("\u{3c1}\u{313}"),
            '\u{1fe6}' => out.push_str("\u{3c5}\u{342}"),
            '\u{1fe7}' => out.push_str("\u{3c5}\u{308}\u{342}"),
            '\u{1ff2}' => out.push_str("\u{1f7c}\u{3b9}"),
            '\u{1ff3}' | '\u{1ffc}' => out.push_str("\u{3c9}\u{3b9}"),
            '\u{1ff4}' => out.push_str("\u{3ce}\u{3b9}"),
            '\u{1ff6}' => out.push_str("\u{3c9}\u{342}"),
            '\u{1ff7}' => out.push_str("\u{3c9}\u{342}\u{3b9}"),
            '\u{fb00}' => out.push_str("ff"),
            '\u{fb01}' => out.push_str("fi"),
            '\u{fb02}' => out.push_str("fl"),
            '\u{fb03}' => out.push_str("ffi"),
            '\u{fb04}' => out.push_str("ffl"),
            '\u{fb05}' | '\u{fb06}' => out.push_str("st"),
            '\u{fb13}' => out.push_str("\u{574}\u{576}"),
            '\u{fb14}' => out.push_str("\u{574}\u{565}"),
            '\u{fb15}' => out.push_str("\u{574}\u{56b}"),
            '\u{fb16}' => out.push_str("\u{57e}\u{576}"),
            '\u{fb17}' => out.push_str("\u{574}\u{56d}"),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// The Cherokee capital a small letter (U+13F8..U+13FD, U+AB70..U+ABBF) folds to.
fn cherokee_capital(c: char) -> char {
    let c = u32::from(c);
    let capital = if c >= 0xab70 {
        c - 0xab70 + 0x13a0
    } else {
        c - 8
    };
    char::from_u32(capital).unwrap_or('\u{fffd}')
}

/// `s.format(...)` or `s.format_map(mapping)`; with `escape`, as `Markup`'s, whose formatter
/// escapes each field it prints.
pub(super) fn format_method<'a>(
    ctx: &Ctx<'a>,
    s: &str,
    name: &str,
    args: &[Value<'a>],
    kw: Kwargs<'_, 'a>,
    escape: bool,
) -> VResult<'a> {
    let fmt = if escape {
        crate::value::format::markup_format
    } else {
        crate::value::format::str_format
    };
    let mut out = String::new();
    if name == "format_map" {
        let [mapping] = bind(name, ["mapping"], args, kw)?;
        let pairs = mapping_pairs(ctx, mapping.unwrap_or(Value::None))?;
        fmt(ctx, &mut out, s, &[], &pairs)?;
    } else {
        fmt(ctx, &mut out, s, args, kw)?;
    }
    Ok(ctx.str(&out))
}

fn unicode_ident_start(c: char) -> bool {
    c.is_alphabetic()
}

fn unicode_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric() || matches!(c, '\u{300}'..='\u{36f}' | '\u{200c}' | '\u{200d}')
}

/// Python's `str.isprintable` per character: not a control, separator (other than the
/// space), format, surrogate or private-use character.
fn is_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    !(c.is_control()
        || c.is_whitespace()
        || matches!(c, '\u{ad}' | '\u{600}'..='\u{605}' | '\u{61c}' | '\u{6dd}' | '\u{70f}'
            | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}' | '\u{e000}'..='\u{f8ff}'
            | '\u{f0000}'..='\u{10ffff}' | '\u{e0001}' | '\u{e0020}'..='\u{e007f}'))
}

/// The items of a mapping as keyword arguments (`str.format_map`); keys must be strings.
fn mapping_pairs<'a>(ctx: &Ctx<'a>, m: Value<'a>) -> Result<Vec<(&'a str, Value<'a>)>, Error> {
    match m {
        Value::Dict(entries) => entries
            .iter()
            .map(|(k, v)| match k {
                Value::Str(s) => Ok((*s, *v)),
                other => Err(err!(
                    Type,
                    "format_map keys must be strings, not {}",
                    other.type_name()
                )),
            })
            .collect(),
        Value::Json(serde_json::Value::Object(o)) => Ok(o
            .iter()
            .map(|(k, v)| (k.as_str(), Value::from_json_in(v, ctx)))
            .collect()),
        other => Err(err!(
            Type,
            "'{}' object is not a mapping",
            other.type_name()
        )),
    }
}

#[cfg(test)]
mod unit {
    use super::super::args::testutil::{leak, s as show, with_ctx};
    use super::*;

    fn m(
        s: &str,
        name: &str,
        a: &[Value<'static>],
        k: &[(&'static str, Value<'static>)],
    ) -> String {
        with_ctx(|ctx| {
            let s = ctx.arena.alloc_str(s);
            match call(ctx, s, name, a, k) {
                Ok(v) => match v {
                    Value::List(items) | Value::Tuple(items) => {
                        let parts: Vec<String> = items.iter().map(show).collect();
                        format!("[{}]", parts.join("|"))
                    }
                    v => show(&v),
                },
                Err(e) => format!("!{:?}", e.kind()),
            }
        })
    }

    #[test]
    fn split_family() {
        assert_eq!(m("  a b\t c  ", "split", &[], &[]), "[a|b|c]");
        assert_eq!(
            m("a b c", "split", &[Value::None, Value::Int(1)], &[]),
            "[a|b c]"
        );
        assert_eq!(
            m(" a b c ", "rsplit", &[], &[("maxsplit", Value::Int(1))]),
            "[ a b|c]"
        );
        assert_eq!(m("a,b,,c", "split", &[Value::Str(",")], &[]), "[a|b||c]");
        assert_eq!(
            m("a,b,c", "rsplit", &[Value::Str(","), Value::Int(1)], &[]),
            "[a,b|c]"
        );
        assert_eq!(m("a", "split", &[Value::Str("")], &[]), "!Value");
        assert_eq!(m("", "split", &[], &[]), "[]");
        assert_eq!(m("", "split", &[Value::Str(",")], &[]), "[]");
        assert_eq!(m("a\nb\r\n", "splitlines", &[], &[]), "[a|b]");
        assert_eq!(
            m("a=b=c", "partition", &[Value::Str("=")], &[]),
            "[a|=|b=c]"
        );
        assert_eq!(m("abc", "rpartition", &[Value::Str("=")], &[]), "[||abc]");
    }

    #[test]
    fn strip_find_and_friends() {
        assert_eq!(m(" \n x \t", "strip", &[], &[]), "x");
        assert_eq!(m("xxaxx", "lstrip", &[Value::Str("x")], &[]), "axx");
        assert_eq!(m("xxaxx", "rstrip", &[Value::Str("x")], &[]), "xxa");
        assert_eq!(m("héllo", "find", &[Value::Str("l")], &[]), "2");
        assert_eq!(m("héllo", "rfind", &[Value::Str("l")], &[]), "3");
        assert_eq!(
            m("héllo", "find", &[Value::Str("l"), Value::Int(-2)], &[]),
            "3"
        );
        assert_eq!(m("abc", "find", &[Value::Str(""), Value::Int(3)], &[]), "3");
        assert_eq!(
            m("abc", "find", &[Value::Str(""), Value::Int(4)], &[]),
            "-1"
        );
        assert_eq!(m("abc", "index", &[Value::Str("z")], &[]), "!Value");
        assert_eq!(m("aaa", "count", &[Value::Str("a")], &[]), "3");
        assert_eq!(m("aaa", "count", &[Value::Str("")], &[]), "4");
        assert_eq!(
            m("abc", "startswith", &[Value::Str("b"), Value::Int(1)], &[]),
            "True"
        );
        let tup = leak([Value::Str("x"), Value::Str("c")]);
        assert_eq!(m("abc", "endswith", &[Value::Tuple(tup)], &[]), "True");
        assert_eq!(m("abc", "endswith", &[Value::Int(1)], &[]), "!Type");
    }

    #[test]
    fn case_and_padding() {
        assert_eq!(
            m("they're bill's 1st", "title", &[], &[]),
            "They'Re Bill'S 1St"
        );
        assert_eq!(m("hELLO", "capitalize", &[], &[]), "Hello");
        assert_eq!(m("aB", "swapcase", &[], &[]), "Ab");
        // Python's full mappings: title case is not upper case for ß, ligatures, digraphs
        // and Greek with the iota; a capital sigma lowers to ς at the end of a word.
        assert_eq!(
            m("ßtraße ﬁsh ǆemal", "title", &[], &[]),
            "Sstraße Fish ǅemal"
        );
        assert_eq!(m("ΟΔΟΣ ΣΑΣ", "title", &[], &[]), "Οδος Σας");
        assert_eq!(m("ᾳσ ΟΔΟΣ", "capitalize", &[], &[]), "ᾼσ οδος");
        assert_eq!(m("ǅ ΟΔΟΣ", "swapcase", &[], &[]), "ǅ οδος");
        assert_eq!(m("ǅemal", "istitle", &[], &[]), "True");
        assert_eq!(m("ᾳ ß Ꭰ ꭰ", "casefold", &[], &[]), "αι ss Ꭰ Ꭰ");
        assert_eq!(m("A1", "isupper", &[], &[]), "True");
        assert_eq!(m("Ab Cd", "istitle", &[], &[]), "True");
        assert_eq!(m("-42", "zfill", &[Value::Int(5)], &[]), "-0042");
        assert_eq!(
            m("ab", "center", &[Value::Int(5), Value::Str("*")], &[]),
            "**ab*"
        );
        assert_eq!(m("ab", "ljust", &[Value::Int(4)], &[]), "ab  ");
        // Widths past the value limit fail before anything is allocated.
        let huge = Value::Int(1_000_000_000_000);
        for name in ["center", "ljust", "rjust", "zfill"] {
            assert_eq!(m("ab", name, &[huge], &[]), "!Limit(Output)", "{name}");
        }
        assert_eq!(
            m("ab", "replace", &[Value::Str(""), Value::Str("x")], &[]),
            "xaxbx"
        );
        assert_eq!(m("\t", "expandtabs", &[huge], &[]), "!Limit(Output)");
        assert_eq!(
            m("ab", "rjust", &[Value::Int(4), Value::Str("xy")], &[]),
            "!Type"
        );
        assert_eq!(
            m(
                "aXa",
                "replace",
                &[Value::Str("a"), Value::Str("b"), Value::Int(1)],
                &[]
            ),
            "bXa"
        );
        assert_eq!(
            m("a\tbc\tx\n\ty", "expandtabs", &[Value::Int(4)], &[]),
            "a   bc  x\n    y"
        );
        assert_eq!(
            m("prefix-x", "removeprefix", &[Value::Str("prefix-")], &[]),
            "x"
        );
        let items = leak([Value::Str("a"), Value::Str("b")]);
        assert_eq!(m(", ", "join", &[Value::List(items)], &[]), "a, b");
        assert_eq!(
            m(", ", "join", &[Value::List(&[Value::Int(1)])], &[]),
            "!Type"
        );
    }
}
