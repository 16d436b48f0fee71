//! Python slicing, `x[start:stop:step]`, of strings (by code point), lists and tuples.

use crate::error::{err, Error};
use crate::value::{Ctx, IterKind, VResult, Value};

use super::item::index_of;
use super::seq::SeqRef;
use super::undefined::undefined_error;

/// `obj[start:stop:step]`; absent bounds are `Value::None`. jinja2 compiles a slice to a
/// plain Python subscript, so its errors are Python's, not an undefined: `None[1:]` is
/// "'NoneType' object is not subscriptable", a dict gives "unhashable type: 'slice'".
/// Strings slice by code point; a step-1 slice of a string or a template list borrows.
pub(crate) fn slice<'a>(
    ctx: &Ctx<'a>,
    obj: Value<'a>,
    start: Value<'a>,
    stop: Value<'a>,
    step: Value<'a>,
) -> VResult<'a> {
    if let Value::Markup(s) = obj {
        let r = slice(ctx, Value::Str(s), start, stop, step)?;
        return Ok(crate::value::markup::wrap(ctx, r));
    }
    if let Value::Iter(crate::value::Seq {
        kind:
            IterKind::Range {
                start: rs,
                step: rst,
                ..
            },
        items,
        ..
    }) = obj
    {
        return slice_range(ctx, items, (*rs, *rst), start, stop, step);
    }
    let len = match obj {
        Value::Undefined(_) => return Err(undefined_error(&obj)),
        Value::Str(s) if s.is_ascii() => s.len(),
        Value::Str(s) => s.chars().count(),
        Value::List(l) | Value::Tuple(l) => l.len(),
        Value::Json(serde_json::Value::Array(a)) => a.len(),
        Value::Dict(_) | Value::Json(_) => return Err(err!(Type, "unhashable type: 'slice'")),
        _ => {
            return Err(err!(
                Type,
                "'{}' object is not subscriptable",
                obj.type_name()
            ))
        }
    };
    let (start, step, count) = slice_indices(len, start, stop, step)?;
    // Positions picked: start, start + step, ... (count of them), all within 0..len.
    let pick = move |k: usize| -> usize {
        let p = start + step * k as i128;
        usize::try_from(p).unwrap_or(0)
    };
    match obj {
        Value::Str(s) => {
            if count == 0 {
                return Ok(Value::Str(""));
            }
            if s.is_ascii() {
                if step == 1 {
                    let a = pick(0);
                    return Ok(Value::Str(s.get(a..a + count).unwrap_or("")));
                }
                let bytes = s.as_bytes();
                let mut out = bumpalo::collections::String::with_capacity_in(count, ctx.arena);
                for k in 0..count {
                    if let Some(b) = bytes.get(pick(k)) {
                        out.push(char::from(*b));
                    }
                }
                return Ok(Value::Str(out.into_bump_str()));
            }
            if step == 1 {
                let a = pick(0);
                let mut bounds = s.char_indices().map(|(i, _)| i).chain([s.len()]);
                let from = bounds.nth(a).unwrap_or(s.len());
                let to = bounds.nth(count - 1).unwrap_or(s.len());
                return Ok(Value::Str(s.get(from..to).unwrap_or("")));
            }
            let chars: Vec<char> = s.chars().collect();
            let mut out = bumpalo::collections::String::new_in(ctx.arena);
            for k in 0..count {
                if let Some(c) = chars.get(pick(k)) {
                    out.push(*c);
                }
            }
            Ok(Value::Str(out.into_bump_str()))
        }
        Value::List(l) | Value::Tuple(l) if step == 1 => {
            let a = pick(0);
            let items = l.get(a..a + count).unwrap_or(&[]);
            Ok(match obj {
                Value::Tuple(_) => Value::Tuple(items),
                _ => Value::List(items),
            })
        }
        _ => {
            let Some(seq) = SeqRef::of(&obj, true) else {
                return Ok(Value::UNDEFINED);
            };
            let items = ctx.slice((0..count).filter_map(|k| seq.get_in(pick(k), ctx)));
            Ok(match obj {
                Value::Tuple(_) => Value::Tuple(items),
                _ => Value::List(items),
            })
        }
    }
}

