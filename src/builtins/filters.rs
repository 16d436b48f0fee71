//! Filters on single values: strings, numbers, `default`, `tojson`, `attr`, `first`/`last`.
//! Sequence filters are in [`super::seqfilters`].

use crate::error::{err, Error, ExceptionClass};
use crate::value::json::opts_from_args;
use crate::value::markup;
use crate::value::ops;
use crate::value::{Ctx, IterKind, VResult, Value};

use super::args::{bind, int_arg, no_args, opt_int_arg, splitlines, str_arg, to_str};
use super::strmethods::{center, check_replace, py_replace, py_strip, Strip};
use super::{FilterFn, Kwargs};

/// The value filter called `name`, if there is one.
pub(super) fn lookup(name: &str) -> Option<FilterFn> {
    let f: FilterFn = match name {
        // `Markup(v)` with autoescape off.
        "safe" => |ctx, v, a, k| {
            no_args("safe", a, k)?;
            Ok(markup::mark_safe(ctx, v))
        },
        // markupsafe's `soft_str`: a Markup stays one.
        "string" => |ctx, v, a, k| {
            no_args("string", a, k)?;
            Ok(match v {
                Value::Str(_) | Value::Markup(_) => v,
                other => Value::Str(to_str(ctx, &other)),
            })
        },
        "tojson" => tojson as FilterFn,
        "trim" => |ctx, v, a, k| {
            let [chars] = bind("trim", ["chars"], a, k)?;
            let s = to_str(ctx, &v);
            let r = Value::Str(py_strip(s, chars.as_ref(), Strip::Both)?);
            Ok(keep_markup(ctx, &v, r))
        },
        "lower" => |ctx, v, a, k| {
            no_args("lower", a, k)?;
            let r = super::strfast::lower(ctx, to_str(ctx, &v));
            Ok(keep_markup(ctx, &v, r))
        },
        "upper" => |ctx, v, a, k| {
            no_args("upper", a, k)?;
            let r = super::strfast::upper(ctx, to_str(ctx, &v));
            Ok(keep_markup(ctx, &v, r))
        },
        "capitalize" => |ctx, v, a, k| {
            no_args("capitalize", a, k)?;
            let r = super::strfast::capitalize(ctx, to_str(ctx, &v));
            Ok(keep_markup(ctx, &v, r))
        },
        "title" => |ctx, v, a, k| {
            no_args("title", a, k)?;
            Ok(super::strfast::jinja_title(ctx, to_str(ctx, &v)))
        },
        "replace" => |ctx, v, a, k| {
            let [old, new, count] = bind("replace", ["old", "new", "count"], a, k)?;
            let (Some(old), Some(new)) = (old, new) else {
                return Err(err!(Type, "do_replace() missing required arguments"));
            };
            let count = opt_int_arg(count)?.unwrap_or(-1);
            let (s, old, new) = (to_str(ctx, &v), to_str(ctx, &old), to_str(ctx, &new));
            check_replace(ctx, s, old, new, count)?;
            Ok(super::strmethods::cow_value(
                ctx,
                py_replace(s, old, new, count),
            ))
        },
        "indent" => indent as FilterFn,
        "int" => super::numbers::int_filter as FilterFn,
        "float" => super::numbers::float_filter as FilterFn,
        "round" => super::numbers::round_filter as FilterFn,
        "abs" => |ctx, v, a, k| {
            no_args("abs", a, k)?;
            match v {
                Value::Int(i) => Ok(ctx.int(i128::from(i).abs())),
                Value::Big(b) if b.is_negative() => ctx.big(-b.to_bigint()),
                Value::Big(_) => Ok(v),
                Value::Bool(b) => Ok(Value::Int(i64::from(b))),
                Value::Float(f) => Ok(Value::Float(f.abs())),
                other => Err(err!(
                    Type,
                    "bad operand type for abs(): '{}'",
                    other.type_name()
                )),
            }
        },
        "default" | "d" => |_, v, a, k| {
            let [dv, boolean] = bind("default", ["default_value", "boolean"], a, k)?;
            let boolean = boolean.is_some_and(|b| b.is_true());
            if v.is_undefined() || (boolean && !v.is_true()) {
                Ok(dv.unwrap_or(Value::Str("")))
            } else {
                Ok(v)
            }
        },
        "format" => |ctx, v, a, k| {
            if !a.is_empty() && !k.is_empty() {
                return Err(err!(
                    Runtime,
                    "can't handle positional and keyword arguments at the same time"
                ));
            }
            let args = if k.is_empty() {
                Value::Tuple(ctx.slice(a.iter().copied()))
            } else {
                let d = k.iter().map(|(n, x)| (Value::Str(n), *x));
                let mut v = bumpalo::collections::Vec::new_in(ctx.arena);
                v.extend(d);
                Value::Dict(v.into_bump_slice())
            };
            if let Value::Markup(_) = v {
                // `Markup % args` escapes the arguments.
                return markup::binop(ctx, ops::BinOp::Mod, v, args);
            }
            let mut out = String::new();
            crate::value::format::percent(ctx, &mut out, to_str(ctx, &v), args)?;
            Ok(ctx.str(&out))
        },
        "center" => |ctx, v, a, k| {
            let [width] = bind("center", ["width"], a, k)?;
            let width = width.map_or(Ok(80), |w| int_arg(&w))?;
            let r = ctx.str(&center(ctx, to_str(ctx, &v), width, ' ')?);
            Ok(keep_markup(ctx, &v, r))
        },
        "truncate" => truncate as FilterFn,
        "wordcount" => |ctx, v, a, k| {
            no_args("wordcount", a, k)?;
            Ok(Value::Int(wordcount(to_str(ctx, &v)) as i64))
        },
        // markupsafe's `escape`: a Markup is already safe and comes back unchanged.
        "escape" | "e" => |ctx, v, a, k| {
            no_args("escape", a, k)?;
            Ok(markup::escape(ctx, v))
        },
        // `escape(str(v))`: escapes even a Markup.
        "forceescape" => |ctx, v, a, k| {
            no_args("forceescape", a, k)?;
            Ok(markup::escape(ctx, v.demark()))
        },
        "striptags" => |ctx, v, a, k| {
            no_args("striptags", a, k)?;
            Ok(ctx.str(&striptags(to_str(ctx, &v))))
        },
        "attr" => attr as FilterFn,
        "length" | "count" => |_, v, a, k| {
            no_args("length", a, k)?;
            match v {
                Value::Undefined(_) => Ok(Value::Int(0)),
                other => Ok(Value::Int(ops::length(&other)? as i64)),
            }
        },
        "first" => |ctx, v, a, k| {
            no_args("first", a, k)?;
            Ok(ops::iterate(ctx, v)?
                .first()
                .copied()
                .unwrap_or(Value::UNDEFINED))
        },
        "last" => last as FilterFn,
        "pprint" => |ctx, v, a, k| {
            no_args("pprint", a, k)?;
            Ok(ctx.str(&crate::value::pprint::pformat(&v)))
        },
        "xmlattr" => xmlattr as FilterFn,
        "urlencode" => urlencode as FilterFn,
        "filesizeformat" => filesizeformat as FilterFn,
        "wordwrap" => wordwrap as FilterFn,
        "random" => |ctx, v, a, k| {
            // Deterministic: the first item (exact whenever there is only one).
            no_args("random", a, k)?;
            Ok(ops::iterate(ctx, v)?
                .first()
                .copied()
                .unwrap_or(Value::UNDEFINED))
        },
        "urlize" => super::urlize::urlize as FilterFn,
        _ => return None,
    };
    Some(f)
}

