//! The `str` methods chat templates call most (and `dict.get`), dispatched by an id the
//! compiler resolves from the method name ([`StrMeth`]), with plain positional arguments; and the case
//! conversions of ASCII text, written once into the render arena. Anything else (keyword
//! arguments, other argument types, a `Markup` receiver) goes through the generic call,
//! which gives the same results and errors.

use crate::value::{budget, ops, Ctx, VResult, Value};

use super::strmethods::{self, py_strip, Strip};

/// A `str` method with a fast path, resolved from its name at compile time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StrMeth {
    /// Any other name: the generic call.
    Other,
    /// `replace(old, new)`.
    Replace,
    /// `strip()`.
    Strip,
    /// `lstrip()`.
    LStrip,
    /// `rstrip()`.
    RStrip,
    /// `capitalize()`.
    Capitalize,
    /// `title()`.
    Title,
    /// `upper()`.
    Upper,
    /// `lower()`.
    Lower,
    /// `startswith(prefix)`.
    StartsWith,
    /// `endswith(suffix)`.
    EndsWith,
    /// `split(sep)`.
    Split,
    /// `get(key)` and `get(key, default)`: not a `str` method, but the dict method that
    /// templates call on every message (`message.get('content')`); see [`dict_get`].
    Get,
}

impl StrMeth {
    /// The id of method `name`.
    pub(crate) fn of(name: &str) -> StrMeth {
        match name {
            "replace" => StrMeth::Replace,
            "strip" => StrMeth::Strip,
            "lstrip" => StrMeth::LStrip,
            "rstrip" => StrMeth::RStrip,
            "capitalize" => StrMeth::Capitalize,
            "title" => StrMeth::Title,
            "upper" => StrMeth::Upper,
            "lower" => StrMeth::Lower,
            "startswith" => StrMeth::StartsWith,
            "endswith" => StrMeth::EndsWith,
            "split" => StrMeth::Split,
            "get" => StrMeth::Get,
            _ => StrMeth::Other,
        }
    }
}

/// `s.m(*args)` when the arguments are of the kind the fast path takes (the call is charged
/// to the render's budget as the generic call charges it); None, with nothing charged, when
/// the generic call must run instead.
pub(crate) fn call<'a>(
    ctx: &Ctx<'a>,
    m: StrMeth,
    s: &'a str,
    args: &[Value<'a>],
) -> Option<VResult<'a>> {
    let strs = |n: usize| args.len() == n && args.iter().all(|a| matches!(a, Value::Str(_)));
    let fits = match m {
        StrMeth::Other | StrMeth::Get => false,
        StrMeth::Replace => strs(2),
        StrMeth::StartsWith | StrMeth::EndsWith => strs(1),
        StrMeth::Split => matches!(args, [Value::Str(sep)] if !sep.is_empty()),
        _ => args.is_empty(),
    };
    if !fits {
        return None;
    }
    if let Err(e) = budget::charge_call(&Value::Str(s), args, &[]) {
        return Some(Err(e));
    }
    let arg = |i: usize| match args.get(i) {
        Some(Value::Str(a)) => a,
        _ => "",
    };
    let v = match m {
        StrMeth::Replace => return Some(replace(ctx, s, arg(0), arg(1))),
        StrMeth::Strip => Value::Str(py_strip(s, None, Strip::Both).ok()?),
        StrMeth::LStrip => Value::Str(py_strip(s, None, Strip::Left).ok()?),
        StrMeth::RStrip => Value::Str(py_strip(s, None, Strip::Right).ok()?),
        StrMeth::Capitalize => capitalize(ctx, s),
        StrMeth::Title => py_title(ctx, s),
        StrMeth::Upper => upper(ctx, s),
        StrMeth::Lower => lower(ctx, s),
        StrMeth::StartsWith => Value::Bool(s.starts_with(arg(0))),
        StrMeth::EndsWith => Value::Bool(s.ends_with(arg(0))),
        StrMeth::Split => ctx.list(ops::split_str(s, arg(0)).map(Value::Str)),
        StrMeth::Other | StrMeth::Get => return None,
    };
    if ctx.value_too_big(&v) {
        return Some(Err(ctx.too_large()));
    }
    Some(Ok(v))
}

