//! Item lookup, `x[key]`: a key of a dict, an index of a list, tuple or string (negative
//! counts from the end), then the attribute.

use crate::value::{Ctx, IterKind, Value};

use super::compare::find_key;
use super::contains::hashable;
use super::seq::{json_get, MapRef, SeqRef};

/// `obj[key]` without the attribute fallback, for a key that is not a string: an index of a
/// list, tuple, range or string, or a key of a dict; `None` when there is none.
pub(super) fn item<'a>(ctx: &Ctx<'a>, obj: Value<'a>, key: Value<'a>) -> Option<Value<'a>> {
    match index_of(&key) {
        Some(i) => {
            if let Value::Iter(crate::value::Seq {
                kind: IterKind::Range { .. } | IterKind::Bytes,
                items,
                ..
            }) = obj
            {
                resolve_index(i, items.len()).and_then(|i| items.get(i).copied())
            } else if let Some(s) = SeqRef::of(&obj, true) {
                resolve_index(i, s.len()).and_then(|i| s.get_in(i, ctx))
            } else if let Value::Str(s) = obj {
                str_char(s, i)
            } else if let Value::Markup(s) = obj {
                str_char(s, i).map(|c| crate::value::markup::wrap(ctx, c))
            } else if let Some(m) = MapRef::of(&obj) {
                find_key(&m, &key)
            } else {
                None
            }
        }
        None => match MapRef::of(&obj) {
            Some(m) if hashable(&key).is_ok() => find_key(&m, &key),
            _ => None,
        },
    }
}

/// An integer subscript (`True` is 1); big ints are out of any range (a position far
/// beyond any length, which slices clamp and items do not find, as Python's lookups that
/// cannot fit the int into an index end in an `IndexError`).
pub(super) fn index_of(key: &Value<'_>) -> Option<i128> {
    match *key {
        Value::Int(i) => Some(i128::from(i)),
        Value::Bool(b) => Some(i128::from(b)),
        Value::Big(b) if b.is_negative() => Some(i128::MIN / 2),
        Value::Big(_) => Some(i128::MAX / 2),
        _ => None,
    }
}

/// A Python index (negative counts from the end) as a position in `0..len`.
pub(super) fn resolve_index(i: i128, len: usize) -> Option<usize> {
    let len = len as i128;
    let i = if i < 0 { i + len } else { i };
    if (0..len).contains(&i) {
        usize::try_from(i).ok()
    } else {
        None
    }
}

/// Character `i` of `s` (by code point), as a borrowed one-character string.
pub(super) fn str_char(s: &str, i: i128) -> Option<Value<'_>> {
    if s.is_ascii() {
        let i = resolve_index(i, s.len())?;
        return s.get(i..i + 1).map(Value::Str);
    }
    let i = resolve_index(i, s.chars().count())?;
    let (at, c) = s.char_indices().nth(i)?;
    s.get(at..at + c.len_utf8()).map(Value::Str)
}

/// `obj['name']` without the attribute fallback: dict keys and namespace attributes.
pub(super) fn str_item<'a>(ctx: &Ctx<'a>, obj: Value<'a>, name: &str) -> Option<Value<'a>> {
    match obj {
        Value::Json(serde_json::Value::Object(o)) => {
            json_get(o, name).map(|v| Value::from_json_in(v, ctx))
        }
        Value::Dict(d) => MapRef::Dict(d).get_str(name, ctx),
        Value::Ns(ns) => ns.get(name),
        _ => None,
    }
}
