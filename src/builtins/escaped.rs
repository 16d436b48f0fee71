//! The filters jinja2 runs differently under `{% autoescape true %}` (its
//! `pass_eval_context` filters): `xmlattr` and `urlize` return `Markup`, `join` and `replace`
//! escape what they take in when HTML is involved. The code generator picks these in place of
//! the plain ones inside an autoescaped block.

use crate::value::markup::{escape, mark_safe};
use crate::value::{Ctx, VResult, Value};

use super::args::{bind, to_str};
use super::{FilterFn, Kwargs};

/// The autoescaped form of filter `name`, when it has one.
pub(super) fn lookup(name: &str) -> Option<FilterFn> {
    let f: FilterFn = match name {
        "xmlattr" => |ctx, v, a, k| {
            let r = (super::filter("xmlattr").ok_or_else(missing)?)(ctx, v, a, k)?;
            Ok(mark_safe(ctx, r))
        },
        "urlize" => |ctx, v, a, k| {
            let r = super::urlize::urlize(ctx, v, a, k)?;
            Ok(mark_safe(ctx, r))
        },
        "join" => join as FilterFn,
        "replace" => replace as FilterFn,
        _ => return None,
    };
    Some(f)
}

fn missing() -> crate::Error {
    crate::error::err!(Runtime, "internal: no plain filter")
}

/// `join` under autoescape: a `Markup` separator joins with `Markup.join` (the items
/// escaped); else, when an item is a `Markup`, the separator is escaped and the plain items
/// too; else a plain join.
fn join<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let plain = super::filter("join").ok_or_else(missing)?;
    let [d, attribute] = bind("join", ["d", "attribute"], a, k)?;
    let items = crate::value::ops::iterate(ctx, v)?;
    let html_sep = matches!(d, Some(Value::Markup(_)));
    let html_item = || items.iter().any(|i| matches!(i, Value::Markup(_)));
    // `attribute` picks parts of the items first; only plain items are handled here.
    if attribute.is_some() || !(html_sep || html_item()) {
        return plain(ctx, v, a, k);
    }
    let sep = match d {
        Some(s) => escape(ctx, s),
        None => Value::Markup(""),
    };
    let sep = to_str(ctx, &sep);
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(to_str(ctx, &escape(ctx, *item)));
    }
    Ok(Value::Markup(ctx.arena.alloc_str(&out)))
}

/// `replace` under autoescape: when the old text is a `Markup`, or the new one is and the
/// string is not, the string is escaped first; a `Markup` string is then replaced in as
/// `Markup.replace` does (the replacement escaped, entities and all: jinja2 replaces inside
/// the escaped text).
fn replace<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let plain = super::filter("replace").ok_or_else(missing)?;
    let [old, new, _] = bind("replace", ["old", "new", "count"], a, k)?;
    let html = |x: &Option<Value<'a>>| matches!(x, Some(Value::Markup(_)));
    // jinja2: `old` has HTML, or (`new` has HTML and the string does not).
    let escape_first = html(&old) || (html(&new) && !matches!(v, Value::Markup(_)));
    let s = if escape_first { escape(ctx, v) } else { v };
    let Value::Markup(_) = s else {
        return plain(ctx, s, a, k);
    };
    // `Markup.replace` escapes the replacement (not what it looks for).
    let mut args = a.to_vec();
    if let Some(x) = args.get_mut(1) {
        *x = escape(ctx, *x);
    }
    let mut kw: Vec<(&'a str, Value<'a>)> = k.to_vec();
    for (name, x) in kw.iter_mut() {
        if *name == "new" {
            *x = escape(ctx, *x);
        }
    }
    let r = plain(ctx, s, &args, &kw)?;
    Ok(mark_safe(ctx, r))
}