/// `r` as a Markup when the filter's input `v` was one (jinja2's string filters call the
/// Markup's own method through `soft_str`).
fn keep_markup<'a>(ctx: &Ctx<'a>, v: &Value<'a>, r: Value<'a>) -> Value<'a> {
    match v {
        Value::Markup(_) => markup::wrap(ctx, r),
        _ => r,
    }
}

/// `tojson`, transformers' version: `json.dumps(x, ensure_ascii=False, indent=None,
/// separators=None, sort_keys=False)`.
fn tojson<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let opts = opts_from_args(ctx, a, k)?;
    Ok(Value::Str(crate::value::json::dumps_to_arena(
        ctx, &v, &opts,
    )?))
}

/// `indent(width=4, first=False, blank=False)`.
fn indent<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    if let Value::Markup(s) = v {
        // jinja2 indents a Markup with a Markup newline: the result stays one.
        return Ok(markup::wrap(ctx, indent(ctx, Value::Str(s), a, k)?));
    }
    let [width, first, blank] = bind("indent", ["width", "first", "blank"], a, k)?;
    let ind: &str = match width {
        None => "    ",
        Some(Value::Str(s)) => s,
        Some(w) => {
            let w = usize::try_from(int_arg(&w)?).unwrap_or(0);
            ctx.check_bytes(w)?;
            ctx.arena.alloc_str(&" ".repeat(w))
        }
    };
    let s = match v {
        Value::Str(s) => s,
        Value::Undefined(_) => return Err(ops::undefined_error(&v)),
        // jinja2 does `s += "\n"` (which extends a list) and then `s.splitlines()`.
        Value::List(_) | Value::Json(serde_json::Value::Array(_)) => {
            return Err(no_splitlines(&v));
        }
        other => {
            return Err(err!(
                Type,
                "unsupported operand type(s) for +=: '{}' and 'str'",
                other.type_name()
            ))
        }
    };
    let mut src = String::with_capacity(s.len() + 1);
    src.push_str(s);
    src.push('\n');
    let lines = splitlines(&src);
    // At most one indent a line after the first, plus one with `first`: checked before
    // building.
    let first = first.is_some_and(|f| f.is_true());
    let bytes = ind
        .len()
        .checked_mul(lines.len().saturating_sub(1) + usize::from(first))
        .and_then(|b| b.checked_add(s.len()));
    ctx.check_bytes(bytes.unwrap_or(usize::MAX))?;
    let mut out = String::with_capacity(s.len() * 2);
    if first {
        out.push_str(ind);
    }
    let blank = blank.is_some_and(|b| b.is_true());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            if blank || !line.is_empty() {
                out.push_str(ind);
            }
        }
        out.push_str(line);
    }
    Ok(ctx.str(&out))
}

