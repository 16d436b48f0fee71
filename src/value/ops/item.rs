//! Item lookup, `x[key]`: a key of a dict, an index of a list, tuple or string (negative
//! counts from the end), then the attribute.

use crate::value::{Ctx, IterKind, UndefInfo, VResult, Value};

use super::attr::attribute;
use super::contains::hashable;
use super::seq::{MapRef, SeqRef};
use super::undefined::{missing_attr, obj_type_repr, undefined_error};

/// `obj[key]`: the item first, then, for a string key, the attribute.
pub(crate) fn getitem<'a>(ctx: &Ctx<'a>, obj: Value<'a>, key: Value<'a>) -> VResult<'a> {
    if obj.is_undefined() {
        return Err(undefined_error(&obj));
    }
    let key = key.demark();
    if let Value::Str(name) = key {
        if let Some(v) = str_item(ctx, obj, name) {
            return Ok(v);
        }
        if let Some(v) = attribute(ctx, obj, name) {
            return Ok(v);
        }
        return Ok(missing_attr(ctx, &obj, name));
    }
    let found = match index_of(&key) {
        Some(i) => {
            if let Value::Iter(crate::value::Seq {
                kind: IterKind::Range { .. },
                items,
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
                m.get(&key)
            } else {
                None
            }
        }
        None => match MapRef::of(&obj) {
            Some(m) if hashable(&key).is_ok() => m.get(&key),
            _ => None,
        },
    };
    Ok(found.unwrap_or_else(|| {
        Value::Undefined(Some(ctx.arena.alloc(UndefInfo::Item {
            obj: obj_type_repr(&obj),
            key,
        })))
    }))
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
#[inline]
/// `o[key]`. Chat messages and tool schemas are small objects: comparing a handful of keys
/// beats hashing the key (serde_json's map hashes with SipHash).
pub(crate) fn json_get<'j>(
    o: &'j serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'j serde_json::Value> {
    if o.len() <= 16 {
        o.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        o.get(key)
    }
}

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

#[cfg(test)]
mod tests {
    //! Expected results come from probing transformers' environment (jinja2 3.1.6, Python
    //! 3.11): `{{ expr }}` renders `str()` of the result; errors are shown as
    //! `Kind: message`.

    use super::*;

    use crate::value::testutil::ops::*;

    #[test]
    fn items_by_key_and_index() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let l = json("[1, 2, 3]");
        let l = Value::Json(&l);
        let get = |obj, key| show(getitem(&c, obj, key));
        assert_eq!(get(l, Value::Bool(true)), "2");
        assert_eq!(get(l, Value::Int(-1)), "3");
        assert_eq!(get(l, Value::Int(10)), "");
        assert_eq!(get(l, Value::Float(1.0)), "");
        assert_eq!(get(l, Value::Str("a")), "");
        assert_eq!(get(Value::Str("abc"), Value::Int(1)), "b");
        assert_eq!(get(Value::Str("abc"), Value::Int(-1)), "c");
        assert_eq!(get(Value::Str("abc"), Value::Int(5)), "");
        assert_eq!(get(Value::Str("héllo"), Value::Int(1)), "é");
        let dict = Value::Dict(c.arena.alloc([(Value::Int(1), Value::Str("a"))]));
        assert_eq!(get(dict, Value::Bool(true)), "a");
        assert_eq!(get(dict, Value::Float(1.0)), "a");
        let dict = Value::Dict(c.arena.alloc([(Value::Bool(true), Value::Str("a"))]));
        assert_eq!(get(dict, Value::Int(1)), "a");
        let err = |v: VResult<'_>| show_err::<()>(Err(undefined_error(&v.unwrap_or(Value::None))));
        assert_eq!(
            err(getitem(&c, l, Value::Int(10))),
            "Undefined: list object has no element 10"
        );
        assert_eq!(
            err(getitem(&c, l, Value::Str("a"))),
            "Undefined: 'list object' has no attribute 'a'"
        );
        let d = json(r#"{"a": 1}"#);
        assert_eq!(
            err(getitem(&c, Value::Json(&d), Value::Int(1))),
            "Undefined: dict object has no element 1"
        );
        assert_eq!(
            err(getitem(&c, Value::Json(&d), Value::Str("x"))),
            "Undefined: 'dict object' has no attribute 'x'"
        );
        // A string key that is no key finds the attribute: `{}['items']` is the method.
        let m = getitem(&c, Value::Dict(&[]), Value::Str("items"));
        assert!(matches!(m, Ok(Value::Callable(_))));
    }
}