/// `s.replace(old, new)`, the result written once into the arena (`s` itself when `old`
/// does not occur).
fn replace<'a>(ctx: &Ctx<'a>, s: &'a str, old: &str, new: &str) -> VResult<'a> {
    strmethods::check_replace(ctx, s, old, new, -1)?;
    if old.is_empty() {
        return Ok(strmethods::cow_value(
            ctx,
            strmethods::py_replace(s, old, new, -1),
        ));
    }
    let (hay, needle) = (s.as_bytes(), old.as_bytes());
    let Some(first) = ops::find_bytes(hay, needle) else {
        return Ok(Value::Str(s));
    };
    let mut out = bumpalo::collections::String::with_capacity_in(s.len(), ctx.arena);
    let mut at = first;
    let mut last = 0;
    loop {
        out.push_str(s.get(last..at).unwrap_or(""));
        out.push_str(new);
        last = at + old.len();
        match hay
            .get(last..)
            .and_then(|rest| ops::find_bytes(rest, needle))
        {
            Some(off) => at = last + off,
            None => break,
        }
    }
    out.push_str(s.get(last..).unwrap_or(""));
    let v = Value::Str(out.into_bump_str());
    if ctx.value_too_big(&v) {
        return Err(ctx.too_large());
    }
    Ok(v)
}

/// `str.capitalize()`: the first character upper-cased, the rest lower-cased.
pub(crate) fn capitalize<'a>(ctx: &Ctx<'a>, s: &'a str) -> Value<'a> {
    if !s.is_ascii() {
        return strmethods::cow_value(ctx, strmethods::capitalize(s));
    }
    let b = s.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_lowercase)
        && !b.iter().skip(1).any(u8::is_ascii_uppercase)
    {
        return Value::Str(s);
    }
    let copy = ctx.arena.alloc_str(s);
    copy.make_ascii_lowercase();
    if let Some(first) = copy.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    Value::Str(copy)
}

/// `str.lower()`.
pub(crate) fn lower<'a>(ctx: &Ctx<'a>, s: &'a str) -> Value<'a> {
    if !s.is_ascii() {
        return ctx.str(&s.to_lowercase());
    }
    ascii_case(ctx, s, u8::is_ascii_uppercase, str::make_ascii_lowercase)
}

/// `str.upper()`.
pub(crate) fn upper<'a>(ctx: &Ctx<'a>, s: &'a str) -> Value<'a> {
    if !s.is_ascii() {
        return ctx.str(&s.to_uppercase());
    }
    ascii_case(ctx, s, u8::is_ascii_lowercase, str::make_ascii_uppercase)
}

/// ASCII `s` itself when no byte `changes`, else a copy in the arena that `convert` changed.
fn ascii_case<'a>(
    ctx: &Ctx<'a>,
    s: &'a str,
    changes: fn(&u8) -> bool,
    convert: fn(&mut str),
) -> Value<'a> {
    if !s.as_bytes().iter().any(changes) {
        return Value::Str(s);
    }
    let copy = ctx.arena.alloc_str(s);
    convert(copy);
    Value::Str(copy)
}

/// Python's `str.title()`: a cased character after an uncased one upper-cased, the other
/// cased characters lower-cased.
fn py_title<'a>(ctx: &Ctx<'a>, s: &'a str) -> Value<'a> {
    if !s.is_ascii() {
        return ctx.str(&strmethods::py_title(s));
    }
    ascii_title(ctx, s, |b| !b.is_ascii_alphabetic(), false)
}

/// jinja2's `title` filter: the first character of every run of separators (`-`, `(`, `{`,
/// `[`, `<`, whitespace) or of non-separators upper-cased, the rest lower-cased.
pub(crate) fn jinja_title<'a>(ctx: &Ctx<'a>, s: &'a str) -> Value<'a> {
    if !s.is_ascii() {
        return ctx.str(&super::filters::title(s));
    }
    let is_sep =
        |b: u8| matches!(b, b'-' | b'(' | b'{' | b'[' | b'<') || super::args::is_py_space(b.into());
    ascii_title(ctx, s, is_sep, true)
}

