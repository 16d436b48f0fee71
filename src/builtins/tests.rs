//! The tests of jinja2 (`value is name(args)`), with Python's semantics.

use crate::error::{err, Error};
use crate::value::ops::{self, BinOp, CmpOp};
use crate::value::{Callable, IterKind, Value};

use super::TestFn;

/// The test called `name`, if there is one.
pub(super) fn lookup(name: &str) -> Option<TestFn> {
    let f: TestFn = match name {
        "defined" => |_, v, a| arity(a, 0).map(|_| !v.is_undefined()),
        "undefined" => |_, v, a| arity(a, 0).map(|_| v.is_undefined()),
        "none" => |_, v, a| arity(a, 0).map(|_| matches!(v, Value::None)),
        "boolean" => |_, v, a| arity(a, 0).map(|_| matches!(v, Value::Bool(_))),
        "true" => |_, v, a| arity(a, 0).map(|_| matches!(v, Value::Bool(true))),
        "false" => |_, v, a| arity(a, 0).map(|_| matches!(v, Value::Bool(false))),
        "integer" => |_, v, a| arity(a, 0).map(|_| matches!(v, Value::Int(_) | Value::Big(_))),
        "float" => |_, v, a| arity(a, 0).map(|_| matches!(v, Value::Float(_))),
        "number" => |_, v, a| {
            arity(a, 0)?;
            Ok(matches!(
                v,
                Value::Int(_) | Value::Big(_) | Value::Float(_) | Value::Bool(_)
            ))
        },
        "string" => |_, v, a| arity(a, 0).map(|_| v.as_str().is_some()),
        "mapping" => |_, v, a| arity(a, 0).map(|_| is_mapping(&v)),
        "sequence" => |_, v, a| arity(a, 0).map(|_| is_sequence(&v)),
        "iterable" => |_, v, a| arity(a, 0).map(|_| is_iterable(&v)),
        "callable" => |_, v, a| arity(a, 0).map(|_| is_callable(&v)),
        "escaped" => |_, v, a| arity(a, 0).map(|_| matches!(v, Value::Markup(_))),
        "lower" => |ctx, v, a| {
            arity(a, 0)?;
            Ok(super::strmethods::is_cased(
                super::args::to_str(ctx, &v),
                false,
            ))
        },
        "upper" => |ctx, v, a| {
            arity(a, 0)?;
            Ok(super::strmethods::is_cased(
                super::args::to_str(ctx, &v),
                true,
            ))
        },
        "odd" => |ctx, v, a| {
            arity(a, 0)?;
            let r = ops::binop(ctx, BinOp::Mod, v, Value::Int(2))?;
            Ok(ops::eq(&r, &Value::Int(1)))
        },
        "even" => |ctx, v, a| {
            arity(a, 0)?;
            let r = ops::binop(ctx, BinOp::Mod, v, Value::Int(2))?;
            Ok(ops::eq(&r, &Value::Int(0)))
        },
        "divisibleby" => |ctx, v, a| {
            let n = arity(a, 1)?;
            let r = ops::binop(ctx, BinOp::Mod, v, n)?;
            Ok(ops::eq(&r, &Value::Int(0)))
        },
        "sameas" => |_, v, a| arity(a, 1).map(|o| same(&v, &o)),
        "in" => |ctx, v, a| {
            let seq = arity(a, 1)?;
            ops::contains(ctx, seq, v)
        },
        "==" | "eq" | "equalto" => |_, v, a| arity(a, 1).map(|o| ops::eq(&v, &o)),
        "!=" | "ne" => |_, v, a| arity(a, 1).map(|o| !ops::eq(&v, &o)),
        "<" | "lt" | "lessthan" => |_, v, a| ops::compare(CmpOp::Lt, &v, &arity(a, 1)?),
        "<=" | "le" => |_, v, a| ops::compare(CmpOp::Le, &v, &arity(a, 1)?),
        ">" | "gt" | "greaterthan" => |_, v, a| ops::compare(CmpOp::Gt, &v, &arity(a, 1)?),
        ">=" | "ge" => |_, v, a| ops::compare(CmpOp::Ge, &v, &arity(a, 1)?),
        // `value in environment.filters`: an unhashable value is Python's TypeError.
        "filter" => |_, v, a| {
            arity(a, 0)?;
            super::check_hashable(&v)?;
            Ok(matches!(v, Value::Str(n) if super::filter(n).is_some()))
        },
        "test" => |_, v, a| {
            arity(a, 0)?;
            super::check_hashable(&v)?;
            Ok(matches!(v, Value::Str(n) if lookup(n).is_some()))
        },
        _ => return None,
    };
    Some(f)
}

