//! Methods of dicts and lists (and the dispatch of `recv.name(...)` to them and to the `str`
//! methods of [`super::strmethods`]). Mutators exist, so that they shadow keys, but the
//! immutable sandbox refuses to call them.

use crate::error::{err, Error, ExceptionClass};
use crate::value::ops;
use crate::value::{Ctx, IterKind, VResult, Value};

use super::args::{bind, check_hashable, int_arg, no_args, pairs};
use super::strmethods;
use super::Kwargs;
use crate::value::methods::{has_method, is_mutator, recv_kind, Recv};

/// Calls method `name` of `recv`.
pub(crate) fn call_method<'a>(
    ctx: &Ctx<'a>,
    recv: Value<'a>,
    name: &'a str,
    args: &[Value<'a>],
    kw: Kwargs<'_, 'a>,
) -> VResult<'a> {
    if is_mutator(&recv, name) {
        return Err(err!(
            Security,
            "access to attribute '{name}' of '{}' object is unsafe.",
            recv.type_name()
        ));
    }
    if !has_method(&recv, name) {
        return Err(err!(
            Type,
            "'{}' object has no attribute '{name}'",
            recv.type_name()
        )
        .with_class(ExceptionClass::AttributeError));
    }
    match (recv_kind(&recv), recv) {
        (Recv::Str, Value::Str(s)) => strmethods::call(ctx, s, name, args, kw),
        (Recv::Str, Value::Markup(s)) => super::markup::method(ctx, s, name, args, kw),
        (Recv::Dict, _) => dict_method(ctx, recv, name, args, kw),
        (Recv::Other, Value::Ns(ns)) => super::globals::helper_call(ns, name, args, kw),
        (Recv::Other, Value::Iter(seq)) => super::bytes::decode(ctx, seq.items, args, kw),
        (Recv::Other, _) => fromkeys(ctx, args, kw),
        _ => seq_method(ctx, recv, name, args, kw),
    }
}

/// `items`, `keys`, `values`, `get`, `copy` of a dict.
fn dict_method<'a>(
    ctx: &Ctx<'a>,
    recv: Value<'a>,
    name: &str,
    args: &[Value<'a>],
    kw: Kwargs<'_, 'a>,
) -> VResult<'a> {
    if name == "get" {
        if !kw.is_empty() {
            return Err(err!(Type, "dict.get() takes no keyword arguments"));
        }
        let (key, default) = match args {
            [k] => (*k, Value::None),
            [k, d] => (*k, *d),
            _ => {
                return Err(err!(
                    Type,
                    "get expected at most 2 arguments, got {}",
                    args.len()
                ))
            }
        };
        return dict_get(ctx, recv, key).map(|v| v.unwrap_or(default));
    }
    no_args(name, args, kw)?;
    let items = pairs(ctx, &recv).unwrap_or(&[]);
    Ok(match name {
        "items" => {
            let tuples = items.iter().map(|(k, v)| super::args::pair(ctx, *k, *v));
            ctx.iter(IterKind::DictItems, ctx.slice(tuples))
        }
        "keys" => ctx.iter(IterKind::DictKeys, ctx.slice(items.iter().map(|p| p.0))),
        "values" => ctx.iter(IterKind::DictValues, ctx.slice(items.iter().map(|p| p.1))),
        _ => Value::Dict(items),
    })
}

/// `d.get(key)` without the default: the value, or `None` when absent.
pub(crate) fn dict_get<'a>(
    ctx: &Ctx<'a>,
    d: Value<'a>,
    key: Value<'a>,
) -> Result<Option<Value<'a>>, Error> {
    check_hashable(&key)?;
    Ok(match d {
        Value::Json(serde_json::Value::Object(o)) => match key {
            Value::Str(k) | Value::Markup(k) => {
                ops::json_get(o, k).map(|v| Value::from_json_in(v, ctx))
            }
            _ => None,
        },
        Value::Dict(items) => items
            .iter()
            .find(|(k, _)| ops::eq(k, &key))
            .map(|(_, v)| *v),
        _ => None,
    })
}