/// Title-cases ASCII `s`: a byte is upper-cased when it starts a run (`runs`: of separators
/// or of other bytes; otherwise: of other bytes, after a separator), lower-cased otherwise.
fn ascii_title<'a>(
    ctx: &Ctx<'a>,
    s: &'a str,
    is_sep: impl Fn(u8) -> bool,
    runs: bool,
) -> Value<'a> {
    let mut prev: Option<bool> = None;
    let starts = |prev: Option<bool>, sep: bool| {
        if runs {
            prev != Some(sep)
        } else {
            prev != Some(false)
        }
    };
    let unchanged = s.bytes().all(|b| {
        let sep = is_sep(b);
        let ok = if starts(prev, sep) {
            !b.is_ascii_lowercase()
        } else {
            !b.is_ascii_uppercase()
        };
        prev = Some(sep);
        ok
    });
    if unchanged {
        return Value::Str(s);
    }
    let mut out = bumpalo::collections::String::with_capacity_in(s.len(), ctx.arena);
    let mut prev: Option<bool> = None;
    for b in s.bytes() {
        let sep = is_sep(b);
        out.push(char::from(if starts(prev, sep) {
            b.to_ascii_uppercase()
        } else {
            b.to_ascii_lowercase()
        }));
        prev = Some(sep);
    }
    Value::Str(out.into_bump_str())
}

/// `d.get(key)` / `d.get(key, default)` on a dict or JSON object `d` with plain positional
/// arguments, charged as the generic call charges it; None (nothing charged) for any other
/// receiver or argument count, which the generic call handles (and reports).
pub(crate) fn dict_get<'a>(ctx: &Ctx<'a>, d: Value<'a>, args: &[Value<'a>]) -> Option<VResult<'a>> {
    if !matches!(
        d,
        Value::Dict(_) | Value::Json(serde_json::Value::Object(_))
    ) {
        return None;
    }
    let (key, default) = match args {
        [k] => (*k, Value::None),
        [k, d] => (*k, *d),
        _ => return None,
    };
    if let Err(e) = budget::charge_call(&d, args, &[]) {
        return Some(Err(e));
    }
    Some(super::methods::dict_get(ctx, d, key).map(|v| v.unwrap_or(default)))
}

#[cfg(test)]
mod unit {
    use super::super::args::testutil::{leak, show, with_ctx};
    use super::*;

    const TEXTS: &[&str] = &[
        "",
        "user",
        "User",
        "ASSISTANT",
        "hello wORLD",
        "1st place, 2ND-half (x)y [z]<w>{v}",
        "  padded\t\n",
        "a\r\nb\n\nc\r\n",
        "o'neil mc-donald x_y",
        "ÉCOLE über straße",
        "ǆemal ǈ",
        "\u{1c}x\u{1f}y",
    ];