/// Checks that a test got `n` arguments (0 or 1) and returns the one it got, if any.
fn arity<'a>(args: &[Value<'a>], n: usize) -> Result<Value<'a>, Error> {
    if args.len() != n {
        return Err(err!(
            Type,
            "test takes {} positional argument{} but {} were given",
            n + 1,
            if n == 0 { "" } else { "s" },
            args.len() + 1
        ));
    }
    Ok(args.first().copied().unwrap_or(Value::None))
}

/// `isinstance(v, abc.Mapping)`.
pub(crate) fn is_mapping(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::Dict(_) | Value::Json(serde_json::Value::Object(_))
    )
}

/// jinja2's `sequence`: has `len()` and `__getitem__` (Undefined has both).
pub(crate) fn is_sequence(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::Undefined(_)
            | Value::Str(_)
            | Value::Markup(_)
            | Value::List(_)
            | Value::Tuple(_)
            | Value::Dict(_)
            | Value::Json(_)
            | Value::Iter(crate::value::Seq {
                kind: IterKind::Range { .. },
                ..
            })
    )
}

/// `iter(v)` succeeds.
pub(crate) fn is_iterable(v: &Value<'_>) -> bool {
    is_sequence(v) || matches!(v, Value::Iter(_) | Value::Loop(_))
}

/// `callable(v)`: functions, macros, methods, `loop` and Undefined (which fails when called).
fn is_callable(v: &Value<'_>) -> bool {
    matches!(v, Value::Callable(_) | Value::Loop(_) | Value::Undefined(_))
}

/// `a is b`, as far as it is observable: singletons, small cached ints, and the same object.
fn same<'a>(a: &Value<'a>, b: &Value<'a>) -> bool {
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y && (-5..=256).contains(x),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::List(x), Value::List(y)) | (Value::Tuple(x), Value::Tuple(y)) => {
            std::ptr::eq(*x, *y) && !x.is_empty()
        }
        (Value::Dict(x), Value::Dict(y)) => std::ptr::eq(*x, *y) && !x.is_empty(),
        (Value::Json(x), Value::Json(y)) => std::ptr::eq(*x, *y),
        (Value::Ns(x), Value::Ns(y)) => std::ptr::eq(*x, *y),
        (Value::Loop(x), Value::Loop(y)) => std::ptr::eq(*x, *y),
        (Value::Iter(x), Value::Iter(y)) => {
            std::ptr::eq(*x, *y) && matches!(x.kind, IterKind::Generator(_))
        }
        (Value::Callable(x), Value::Callable(y)) => match (x, y) {
            (Callable::Global(g), Callable::Global(h)) => g == h,
            _ => std::ptr::eq(*x, *y),
        },
        _ => false,
    }
}

#[cfg(test)]
mod unit {
    use super::super::args::testutil::with_ctx;
    use super::*;

    fn t(name: &str, v: Value<'static>, args: &[Value<'static>]) -> bool {
        with_ctx(|ctx| lookup(name).unwrap()(ctx, v, args).unwrap())
    }

    #[test]
    fn type_tests() {
        assert!(t("number", Value::Bool(true), &[]));
        assert!(!t("integer", Value::Bool(true), &[]));
        assert!(t("integer", Value::Int(3), &[]));
        assert!(t("sequence", Value::Str("a"), &[]));
        assert!(t("sequence", Value::UNDEFINED, &[]));
        assert!(t("iterable", Value::UNDEFINED, &[]));
        assert!(!t("mapping", Value::List(&[]), &[]));
        assert!(t("boolean", Value::Bool(false), &[]));
        assert!(!t("true", Value::Int(1), &[]));
        assert!(t("defined", Value::None, &[]));
        assert!(t("none", Value::None, &[]));
        assert!(t("callable", Value::UNDEFINED, &[]));
        assert!(t("filter", Value::Str("map"), &[]));
        assert!(!t("filter", Value::Str("from_json"), &[]));
        assert!(t("test", Value::Str("eq"), &[]));
        assert!(t("sameas", Value::Int(1), &[Value::Int(1)]));
        assert!(!t("sameas", Value::Int(1000), &[Value::Int(1000)]));
    }

    #[test]
    fn comparisons() {
        assert!(t("eq", Value::Int(1), &[Value::Int(1)]));
        assert!(t("ne", Value::Str("a"), &[Value::Str("b")]));
        assert!(t("lt", Value::Int(1), &[Value::Int(2)]));
        assert!(t("in", Value::Str("a"), &[Value::Str("abc")]));
        assert!(t("upper", Value::Str("A1"), &[]));
        assert!(!t("lower", Value::Int(1), &[]));
        with_ctx(|ctx| {
            let lt = lookup("lt").unwrap();
            assert!(lt(ctx, Value::Int(1), &[Value::Str("a")]).is_err());
            assert!(lookup("defined").unwrap()(ctx, Value::None, &[Value::None]).is_err());
        });
    }
}
