//! Python `in`: substring for strings, key for dicts, element for sequences; and the
//! `hash()` check a dict key must pass.

use crate::error::{err, Error};
use crate::value::budget;
use crate::value::{Ctx, IterKind, Value};

use super::compare::{eq, find_key, SMALL_BYTES};
use super::seq::{find_bytes, short_eq, MapRef, SeqRef};

/// Whether `v` can be a dict key (Python's `hash(v)` succeeds).
pub(super) fn hashable(v: &Value<'_>) -> Result<(), Error> {
    match v {
        Value::List(_) | Value::Json(serde_json::Value::Array(_)) => {
            Err(err!(Type, "unhashable type: 'list'"))
        }
        Value::Dict(_) | Value::Json(_) => Err(err!(Type, "unhashable type: 'dict'")),
        Value::Iter(s) if matches!(s.kind, IterKind::DictKeys | IterKind::DictItems) => {
            Err(err!(Type, "unhashable type: '{}'", v.type_name()))
        }
        Value::Tuple(items) => items.iter().try_for_each(hashable),
        _ => Ok(()),
    }
}

/// Python `item in container`: substring for strings, key for dicts, element otherwise;
/// nothing is in an undefined.
pub(crate) fn contains<'a>(
    ctx: &Ctx<'a>,
    container: Value<'a>,
    item: Value<'a>,
) -> Result<bool, Error> {
    let _ = ctx;
    let (container, item) = (container.demark(), item.demark());
    if let Some(m) = MapRef::of(&container) {
        hashable(&item)?;
        return Ok(find_key(&m, &item).is_some());
    }
    if let Some(s) = SeqRef::of(&container, true) {
        budget::charge_items(s.len())?;
        // `key in ['a', 'b']` with a short key (each comparison bounded, so the item count
        // charged above covers it): string items compared in registers, others by `==`.
        if let (SeqRef::Values(items), Value::Str(n)) = (s, item) {
            if n.len() <= SMALL_BYTES {
                return Ok(items.iter().any(|x| match x {
                    Value::Str(x) | Value::Markup(x) => short_eq(x.as_bytes(), n.as_bytes()),
                    other => eq(other, &item),
                }));
            }
        }
        return Ok((0..s.len()).any(|i| s.get(i).is_some_and(|x| eq(&x, &item))));
    }
    match container {
        Value::Str(h) => match item {
            Value::Str(n) => {
                budget::charge_bytes(h.len())?;
                Ok(find_bytes(h.as_bytes(), n.as_bytes()).is_some())
            }
            other => Err(err!(
                Type,
                "'in <string>' requires string as left operand, not {}",
                other.type_name()
            )),
        },
        Value::Undefined(_) => Ok(false),
        Value::Iter(s) => {
            if s.kind == IterKind::DictKeys {
                hashable(&item)?;
            }
            let items = s.values()?;
            budget::charge_items(items.len())?;
            Ok(items.iter().any(|x| eq(x, &item)))
        }
        Value::Loop(l) => Ok(budget::spend_items(l.items.len())
            && l.items
                .get(l.index0.get() + 1..)
                .unwrap_or(&[])
                .iter()
                .any(|x| eq(x, &item))),
        other => Err(err!(
            Type,
            "argument of type '{}' is not iterable",
            other.type_name()
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
    fn membership() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let d = json(r#"{"items": 1, "a": 2}"#);
        let d = Value::Json(&d);
        let l = json("[1, 2, 3]");
        let l = Value::Json(&l);
        let x = Value::Undefined(Some(c.arena.alloc(UndefInfo::Name("x"))));
        let yes = |cont, item| contains(&c, cont, item).ok();
        assert_eq!(yes(Value::Str("items"), Value::Str("it")), Some(true));
        assert_eq!(yes(d, Value::Str("a")), Some(true));
        assert_eq!(yes(d, Value::Int(1)), Some(false));
        assert_eq!(yes(x, Value::Int(1)), Some(false));
        assert_eq!(yes(l, x), Some(false));
        assert_eq!(yes(l, Value::Float(2.0)), Some(true));
        assert_eq!(
            yes(c.list([c.list([Value::Int(1)])]), c.list([Value::Int(1)])),
            Some(true)
        );
        let dict = Value::Dict(c.arena.alloc([(Value::Int(1), Value::Str("a"))]));
        assert_eq!(yes(dict, Value::Bool(true)), Some(true));
        // String keys and items: a `Markup` of the same text is the same; a number is not.
        let dict = Value::Dict(c.arena.alloc([
            (Value::Int(1), Value::Str("a")),
            (Value::Markup("role"), Value::Str("b")),
        ]));
        assert_eq!(yes(dict, Value::Str("role")), Some(true));
        assert_eq!(yes(dict, Value::Str("1")), Some(false));
        let mixed = c.list([Value::Int(1), Value::Markup("<b>"), Value::Str("content")]);
        assert_eq!(yes(mixed, Value::Str("content")), Some(true));
        assert_eq!(yes(mixed, Value::Str("<b>")), Some(true));
        assert_eq!(yes(mixed, Value::Markup("content")), Some(true));
        assert_eq!(yes(mixed, Value::Str("1")), Some(false));
        assert_eq!(yes(mixed, Value::Str("conten")), Some(false));
        let long = "k".repeat(300);
        let longs = c.list([Value::Str("k"), Value::Str(c.arena.alloc_str(&long))]);
        assert_eq!(yes(longs, Value::Str(&long)), Some(true));
        let vals = c.iter(
            IterKind::DictValues,
            c.slice([Value::Int(1), Value::Int(2)]),
        );
        assert_eq!(yes(vals, Value::Int(2)), Some(true));
        let errs: &[(Value<'_>, Value<'_>, &str)] = &[
            (
                Value::Int(1),
                Value::Str("a"),
                "Type: argument of type 'int' is not iterable",
            ),
            (
                Value::Str("abc"),
                Value::Int(1),
                "Type: 'in <string>' requires string as left operand, not int",
            ),
            (
                Value::Str("abc"),
                Value::None,
                "Type: 'in <string>' requires string as left operand, not NoneType",
            ),
            (d, c.list([Value::Int(1)]), "Type: unhashable type: 'list'"),
            (
                d,
                Value::Tuple(c.slice([Value::Int(1), c.list([])])),
                "Type: unhashable type: 'list'",
            ),
            (
                Value::Ns(c.namespace()),
                Value::Str("a"),
                "Type: argument of type 'TemplateNamespace' is not iterable",
            ),
        ];
        for (cont, item, want) in errs {
            assert_eq!(show_err(contains(&c, *cont, *item)), *want);
        }
    }
}
