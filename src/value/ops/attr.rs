//! Attribute lookup, `x.name`, as the sandbox filters Python's `getattr`: methods (bound),
//! the attributes of `loop`, namespaces, numbers and group tuples; names starting with `_`
//! and the mutators are unsafe; a missing attribute falls back to the item.

use crate::value::{Callable, Ctx, LoopState, VResult, Value};

use super::item::str_item;
use super::undefined::{missing_attr, undefined_error, undefined_hint};

/// `obj.name`: the attribute (methods included) first, then the item. A missing one is an
/// undefined that remembers what was missing; one the sandbox refuses is an undefined whose
/// use raises `SecurityError` (see [`undefined_error`]).
pub(crate) fn getattr<'a>(ctx: &Ctx<'a>, obj: Value<'a>, name: &'a str) -> VResult<'a> {
    if obj.is_undefined() {
        return Err(undefined_error(&obj));
    }
    if let Some(v) = attribute(ctx, obj, name) {
        return Ok(v);
    }
    if let Some(v) = str_item(ctx, obj, name) {
        return Ok(v);
    }
    Ok(missing_attr(ctx, &obj, name))
}

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

/// Whether `name` is a dunder attribute that Python objects of the template's types have.
pub(super) fn is_dunder(name: &str) -> bool {
    DUNDERS.binary_search(&name).is_ok()
}

/// The dunder attributes of str, int, float, bool, None, list, tuple, dict, its views,
/// generators, functions, methods, `LoopContext` and `Macro` (Python 3.11), sorted.
pub(super) static DUNDERS: &[&str] = &[
    "__abs__",
    "__add__",
    "__and__",
    "__annotations__",
    "__bool__",
    "__builtins__",
    "__call__",
    "__ceil__",
    "__class__",
    "__class_getitem__",
    "__closure__",
    "__code__",
    "__contains__",
    "__defaults__",
    "__del__",
    "__delattr__",
    "__delitem__",
    "__dict__",
    "__dir__",
    "__divmod__",
    "__doc__",
    "__eq__",
    "__float__",
    "__floor__",
    "__floordiv__",
    "__format__",
    "__ge__",
    "__get__",
    "__getattribute__",
    "__getformat__",
    "__getitem__",
    "__getnewargs__",
    "__getstate__",
    "__globals__",
    "__gt__",
    "__hash__",
    "__iadd__",
    "__imul__",
    "__index__",
    "__init__",
    "__init_subclass__",
    "__int__",
    "__invert__",
    "__ior__",
    "__iter__",
    "__kwdefaults__",
    "__le__",
    "__len__",
    "__length_hint__",
    "__lshift__",
    "__lt__",
    "__mod__",
    "__module__",
    "__mul__",
    "__name__",
    "__ne__",
    "__neg__",
    "__new__",
    "__next__",
    "__or__",
    "__pos__",
    "__pow__",
    "__qualname__",
    "__radd__",
    "__rand__",
    "__rdivmod__",
    "__reduce__",
    "__reduce_ex__",
    "__repr__",
    "__reversed__",
    "__rfloordiv__",
    "__rlshift__",
    "__rmod__",
    "__rmul__",
    "__ror__",
    "__round__",
    "__rpow__",
    "__rrshift__",
    "__rshift__",
    "__rsub__",
    "__rtruediv__",
    "__rxor__",
    "__self__",
    "__setattr__",
    "__setitem__",
    "__setstate__",
    "__sizeof__",
    "__str__",
    "__sub__",
    "__subclasshook__",
    "__text_signature__",
    "__truediv__",
    "__trunc__",
    "__weakref__",
    "__xor__",
];

#[cfg(test)]
mod tests {
    //! Expected results come from probing transformers' environment (jinja2 3.1.6, Python
    //! 3.11): `{{ expr }}` renders `str()` of the result; errors are shown as
    //! `Kind: message`.

    use super::*;
    use crate::value::ops::*;
    use crate::value::testutil::ops::*;

