//! The two lookups of the template language, as the sandbox runs them: `x.name` tries the
//! attribute and then the item, `x[key]` the item and then the attribute. A missing one is
//! an undefined that remembers what was missing.

use crate::value::{Ctx, UndefInfo, VResult, Value};

use super::attr::attribute;
use super::item::{item, str_item};
use super::undefined::{missing_attr, obj_type_repr, undefined_error};

/// `obj.name`: the attribute (methods included) first, then the item. A missing one is an
/// undefined that remembers what was missing; one the sandbox refuses is an undefined whose
/// use raises `SecurityError` (see [`undefined_error`]).
pub(crate) fn getattr<'a>(ctx: &Ctx<'a>, obj: Value<'a>, name: &'a str) -> VResult<'a> {
    if obj.is_undefined() {
        return undefined_attr(ctx, obj, name);
    }
    if let Some(v) = attribute(ctx, obj, name) {
        return Ok(v);
    }
    if let Some(v) = str_item(ctx, obj, name) {
        return Ok(v);
    }
    Ok(missing_attr(ctx, &obj, name))
}

/// `undefined.name`: an attribute jinja2's `Undefined` has is found, and the sandbox refuses
/// it (an undefined value that prints as nothing and fails with a SecurityError when used);
/// any other raises the undefined value's error.
#[cold]
#[inline(never)]
fn undefined_attr<'a>(ctx: &Ctx<'a>, obj: Value<'a>, name: &'a str) -> VResult<'a> {
    if super::undefined::undefined_has_attr(name) {
        return Ok(missing_attr(ctx, &obj, name));
    }
    Err(undefined_error(&obj))
}

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
    let found = item(ctx, obj, key);
    Ok(found.unwrap_or_else(|| {
        Value::Undefined(Some(ctx.arena.alloc(UndefInfo::Item {
            obj: obj_type_repr(&obj),
            key,
        })))
    }))
}

#[cfg(test)]
mod tests {
    //! Expected results come from probing transformers' environment (jinja2 3.1.6, Python
    //! 3.11): `{{ expr }}` renders `str()` of the result; errors are shown as
    //! `Kind: message`.

    use super::*;

    use crate::value::ops::length;
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
