//! The methods (and the dunder attributes) each type of value has, by name: the table that attribute lookup
//! (`recv.name` is a bound method, which shadows a key of the same name) and the method
//! calls of `builtins` share. Mutators are listed, so that they shadow keys too, but the
//! immutable sandbox refuses them.

use crate::value::{Callable, Global, IterKind, Namespace, Value};

/// The mutating methods of `dict`.
const DICT_MUTATORS: &[&str] = &["clear", "pop", "popitem", "setdefault", "update"];
/// The mutating methods of `list`.
const LIST_MUTATORS: &[&str] = &[
    "append", "clear", "pop", "reverse", "insert", "sort", "extend", "remove",
];

/// What kind of receiver a value is, for method lookup.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recv {
    /// `str` and `Markup`.
    Str,
    /// A dict, from the template or the JSON.
    Dict,
    /// A list, from the template or the JSON.
    List,
    /// A tuple.
    Tuple,
    /// Anything else.
    Other,
}

/// The receiver kind of `v`.
pub(crate) fn recv_kind(v: &Value<'_>) -> Recv {
    match v {
        Value::Str(_) | Value::Markup(_) => Recv::Str,
        Value::Dict(_) | Value::Json(serde_json::Value::Object(_)) => Recv::Dict,
        Value::List(_) | Value::Json(serde_json::Value::Array(_)) => Recv::List,
        Value::Tuple(_) => Recv::Tuple,
        _ => Recv::Other,
    }
}

/// Whether `recv.name` is a mutator the sandbox forbids.
pub(crate) fn is_mutator(recv: &Value<'_>, name: &str) -> bool {
    match recv_kind(recv) {
        Recv::Dict => DICT_MUTATORS.contains(&name),
        Recv::List => LIST_MUTATORS.contains(&name),
        _ => false,
    }
}

/// Whether `name` is a mutator of the Python type called `ty` (`list` or `dict`).
pub(crate) fn is_type_mutator(ty: &str, name: &str) -> bool {
    match ty {
        "list" => LIST_MUTATORS.contains(&name),
        "dict" => DICT_MUTATORS.contains(&name),
        _ => false,
    }
}

/// Whether `recv.name` is a method (which then shadows a key of the same name).
pub(crate) fn has_method(recv: &Value<'_>, name: &str) -> bool {
    match recv_kind(recv) {
        Recv::Str => is_str_method(name),
        Recv::Dict => {
            matches!(name, "items" | "keys" | "values" | "get" | "copy")
                || DICT_MUTATORS.contains(&name)
        }
        Recv::List => matches!(name, "count" | "index" | "copy") || LIST_MUTATORS.contains(&name),
        Recv::Tuple => matches!(name, "count" | "index"),
        Recv::Other => match recv {
            Value::Callable(c) => {
                matches!(**c, Callable::Global(Global::Dict)) && name == "fromkeys"
            }
            Value::Ns(ns) => helper_has_method(ns, name),
            Value::Iter(seq) => seq.kind == IterKind::Bytes && name == "decode",
            _ => false,
        },
    }
}

/// Whether `name` is a method of `str` (a `match`, which compiles to a length switch).
fn is_str_method(name: &str) -> bool {
    matches!(
        name,
        "strip"
            | "lstrip"
            | "rstrip"
            | "split"
            | "rsplit"
            | "splitlines"
            | "startswith"
            | "endswith"
            | "replace"
            | "upper"
            | "lower"
            | "title"
            | "capitalize"
            | "swapcase"
            | "casefold"
            | "find"
            | "rfind"
            | "index"
            | "rindex"
            | "count"
            | "join"
            | "format"
            | "isdigit"
            | "isalpha"
            | "isalnum"
            | "isascii"
            | "isspace"
            | "isupper"
            | "islower"
            | "istitle"
            | "isnumeric"
            | "isdecimal"
            | "zfill"
            | "ljust"
            | "rjust"
            | "center"
            | "removeprefix"
            | "removesuffix"
            | "partition"
            | "rpartition"
            | "expandtabs"
            | "format_map"
            | "isidentifier"
            | "isprintable"
            | "encode"
    )
}

/// The hidden state of a `cycler()` (a namespace the template cannot write: `_` names).
pub(crate) const CYCLER_ITEMS: &str = "__cycler_items";
/// The position of a `cycler()`.
pub(crate) const CYCLER_POS: &str = "__cycler_pos";
/// The separator of a `joiner()`.
pub(crate) const JOINER_SEP: &str = "__joiner_sep";
/// Whether a `joiner()` was called.
pub(crate) const JOINER_USED: &str = "__joiner_used";

/// Whether `ns` is a cycler with method `name` (`next`, `reset`) or a joiner (`__call__`).
fn helper_has_method(ns: &Namespace<'_>, name: &str) -> bool {
    match name {
        "next" | "reset" => ns.get(CYCLER_ITEMS).is_some(),
        "__call__" => ns.get(JOINER_SEP).is_some(),
        _ => false,
    }
}

/// Whether `name` is a dunder attribute that Python objects of the template's types have.
pub(crate) fn is_dunder(name: &str) -> bool {
    DUNDERS.binary_search(&name).is_ok()
}

/// The dunder attributes of str, int, float, bool, None, list, tuple, dict, its views,
/// generators, functions, methods, `LoopContext` and `Macro` (Python 3.11), sorted.
static DUNDERS: &[&str] = &[
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