/// `truncate(length=255, killwords=False, end='...', leeway=None)` (leeway defaults to 5).
fn truncate<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let [length, killwords, end, leeway] =
        bind("truncate", ["length", "killwords", "end", "leeway"], a, k)?;
    let length = length.map_or(Ok(255), |l| int_arg(&l))?;
    let end = match end {
        Some(e) => str_arg("truncate", &e)?,
        None => "...",
    };
    let leeway = opt_int_arg(leeway)?.unwrap_or(5);
    let end_len = end.chars().count() as i64;
    if length < end_len {
        // jinja2's `assert`.
        return Err(err!(Value, "expected length >= {end_len}, got {length}")
            .with_class(ExceptionClass::AssertionError));
    }
    if leeway < 0 {
        // jinja2's `assert`.
        return Err(err!(Value, "expected leeway >= 0, got {leeway}")
            .with_class(ExceptionClass::AssertionError));
    }
    let s = match v {
        Value::Str(s) | Value::Markup(s) => s,
        other => {
            let n = match other {
                Value::Undefined(_) => 0,
                _ => ops::length(&other)?,
            };
            if n as i64 <= length + leeway {
                return Ok(other);
            }
            return Err(err!(Type, "truncate expects a string"));
        }
    };
    if s.chars().count() as i64 <= length + leeway {
        return Ok(v);
    }
    let keep = usize::try_from(length - end_len).unwrap_or(0);
    let cut = s.char_indices().nth(keep).map_or(s, |(i, _)| &s[..i]);
    let body = if killwords.is_some_and(|k| k.is_true()) {
        cut
    } else {
        cut.rsplit_once(' ').map_or(cut, |(head, _)| head)
    };
    let mut out = String::with_capacity(body.len() + end.len());
    out.push_str(body);
    if let Value::Markup(_) = v {
        // `Markup[:n] + end`: the end is escaped and the result is a Markup.
        markup::escape_into(&mut out, end);
        return Ok(Value::Markup(ctx.arena.alloc_str(&out)));
    }
    out.push_str(end);
    Ok(ctx.str(&out))
}

/// `attr(name)`: an attribute, never a key; sandbox-unsafe attributes are undefined.
fn attr<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let [name] = bind("attr", ["name"], a, k)?;
    let name = str_arg("attr", &name.unwrap_or(Value::None))?;
    match v {
        Value::Undefined(_) => Err(ops::undefined_error(&v)),
        _ if crate::value::methods::is_mutator(&v, name) || name.starts_with('_') => {
            Ok(Value::UNDEFINED)
        }
        Value::Dict(_) | Value::Json(_) | Value::List(_) | Value::Tuple(_) | Value::Str(_) => {
            if crate::value::methods::has_method(&v, name) {
                ops::getattr(ctx, v, name)
            } else {
                Ok(Value::UNDEFINED)
            }
        }
        _ => ops::getattr(ctx, v, name),
    }
}

