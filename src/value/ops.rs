//! Python semantics of operators, attribute and item access, slicing and iteration.

use crate::error::{err, Error};
use crate::value::{Ctx, UndefInfo, VResult, Value};

/// Binary arithmetic operators (and `~`, string concatenation).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Concat,
}

/// Ordering comparisons (`==`/`!=` go through [`eq`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
}

/// `a <op> b` with Python semantics.
pub(crate) fn binop<'a>(ctx: &Ctx<'a>, op: BinOp, a: Value<'a>, b: Value<'a>) -> VResult<'a> {
    match (op, a, b) {
        (BinOp::Concat, a, b) => {
            let mut s = String::new();
            super::fmt::write_str(&mut s, &a);
            super::fmt::write_str(&mut s, &b);
            Ok(ctx.str(&s))
        }
        (BinOp::Add, Value::Int(x), Value::Int(y)) => Ok(ctx.int(i128::from(x) + i128::from(y))),
        (BinOp::Sub, Value::Int(x), Value::Int(y)) => Ok(ctx.int(i128::from(x) - i128::from(y))),
        (BinOp::Add, Value::Str(x), Value::Str(y)) => {
            let mut s = bumpalo::collections::String::with_capacity_in(x.len() + y.len(), ctx.arena);
            s.push_str(x);
            s.push_str(y);
            Ok(Value::Str(s.into_bump_str()))
        }
        (op, a, b) => Err(err!(
            Type,
            "unsupported operand type(s) for {op:?}: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )),
    }
}

/// `-v`.
pub(crate) fn neg<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> VResult<'a> {
    match v {
        Value::Int(i) => Ok(ctx.int(-i128::from(i))),
        Value::Float(f) => Ok(Value::Float(-f)),
        _ => Err(err!(Type, "bad operand type for unary -: '{}'", v.type_name())),
    }
}

/// `+v`.
pub(crate) fn pos<'a>(_ctx: &Ctx<'a>, v: Value<'a>) -> VResult<'a> {
    match v {
        Value::Int(_) | Value::Big(_) | Value::Float(_) | Value::Bool(_) => Ok(v),
        _ => Err(err!(Type, "bad operand type for unary +: '{}'", v.type_name())),
    }
}

/// Python `a == b`.
pub(crate) fn eq(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Undefined(_), Value::Undefined(_)) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        _ => false,
    }
}

/// Python `a < b` and friends; mismatched types are a TypeError.
pub(crate) fn compare(op: CmpOp, a: &Value<'_>, b: &Value<'_>) -> Result<bool, Error> {
    let ord = match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        _ => {
            return Err(err!(
                Type,
                "'{}' not supported between instances of '{}' and '{}'",
                match op {
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                },
                a.type_name(),
                b.type_name()
            ))
        }
    };
    Ok(match op {
        CmpOp::Lt => ord.is_lt(),
        CmpOp::Le => ord.is_le(),
        CmpOp::Gt => ord.is_gt(),
        CmpOp::Ge => ord.is_ge(),
    })
}

/// Python `item in container`.
pub(crate) fn contains<'a>(ctx: &Ctx<'a>, container: Value<'a>, item: Value<'a>) -> Result<bool, Error> {
    match (container, item) {
        (Value::Str(h), Value::Str(n)) => Ok(h.contains(n)),
        (Value::Json(serde_json::Value::Object(o)), Value::Str(k)) => Ok(o.contains_key(k)),
        (c, i) => Ok(iterate(ctx, c)?.iter().any(|x| eq(x, &i))),
    }
}

/// `obj.name`: the attribute (methods included) first, then the item.
pub(crate) fn getattr<'a>(ctx: &Ctx<'a>, obj: Value<'a>, name: &'a str) -> VResult<'a> {
    if let Value::Undefined(_) = obj {
        return Err(undefined_error(&obj));
    }
    if crate::builtins::has_method(&obj, name) {
        return Ok(ctx.callable(crate::value::Callable::Method { recv: obj, name }));
    }
    match obj {
        Value::Json(serde_json::Value::Object(o)) => Ok(o
            .get(name)
            .map(|v| Value::from_json_in(v, ctx))
            .unwrap_or_else(|| missing_attr(ctx, &obj, name))),
        Value::Ns(ns) => Ok(ns.get(name).unwrap_or_else(|| missing_attr(ctx, &obj, name))),
        _ => Ok(missing_attr(ctx, &obj, name)),
    }
}

fn missing_attr<'a>(ctx: &Ctx<'a>, obj: &Value<'a>, name: &'a str) -> Value<'a> {
    Value::Undefined(Some(ctx.arena.alloc(UndefInfo::Attr {
        obj: obj_type_repr(obj),
        name,
    })))
}

