//! Python string formatting, as `str` defines it: `fmt % args` ([`percent`]) and
//! `fmt.format(...)` ([`brace`]), both over the format-spec mini-language of [`spec`].
//! The `%` operator of a `str` and the `format` method and filter all end here.

mod brace;
mod percent;
mod spec;

pub(crate) use brace::{markup_format, str_format};
pub(crate) use percent::percent;
use percent::percent_with;
pub(crate) use spec::{as_float, as_int};

use crate::value::{Ctx, VResult, Value};

/// Python's `fmt % args` for a string `fmt`, as a new string value.
pub(crate) fn percent_format<'a>(ctx: &Ctx<'a>, fmt: &str, args: Value<'a>) -> VResult<'a> {
    let mut out = String::new();
    percent(ctx, &mut out, fmt, args)?;
    Ok(ctx.str(&out))
}

/// `Markup(fmt) % args`: what it prints of the arguments escaped, as markupsafe does.
pub(crate) fn markup_percent<'a>(ctx: &Ctx<'a>, fmt: &str, args: Value<'a>) -> VResult<'a> {
    let mut out = String::new();
    percent_with(ctx, &mut out, fmt, args, true)?;
    Ok(ctx.str(&out))
}