/// `last`: `next(reversed(seq))`.
fn last<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    no_args("last", a, k)?;
    match v {
        // `seq[-1]`-like: the last character of a Markup is a Markup.
        Value::Markup(s) => Ok(s
            .char_indices()
            .last()
            .map_or(Value::UNDEFINED, |(i, _)| Value::Markup(&s[i..]))),
        Value::Iter(s) if matches!(s.kind, IterKind::Generator(_) | IterKind::Reverse(_)) => {
            Err(err!(Type, "'{}' object is not reversible", v.type_name()))
        }
        Value::Undefined(_)
        | Value::Str(_)
        | Value::List(_)
        | Value::Tuple(_)
        | Value::Dict(_)
        | Value::Json(_)
        | Value::Iter(_) => Ok(ops::iterate(ctx, v)?
            .last()
            .copied()
            .unwrap_or(Value::UNDEFINED)),
        other => Err(err!(
            Type,
            "'{}' object is not reversible",
            other.type_name()
        )),
    }
}

/// jinja2's `title`: the first character of every word (after `-`, whitespace or an opening
/// bracket) upper-cased, the rest lower-cased.
pub(crate) fn title(s: &str) -> String {
    let is_sep = |c: char| {
        c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || super::args::is_py_space(c)
    };
    let mut out = String::with_capacity(s.len());
    // Each run of separators or of other characters is `item[0].upper() + item[1:].lower()`:
    // the rest lowered as one string (a capital sigma by its context there).
    let mut rest = s;
    while let Some(first) = rest.chars().next() {
        let sep = is_sep(first);
        let end = rest
            .char_indices()
            .find(|&(_, c)| is_sep(c) != sep)
            .map_or(rest.len(), |(i, _)| i);
        out.extend(first.to_uppercase());
        out.push_str(&rest[first.len_utf8()..end].to_lowercase());
        rest = &rest[end..];
    }
    out
}

/// `xmlattr(autospace=True)`: ` key="value"` pairs, HTML-escaped, skipping None and
/// Undefined values.
fn xmlattr<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let [autospace] = bind("xmlattr", ["autospace"], a, k)?;
    if v.is_undefined() {
        return Err(ops::undefined_error(&v));
    }
    let p = super::args::pairs(ctx, &v).ok_or_else(|| {
        err!(Type, "'{}' object has no attribute 'items'", v.type_name())
            .with_class(ExceptionClass::AttributeError)
    })?;
    let mut out = String::new();
    for (key, val) in p {
        if matches!(val, Value::None | Value::Undefined(_)) {
            continue;
        }
        let Value::Str(key) = key else {
            return Err(err!(Type, "expected string or bytes-like object"));
        };
        if key
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '/' | '>' | '='))
        {
            return Err(err!(Value, "Invalid character in attribute name: '{key}'"));
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&escape(key));
        out.push_str("=\"");
        out.push_str(&escape(to_str(ctx, val)));
        out.push('"');
    }
    if !out.is_empty() && autospace.map_or(true, |s| s.is_true()) {
        out.insert(0, ' ');
    }
    Ok(ctx.str(&out))
}

/// `urlencode`: a percent-quoted string, or `k=v&...` for a mapping or pairs.
fn urlencode<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    no_args("urlencode", a, k)?;
    let pairs: Vec<(Value<'a>, Value<'a>)> = match v {
        Value::Str(_) | Value::Markup(_) => return Ok(ctx.str(&url_quote(to_str(ctx, &v), false))),
        _ if !super::tests::is_iterable(&v) => {
            return Ok(ctx.str(&url_quote(to_str(ctx, &v), false)))
        }
        _ => match super::args::pairs(ctx, &v) {
            Some(p) => p.to_vec(),
            None => {
                let mut out = Vec::new();
                for item in ops::iterate(ctx, v)? {
                    match ops::iterate(ctx, *item)? {
                        [k, x] => out.push((*k, *x)),
                        _ => return Err(err!(Value, "too many values to unpack (expected 2)")),
                    }
                }
                out
            }
        },
    };
    let mut out = String::new();
    for (i, (key, val)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(&url_quote(to_str(ctx, key), true));
        out.push('=');
        out.push_str(&url_quote(to_str(ctx, val), true));
    }
    Ok(ctx.str(&out))
}

/// jinja2's `url_quote`: UTF-8 percent-encoding of all but `A-Za-z0-9_.-~` (and `/` outside
/// query strings, where a space becomes `+`).
fn url_quote(s: &str, for_qs: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(b as char)
            }
            b'/' if !for_qs => out.push('/'),
            b' ' if for_qs => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `filesizeformat(binary=False)`: `1 Byte`, `12 Bytes`, `1.2 kB`, `1.0 KiB`.