/// jinja2's `object_type_repr`: `dict object`, `None`, ...
pub(crate) fn obj_type_repr(v: &Value<'_>) -> &'static str {
    match v {
        Value::None => "None",
        Value::Bool(_) => "bool object",
        Value::Int(_) | Value::Big(_) => "int object",
        Value::Float(_) => "float object",
        Value::Str(_) => "str object",
        Value::List(_) | Value::Json(serde_json::Value::Array(_)) => "list object",
        Value::Tuple(_) => "tuple object",
        Value::Dict(_) | Value::Json(_) => "dict object",
        Value::Ns(_) => "jinja2.utils.Namespace object",
        Value::Loop(_) => "jinja2.runtime.LoopContext object",
        _ => "object",
    }
}

/// The error that using an undefined value raises.
pub(crate) fn undefined_error(v: &Value<'_>) -> Error {
    match v {
        Value::Undefined(Some(UndefInfo::Name(n))) => err!(Undefined, "'{n}' is undefined"),
        Value::Undefined(Some(UndefInfo::Attr { obj, name })) => {
            err!(Undefined, "'{obj}' has no attribute '{name}'")
        }
        Value::Undefined(Some(UndefInfo::Item { obj, key })) => {
            let mut k = String::new();
            super::fmt::write_repr(&mut k, key);
            if let Value::Str(_) = key {
                err!(Undefined, "'{obj}' has no attribute {k}")
            } else {
                err!(Undefined, "{obj} has no element {k}")
            }
        }
        _ => err!(Undefined, "'undefined' is undefined"),
    }
}

/// `obj[key]`: the item first, then the attribute for string keys.
pub(crate) fn getitem<'a>(ctx: &Ctx<'a>, obj: Value<'a>, key: Value<'a>) -> VResult<'a> {
    match (obj, key) {
        (Value::Undefined(_), _) => Err(undefined_error(&obj)),
        (Value::Json(serde_json::Value::Array(a)), Value::Int(i)) => {
            let i = if i < 0 { i + a.len() as i64 } else { i };
            Ok(usize::try_from(i)
                .ok()
                .and_then(|i| a.get(i))
                .map(|v| Value::from_json_in(v, ctx))
                .unwrap_or(Value::UNDEFINED))
        }
        (Value::List(a) | Value::Tuple(a), Value::Int(i)) => {
            let i = if i < 0 { i + a.len() as i64 } else { i };
            Ok(usize::try_from(i).ok().and_then(|i| a.get(i)).copied().unwrap_or(Value::UNDEFINED))
        }
        (_, Value::Str(name)) => getattr(ctx, obj, name),
        _ => Ok(Value::UNDEFINED),
    }
}

/// `obj[start:stop:step]`; absent bounds are `Value::None`.
pub(crate) fn slice<'a>(
    ctx: &Ctx<'a>,
    obj: Value<'a>,
    start: Value<'a>,
    stop: Value<'a>,
    step: Value<'a>,
) -> VResult<'a> {
    let _ = (start, stop, step);
    Err(err!(Type, "slicing '{}' is not supported yet", obj.type_name())).or(Ok(ctx.list([])))
}

/// The items `for x in v` visits. Undefined iterates as empty; dicts yield their keys.
pub(crate) fn iterate<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> Result<&'a [Value<'a>], Error> {
    match v {
        Value::Undefined(_) => Ok(&[]),
        Value::List(l) | Value::Tuple(l) => Ok(l),
        Value::Iter(s) => Ok(s.items),
        Value::Dict(d) => Ok(ctx.slice(d.iter().map(|(k, _)| *k))),
        Value::Json(serde_json::Value::Array(a)) => {
            Ok(ctx.slice(a.iter().map(|x| Value::from_json_in(x, ctx))))
        }
        Value::Json(serde_json::Value::Object(o)) => {
            Ok(ctx.slice(o.keys().map(|k| Value::Str(k.as_str()))))
        }
        Value::Str(s) => Ok(ctx.slice(s.char_indices().map(|(i, c)| Value::Str(&s[i..i + c.len_utf8()])))),
        _ => Err(err!(Type, "'{}' object is not iterable", v.type_name())),
    }
}

/// Python `len(v)`.
pub(crate) fn length(v: &Value<'_>) -> Result<usize, Error> {
    match v {
        Value::Str(s) => Ok(s.chars().count()),
        Value::List(l) | Value::Tuple(l) => Ok(l.len()),
        Value::Dict(d) => Ok(d.len()),
        Value::Json(serde_json::Value::Array(a)) => Ok(a.len()),
        Value::Json(serde_json::Value::Object(o)) => Ok(o.len()),
        _ => Err(err!(Type, "object of type '{}' has no len()", v.type_name())),
    }
}
