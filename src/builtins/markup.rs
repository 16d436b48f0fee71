//! The methods of markupsafe's `Markup`: its overrides (`join` and `format` escape what
//! they insert; the fill of `center`/`ljust`/`rjust` and the replacement of `replace` are
//! escaped), and the `str` methods whose result markupsafe 3.0 wraps as `Markup` again.

use crate::error::{err, Error, ErrorKind, Limit};
use crate::value::markup::{escape, escape_into, wrap};
use crate::value::ops;
use crate::value::{Ctx, VResult, Value};

use super::Kwargs;

/// The longest string `Markup.join` builds (the VM bounds the other results it stores).
const MAX_JOIN: usize = 1 << 28;

/// `m.name(args)` for a `Markup` `m` whose text is `s`: markupsafe's overrides, else the
/// `str` method (with a `Markup` result where markupsafe wraps it).
pub(crate) fn method<'a>(
    ctx: &Ctx<'a>,
    s: &'a str,
    name: &'a str,
    args: &[Value<'a>],
    kw: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let call = |args: &[Value<'a>]| super::strmethods::call(ctx, s, name, args, kw);
    match name {
        "join" => {
            let [items] = args else {
                return call(args);
            };
            let mut out = String::new();
            for (i, item) in ops::iterate(ctx, *items)?.iter().enumerate() {
                if i > 0 {
                    out.push_str(s);
                }
                match item {
                    Value::Markup(x) => out.push_str(x),
                    Value::Str(x) => escape_into(&mut out, x),
                    other => {
                        return Err(err!(
                            Type,
                            "sequence item {i}: expected str instance, {} found",
                            other.type_name()
                        ))
                    }
                }
                if out.len() > MAX_JOIN {
                    return Err(Error::new(
                        ErrorKind::Limit(Limit::Output),
                        "Markup.join makes a string too long".to_string(),
                    ));
                }
            }
            Ok(Value::Markup(ctx.arena.alloc_str(&out)))
        }
        // markupsafe formats with a formatter that escapes each value it prints.
        "format" | "format_map" => {
            let r = super::strmethods::format_method(ctx, s, name, args, kw, true)?;
            Ok(wrap(ctx, r))
        }
        // The replacement and the fill character are escaped.
        "replace" | "center" | "ljust" | "rjust" => {
            let mut args: Vec<Value<'a>> = args.to_vec();
            // `replace(old, new)`, `center(width, fillchar)`: the second argument.
            if let Some(a) = args.get_mut(1) {
                if a.as_str().is_some() {
                    *a = escape(ctx, *a).demark();
                }
            }
            Ok(wrap(ctx, call(&args)?))
        }
        "capitalize" | "title" | "lower" | "upper" | "lstrip" | "rstrip" | "strip"
        | "translate" | "expandtabs" | "swapcase" | "zfill" | "casefold" | "removeprefix"
        | "removesuffix" | "partition" | "rpartition" | "split" | "rsplit" | "splitlines" => {
            Ok(wrap(ctx, call(args)?))
        }
        _ => call(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bumpalo::Bump;

    use crate::value::testutil::show;

    #[test]
    fn methods_escape_arguments() {
        // Expected values from markupsafe 3.0.3 through jinja2 3.1.6.
        let bump = Bump::new();
        let c = Ctx::for_tests(&bump);
        let n = Value::Str("<b>&");
        fn call<'a>(c: &Ctx<'a>, recv: &'a str, name: &'a str, args: &[Value<'a>]) -> String {
            show(method(c, recv, name, args, &[]))
        }
        assert_eq!(
            call(&c, "<m>", "replace", &[Value::Str("m"), n]),
            "Markup('<&lt;b&gt;&amp;>')"
        );
        assert_eq!(
            call(&c, "<m>", "split", &[Value::Str("m")]),
            "[Markup('<'), Markup('>')]"
        );
        assert_eq!(
            call(&c, "<m>", "partition", &[Value::Str("m")]),
            "(Markup('<'), Markup('m'), Markup('>'))"
        );
        assert_eq!(call(&c, "<m>", "upper", &[]), "Markup('<M>')");
        assert_eq!(call(&c, "<m>", "startswith", &[Value::Str("<")]), "True");
        assert_eq!(call(&c, "<m>", "find", &[Value::Str("m")]), "1");
        let items = c.list([n, Value::Str("x")]);
        assert_eq!(
            call(&c, "<m>", "join", &[items]),
            "Markup('&lt;b&gt;&amp;<m>x')"
        );
        assert_eq!(call(&c, "<m>", "format", &[n]), "Markup('<m>')");
        assert_eq!(call(&c, "{}!", "format", &[n]), "Markup('&lt;b&gt;&amp;!')");
    }
}
