//! Attribute lookup, `x.name`, as the sandbox filters Python's `getattr`: methods (bound),
//! the attributes of `loop`, namespaces, numbers and group tuples; names starting with `_`
//! and the mutators are unsafe; a missing attribute falls back to the item.

use crate::value::{Callable, Ctx, LoopState, Value};

use super::undefined::{missing_attr, undefined_hint};
use crate::value::methods::is_dunder;

/// Python's `getattr(obj, name)` as the sandbox filters it: `None` when the object has no
/// such attribute (then the item is tried).
pub(super) fn attribute<'a>(ctx: &Ctx<'a>, obj: Value<'a>, name: &'a str) -> Option<Value<'a>> {
    if name.starts_with('_') {
        // Every name starting with `_` is unsafe; Python only gets that far when the
        // attribute exists (the dunders), else it falls back to the item.
        return is_dunder(name).then(|| missing_attr(ctx, &obj, name));
    }
    if crate::value::methods::is_mutator(&obj, name) {
        return Some(missing_attr(ctx, &obj, name));
    }
    if crate::value::methods::has_method(&obj, name) {
        return Some(ctx.callable(Callable::Method { recv: obj, name }));
    }
    match obj {
        Value::Tuple(t) if ctx.is_group_tuple(t) => match name {
            "grouper" => t.first().copied(),
            "list" => t.get(1).copied(),
            _ => None,
        },
        Value::Loop(l) => loop_attr(ctx, l, name),
        Value::Ns(ns) => ns.get(name),
        Value::Bool(_) | Value::Int(_) | Value::Big(_) => match name {
            "real" | "numerator" => match obj {
                Value::Bool(b) => Some(Value::Int(i64::from(b))),
                other => Some(other),
            },
            "imag" => Some(Value::Int(0)),
            "denominator" => Some(Value::Int(1)),
            _ => None,
        },
        Value::Float(f) => match name {
            "real" => Some(Value::Float(f)),
            "imag" => Some(Value::Float(0.0)),
            _ => None,
        },
        _ => None,
    }
}

/// The attributes of `loop`.
pub(super) fn loop_attr<'a>(ctx: &Ctx<'a>, l: &'a LoopState<'a>, name: &str) -> Option<Value<'a>> {
    let i = l.index0.get();
    let len = l.items.len();
    let int = |n: usize| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
    Some(match name {
        "index" => int(i + 1),
        "index0" => int(i),
        "revindex" => int(len.saturating_sub(i)),
        "revindex0" => int(len.saturating_sub(i + 1)),
        "first" => Value::Bool(i == 0),
        "last" => Value::Bool(i + 1 >= len),
        "length" => int(len),
        "depth" => int(l.depth),
        "depth0" => int(l.depth.saturating_sub(1)),
        "previtem" => match i.checked_sub(1).and_then(|p| l.items.get(p)) {
            Some(v) => *v,
            None => undefined_hint(ctx, "there is no previous item"),
        },
        "nextitem" => match l.items.get(i + 1) {
            Some(v) => *v,
            None => undefined_hint(ctx, "there is no next item"),
        },
        "cycle" => ctx.callable(Callable::Cycle(l)),
        _ => return None,
    })
}