    /// `get` on JSON objects and template dicts gives what the generic method call gives,
    /// and leaves other receivers and argument counts to it.
    #[test]
    fn dict_get_same_as_the_generic_call() {
        with_ctx(|ctx| {
            let json: &'static serde_json::Value = Box::leak(Box::new(serde_json::json!(
                {"role": "user", "content": null, "n": 3, "parts": [1, 2], "meta": {"a": 1}}
            )));
            let dict = Value::Dict(leak(vec![
                (Value::Str("role"), Value::Str("tool")),
                (Value::Int(1), Value::Str("one")),
            ]));
            let keys = [
                Value::Str("role"),
                Value::Str("content"),
                Value::Str("parts"),
                Value::Str("meta"),
                Value::Str("missing"),
                Value::Int(1),
                Value::Bool(true),
                Value::Float(1.0),
                Value::None,
                Value::List(&[]),
            ];
            for d in [Value::Json(json), dict] {
                for key in keys {
                    for args in [vec![key], vec![key, Value::Str("dflt")]] {
                        let fast = dict_get(ctx, d, &args).expect("fast path");
                        let slow = super::super::call_method(ctx, d, "get", &args, &[]);
                        assert_eq!(show(fast), show(slow));
                    }
                }
                assert!(dict_get(ctx, d, &[]).is_none());
                assert!(dict_get(ctx, d, &[Value::None; 3]).is_none());
            }
            assert!(dict_get(ctx, Value::Str("x"), &[Value::Str("x")]).is_none());
            assert!(dict_get(ctx, Value::List(&[]), &[Value::Int(0)]).is_none());
            assert!(call(ctx, StrMeth::Get, "x", &[Value::Str("x")]).is_none());
        });
    }

    /// The fast path gives what the generic `str` method call gives.
    #[test]
    fn same_as_the_generic_call() {
        with_ctx(|ctx| {
            let names = [
                "strip",
                "lstrip",
                "rstrip",
                "capitalize",
                "title",
                "upper",
                "lower",
            ];
            for s in TEXTS {
                for name in names {
                    let fast = call(ctx, StrMeth::of(name), s, &[]).expect("fast path");
                    let slow = super::super::call_method(ctx, Value::Str(s), name, &[], &[]);
                    assert_eq!(show(fast), show(slow), "{s:?}.{name}()");
                }
                for args in [
                    ["\r\n", "\n"],
                    ["\n\n", "\n"],
                    ["l", "LL"],
                    ["", "-"],
                    ["x", ""],
                    ["straße", "s"],
                ] {
                    let shown = args;
                    let args = args.map(Value::Str);
                    let fast = call(ctx, StrMeth::Replace, s, &args).expect("fast path");
                    let slow = super::super::call_method(ctx, Value::Str(s), "replace", &args, &[]);
                    assert_eq!(show(fast), show(slow), "{s:?}.replace{shown:?}");
                }
                for (name, arg) in [
                    ("startswith", "u"),
                    ("startswith", ""),
                    ("endswith", "\n"),
                    ("split", " "),
                    ("split", "\n"),
                ] {
                    let args = [Value::Str(arg)];
                    let fast = call(ctx, StrMeth::of(name), s, &args).expect("fast path");
                    let slow = super::super::call_method(ctx, Value::Str(s), name, &args, &[]);
                    assert_eq!(show(fast), show(slow), "{s:?}.{name}({arg:?})");
                }
            }
        });
    }

    /// Replacing in texts long enough for `memmem` and with overlapping matches.
    #[test]
    fn replace_like_python() {
        with_ctx(|ctx| {
            let s = |v: VResult<'_>| show(v);
            let long = "ab\r\n".repeat(100);
            let want = "ab\n".repeat(100);
            assert_eq!(
                s(replace(ctx, &long, "\r\n", "\n")),
                show(Ok(Value::Str(&want)))
            );
            // Python: 'aaaa'.replace('aa', 'b') == 'bb'; 'aaa'.replace('aa', 'b') == 'ba'.
            assert_eq!(s(replace(ctx, "aaaa", "aa", "b")), "'bb'");
            assert_eq!(s(replace(ctx, "aaa", "aa", "b")), "'ba'");
            assert_eq!(s(replace(ctx, "xyz", "yzz", "b")), "'xyz'");
            assert_eq!(s(replace(ctx, "é-é", "é", "e")), "'e-e'");
        });
    }

    /// Arguments the fast path does not take are left to the generic call.
    #[test]
    fn other_arguments_go_the_generic_way() {
        with_ctx(|ctx| {
            assert!(call(ctx, StrMeth::Strip, "x", &[Value::Str("x")]).is_none());
            assert!(call(ctx, StrMeth::Replace, "x", &[Value::Str("x")]).is_none());
            assert!(call(
                ctx,
                StrMeth::Replace,
                "x",
                &[Value::Str("x"), Value::Int(1)]
            )
            .is_none());
            assert!(call(ctx, StrMeth::Split, "x", &[Value::Str("")]).is_none());
            assert!(call(ctx, StrMeth::Split, "x", &[]).is_none());
            assert!(call(ctx, StrMeth::Other, "x", &[]).is_none());
        });
    }

    /// Python 3.11 and jinja2 3.1.6 give these.
    #[test]
    fn case_conversions() {
        with_ctx(|ctx| {
            let s = |v: Value<'_>| super::super::args::testutil::s(&v);
            assert_eq!(s(py_title(ctx, "1st place o'neil")), "1St Place O'Neil");
            assert_eq!(s(jinja_title(ctx, "1st place o'neil")), "1st Place O'neil");
            assert_eq!(
                s(jinja_title(ctx, "hello-world (foo)bar")),
                "Hello-World (Foo)bar"
            );
            assert_eq!(s(capitalize(ctx, "hELLO wORLD")), "Hello world");
            assert_eq!(s(capitalize(ctx, "")), "");
            assert_eq!(s(upper(ctx, "straße")), "STRASSE");
            assert_eq!(s(lower(ctx, "ÉCOLE")), "école");
        });
    }
}