fn filesizeformat<'a>(
    ctx: &Ctx<'a>,
    v: Value<'a>,
    a: &[Value<'a>],
    k: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let [binary] = bind("filesizeformat", ["binary"], a, k)?;
    let binary = binary.is_some_and(|b| b.is_true());
    let n = match super::numbers::float_filter(ctx, v, &[Value::Float(f64::NAN)], &[])? {
        Value::Float(f) if !f.is_nan() => f,
        _ => return Err(err!(Value, "could not convert to float")),
    };
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let prefixes = if binary {
        ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"]
    } else {
        ["kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
    };
    let text = if n == 1.0 {
        "1 Byte".to_string()
    } else if n < base {
        format!("{} Bytes", n.trunc() as i64)
    } else {
        let mut out = String::new();
        for (i, p) in prefixes.iter().enumerate() {
            let unit = base.powi(i as i32 + 2);
            if n < unit || i == prefixes.len() - 1 {
                out = format!("{:.1} {p}", base * n / unit);
                break;
            }
        }
        out
    };
    Ok(ctx.str(&text))
}

/// Python's AttributeError for `v.splitlines()` on a value that is not a string.
fn no_splitlines(v: &Value<'_>) -> Error {
    err!(
        Type,
        "'{}' object has no attribute 'splitlines'",
        v.type_name()
    )
    .with_class(ExceptionClass::AttributeError)
}

/// `wordwrap(width=79, break_long_words=True, wrapstring='\n', break_on_hyphens=True)`:
/// each line (Python's line boundaries) wrapped as jinja2 wraps it, with Python's
/// `textwrap.wrap` (tabs and other whitespace kept as they are), lines joined by `wrapstring`.
fn wordwrap<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let [width, break_long, wrapstring, hyphens] = bind(
        "wordwrap",
        [
            "width",
            "break_long_words",
            "wrapstring",
            "break_on_hyphens",
        ],
        a,
        k,
    )?;
    let width = width.map_or(Ok(79), |w| int_arg(&w))?;
    let wrap = Wrap {
        break_long: break_long.map_or(true, |b| b.is_true()),
        hyphens: hyphens.map_or(true, |b| b.is_true()),
    };
    let sep = wrapstring.map_or("\n", |w| to_str(ctx, &w));
    // jinja2 wraps each of `s.splitlines()`: a string's, or Python's error.
    let text = match v {
        Value::Str(s) | Value::Markup(s) => s,
        Value::Undefined(_) => return Err(ops::undefined_error(&v)),
        _ => return Err(no_splitlines(&v)),
    };
    let lines = splitlines(text);
    // textwrap refuses the width when it wraps a line (an empty text has none).
    if width <= 0 && !lines.is_empty() {
        return Err(err!(Value, "invalid width {width} (must be > 0)"));
    }
    let width = usize::try_from(width).unwrap_or(1);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        for (j, wrapped) in wrap.lines(line, width).iter().enumerate() {
            if j > 0 {
                out.push_str(sep);
            }
            out.push_str(wrapped);
        }
        ctx.check_bytes(out.len())?;
    }
    Ok(ctx.str(&out))
}

/// Python's `textwrap.TextWrapper` as jinja2's `wordwrap` sets it up (no tab expansion, no
/// whitespace replacement, whitespace dropped at line ends).
struct Wrap {
    break_long: bool,
    hyphens: bool,
}

/// textwrap's whitespace: ASCII only.
fn wrap_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ')
}

/// `\w` of Python's `re`: alphanumeric (as `str.isalnum`) or `_`.
fn word_char(c: char) -> bool {
    c == '_' || super::pyunicode::is_alnum(c)
}

/// `[^\d\W]`: a word character that is not a decimal digit.
fn letter(c: char) -> bool {
    word_char(c) && !super::strmethods::is_digit(c, true)
}

/// `[\w!"'&.,?]`: what an em-dash may follow.
fn word_punct(c: char) -> bool {
    word_char(c) || matches!(c, '!' | '"' | '\'' | '&' | '.' | ',' | '?')
}

