//! markupsafe's `Markup`: the `str` subclass that jinja2's `|safe` and `|escape` return even
//! with autoescape off. It prints as its text, but plain strings that meet it are
//! HTML-escaped: `Markup + str` and `str + Markup` (Python's reflected `__radd__` of a `str`
//! subclass), `Markup % args`, `Markup.format(...)`, `Markup.join(...)`, the fill of
//! `center`/`ljust`/`rjust` and the replacement of `replace`. Most other `str` methods return
//! a `Markup` again (markupsafe 3.0 wraps them); everything else treats it as a `str`.
//!
//! This room holds the value side (escaping, `+`, `*` and `%` with a `Markup`); the
//! methods of a `Markup` are builtins (`builtins/markup.rs`).
//!
//! The rest of the engine sees a `Markup` through [`Value::as_str`] (its text) and
//! [`Value::demark`] (the same text as a plain `str`), so only what differs lives here.

use crate::error::err;

use crate::value::ops::{self, BinOp};
use crate::value::{Ctx, VResult, Value};

/// Appends `s` with markupsafe's escapes: `&`, `<`, `>`, `'` and `"` as `&amp;`, `&lt;`,
/// `&gt;`, `&#39;` and `&#34;`.
pub(crate) fn escape_into(out: &mut String, s: &str) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'\'' => "&#39;",
            b'"' => "&#34;",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + 1;
    }
    out.push_str(&s[last..]);
}

/// `s` escaped, in the arena; `s` itself when there is nothing to escape.
pub(crate) fn escape_str<'a>(ctx: &Ctx<'a>, s: &'a str) -> &'a str {
    if !s
        .bytes()
        .any(|b| matches!(b, b'&' | b'<' | b'>' | b'\'' | b'"'))
    {
        return s;
    }
    let mut out = String::with_capacity(s.len() + s.len() / 4);
    escape_into(&mut out, s);
    ctx.arena.alloc_str(&out)
}

/// markupsafe's `escape(v)`: a `Markup` unchanged, anything else `str(v)` escaped.
pub(crate) fn escape<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> Value<'a> {
    match v {
        Value::Markup(_) => v,
        Value::Str(s) => Value::Markup(escape_str(ctx, s)),
        other => {
            let mut text = String::new();
            super::fmt::write_str(&mut text, &other);
            let mut out = String::with_capacity(text.len());
            escape_into(&mut out, &text);
            Value::Markup(ctx.arena.alloc_str(&out))
        }
    }
}

/// `Markup(v)`: the text of `str(v)`, trusted.
pub(crate) fn mark_safe<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> Value<'a> {
    match v {
        Value::Markup(_) => v,
        Value::Str(s) => Value::Markup(s),
        other => {
            let mut text = String::new();
            super::fmt::write_str(&mut text, &other);
            Value::Markup(ctx.arena.alloc_str(&text))
        }
    }
}

/// A `str` result as a `Markup`, and the `str` items of a list or tuple result too (what
/// markupsafe's wrapped methods return).
pub(crate) fn wrap<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> Value<'a> {
    let mark = |x: &Value<'a>| match *x {
        Value::Str(s) => Value::Markup(s),
        other => other,
    };
    match v {
        Value::Str(s) => Value::Markup(s),
        Value::List(items) => Value::List(ctx.slice(items.iter().map(mark))),
        Value::Tuple(items) => Value::Tuple(ctx.slice(items.iter().map(mark))),
        other => other,
    }
}

