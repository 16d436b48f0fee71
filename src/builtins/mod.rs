//! The builtins of transformers' Jinja environment: filters, tests, methods of str, dict and
//! list, and the global functions. The VM resolves filter and test names to function
//! pointers once, at compile time.
//!
//! - [`filters`] and [`seqfilters`]: the filters (`value|name(...)`).
//! - [`tests`]: the tests (`value is name(...)`).
//! - [`methods`] and [`strmethods`]: `recv.name(...)` for dicts, lists and strings.
//! - [`globals`]: `range`, `namespace`, `dict`, `raise_exception`, `strftime_now`.
//! - [`format`]: `str.format` and `%` formatting; [`strftime`]: `datetime.strftime`.
//! - [`args`]: binding Python-style arguments, and small conversions they all share.

mod args;
mod filters;
mod format;
mod globals;
mod methods;
mod seqfilters;
mod strftime;
mod strmethods;
mod tests;
mod urlize;

use crate::error::Error;
use crate::value::{Ctx, Global, VResult, Value};

/// Keyword arguments as the VM passes them, in call order.
pub(crate) type Kwargs<'k, 'a> = &'k [(&'a str, Value<'a>)];

/// A filter: `value|name(args, kwargs)`.
pub(crate) type FilterFn =
    for<'a, 'k> fn(&Ctx<'a>, Value<'a>, &'k [Value<'a>], Kwargs<'k, 'a>) -> VResult<'a>;

/// A test: `value is name(args)`.
pub(crate) type TestFn =
    for<'a, 'k> fn(&Ctx<'a>, Value<'a>, &'k [Value<'a>]) -> Result<bool, Error>;

/// The filter called `name`, if there is one.
pub(crate) fn filter(name: &str) -> Option<FilterFn> {
    filters::lookup(name).or_else(|| seqfilters::lookup(name))
}

/// The test called `name`, if there is one.
pub(crate) fn test(name: &str) -> Option<TestFn> {
    tests::lookup(name)
}

/// The global function called `name`, if there is one.
pub(crate) fn global(name: &str) -> Option<Global> {
    globals::lookup(name)
}

/// Calls global function `g`. The result is checked against the value limit (the VM checks
/// operator and filter results, not calls); `dict()` also checks the arena's growth.
pub(crate) fn call_global<'a>(
    ctx: &Ctx<'a>,
    g: Global,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let v = globals::call(ctx, g, args, kwargs)?;
    if ctx.value_too_big(&v) {
        return Err(ctx.too_large());
    }
    Ok(v)
}

/// Whether `recv.name` is a method (which then shadows a key of the same name).
pub(crate) fn has_method(recv: &Value<'_>, name: &str) -> bool {
    methods::has_method(recv, name)
}

/// Calls method `name` of `recv`. The result is checked against the value limit (the VM
/// checks operator and filter results, not calls).
pub(crate) fn call_method<'a>(
    ctx: &Ctx<'a>,
    recv: Value<'a>,
    name: &'a str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let v = methods::call_method(ctx, recv, name, args, kwargs)?;
    if ctx.value_too_big(&v) {
        return Err(ctx.too_large());
    }
    Ok(v)
}

/// Python's `fmt % args` for a string `fmt` (the sandboxed `%` formatting of jinja2).
pub(crate) fn percent_format<'a>(ctx: &Ctx<'a>, fmt: &str, args: Value<'a>) -> VResult<'a> {
    let mut out = String::new();
    format::percent(ctx, &mut out, fmt, args)?;
    Ok(ctx.str(&out))
}