impl Wrap {
    /// The chunks of `text`: textwrap's `wordsep_re` (words, hyphenated parts, em-dashes,
    /// whitespace runs) with `break_on_hyphens`, else whitespace runs and what lies between.
    fn chunks(&self, text: &[char]) -> Vec<std::ops::Range<usize>> {
        let at = |i: usize| text.get(i).copied();
        let is = |i: usize, f: fn(char) -> bool| at(i).is_some_and(f);
        // `-{2,}\w` at `i`.
        let dashes_then_word = |i: usize| {
            let mut j = i;
            while at(j) == Some('-') {
                j += 1;
            }
            j >= i + 2 && is(j, word_char)
        };
        let mut out = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let start = i;
            if is(i, wrap_space) {
                while is(i, wrap_space) {
                    i += 1;
                }
            } else if !self.hyphens {
                while i < text.len() && !is(i, wrap_space) {
                    i += 1;
                }
            } else if i > 0 && is(i - 1, word_punct) && dashes_then_word(i) {
                // An em-dash between words.
                while at(i) == Some('-') {
                    i += 1;
                }
            } else {
                // The shortest run of non-space that ends a word: before a hyphen that
                // joins letters (kept with it), before whitespace or the end, or before an
                // em-dash.
                i += 1;
                loop {
                    let hyphen = at(i) == Some('-')
                        && ((i >= 2 && is(i - 2, letter) && is(i - 1, letter))
                            || (i >= 3
                                && is(i - 3, letter)
                                && at(i - 2) == Some('-')
                                && is(i - 1, letter)))
                        && is(i + 1, letter)
                        && (is(i + 2, letter) || (at(i + 2) == Some('-') && is(i + 3, letter)));
                    if hyphen {
                        i += 1;
                        break;
                    }
                    if i >= text.len() || is(i, wrap_space) {
                        break;
                    }
                    if is(i - 1, word_punct) && dashes_then_word(i) {
                        break;
                    }
                    i += 1;
                }
            }
            out.push(start..i);
        }
        out
    }

    /// `textwrap.wrap(line, width)`.
    fn lines(&self, line: &str, width: usize) -> Vec<String> {
        let text: Vec<char> = line.chars().collect();
        // `chunk.strip() == ""`: Python's whitespace.
        let blank = |r: &std::ops::Range<usize>| {
            text[r.clone()].iter().all(|&c| super::args::is_py_space(c))
        };
        // Reversed, as textwrap keeps them: the next chunk is the last.
        let mut chunks: Vec<std::ops::Range<usize>> = self.chunks(&text);
        chunks.reverse();
        let mut lines = Vec::new();
        while !chunks.is_empty() {
            let mut cur: Vec<std::ops::Range<usize>> = Vec::new();
            let mut cur_len = 0;
            if !lines.is_empty() && chunks.last().is_some_and(blank) {
                chunks.pop();
            }
            while let Some(next) = chunks.last() {
                if cur_len + next.len() <= width {
                    cur_len += next.len();
                    cur.extend(chunks.pop());
                } else {
                    break;
                }
            }
            if chunks.last().is_some_and(|c| c.len() > width) {
                self.long_word(&text, &mut chunks, &mut cur, cur_len, width);
            }
            if cur.last().is_some_and(blank) {
                cur.pop();
            }
            if !cur.is_empty() {
                lines.push(cur.iter().flat_map(|r| text[r.clone()].iter()).collect());
            }
        }
        lines
    }

    /// textwrap's `_handle_long_word`: as much of the long chunk as fits (up to its last
    /// hyphen that fits, with `break_on_hyphens`), or the whole chunk on an empty line when
    /// long words are not broken.
    fn long_word(
        &self,
        text: &[char],
        chunks: &mut Vec<std::ops::Range<usize>>,
        cur: &mut Vec<std::ops::Range<usize>>,
        cur_len: usize,
        width: usize,
    ) {
        let space_left = if width < 1 {
            1
        } else {
            width.saturating_sub(cur_len)
        };
        let Some(chunk) = chunks.last_mut() else {
            return;
        };
        if self.break_long {
            let mut end = space_left;
            if self.hyphens && chunk.len() > space_left {
                let part = &text[chunk.start..chunk.start + space_left];
                if let Some(h) = part.iter().rposition(|&c| c == '-') {
                    if h > 0 && part[..h].iter().any(|&c| c != '-') {
                        end = h + 1;
                    }
                }
            }
            let end = end.min(chunk.len());
            cur.push(chunk.start..chunk.start + end);
            chunk.start += end;
        } else if cur.is_empty() {
            cur.extend(chunks.pop());
        }
    }
}

/// The number of `\w+` runs.
fn wordcount(s: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for c in s.chars() {
        let w = word_char(c);
        if w && !in_word {
            n += 1;
        }
        in_word = w;
    }
    n
}

/// markupsafe's `escape`: `& < > " '` as HTML entities.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// markupsafe's `striptags`: drops comments and tags, collapses whitespace, unescapes.
fn striptags(s: &str) -> String {
    let mut v = s.to_string();
    for (open, close) in [("<!--", "-->"), ("<", ">")] {
        while let Some(start) = v.find(open) {
            let Some(end) = v[start..].find(close) else {
                break;
            };
            v.replace_range(start..start + end + close.len(), "");
        }
    }
    let collapsed = v.split_whitespace().collect::<Vec<_>>().join(" ");
    unescape(&collapsed)
}

