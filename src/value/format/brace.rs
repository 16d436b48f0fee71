//! Python's `str.format(*args, **kwargs)`: replacement fields, their conversions and their
//! format specs.

use crate::error::{err, Error, ExceptionClass};
use crate::value::fmt::{write_repr, write_str};
use crate::value::ops;
use crate::value::{Ctx, Kwargs, Value};

use super::spec::*;

/// Appends `fmt.format(*args, **kwargs)`.
pub(crate) fn str_format<'a>(
    ctx: &Ctx<'a>,
    out: &mut String,
    fmt: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> Result<(), Error> {
    format_top(ctx, out, fmt, args, kwargs, false)
}

/// `Markup(fmt).format(...)`: markupsafe's formatter escapes each field's formatted text
/// (a `Markup` field prints as it is).
pub(crate) fn markup_format<'a>(
    ctx: &Ctx<'a>,
    out: &mut String,
    fmt: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> Result<(), Error> {
    format_top(ctx, out, fmt, args, kwargs, true)
}

/// A whole format string: automatic field numbering starts afresh.
fn format_top<'a>(
    ctx: &Ctx<'a>,
    out: &mut String,
    fmt: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
    escape: bool,
) -> Result<(), Error> {
    let mut auto: Option<usize> = None;
    let mut manual = false;
    format_into(
        ctx,
        out,
        fmt,
        args,
        kwargs,
        &mut auto,
        &mut manual,
        0,
        escape,
    )
}

/// The body of [`str_format`]; `depth` limits nested replacement fields in specs.
#[allow(clippy::too_many_arguments)]
fn format_into<'a>(
    ctx: &Ctx<'a>,
    out: &mut String,
    fmt: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
    auto: &mut Option<usize>,
    manual: &mut bool,
    depth: u8,
    escape: bool,
) -> Result<(), Error> {
    let mut rest = fmt;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let c = rest.as_bytes()[i];
        let after = &rest[i + 1..];
        if c == b'}' {
            if let Some(r) = after.strip_prefix('}') {
                out.push('}');
                rest = r;
                continue;
            }
            return Err(err!(Value, "Single '}}' encountered in format string"));
        }
        if let Some(r) = after.strip_prefix('{') {
            out.push('{');
            rest = r;
            continue;
        }
        // Find the matching '}' (specs may nest one level of fields).
        let mut level = 1;
        let mut end = None;
        for (j, ch) in after.char_indices() {
            match ch {
                '{' => level += 1,
                '}' => {
                    level -= 1;
                    if level == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| err!(Value, "expected '}}' before end of string"))?;
        let field = &after[..end];
        rest = &after[end + 1..];
        let (name_conv, spec) = match field.find(':') {
            Some(k) => (&field[..k], &field[k + 1..]),
            None => (field, ""),
        };
        let (name, conv) = match name_conv.find('!') {
            Some(k) => (&name_conv[..k], Some(&name_conv[k + 1..])),
            None => (name_conv, None),
        };
        let v = field_value(ctx, name, args, kwargs, auto, manual)?;
        let spec_owned;
        let spec = if spec.contains('{') {
            if depth > 0 {
                return Err(err!(Value, "Max string recursion exceeded"));
            }
            let mut s = String::new();
            format_into(
                ctx,
                &mut s,
                spec,
                args,
                kwargs,
                auto,
                manual,
                depth + 1,
                false,
            )?;
            spec_owned = s;
            spec_owned.as_str()
        } else {
            spec
        };
        // With `escape`, the field's text goes through `field` and is escaped into `out`.
        let mut field = String::new();
        let sink = if escape { &mut field } else { &mut *out };
        match conv {
            None if escape && matches!(v, Value::Markup(_)) => {
                if !spec.is_empty() {
                    return Err(err!(Value, "Unsupported format specification for Markup."));
                }
                write_str(out, &v);
            }
            None => format_value(sink, &v, spec, ctx.max_value)?,
            Some(c) => {
                let mut s = String::new();
                match c {
                    "r" => write_repr(&mut s, &v),
                    "s" => write_str(&mut s, &v),
                    "a" => write_ascii(&mut s, &v),
                    _ => return Err(err!(Value, "Unknown conversion specifier {c}")),
                }
                format_value(
                    sink,
                    &Value::Str(ctx.arena.alloc_str(&s)),
                    spec,
                    ctx.max_value,
                )?;
            }
        }
        if escape {
            crate::value::markup::escape_into(out, &field);
        }
        if out.len() > ctx.max_value {
            return Err(ctx.too_large());
        }
    }
    out.push_str(rest);
    Ok(())
}

/// The value a replacement field names: `0`, `name`, `` (automatic), then `.attr` / `[key]`.
fn field_value<'a>(
    ctx: &Ctx<'a>,
    name: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
    auto: &mut Option<usize>,
    manual: &mut bool,
) -> Result<Value<'a>, Error> {
    let first_end = name.find(['.', '[']).unwrap_or(name.len());
    let (first, mut tail) = name.split_at(first_end);
    let mut v = if first.is_empty() {
        if *manual {
            return Err(err!(
                Value,
                "cannot switch from manual field specification to automatic field numbering"
            ));
        }
        let n = auto.map_or(0, |n| n + 1);
        *auto = Some(n);
        index_arg(args, n)?
    } else if let Ok(n) = first.parse::<usize>() {
        if auto.is_some() {
            return Err(err!(
                Value,
                "cannot switch from automatic field numbering to manual field specification"
            ));
        }
        *manual = true;
        index_arg(args, n)?
    } else {
        kwargs
            .iter()
            .find(|(k, _)| *k == first)
            .map(|p| p.1)
            .ok_or_else(|| {
                err!(Value, "KeyError: '{first}'").with_class(ExceptionClass::KeyError)
            })?
    };
    let mut unsafe_attr: Option<(&str, &str)> = None;
    while !tail.is_empty() {
        if let Some(r) = tail.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let attr = ctx.arena.alloc_str(&r[..end]);
            // The sandbox makes an unsafe attribute an undefined that formats as '' but
            // raises when used further.
            if let Some((a, t)) = unsafe_attr {
                return Err(err!(
                    Security,
                    "access to attribute '{a}' of '{t}' object is unsafe."
                ));
            }
            v = if attr.starts_with('_') {
                unsafe_attr = Some((attr, v.type_name()));
                Value::UNDEFINED
            } else {
                ops::getattr(ctx, v, attr)?
            };
            tail = &r[end..];
        } else if let Some(r) = tail.strip_prefix('[') {
            let end = r
                .find(']')
                .ok_or_else(|| err!(Value, "Missing ']' in format string"))?;
            let key = &r[..end];
            let k = match key.parse::<i64>() {
                Ok(n) if key.bytes().all(|b| b.is_ascii_digit()) => Value::Int(n),
                _ => Value::Str(ctx.arena.alloc_str(key)),
            };
            if let Some((a, t)) = unsafe_attr {
                return Err(err!(
                    Security,
                    "access to attribute '{a}' of '{t}' object is unsafe."
                ));
            }
            v = ops::getitem(ctx, v, k)?;
            tail = &r[end + 1..];
        } else {
            return Err(err!(
                Value,
                "Only '.' or '[' may follow ']' in format field specifier"
            ));
        }
    }
    Ok(v)
}