    #[test]
    fn attributes_before_keys() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let j = json(r#"{"items": 1, "a": 2, "_x": 3, "__class__": 4}"#);
        let d = Value::Json(&j);
        // `d.items` is the method even though the key exists; `d['items']` is the key.
        let m = getattr(&c, d, "items");
        assert!(matches!(
            m,
            Ok(Value::Callable(Callable::Method { name: "items", .. }))
        ));
        assert_eq!(show(getitem(&c, d, Value::Str("items"))), "1");
        assert_eq!(show(getattr(&c, d, "a")), "2");
        // A `_` name that is no Python attribute falls back to the key...
        assert_eq!(show(getattr(&c, d, "_x")), "3");
        // ... but a real dunder is found first and refused by the sandbox.
        let class = getattr(&c, d, "__class__").unwrap_or(Value::None);
        assert_eq!(show(Ok(class)), "");
        assert_eq!(
            show_err::<()>(Err(undefined_error(&class))),
            "Security: access to attribute '__class__' of 'dict' object is unsafe."
        );
        assert_eq!(show(getitem(&c, d, Value::Str("__class__"))), "4");
        let empty = json("{}");
        let class = getitem(&c, Value::Json(&empty), Value::Str("__class__"));
        assert!(matches!(class, Ok(Value::Undefined(_))));
        // Mutators are refused: printing gives nothing, using raises SecurityError.
        let l = json("[1, 2, 3]");
        for name in ["append", "pop", "clear"] {
            let v = getattr(&c, Value::Json(&l), name).unwrap_or(Value::None);
            assert!(v.is_undefined());
            assert_eq!(
                show_err::<()>(Err(undefined_error(&v))),
                format!("Security: access to attribute '{name}' of 'list' object is unsafe.")
            );
        }
        let pop = getattr(&c, d, "setdefault").unwrap_or(Value::None);
        assert_eq!(
            show_err::<()>(Err(undefined_error(&pop))),
            "Security: access to attribute 'setdefault' of 'dict' object is unsafe."
        );
        // Missing attributes remember what was missing.
        let missing = getattr(&c, d, "x").unwrap_or(Value::None);
        assert!(!missing.is_true());
        assert_eq!(
            show_err::<()>(Err(undefined_error(&missing))),
            "Undefined: 'dict object' has no attribute 'x'"
        );
        let none_attr = getattr(&c, Value::None, "foo").unwrap_or(Value::Int(0));
        assert!(none_attr.is_undefined());
        assert_eq!(
            show_err::<()>(Err(undefined_error(&none_attr))),
            "Undefined: 'None' has no attribute 'foo'"
        );
        let x = Value::Undefined(Some(c.arena.alloc(UndefInfo::Name("x"))));
        assert_eq!(show(getattr(&c, x, "y")), "Undefined: 'x' is undefined");
        assert_eq!(
            show(getitem(&c, x, Value::Int(0))),
            "Undefined: 'x' is undefined"
        );
        // Numbers have their few data attributes.
        assert_eq!(show(getattr(&c, Value::Int(1), "real")), "1");
        assert_eq!(show(getattr(&c, Value::Float(1.5), "imag")), "0.0");
        assert_eq!(show(getattr(&c, Value::Bool(true), "numerator")), "1");
        // Namespaces: attributes, also by subscript.
        let ns = c.namespace();
        ns.set("a", Value::Int(1));
        assert_eq!(show(getattr(&c, Value::Ns(ns), "a")), "1");
        assert_eq!(show(getitem(&c, Value::Ns(ns), Value::Str("a"))), "1");
        let b = getattr(&c, Value::Ns(ns), "b").unwrap_or(Value::None);
        assert_eq!(
            show_err::<()>(Err(undefined_error(&b))),
            "Undefined: 'transformers.utils.chat_template_utils.TemplateNamespace object' has no attribute 'b'"
        );
    }

    #[test]
    fn loop_attributes() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let items = [Value::Int(1), Value::Int(2), Value::Int(3)];
        let l = c.arena.alloc(LoopState {
            items: &items,
            index0: Cell::new(0),
            depth: 1,
            changed: Cell::new(None),
        });
        let names = [
            "index",
            "revindex",
            "revindex0",
            "first",
            "last",
            "length",
            "depth",
            "depth0",
            "previtem",
            "nextitem",
        ];
        let mut rows = Vec::new();
        for i in 0..3 {
            l.index0.set(i);
            let row: String = names
                .iter()
                .map(|n| show(getattr(&c, Value::Loop(l), n)))
                .collect();
            rows.push(row);
        }
        // `{{ loop.index }}{{ loop.revindex }}...{{ loop.previtem }}{{ loop.nextitem }}`
        assert_eq!(
            rows,
            ["132TrueFalse3102", "221FalseFalse31013", "310FalseTrue3102"]
        );
        l.index0.set(0);
        let prev = getattr(&c, Value::Loop(l), "previtem").unwrap_or(Value::None);
        assert!(prev.is_undefined());
        assert_eq!(
            show_err::<()>(Err(undefined_error(&prev))),
            "Undefined: there is no previous item"
        );
        l.index0.set(2);
        let next = getattr(&c, Value::Loop(l), "nextitem").unwrap_or(Value::None);
        assert_eq!(
            show_err::<()>(Err(undefined_error(&next))),
            "Undefined: there is no next item"
        );
        assert!(matches!(
            getattr(&c, Value::Loop(l), "cycle"),
            Ok(Value::Callable(Callable::Cycle(_)))
        ));
        assert_eq!(show(getitem(&c, Value::Loop(l), Value::Str("index"))), "3");
        let foo = getattr(&c, Value::Loop(l), "foo").unwrap_or(Value::None);
        assert_eq!(
            show_err::<()>(Err(undefined_error(&foo))),
            "Undefined: 'jinja2.runtime.LoopContext object' has no attribute 'foo'"
        );
        assert_eq!(length(&Value::Loop(l)).ok(), Some(3));
    }
}