/// Decodes the common HTML entities (named ones of markup, and numeric ones).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let ent = rest[1..].find(';').map(|j| &rest[1..j + 1]);
        let decoded = ent.and_then(|e| match e {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{a0}'),
            _ => e.strip_prefix('#').and_then(|n| {
                let code = match n.strip_prefix(['x', 'X']) {
                    Some(h) => u32::from_str_radix(h, 16).ok(),
                    None => n.parse().ok(),
                };
                code.and_then(char::from_u32)
            }),
        });
        match (ent, decoded) {
            (Some(e), Some(c)) => {
                out.push(c);
                rest = &rest[e.len() + 2..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod unit {
    use super::super::args::testutil::{leak, s, with_ctx};
    use super::*;

    fn f(
        name: &str,
        v: Value<'static>,
        a: &[Value<'static>],
        k: &[(&'static str, Value<'static>)],
    ) -> String {
        with_ctx(|ctx| {
            let r = lookup(name).unwrap()(ctx, v, a, k);
            match r {
                Ok(v) => s(&v),
                Err(e) => format!("!{:?}", e.kind()),
            }
        })
    }

    #[test]
    fn string_filters() {
        assert_eq!(f("upper", Value::Int(5), &[], &[]), "5");
        assert_eq!(f("lower", Value::None, &[], &[]), "none");
        assert_eq!(f("trim", Value::Str("  x "), &[Value::Str("x ")], &[]), "");
        assert_eq!(f("trim", Value::Str("xAx"), &[Value::Str("x")], &[]), "A");
        assert_eq!(f("trim", Value::Str(" a\n"), &[], &[]), "a");
        assert_eq!(
            f("title", Value::Str("hello-world (foo)bar x_y"), &[], &[]),
            "Hello-World (Foo)bar X_y"
        );
        assert_eq!(f("title", Value::Str("ß x"), &[], &[]), "SS X");
        assert_eq!(
            f("capitalize", Value::Str("hELLO wORLD"), &[], &[]),
            "Hello world"
        );
        assert_eq!(
            f("center", Value::Str("ab"), &[Value::Int(5)], &[]),
            "  ab "
        );
        assert_eq!(
            f("center", Value::Str("abc"), &[Value::Int(6)], &[]),
            " abc  "
        );
        assert_eq!(
            f(
                "striptags",
                Value::Str("<a href=\"x\">Hi &amp; <!-- c --> there</a>  &lt;b&gt;"),
                &[],
                &[]
            ),
            "Hi & there <b>"
        );
        assert_eq!(
            f("e", Value::Str("<&>\"'"), &[], &[]),
            "&lt;&amp;&gt;&#34;&#39;"
        );
        assert_eq!(f("wordcount", Value::Str("a_b c-d 1 é"), &[], &[]), "5");
        assert_eq!(f("string", Value::UNDEFINED, &[], &[]), "");
    }

    #[test]
    fn replace_and_indent() {
        let (a, b) = (Value::Str("a"), Value::Str("b"));
        assert_eq!(
            f("replace", Value::Str("aaa"), &[a, b, Value::Int(2)], &[]),
            "bba"
        );
        assert_eq!(
            f(
                "replace",
                Value::Str("ab"),
                &[Value::Str(""), Value::Str("-")],
                &[]
            ),
            "-a-b-"
        );
        assert_eq!(
            f(
                "replace",
                Value::Int(5),
                &[Value::Int(5), Value::Int(6)],
                &[]
            ),
            "6"
        );
        assert_eq!(
            f("indent", Value::Str("a\nb\n\nc"), &[], &[]),
            "a\n    b\n\n    c"
        );
        let t = Value::Bool(true);
        assert_eq!(
            f(
                "indent",
                Value::Str("a\nb\n\nc"),
                &[Value::Int(2), t, t],
                &[]
            ),
            "  a\n  b\n  \n  c"
        );
        assert_eq!(
            f("indent", Value::Str("a\nb"), &[Value::Str(">")], &[]),
            "a\n>b"
        );
        assert_eq!(f("indent", Value::Str(""), &[], &[("first", t)]), "    ");
        assert_eq!(
            f("indent", Value::Str("a\r\nb"), &[Value::Int(1)], &[]),
            "a\n b"
        );
        assert_eq!(f("indent", Value::Int(5), &[], &[]), "!Type");
        assert_eq!(f("indent", Value::UNDEFINED, &[], &[]), "!Undefined");
    }

    #[test]
    fn truncate_like_jinja() {
        let s = Value::Str("hello world foo");
        assert_eq!(
            f(
                "truncate",
                s,
                &[Value::Int(9)],
                &[("leeway", Value::Int(0))]
            ),
            "hello..."
        );
        assert_eq!(
            f(
                "truncate",
                s,
                &[Value::Int(9), Value::Bool(true)],
                &[("leeway", Value::Int(0))]
            ),
            "hello ..."
        );
        assert_eq!(
            f("truncate", Value::Str("hello world"), &[Value::Int(9)], &[]),
            "hello world"
        );
        assert_eq!(f("truncate", s, &[Value::Int(2)], &[]), "!Value");
    }

    #[test]
    fn default_and_misc() {
        assert_eq!(f("default", Value::UNDEFINED, &[Value::Str("d")], &[]), "d");
        assert_eq!(
            f(
                "d",
                Value::Str(""),
                &[Value::Str("e"), Value::Bool(true)],
                &[]
            ),
            "e"
        );
        assert_eq!(f("default", Value::None, &[Value::Str("f")], &[]), "None");
        assert_eq!(f("d", Value::UNDEFINED, &[], &[]), "");
        assert_eq!(f("abs", Value::Int(-3), &[], &[]), "3");
        assert_eq!(f("abs", Value::Bool(true), &[], &[]), "1");
        assert_eq!(f("abs", Value::UNDEFINED, &[], &[]), "!Type");
        assert_eq!(f("length", Value::UNDEFINED, &[], &[]), "0");
        assert_eq!(f("first", Value::Str("ab"), &[], &[]), "a");
        assert_eq!(f("first", Value::Int(5), &[], &[]), "!Type");
        assert_eq!(f("last", Value::Str("ab"), &[], &[]), "b");
        assert_eq!(f("last", Value::UNDEFINED, &[], &[]), "");
        assert_eq!(
            f(
                "format",
                Value::Str("hello %s, %d"),
                &[Value::Str("a"), Value::Int(3)],
                &[]
            ),
            "hello a, 3"
        );
        assert_eq!(
            f("format", Value::Str("%(a)s!"), &[], &[("a", Value::Int(1))]),
            "1!"
        );
        assert_eq!(
            f(
                "format",
                Value::Str("%s"),
                &[Value::Int(1)],
                &[("a", Value::Int(2))]
            ),
            "!Runtime"
        );
        assert_eq!(
            f("attr", Value::List(&[]), &[Value::Str("append")], &[]),
            ""
        );
    }

    #[test]
    fn html_and_url_helpers() {
        let d = leak([
            (Value::Str("class"), Value::Str("a b")),
            (Value::Str("id"), Value::Str("<x>")),
            (Value::Str("skip"), Value::None),
        ]);
        assert_eq!(
            f("xmlattr", Value::Dict(d), &[], &[]),
            " class=\"a b\" id=\"&lt;x&gt;\""
        );
        assert_eq!(
            f("urlencode", Value::Str("a b&c/é"), &[], &[]),
            "a%20b%26c/%C3%A9"
        );
        let q = leak([
            (Value::Str("q"), Value::Str("x y")),
            (Value::Str("n"), Value::Int(1)),
        ]);
        assert_eq!(f("urlencode", Value::Dict(q), &[], &[]), "q=x+y&n=1");
        assert_eq!(f("filesizeformat", Value::Int(1000), &[], &[]), "1.0 kB");
        assert_eq!(
            f("filesizeformat", Value::Int(123456789), &[], &[]),
            "123.5 MB"
        );
        assert_eq!(
            f(
                "filesizeformat",
                Value::Int(1024),
                &[Value::Bool(true)],
                &[]
            ),
            "1.0 KiB"
        );
        assert_eq!(f("filesizeformat", Value::Int(1), &[], &[]), "1 Byte");
        assert_eq!(
            f(
                "wordwrap",
                Value::Str("the quick brown fox jumps over the lazy dog"),
                &[Value::Int(15)],
                &[]
            ),
            "the quick brown\nfox jumps over\nthe lazy dog"
        );
    }

    #[test]
    fn tojson_options() {
        assert_eq!(f("tojson", Value::Str("é"), &[], &[]), "\"é\"");
        assert_eq!(
            f(
                "tojson",
                Value::Str("é"),
                &[],
                &[("ensure_ascii", Value::Bool(true))]
            ),
            "\"\\u00e9\""
        );
        assert_eq!(
            f(
                "tojson",
                Value::Int(1),
                &[],
                &[("indent", Value::Float(1.0))]
            ),
            "!Type"
        );
    }
}
