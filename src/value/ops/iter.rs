//! Iteration (`for x in v`: dicts yield their keys, strings their characters) and `len()`.

use crate::error::{err, Error};
use crate::value::{Ctx, IterKind, Value};

/// The items `for x in v` visits. Undefined iterates as empty; dicts yield their keys;
/// strings their characters. Template lists, tuples and materialized iterables are returned
/// as they are; JSON arrays, dicts and strings are materialized in the arena.
pub(crate) fn iterate<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> Result<&'a [Value<'a>], Error> {
    match v {
        Value::Undefined(_) => Ok(&[]),
        Value::List(l) | Value::Tuple(l) => Ok(l),
        Value::Iter(s) => s.values(),
        Value::Loop(l) => Ok(l.items.get(l.index0.get() + 1..).unwrap_or(&[])),
        _ => Ok(ctx.slice(items(ctx, v)?)),
    }
}

/// An allocation-free iterator over what `for x in v` visits (see [`items`]).
pub(crate) enum Items<'c, 'a> {
    /// Items already in the arena.
    Values(std::slice::Iter<'a, Value<'a>>),
    /// A JSON array's elements.
    Json(&'c Ctx<'a>, std::slice::Iter<'a, serde_json::Value>),
    /// A template dict's keys.
    DictKeys(std::slice::Iter<'a, (Value<'a>, Value<'a>)>),
    /// A JSON object's keys.
    JsonKeys(serde_json::map::Keys<'a>),
    /// A string's characters, each a borrowed one-character string.
    Chars(&'a str, std::str::CharIndices<'a>),
}

impl<'a> Iterator for Items<'_, 'a> {
    type Item = Value<'a>;

    #[inline]
    fn next(&mut self) -> Option<Value<'a>> {
        match self {
            Items::Values(it) => it.next().copied(),
            Items::Json(ctx, it) => it.next().map(|x| Value::from_json_in(x, ctx)),
            Items::DictKeys(it) => it.next().map(|(k, _)| *k),
            Items::JsonKeys(it) => it.next().map(|k| Value::Str(k.as_str())),
            Items::Chars(s, it) => it
                .next()
                .and_then(|(i, c)| s.get(i..i + c.len_utf8()))
                .map(Value::Str),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Items::Values(it) => it.size_hint(),
            Items::Json(_, it) => it.size_hint(),
            Items::DictKeys(it) => it.size_hint(),
            Items::JsonKeys(it) => it.size_hint(),
            Items::Chars(_, it) => it.size_hint(),
        }
    }
}

/// Iterates `v` without materializing it; `TypeError: 'int' object is not iterable` for
/// what Python cannot iterate.
pub(crate) fn items<'c, 'a>(ctx: &'c Ctx<'a>, v: Value<'a>) -> Result<Items<'c, 'a>, Error> {
    Ok(match v {
        Value::Undefined(_) => Items::Values([].iter()),
        Value::List(l) | Value::Tuple(l) => Items::Values(l.iter()),
        Value::Iter(s) => Items::Values(s.values()?.iter()),
        Value::Loop(l) => Items::Values(l.items.get(l.index0.get() + 1..).unwrap_or(&[]).iter()),
        Value::Dict(d) => Items::DictKeys(d.iter()),
        Value::Json(serde_json::Value::Array(a)) => Items::Json(ctx, a.iter()),
        Value::Json(serde_json::Value::Object(o)) => Items::JsonKeys(o.keys()),
        Value::Str(s) | Value::Markup(s) => Items::Chars(s, s.char_indices()),
        _ => return Err(err!(Type, "'{}' object is not iterable", v.type_name())),
    })
}

/// Python `len(v)`; an undefined has length 0.
pub(crate) fn length(v: &Value<'_>) -> Result<usize, Error> {
    match v {
        Value::Undefined(_) => Ok(0),
        Value::Str(s) | Value::Markup(s) if s.is_ascii() => Ok(s.len()),
        Value::Str(s) | Value::Markup(s) => Ok(s.chars().count()),
        Value::List(l) | Value::Tuple(l) => Ok(l.len()),
        Value::Dict(d) => Ok(d.len()),
        Value::Json(serde_json::Value::Array(a)) => Ok(a.len()),
        Value::Json(serde_json::Value::Object(o)) => Ok(o.len()),
        Value::Iter(s)
            if !matches!(
                s.kind,
                IterKind::Generator(_) | IterKind::Reverse(_) | IterKind::RangeReverse
            ) =>
        {
            Ok(s.items.len())
        }
        Value::Loop(l) => Ok(l.items.len()),
        _ => Err(err!(
            Type,
            "object of type '{}' has no len()",
            v.type_name()
        )),
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
    fn iteration_and_length() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let d = json(r#"{"items": 1, "a": 2}"#);
        let keys = iterate(&c, Value::Json(&d)).map(|k| c.list(k.iter().copied()));
        assert_eq!(show(keys), "['items', 'a']");
        let chars = iterate(&c, Value::Str("hé")).map(|k| c.list(k.iter().copied()));
        assert_eq!(show(chars), "['h', 'é']");
        assert_eq!(iterate(&c, Value::UNDEFINED).map(<[_]>::len).ok(), Some(0));
        assert_eq!(
            show_err(iterate(&c, Value::None)),
            "Type: 'NoneType' object is not iterable"
        );
        assert_eq!(
            show_err(iterate(&c, Value::Ns(c.namespace()))),
            "Type: 'TemplateNamespace' object is not iterable"
        );
        let big = json("[18446744073709551615]");
        let items: Vec<String> = items(&c, Value::Json(&big))
            .map(|it| it.map(|v| show(Ok(v))).collect())
            .unwrap_or_default();
        assert_eq!(items, ["18446744073709551615"]);

        assert_eq!(length(&Value::Json(&d)).ok(), Some(2));
        assert_eq!(length(&Value::UNDEFINED).ok(), Some(0));
        assert_eq!(length(&Value::Str("héllo")).ok(), Some(5));
        assert_eq!(
            length(&c.iter(IterKind::DictKeys, c.slice([Value::Int(1)]))).ok(),
            Some(1)
        );
        assert_eq!(
            show_err(length(&c.iter(IterKind::Generator(Gen::Map), &[]))),
            "Type: object of type 'generator' has no len()"
        );
        assert_eq!(
            show_err(length(
                &c.iter(IterKind::Reverse(crate::value::RevOf::List), &[])
            )),
            "Type: object of type 'list_reverseiterator' has no len()"
        );
        assert_eq!(
            show_err(length(&Value::Ns(c.namespace()))),
            "Type: object of type 'TemplateNamespace' has no len()"
        );
    }
}
