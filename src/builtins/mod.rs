//! The builtins of transformers' Jinja environment: filters, tests, methods of str, dict and
//! list, and the global functions. The VM resolves filter and test names to function
//! pointers once, at compile time.
//!
//! - [`filters`] and [`seqfilters`]: the filters (`value|name(...)`).
//! - [`tests`]: the tests (`value is name(...)`).
//! - [`methods`], [`strmethods`] and [`markup`]: `recv.name(...)` for dicts, lists, strings
//!   and `Markup` strings.
//! - [`globals`]: `range`, `namespace`, `dict`, `raise_exception`, `strftime_now`.
//! - [`numbers`]: the `int`, `float` and `round` filters; [`strftime`]: `datetime.strftime`.
//! - [`bytes`]: `str.encode` and `bytes.decode`.
//! - [`args`]: binding Python-style arguments, and small conversions they all share.

mod args;
mod bytes;
mod escaped;
mod filters;
mod globals;
mod markup;
mod methods;
mod numbers;
mod pyunicode;
mod seqfilters;
pub(crate) mod strfast;
mod strftime;
mod strmethods;
mod tests;
mod urlize;

use crate::error::Error;
use crate::value::{Ctx, Global, VResult, Value};

pub(crate) use args::check_hashable;

pub(crate) use crate::value::Kwargs;

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

/// The form of filter `name` for `{% autoescape true %}`, when it differs from the plain one
/// (jinja2's filters that read the evaluation context).
pub(crate) fn filter_autoescaped(name: &str) -> Option<FilterFn> {
    escaped::lookup(name)
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
