//! Python's printf-style formatting: `fmt % args`.

use crate::error::{err, Error, ExceptionClass};
use crate::value::bigint;
use crate::value::fmt::{write_repr, write_str};
use crate::value::ops::{int_arg, pairs};
use crate::value::{Ctx, IterKind, Value};

use super::spec::*;

/// Appends `fmt % args` (Python's printf-style formatting).
pub(crate) fn percent<'a>(
    ctx: &Ctx<'a>,
    out: &mut String,
    fmt: &str,
    args: Value<'a>,
) -> Result<(), Error> {
    percent_with(ctx, out, fmt, args, false)
}

/// Whether Python's `%` takes `v` as a mapping: it skips the "not all arguments converted"
/// check for an argument whose type can be subscripted (a dict, a list, a `range`, jinja2's
/// Undefined), other than a tuple or a string.
pub(crate) fn subscriptable(v: &Value<'_>) -> bool {
    match v {
        Value::Dict(_) | Value::Json(_) | Value::List(_) | Value::Undefined(_) => true,
        Value::Iter(s) => matches!(s.kind, IterKind::Range { .. }),
        _ => false,
    }
}

/// [`percent`], or with `escape` `Markup(fmt) % args`: markupsafe wraps each argument (and a
/// subscriptable argument as a whole) in a helper whose `str` and `repr` are escaped and whose
/// numbers are the argument's own, so `%s`, `%r` and `%a` escape what they print (a `Markup`
/// printed by `%s` stays as it is) and a mapping's values are escaped only when a key picks them.
pub(crate) fn percent_with<'a>(
    ctx: &Ctx<'a>,
    out: &mut String,
    fmt: &str,
    args: Value<'a>,
    escape: bool,
) -> Result<(), Error> {
    let lenient = subscriptable(&args);
    let (list, single): (&[Value<'a>], bool) = match args {
        Value::Tuple(items) => (items, false),
        _ => (std::slice::from_ref(ctx.arena.alloc(args)), true),
    };
    let mapping = pairs(ctx, &args);
    let mut next = 0usize;
    let take = |next: &mut usize| -> Result<Value<'a>, Error> {
        let v = list
            .get(*next)
            .copied()
            .ok_or_else(|| err!(Type, "not enough arguments for format string"))?;
        *next += 1;
        Ok(v)
    };
    let cs: Vec<(usize, char)> = fmt.char_indices().collect();
    let mut i = 0;
    let mut used_key = false;
    while i < cs.len() {
        let (pos, c) = cs[i];
        if c != '%' {
            let end = cs[i..]
                .iter()
                .position(|p| p.1 == '%')
                .map_or(cs.len(), |k| i + k);
            let bend = cs.get(end).map_or(fmt.len(), |p| p.0);
            out.push_str(&fmt[pos..bend]);
            i = end;
            continue;
        }
        i += 1;
        let spec_start = i;
        let mut arg: Option<Value<'a>> = None;
        if cs.get(i).map(|p| p.1) == Some('(') {
            let start = i + 1;
            let mut depth = 1;
            let mut j = start;
            while j < cs.len() {
                match cs[j].1 {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if j >= cs.len() {
                return Err(err!(Value, "incomplete format key"));
            }
            let key: String = cs[start..j].iter().map(|p| p.1).collect();
            // `%(key)s` of an undefined value subscripts it: jinja2's UndefinedError.
            if args.is_undefined() {
                return Err(crate::value::ops::undefined_error(&args));
            }
            let m = mapping.ok_or_else(|| err!(Type, "format requires a mapping"))?;
            let hit = m
                .iter()
                .find(|(k, _)| matches!(k, Value::Str(s) if *s == key));
            arg = Some(hit.map(|p| p.1).ok_or_else(|| {
                err!(Value, "KeyError: '{key}'").with_class(ExceptionClass::KeyError)
            })?);
            used_key = true;
            i = j + 1;
        }
        let mut sp = Spec::default();
        while let Some(&(_, f @ ('-' | '+' | ' ' | '#' | '0'))) = cs.get(i) {
            match f {
                '-' => sp.align = Some('<'),
                '+' => sp.sign = Some('+'),
                ' ' => {
                    if sp.sign.is_none() {
                        sp.sign = Some(' ')
                    }
                }
                '#' => sp.alt = true,
                _ => sp.zero = true,
            }
            i += 1;
        }
        let read_num = |i: &mut usize, next: &mut usize| -> Result<Option<i64>, Error> {
            if cs.get(*i).map(|p| p.1) == Some('*') {
                *i += 1;
                let v = take(next)?;
                return int_arg(&v).map(Some).map_err(|_| err!(Type, "* wants int"));
            }
            let start = *i;
            while cs.get(*i).is_some_and(|p| p.1.is_ascii_digit()) {
                *i += 1;
            }
            let digits: String = cs[start..*i].iter().map(|p| p.1).collect();
            Ok(digits.parse().ok())
        };
        if let Some(w) = read_num(&mut i, &mut next)? {
            if w < 0 {
                sp.align = Some('<');
            }
            sp.width = w.unsigned_abs() as usize;
        }
        if cs.get(i).map(|p| p.1) == Some('.') {
            i += 1;
            sp.precision = Some(read_num(&mut i, &mut next)?.unwrap_or(0).max(0) as usize);
        }
        while let Some(&(_, 'h' | 'l' | 'L')) = cs.get(i) {
            i += 1;
        }
        let Some(&(_, ty)) = cs.get(i) else {
            return Err(err!(Value, "incomplete format"));
        };
        // Python reports a bad conversion by its index in code points.
        let pos = i;
        i += 1;
        if ty == '%' {
            // Only `%%` is a literal percent sign.
            if pos != spec_start {
                return Err(err!(
                    Value,
                    "unsupported format character '%' (0x25) at index {pos}"
                ));
            }
            out.push('%');
            continue;
        }
        if sp.align == Some('<') {
            sp.zero = false;
        }
        check_spec(&sp, !matches!(ty, 's' | 'r' | 'a'), ctx.max_value)?;
        let v = match arg {
            Some(v) => v,
            None => take(&mut next)?,
        };
        // The helper has `__int__` and `__float__` but no `__index__`.
        if escape && matches!(ty, 'x' | 'X' | 'o') {
            return Err(err!(
                Type,
                "%{ty} format: an integer is required, not _MarkupEscapeHelper"
            ));
        }
        if escape && ty == 'c' {
            return Err(err!(Type, "%c requires int or char"));
        }
        if escape && matches!(ty, 's' | 'r' | 'a') {
            let mut text = String::new();
            match ty {
                's' => write_str(&mut text, &v),
                'r' => write_repr(&mut text, &v),
                _ => write_ascii(&mut text, &v),
            }
            if !(ty == 's' && matches!(v, Value::Markup(_))) {
                let mut escaped = String::with_capacity(text.len());
                crate::value::markup::escape_into(&mut escaped, &text);
                text = escaped;
            }
            percent_one(out, &Value::Str(&text), 's', sp, pos)?;
        } else {
            percent_one(out, &v, ty, sp, pos)?;
        }
        if out.len() > ctx.max_value {
            return Err(ctx.too_large());
        }
    }
    let leftover = if single {
        next == 0 && !used_key
    } else {
        next < list.len()
    };
    if leftover && !lenient && !(single && used_key) {
        return Err(err!(
            Type,
            "not all arguments converted during string formatting"
        ));
    }
    Ok(())
}

/// An integer's digits (after any `0x`/`0o` prefix of `#`) zero-extended to the precision:
/// `'%.3d' % 7` is `007`, `'%#.3x' % 7` is `0x007`.
fn min_digits(body: String, ty: Option<char>, sp: &Spec) -> String {
    let Some(p) = sp.precision else {
        return body;
    };
    let prefix = if sp.alt && matches!(ty, Some('x' | 'X' | 'o')) {
        2
    } else {
        0
    };
    let digits = body.len() - prefix;
    if digits >= p {
        return body;
    }
    let mut out = String::with_capacity(p + prefix);
    out.push_str(&body[..prefix]);
    out.extend(std::iter::repeat('0').take(p - digits));
    out.push_str(&body[prefix..]);
    out
}

/// One `%` conversion of `v`.
fn percent_one(
    out: &mut String,
    v: &Value<'_>,
    ty: char,
    mut sp: Spec,
    pos: usize,
) -> Result<(), Error> {
    match ty {
        's' | 'r' | 'a' => {
            let mut s = String::new();
            match ty {
                's' => write_str(&mut s, v),
                'r' => write_repr(&mut s, v),
                _ => write_ascii(&mut s, v),
            }
            let s = match sp.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            };
            sp.zero = false;
            pad(out, &s, 0, &sp, true);
        }
        'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c' => {
            let i = match (ty, v) {
                ('c', Value::Str(s)) if s.chars().count() == 1 => {
                    sp.zero = false;
                    sp.sign = None;
                    pad(out, s, 0, &sp, true);
                    return Ok(());
                }
                (_, Value::Big(b)) if b.to_i128().is_none() => {
                    let t = match ty {
                        'x' | 'X' | 'o' | 'c' => Some(ty),
                        _ => None,
                    };
                    let body = min_digits(big_body(b, t, sp.alt)?, t, &sp);
                    sp.ty = t;
                    write_number(out, b.is_negative(), &body, &sp);
                    return Ok(());
                }
                (_, Value::Float(f))
                    if matches!(ty, 'd' | 'i' | 'u') && f.is_finite() && f.abs() >= 1.7e38 =>
                {
                    // Past 128 bits: the float's exact integer value, as Python's int(f).
                    let b = bigint::from_f64(*f);
                    let body = min_digits(b.magnitude().to_string(), None, &sp);
                    sp.ty = None;
                    write_number(out, *f < 0.0, &body, &sp);
                    return Ok(());
                }
                (_, Value::Float(f)) if matches!(ty, 'd' | 'i' | 'u') => {
                    if !f.is_finite() {
                        return Err(err!(Value, "cannot convert float {f} to integer"));
                    }
                    f.trunc() as i128
                }
                _ => as_int(v).ok_or_else(|| {
                    let what = if matches!(ty, 'd' | 'i' | 'u') {
                        "a real number"
                    } else {
                        "an integer"
                    };
                    err!(
                        Type,
                        "%{ty} format: {what} is required, not {}",
                        v.type_name()
                    )
                })?,
            };
            let t = match ty {
                'x' | 'X' | 'o' | 'c' => Some(ty),
                _ => None,
            };
            let body = int_body(i, t, sp.alt)?;
            let body = if ty == 'c' {
                // A character: no precision or sign, and padded with spaces even with `0`.
                sp.zero = false;
                sp.sign = None;
                body
            } else {
                min_digits(body, t, &sp)
            };
            sp.ty = t;
            write_number(out, i < 0, &body, &sp);
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let f = as_float(v)
                .ok_or_else(|| err!(Type, "must be real number, not {}", v.type_name()))?;
            let body = float_body(f.abs(), Some(ty), sp.precision, sp.alt);
            write_number(out, f.is_sign_negative() && !f.is_nan(), &body, &sp);
        }
        other => {
            return Err(err!(
                Value,
                "unsupported format character '{other}' ({:#x}) at index {pos}",
                other as u32
            ))
        }
    }
    Ok(())
}

#[cfg(test)]
mod unit {
    use super::*;
    use crate::value::testutil::{leak, with_ctx};

    fn pct(fmt: &str, args: Value<'static>) -> String {
        with_ctx(|ctx| {
            let mut out = String::new();
            match percent(ctx, &mut out, fmt, args) {
                Ok(()) => out,
                Err(e) => format!("!{:?}", e.kind()),
            }
        })
    }

    #[test]
    fn percent_like_python() {
        let t = leak([
            Value::Float(3.14259),
            Value::Int(42),
            Value::Int(5),
            Value::Int(5),
            Value::Int(-42),
            Value::Int(255),
            Value::Int(255),
            Value::Int(255),
            Value::Int(8),
            Value::Int(8),
            Value::Float(12345.678),
            Value::Float(0.000123),
            Value::Float(1e-5),
            Value::Float(123456789.0),
            Value::Float(0.0001),
            Value::Float(1e20),
        ]);
        assert_eq!(
            pct("%5.2f|%-6d|%+d|% d|%05d|%x|%#x|%X|%o|%#o|%e|%.3E|%g|%g|%g|%G", Value::Tuple(t)),
            " 3.14|42    |+5| 5|-0042|ff|0xff|FF|10|0o10|1.234568e+04|1.230E-04|1e-05|1.23457e+08|0.0001|1E+20"
        );
        let t = leak([
            Value::Int(5),
            Value::Int(3),
            Value::Int(8),
            Value::Int(2),
            Value::Float(1.5),
        ]);
        assert_eq!(pct("%*d|%-*.*f", Value::Tuple(t)), "    3|1.50    ");
        let t = leak([Value::Float(2.5), Value::Float(2.5), Value::Float(2.5)]);
        assert_eq!(pct("%.0f %.0e %#.0f", Value::Tuple(t)), "2 2e+00 2.");
        let t = leak([
            Value::Float(100000.0),
            Value::Float(1e6),
            Value::Float(1.5),
            Value::Float(1.5),
        ]);
        assert_eq!(
            pct("%g %g %g %#g", Value::Tuple(t)),
            "100000 1e+06 1.5 1.50000"
        );
        assert_eq!(pct("%d", Value::Float(3.7)), "3");
        assert_eq!(pct("%i", Value::Bool(true)), "1");
        assert_eq!(pct("%c", Value::Int(65)), "A");
        assert_eq!(pct("%%", Value::Tuple(&[])), "%");
        assert_eq!(pct("%x", Value::Int(-255)), "-ff");
        assert_eq!(pct("%d", Value::Str("3")), "!Type");
        assert_eq!(pct("%x", Value::Float(3.0)), "!Type");
        assert_eq!(pct("%s %s", Value::Tuple(&[Value::Int(1)])), "!Type");
        assert_eq!(
            pct("%s", Value::Tuple(&[Value::Int(1), Value::Int(2)])),
            "!Type"
        );
        assert_eq!(pct("abc", Value::Int(5)), "!Type");
        assert_eq!(pct("abc", Value::List(&[])), "abc");
        assert_eq!(pct("%z", Value::Int(1)), "!Value");
        assert_eq!(
            pct(
                "%.1s|%5s|%-5s|",
                Value::Tuple(&[Value::Str("abc"), Value::Str("ab"), Value::Str("ab")])
            ),
            "a|   ab|ab   |"
        );
        let d = leak([(Value::Str("a"), Value::Int(1))]);
        assert_eq!(pct("%(a)s!", Value::Dict(d)), "1!");
    }
}