/// Positional argument `n` of `str.format`.
fn index_arg<'a>(args: &[Value<'a>], n: usize) -> Result<Value<'a>, Error> {
    args.get(n).copied().ok_or_else(|| {
        err!(
            Value,
            "Replacement index {n} out of range for positional args tuple"
        )
        .with_class(ExceptionClass::IndexError)
    })
}

#[cfg(test)]
mod unit {
    use super::*;
    use crate::value::testutil::with_ctx;

    fn sf(fmt: &str, args: &[Value<'static>], kw: &[(&'static str, Value<'static>)]) -> String {
        with_ctx(|ctx| {
            let mut out = String::new();
            match str_format(ctx, &mut out, fmt, args, kw) {
                Ok(()) => out,
                Err(e) => format!("!{:?}", e.kind()),
            }
        })
    }

    #[test]
    fn str_format_like_python() {
        let a = [Value::Str("x"), Value::Int(7)];
        assert_eq!(sf("{} and {}", &a, &[]), "x and 7");
        assert_eq!(sf("{1}{0}{1}", &a, &[]), "7x7");
        assert_eq!(sf("{n}!", &[], &[("n", Value::Int(3))]), "3!");
        assert_eq!(
            sf(
                "{{}} {:>4}|{:<4}|{:^5}|",
                &[Value::Str("a"), Value::Str("b"), Value::Str("c")],
                &[]
            ),
            "{}    a|b   |  c  |"
        );
        assert_eq!(
            sf(
                "{:.2f} {:05d} {:,} {:x} {:#b} {:e} {:+.1%}",
                &[
                    Value::Float(3.14259),
                    Value::Int(42),
                    Value::Int(1234567),
                    Value::Int(255),
                    Value::Int(5),
                    Value::Float(1234.5),
                    Value::Float(0.5)
                ],
                &[]
            ),
            "3.14 00042 1,234,567 ff 0b101 1.234500e+03 +50.0%"
        );
        assert_eq!(sf("{!r}", &[Value::Str("a")], &[]), "'a'");
        assert_eq!(sf("{:*^7}", &[Value::Str("ab")], &[]), "**ab***");
        assert_eq!(sf("{:.2}", &[Value::Float(1.0)], &[]), "1.0");
        assert_eq!(sf("{:.2}", &[Value::Float(100.0)], &[]), "1e+02");
        assert_eq!(sf("{:.3}", &[Value::Str("abcdef")], &[]), "abc");
        assert_eq!(
            sf("{:{w}}|", &[Value::Str("a")], &[("w", Value::Int(3))]),
            "a  |"
        );
        assert_eq!(sf("{}{1}", &a, &[]), "!Value");
        assert_eq!(sf("{2}", &a, &[]), "!Value");
        assert_eq!(sf("{z}", &a, &[]), "!Value");
        assert_eq!(sf("}", &a, &[]), "!Value");
        assert_eq!(sf("{:d}", &[Value::Str("a")], &[]), "!Value");
        assert_eq!(sf("{:>3}", &[Value::None], &[]), "!Type");
        assert_eq!(sf("{}", &[Value::None], &[]), "None");
    }
}
