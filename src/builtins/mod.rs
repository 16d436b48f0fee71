//! The builtins of transformers' Jinja environment: filters, tests, methods of str, dict and
//! list, and the global functions. The VM resolves filter and test names to function
//! pointers once, at compile time.

use crate::error::{err, Error};
use crate::value::{Ctx, Global, VResult, Value};

/// Keyword arguments as the VM passes them, in call order.
pub(crate) type Kwargs<'k, 'a> = &'k [(&'a str, Value<'a>)];

/// A filter: `value|name(args, kwargs)`.
pub(crate) type FilterFn =
    for<'a, 'k> fn(&Ctx<'a>, Value<'a>, &'k [Value<'a>], Kwargs<'k, 'a>) -> VResult<'a>;

/// A test: `value is name(args)`.
pub(crate) type TestFn = for<'a, 'k> fn(&Ctx<'a>, Value<'a>, &'k [Value<'a>]) -> Result<bool, Error>;

/// The filter called `name`, if there is one.
pub(crate) fn filter(name: &str) -> Option<FilterFn> {
    Some(match name {
        "safe" => |_, v, _, _| Ok(v),
        "tojson" => |ctx, v, _, _| {
            let mut s = String::new();
            crate::value::json::dumps(&mut s, &v, &Default::default())?;
            Ok(ctx.str(&s))
        },
        "length" | "count" => |_, v, _, _| Ok(Value::Int(crate::value::ops::length(&v)? as i64)),
        "trim" => |ctx, v, _, _| match v {
            Value::Str(s) => Ok(Value::Str(s.trim())),
            other => {
                let mut s = String::new();
                crate::value::fmt::write_str(&mut s, &other);
                Ok(ctx.str(s.trim()))
            }
        },
        _ => return None,
    })
}

/// The test called `name`, if there is one.
pub(crate) fn test(name: &str) -> Option<TestFn> {
    Some(match name {
        "defined" => |_, v, _| Ok(!v.is_undefined()),
        "undefined" => |_, v, _| Ok(v.is_undefined()),
        "none" => |_, v, _| Ok(matches!(v, Value::None)),
        "string" => |_, v, _| Ok(matches!(v, Value::Str(_))),
        _ => return None,
    })
}

/// The global function called `name`, if there is one.
pub(crate) fn global(name: &str) -> Option<Global> {
    Some(match name {
        "range" => Global::Range,
        "namespace" => Global::Namespace,
        "dict" => Global::Dict,
        "raise_exception" => Global::RaiseException,
        "strftime_now" => Global::StrftimeNow,
        "lipsum" => Global::Lipsum,
        "cycler" => Global::Cycler,
        "joiner" => Global::Joiner,
        _ => return None,
    })
}

/// Calls global function `g`.
pub(crate) fn call_global<'a>(
    ctx: &Ctx<'a>,
    g: Global,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> VResult<'a> {
    match g {
        Global::RaiseException => {
            let mut s = String::new();
            if let Some(m) = args.first() {
                crate::value::fmt::write_str(&mut s, m);
            }
            Err(Error::new(crate::error::ErrorKind::Raised, s))
        }
        Global::Namespace => {
            let ns = ctx.namespace();
            for (k, v) in kwargs {
                ns.set(k, *v);
            }
            Ok(Value::Ns(ns))
        }
        _ => Err(err!(Unknown, "{g:?} is not implemented")),
    }
}

/// Whether `recv.name` is a method (which then shadows a key of the same name).
pub(crate) fn has_method(recv: &Value<'_>, name: &str) -> bool {
    match recv {
        Value::Str(_) => matches!(name, "strip" | "split" | "startswith" | "endswith"),
        Value::Json(serde_json::Value::Object(_)) | Value::Dict(_) => {
            matches!(name, "items" | "get" | "keys" | "values")
        }
        _ => false,
    }
}

/// Calls method `name` of `recv`.
pub(crate) fn call_method<'a>(
    ctx: &Ctx<'a>,
    recv: Value<'a>,
    name: &'a str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let _ = (ctx, args, kwargs);
    Err(err!(
        Unknown,
        "'{}' object has no attribute '{name}'",
        recv.type_name()
    ))
}

/// Python's `fmt % args` for a string `fmt` (the sandboxed `%` formatting of jinja2).
pub(crate) fn percent_format<'a>(ctx: &Ctx<'a>, fmt: &str, args: Value<'a>) -> VResult<'a> {
    let _ = (ctx, fmt, args);
    Err(err!(Unknown, "'%' string formatting is not implemented"))
}