/// `a <op> b` where at least one operand is a `Markup` (`~` never comes here: it is
/// jinja2's `str` join and gives a plain `str`).
pub(crate) fn binop<'a>(ctx: &Ctx<'a>, op: BinOp, a: Value<'a>, b: Value<'a>) -> VResult<'a> {
    if a.is_undefined() {
        return Err(ops::undefined_error(&a));
    }
    // `Markup % undefined` formats it (Python asks the left operand first, and an undefined
    // value prints as nothing) and `Markup * undefined` is `str.__mul__`'s TypeError (below);
    // any other operation with it raises.
    if b.is_undefined() && !(matches!(op, BinOp::Mod | BinOp::Mul) && matches!(a, Value::Markup(_)))
    {
        return Err(ops::undefined_error(&b));
    }
    match op {
        // `Markup.__add__` / `__radd__`: both operands strings, the plain one escaped.
        BinOp::Add if a.as_str().is_some() && b.as_str().is_some() => {
            let (Value::Markup(x) | Value::Str(x)) = escape(ctx, a) else {
                return Err(ops::unsupported(op, &a, &b));
            };
            let (Value::Markup(y) | Value::Str(y)) = escape(ctx, b) else {
                return Err(ops::unsupported(op, &a, &b));
            };
            let mut s =
                bumpalo::collections::String::with_capacity_in(x.len() + y.len(), ctx.arena);
            s.push_str(x);
            s.push_str(y);
            Ok(Value::Markup(s.into_bump_str()))
        }
        // `__mul__` / `__rmul__`: `str.__mul__` of the other operand.
        BinOp::Mul
            if !matches!(a.demark(), Value::Int(_) | Value::Big(_) | Value::Bool(_))
                && !matches!(b.demark(), Value::Int(_) | Value::Big(_) | Value::Bool(_)) =>
        {
            let other = if matches!(a, Value::Markup(_)) { b } else { a };
            Err(err!(
                Type,
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            ))
        }
        // Repeated, still a Markup.
        BinOp::Mul => {
            let r = ops::binop(ctx, op, a.demark(), b.demark())?;
            Ok(wrap(ctx, r))
        }
        BinOp::Mod if matches!(a, Value::Markup(_)) => {
            let fmt = a.as_str().unwrap_or("");
            let r = super::format::markup_percent(ctx, fmt, b)?;
            Ok(wrap(ctx, r))
        }
        // `str % Markup` is `str.__mod__`: plain formatting.
        BinOp::Mod if a.as_str().is_some() => ops::binop(ctx, op, a, b.demark()),
        _ => Err(ops::unsupported(op, &a, &b)),
    }
}

/// `a ~ b` under autoescape (jinja2's `markup_join`): when either is a `Markup`, both as
/// text, the other escaped, as a `Markup`; else the plain concatenation.
pub(crate) fn join<'a>(ctx: &Ctx<'a>, a: Value<'a>, b: Value<'a>) -> VResult<'a> {
    if !matches!(a, Value::Markup(_)) && !matches!(b, Value::Markup(_)) {
        return ops::binop(ctx, BinOp::Concat, a, b);
    }
    let mut out = String::new();
    for v in [a, b] {
        match escape(ctx, v) {
            Value::Markup(s) => out.push_str(s),
            other => crate::value::fmt::write_str(&mut out, &other),
        }
    }
    Ok(Value::Markup(ctx.arena.alloc_str(&out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bumpalo::Bump;

    use crate::value::testutil::show;

    #[test]
    fn add_escapes_the_plain_operand() {
        // Expected values from markupsafe 3.0.3 through jinja2 3.1.6.
        let bump = Bump::new();
        let c = Ctx::for_tests(&bump);
        let m = Value::Markup("<m>");
        let n = Value::Str("<b>&");
        assert_eq!(
            show(binop(&c, BinOp::Add, m, n)),
            "Markup('<m>&lt;b&gt;&amp;')"
        );
        assert_eq!(
            show(binop(&c, BinOp::Add, n, m)),
            "Markup('&lt;b&gt;&amp;<m>')"
        );
        assert_eq!(show(binop(&c, BinOp::Add, m, m)), "Markup('<m><m>')");
        assert_eq!(
            show(binop(&c, BinOp::Mul, m, Value::Int(2))),
            "Markup('<m><m>')"
        );
        assert_eq!(
            show(binop(&c, BinOp::Mul, Value::Int(2), m)),
            "Markup('<m><m>')"
        );
        assert_eq!(
            show(binop(&c, BinOp::Add, m, Value::Int(1))),
            "error: type error: unsupported operand type(s) for +: 'Markup' and 'int'"
        );
    }

    #[test]
    fn percent_escapes_arguments() {
        let bump = Bump::new();
        let c = Ctx::for_tests(&bump);
        let n = Value::Str("<b>&");
        let pct = |f: &'static str, a| show(binop(&c, BinOp::Mod, Value::Markup(f), a));
        assert_eq!(pct("<%s>", n), "Markup('<&lt;b&gt;&amp;>')");
        assert_eq!(pct("%d", Value::Int(3)), "Markup('3')");
        assert_eq!(pct("%.2f", Value::Float(1.5)), "Markup('1.50')");
    }
}