/// Python's `slice(start, stop, step).indices(len)` reduced to (first position, step,
/// number of items).
pub(super) fn slice_indices(
    len: usize,
    start: Value<'_>,
    stop: Value<'_>,
    step: Value<'_>,
) -> Result<(i128, i128, usize), Error> {
    let (start, stop, step) = slice_bounds(len, start, stop, step)?;
    let count = if step > 0 && start < stop {
        (stop - start - 1) / step + 1
    } else if step < 0 && stop < start {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    Ok((start, step, usize::try_from(count).unwrap_or(0)))
}

/// Python's `slice(start, stop, step).indices(len)`.
pub(super) fn slice_bounds(
    len: usize,
    start: Value<'_>,
    stop: Value<'_>,
    step: Value<'_>,
) -> Result<(i128, i128, i128), Error> {
    /// A slice bound: `None`, or an integer.
    pub(super) fn bound(v: &Value<'_>) -> Result<Option<i128>, Error> {
        match v {
            Value::None => Ok(None),
            other => index_of(other).map(Some).ok_or_else(|| {
                err!(
                    Type,
                    "slice indices must be integers or None or have an __index__ method"
                )
            }),
        }
    }
    let step = match bound(&step)? {
        None => 1,
        Some(0) => return Err(err!(Value, "slice step cannot be zero")),
        // Python clamps the step to the platform's size range; so do we, harmlessly.
        Some(s) => s.clamp(-(i64::MAX as i128), i64::MAX as i128),
    };
    let len = len as i128;
    let adjust = |b: Option<i128>, default: i128| -> i128 {
        match b {
            None => default,
            Some(mut i) => {
                if i < 0 {
                    i += len;
                    if i < 0 {
                        i = if step < 0 { -1 } else { 0 };
                    }
                } else if i >= len {
                    i = if step < 0 { len - 1 } else { len };
                }
                i
            }
        }
    };
    let (start, stop) = if step > 0 {
        (adjust(bound(&start)?, 0), adjust(bound(&stop)?, len))
    } else {
        (adjust(bound(&start)?, len - 1), adjust(bound(&stop)?, -1))
    };
    Ok((start, stop, step))
}

/// `range[start:stop:step]`: a range again, as Python computes it.
pub(super) fn slice_range<'a>(
    ctx: &Ctx<'a>,
    items: &'a [Value<'a>],
    (r_start, r_step): (i64, i64),
    start: Value<'a>,
    stop: Value<'a>,
    step: Value<'a>,
) -> VResult<'a> {
    let (s0, s1, st) = slice_bounds(items.len(), start, stop, step)?;
    let (_, _, count) = slice_indices(items.len(), start, stop, step)?;
    let (rs, rst) = (i128::from(r_start), i128::from(r_step));
    let clamp = |v: i128| v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    let new_start = clamp(rs + s0 * rst);
    let new_stop = clamp(rs + s1 * rst);
    let new_step = clamp(st * rst);
    let first = usize::try_from(s0).unwrap_or(0);
    let picked = (0..count).filter_map(|k| {
        let p = first as i128 + st * k as i128;
        usize::try_from(p).ok().and_then(|p| items.get(p)).copied()
    });
    let picked = ctx.slice(picked);
    Ok(ctx.iter(
        IterKind::Range {
            start: new_start,
            stop: new_stop,
            step: new_step,
        },
        picked,
    ))
}

#[cfg(test)]
mod tests {
    //! Expected results come from probing transformers' environment (jinja2 3.1.6, Python
    //! 3.11): `{{ expr }}` renders `str()` of the result; errors are shown as
    //! `Kind: message`.

    use super::*;

    use crate::value::testutil::ops::*;

    #[test]
    fn slicing() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let (n, i) = (Value::None, Value::Int);
        let l = json("[1, 2, 3]");
        let l = Value::Json(&l);
        let sl = |obj, a, b, s| show(slice(&c, obj, a, b, s));
        let s = Value::Str("héllo");
        assert_eq!(sl(s, n, n, i(-1)), "olléh");
        assert_eq!(sl(s, i(1), i(3), n), "él");
        assert_eq!(sl(s, i(1), n, n), "éllo");
        assert_eq!(sl(s, n, n, i(2)), "hlo");
        assert_eq!(sl(Value::Str("abc"), i(10), n, n), "");
        assert_eq!(sl(Value::Str("abcdef"), i(-2), n, n), "ef");
        assert_eq!(sl(Value::Str("abcdef"), n, n, i(-2)), "fdb");
        assert_eq!(sl(l, n, n, i(-2)), "[3, 1]");
        assert_eq!(sl(l, i(-100), i(100), n), "[1, 2, 3]");
        assert_eq!(sl(l, i(5), i(1), i(-1)), "[3]");
        assert_eq!(sl(l, Value::Bool(true), n, n), "[2, 3]");
        assert_eq!(sl(l, c.int(1 << 70), n, n), "[]");
        assert_eq!(sl(l, c.int(-(1 << 70)), n, n), "[1, 2, 3]");
        let t = Value::Tuple(c.slice([i(1), i(2), i(3)]));
        assert_eq!(sl(t, i(1), n, n), "(2, 3)");
        assert_eq!(sl(t, n, n, i(-1)), "(3, 2, 1)");
        assert_eq!(sl(c.list([i(1), i(2), i(3)]), i(1), i(2), n), "[2]");
        let errs: &[(Value<'_>, Value<'_>, Value<'_>, Value<'_>, &str)] = &[
            (
                l,
                Value::Str("a"),
                n,
                n,
                "Type: slice indices must be integers or None or have an __index__ method",
            ),
            (
                l,
                i(1),
                Value::Float(2.0),
                n,
                "Type: slice indices must be integers or None or have an __index__ method",
            ),
            (l, n, n, i(0), "Value: slice step cannot be zero"),
            (
                n,
                i(1),
                n,
                n,
                "Type: 'NoneType' object is not subscriptable",
            ),
            (i(5), i(1), n, n, "Type: 'int' object is not subscriptable"),
            (
                Value::Dict(&[]),
                i(1),
                n,
                n,
                "Type: unhashable type: 'slice'",
            ),
            (
                c.iter(IterKind::Generator(Gen::Map), &[]),
                i(1),
                n,
                n,
                "Type: 'generator' object is not subscriptable",
            ),
            (
                c.iter(IterKind::DictItems, &[]),
                i(1),
                n,
                n,
                "Type: 'dict_items' object is not subscriptable",
            ),
        ];
        for (obj, a, b, s, want) in errs {
            assert_eq!(sl(*obj, *a, *b, *s), *want);
        }
        let x = Value::Undefined(Some(c.arena.alloc(UndefInfo::Name("x"))));
        assert_eq!(sl(x, i(1), n, n), "Undefined: 'x' is undefined");
    }
}
