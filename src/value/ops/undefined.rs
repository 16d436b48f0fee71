//! Undefined values and the errors that using them raises, with jinja2's messages (which
//! name the object's type as `object_type_repr` prints it).

use crate::error::{err, Error};
use crate::value::fmt::write_str_repr;
use crate::value::{Callable, Ctx, IterKind, UndefInfo, Value};

use crate::value::methods::is_dunder;

/// The undefined for a missing attribute `name` of `obj`.
pub(crate) fn missing_attr<'a>(ctx: &Ctx<'a>, obj: &Value<'a>, name: &'a str) -> Value<'a> {
    Value::Undefined(Some(ctx.arena.alloc(UndefInfo::Attr {
        obj: obj_type_repr(obj),
        name,
    })))
}

/// An undefined whose use raises `UndefinedError` with `hint` as its whole message, like
/// jinja2's `loop.previtem` on the first iteration ("there is no previous item").
pub(crate) fn undefined_hint<'a>(ctx: &Ctx<'a>, hint: &'a str) -> Value<'a> {
    // An empty object description marks a hint (see `undefined_error`).
    Value::Undefined(Some(ctx.arena.alloc(UndefInfo::Attr {
        obj: "",
        name: hint,
    })))
}

/// Whether jinja2's `Undefined` has the attribute `name` (its private fields and methods,
/// and the dunders of its class, as `dir()` lists them): Python finds those on an undefined
/// value instead of calling its `__getattr__`, which raises.
pub(crate) fn undefined_has_attr(name: &str) -> bool {
    name.starts_with('_') && UNDEFINED_ATTRS.binary_search(&name).is_ok()
}

/// The names starting with `_` of `dir(jinja2.Undefined())` (jinja2 3.1.6, Python 3.11),
/// sorted.
const UNDEFINED_ATTRS: &[&str] = &[
    "__add__",
    "__aiter__",
    "__bool__",
    "__call__",
    "__class__",
    "__complex__",
    "__delattr__",
    "__dir__",
    "__div__",
    "__doc__",
    "__eq__",
    "__float__",
    "__floordiv__",
    "__format__",
    "__ge__",
    "__getattr__",
    "__getattribute__",
    "__getitem__",
    "__getstate__",
    "__gt__",
    "__hash__",
    "__init__",
    "__init_subclass__",
    "__int__",
    "__iter__",
    "__le__",
    "__len__",
    "__lt__",
    "__mod__",
    "__module__",
    "__mul__",
    "__ne__",
    "__neg__",
    "__new__",
    "__pos__",
    "__pow__",
    "__radd__",
    "__rdiv__",
    "__reduce__",
    "__reduce_ex__",
    "__repr__",
    "__rfloordiv__",
    "__rmod__",
    "__rmul__",
    "__rpow__",
    "__rsub__",
    "__rtruediv__",
    "__setattr__",
    "__sizeof__",
    "__slots__",
    "__str__",
    "__sub__",
    "__subclasshook__",
    "__truediv__",
    "_fail_with_undefined_error",
    "_undefined_exception",
    "_undefined_hint",
    "_undefined_message",
    "_undefined_name",
    "_undefined_obj",
];

/// jinja2's `object_type_repr`: `dict object`, `None`, `jinja2.runtime.LoopContext object`.
pub(crate) fn obj_type_repr(v: &Value<'_>) -> &'static str {
    match v {
        Value::Undefined(_) => "jinja2.runtime.Undefined object",
        Value::None => "None",
        Value::Bool(_) => "bool object",
        Value::Int(_) | Value::Big(_) => "int object",
        Value::Float(_) => "float object",
        Value::Str(_) => "str object",
        Value::Markup(_) => "markupsafe.Markup object",
        Value::List(_) | Value::Json(serde_json::Value::Array(_)) => "list object",
        Value::Tuple(_) => "tuple object",
        Value::Dict(_) | Value::Json(_) => "dict object",
        Value::Iter(s) => match s.kind {
            IterKind::Generator(_) => "generator object",
            IterKind::DictItems => "dict_items object",
            IterKind::DictKeys => "dict_keys object",
            IterKind::DictValues => "dict_values object",
            IterKind::Reverse(r) => r.object_repr(),
            IterKind::Range { .. } => "range object",
            IterKind::RangeReverse => "range_iterator object",
            IterKind::Bytes => "bytes object",
        },
        Value::Ns(_) => "transformers.utils.chat_template_utils.TemplateNamespace object",
        Value::Loop(_) => "jinja2.runtime.LoopContext object",
        Value::Callable(c) => match c {
            Callable::Macro { .. } => "jinja2.runtime.Macro object",
            Callable::Method { .. } => "builtin_function_or_method object",
            Callable::Global(g) => match g {
                crate::value::Global::Namespace
                | crate::value::Global::Cycler
                | crate::value::Global::Joiner => "type object",
                crate::value::Global::Dict => {
                    "transformers.utils.chat_template_utils.TemplateDict object"
                }
                crate::value::Global::SelfRef => "jinja2.runtime.TemplateReference object",
                _ => "function object",
            },
            Callable::Cycle(_) => "method object",
        },
    }
}

/// The Python type name inside an `object_type_repr`: `dict object` → `dict`.
pub(super) fn type_of_repr(obj: &str) -> &str {
    if obj == "None" {
        return "NoneType";
    }
    let obj = obj.strip_suffix(" object").unwrap_or(obj);
    obj.rsplit('.').next().unwrap_or(obj)
}

/// The error that using an undefined value raises: jinja2's `UndefinedError` message, or
/// the sandbox's `SecurityError` for an attribute it refused.
pub(crate) fn undefined_error(v: &Value<'_>) -> Error {
    match v {
        Value::Undefined(Some(UndefInfo::Name(n))) => {
            let mut m = String::new();
            write_str_repr(&mut m, n);
            m.push_str(" is undefined");
            Error::new(crate::error::ErrorKind::Undefined, m)
        }
        Value::Undefined(Some(UndefInfo::Attr { obj: "", name })) => {
            Error::new(crate::error::ErrorKind::Undefined, *name)
        }
        Value::Undefined(Some(UndefInfo::Attr { obj, name })) => {
            let ty = type_of_repr(obj);
            let unsafe_attr = (name.starts_with('_') && is_dunder(name))
                || (ty == "Undefined" && undefined_has_attr(name))
                || crate::value::methods::is_type_mutator(ty, name);
            if unsafe_attr {
                return err!(
                    Security,
                    "access to attribute '{name}' of '{ty}' object is unsafe."
                );
            }
            no_attribute(obj, name)
        }
        Value::Undefined(Some(UndefInfo::Item { obj, key })) => {
            if let Value::Str(name) = key {
                return no_attribute(obj, name);
            }
            let mut m = String::new();
            m.push_str(obj);
            m.push_str(" has no element ");
            crate::value::fmt::write_repr(&mut m, key);
            Error::new(crate::error::ErrorKind::Undefined, m)
        }
        _ => err!(Undefined, "'undefined' is undefined"),
    }
}

/// `'dict object' has no attribute 'x'`, with Python's quoting of both.
pub(super) fn no_attribute(obj: &str, name: &str) -> Error {
    let mut m = String::new();
    write_str_repr(&mut m, obj);
    m.push_str(" has no attribute ");
    write_str_repr(&mut m, name);
    Error::new(crate::error::ErrorKind::Undefined, m)
}