/// `dict.fromkeys(iterable, value=None)`.
fn fromkeys<'a>(ctx: &Ctx<'a>, args: &[Value<'a>], kw: Kwargs<'_, 'a>) -> VResult<'a> {
    let [keys, value] = bind("fromkeys", ["iterable", "value"], args, kw)?;
    let keys = keys.ok_or_else(|| err!(Type, "fromkeys expected at least 1 argument, got 0"))?;
    let value = value.unwrap_or(Value::None);
    let mut out: Vec<(Value<'a>, Value<'a>)> = Vec::new();
    for k in ops::iterate(ctx, keys)? {
        check_hashable(k)?;
        if !out.iter().any(|(x, _)| ops::eq(x, k)) {
            out.push((*k, value));
        }
    }
    Ok(Value::Dict(ctx.arena.alloc_slice_copy(&out)))
}

/// `count`, `index`, `copy` of a list or tuple.
fn seq_method<'a>(
    ctx: &Ctx<'a>,
    recv: Value<'a>,
    name: &str,
    args: &[Value<'a>],
    kw: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let items = ops::iterate(ctx, recv)?;
    match name {
        "copy" => {
            no_args(name, args, kw)?;
            Ok(Value::List(items))
        }
        "count" => {
            let [x] = bind(name, ["value"], args, kw)?;
            let x = x.ok_or_else(|| err!(Type, "count() takes exactly one argument (0 given)"))?;
            Ok(Value::Int(
                items.iter().filter(|i| ops::eq(i, &x)).count() as i64
            ))
        }
        _ => {
            if !kw.is_empty() {
                return Err(err!(Type, "index() takes no keyword arguments"));
            }
            let (x, rest) = args
                .split_first()
                .ok_or_else(|| err!(Type, "index expected at least 1 argument, got 0"))?;
            let len = items.len() as i64;
            let fix = |i: i64| if i < 0 { (i + len).max(0) } else { i.min(len) };
            let start = rest.first().map_or(Ok(0), |v| int_arg(v).map(fix))?;
            let end = rest.get(1).map_or(Ok(len), |v| int_arg(v).map(fix))?;
            let hit = (start..end).find(|&i| ops::eq(&items[i as usize], x));
            match hit {
                Some(i) => Ok(Value::Int(i)),
                None => Err(err!(
                    Value,
                    "{} is not in {}",
                    super::args::repr(x),
                    recv.type_name()
                )),
            }
        }
    }
}

#[cfg(test)]
mod unit {
    use super::super::args::testutil::{leak, s, with_ctx};
    use super::*;

    #[test]
    fn mutators_are_refused() {
        with_ctx(|ctx| {
            let l = Value::List(&[]);
            assert!(has_method(&l, "append"));
            let e = call_method(ctx, l, "append", &[Value::Int(1)], &[])
                .err()
                .expect("an error");
            assert_eq!(e.kind(), crate::ErrorKind::Security);
            assert_eq!(
                e.message(),
                "access to attribute 'append' of 'list' object is unsafe."
            );
            let d = Value::Dict(&[]);
            let e = call_method(ctx, d, "update", &[], &[])
                .err()
                .expect("an error");
            assert_eq!(
                e.message(),
                "access to attribute 'update' of 'dict' object is unsafe."
            );
            assert!(!has_method(&Value::Tuple(&[]), "append"));
        });
    }

    #[test]
    fn dict_methods() {
        with_ctx(|ctx| {
            let j: &serde_json::Value = ctx.arena.alloc(serde_json::json!({"a": 1, "items": 2}));
            let d = Value::Json(j);
            assert!(has_method(&d, "items"));
            let v = call_method(ctx, d, "get", &[Value::Str("a")], &[]).unwrap();
            assert_eq!(s(&v), "1");
            let v = call_method(ctx, d, "get", &[Value::Str("z"), Value::Int(5)], &[]).unwrap();
            assert_eq!(s(&v), "5");
            let v = call_method(ctx, d, "get", &[Value::Str("z")], &[]).unwrap();
            assert!(matches!(v, Value::None));
            let Value::Iter(it) = call_method(ctx, d, "items", &[], &[]).unwrap() else {
                panic!("items is not a view");
            };
            assert_eq!(it.kind, IterKind::DictItems);
            assert_eq!(it.items.len(), 2);
            assert!(call_method(ctx, d, "get", &[Value::List(&[])], &[]).is_err());
        });
    }

    #[test]
    fn list_methods() {
        with_ctx(|ctx| {
            let items = leak([Value::Int(1), Value::Int(2), Value::Int(1)]);
            let l = Value::List(items);
            let v = call_method(ctx, l, "count", &[Value::Int(1)], &[]).unwrap();
            assert_eq!(s(&v), "2");
            let v = call_method(ctx, l, "index", &[Value::Int(1), Value::Int(1)], &[]).unwrap();
            assert_eq!(s(&v), "2");
            assert!(call_method(ctx, l, "index", &[Value::Int(9)], &[]).is_err());
        });
    }
}
