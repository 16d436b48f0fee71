//! Binding Python-style arguments, and the small conversions and helpers every builtin shares:
//! `str(x)` into the arena, integer arguments, dict pairs, jinja2's attribute getter and a
//! stable sort that only asks `<`, as Python's does.

use crate::error::{err, Error};
use crate::value::ops::{self, CmpOp};
pub(crate) use crate::value::ops::{int_arg, pairs};
use crate::value::{Ctx, Value};

use super::Kwargs;

/// Binds `args` and `kwargs` to the parameters `names`, as a Python call would: positionals
/// first, then keywords by name. Missing parameters are `None`.
pub(crate) fn bind<'a, const N: usize>(
    func: &str,
    names: [&str; N],
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> Result<[Option<Value<'a>>; N], Error> {
    if args.len() > N {
        return Err(err!(
            Type,
            "{func}() takes at most {N} arguments ({} given)",
            args.len()
        ));
    }
    let mut out = [None; N];
    for (slot, v) in out.iter_mut().zip(args) {
        *slot = Some(*v);
    }
    for (k, v) in kwargs {
        let Some(i) = names.iter().position(|n| n == k) else {
            return Err(err!(
                Type,
                "{func}() got an unexpected keyword argument '{k}'"
            ));
        };
        if out[i].is_some() {
            return Err(err!(
                Type,
                "{func}() got multiple values for argument '{k}'"
            ));
        }
        out[i] = Some(*v);
    }
    Ok(out)
}

/// Fails unless `args` and `kwargs` are empty: for builtins that take no arguments.
pub(crate) fn no_args<'a>(
    func: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> Result<(), Error> {
    bind(func, [], args, kwargs).map(|_| ())
}

/// `str(v)`, borrowed when `v` is a string, else printed into the arena.
pub(crate) fn to_str<'a>(ctx: &Ctx<'a>, v: &Value<'a>) -> &'a str {
    match v {
        Value::Str(s) | Value::Markup(s) => s,
        other => {
            let mut s = String::new();
            crate::value::fmt::write_str(&mut s, other);
            ctx.arena.alloc_str(&s)
        }
    }
}

/// `repr(v)` as an owned string.
pub(crate) fn repr(v: &Value<'_>) -> String {
    let mut s = String::new();
    crate::value::fmt::write_repr(&mut s, v);
    s
}

/// `str(v)` for a string argument, failing on Undefined as jinja2's `soft_str` does not: use
/// where Python would call a `str` method on the value itself.
pub(crate) fn str_arg<'a>(func: &str, v: &Value<'a>) -> Result<&'a str, Error> {
    match v {
        Value::Str(s) | Value::Markup(s) => Ok(s),
        Value::Undefined(_) => Err(ops::undefined_error(v)),
        other => Err(err!(
            Type,
            "{func}() argument must be str, not {}",
            other.type_name()
        )),
    }
}

/// An optional integer argument, where `None` means absent.
pub(crate) fn opt_int_arg(v: Option<Value<'_>>) -> Result<Option<i64>, Error> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => int_arg(&v).map(Some),
    }
}

/// A 2-tuple in the arena.
pub(crate) fn pair<'a>(ctx: &Ctx<'a>, a: Value<'a>, b: Value<'a>) -> Value<'a> {
    Value::Tuple(ctx.slice([a, b]))
}

/// One step of an attribute path: a key or an index.
#[derive(Clone, Copy)]
pub(crate) enum Part<'a> {
    /// A string part: `getitem(x, 'name')`.
    Name(&'a str),
    /// A numeric part (`'0'` in `'a.0'`, or an int attribute).
    Index(Value<'a>),
}

/// jinja2's `_prepare_attribute_parts`: a dotted path, digits becoming indexes.
pub(crate) fn attr_parts<'a>(attr: &Value<'a>) -> Vec<Part<'a>> {
    match attr {
        Value::None => Vec::new(),
        Value::Str(s) => s
            .split('.')
            .map(|p| {
                if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) {
                    match p.parse::<i64>() {
                        Ok(i) => Part::Index(Value::Int(i)),
                        Err(_) => Part::Name(p),
                    }
                } else {
                    Part::Name(p)
                }
            })
            .collect(),
        other => vec![Part::Index(*other)],
    }
}

/// Follows `parts` from `item` with sandboxed `getitem`; with a `default`, an Undefined step
/// is replaced by it (jinja2's `make_attrgetter`).
pub(crate) fn get_path<'a>(
    ctx: &Ctx<'a>,
    mut item: Value<'a>,
    parts: &[Part<'a>],
    default: Option<Value<'a>>,
) -> Result<Value<'a>, Error> {
    for part in parts {
        item = match part {
            Part::Name(n) => ops::getitem(ctx, item, Value::Str(n))?,
            Part::Index(k) => ops::getitem(ctx, item, *k)?,
        };
        if let Some(d) = default {
            if item.is_undefined() {
                item = d;
            }
        }
    }
    Ok(item)
}

/// `v.lower()` for strings, `v` otherwise (jinja2's `ignore_case`).
pub(crate) fn ignore_case<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> Value<'a> {
    match v {
        Value::Str(s) if s.chars().any(char::is_uppercase) => ctx.str(&s.to_lowercase()),
        other => other,
    }
}

/// Python `a < b`.
pub(crate) fn lt(a: &Value<'_>, b: &Value<'_>) -> Result<bool, Error> {
    ops::compare(CmpOp::Lt, a, b)
}

/// Python `a < b` for two lists of keys (as `sort(attribute='a,b')` compares them).
pub(crate) fn lt_keys(a: &[Value<'_>], b: &[Value<'_>]) -> Result<bool, Error> {
    for (x, y) in a.iter().zip(b) {
        if !ops::eq(x, y) {
            return lt(x, y);
        }
    }
    Ok(a.len() < b.len())
}

/// A stable merge sort of `v` that only asks `less(a, b)`, like Python's `sorted`; with
/// `reverse`, equal items keep their order. Never panics on an inconsistent order.
pub(crate) fn sort_by<T: Copy>(
    v: &mut [T],
    reverse: bool,
    less: &mut dyn FnMut(&T, &T) -> Result<bool, Error>,
) -> Result<(), Error> {
    if v.len() < 2 {
        return Ok(());
    }
    // n log n comparisons.
    let n = v.len() as u64;
    crate::value::budget::charge(n.saturating_mul(u64::from(64 - n.leading_zeros())))?;
    let mut buf: Vec<T> = v.to_vec();
    merge_sort(v, &mut buf, reverse, less)
}

fn merge_sort<T: Copy>(
    v: &mut [T],
    buf: &mut [T],
    reverse: bool,
    less: &mut dyn FnMut(&T, &T) -> Result<bool, Error>,
) -> Result<(), Error> {
    let n = v.len();
    if n < 2 {
        return Ok(());
    }
    let mid = n / 2;
    {
        let (l, r) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        merge_sort(l, bl, reverse, less)?;
        merge_sort(r, br, reverse, less)?;
    }
    buf[..n].copy_from_slice(v);
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        // Take from the right only when it is strictly before the left: stability.
        let right_first = if reverse {
            less(&buf[i], &buf[j])?
        } else {
            less(&buf[j], &buf[i])?
        };
        if right_first {
            v[k] = buf[j];
            j += 1;
        } else {
            v[k] = buf[i];
            i += 1;
        }
        k += 1;
    }
    while i < mid {
        v[k] = buf[i];
        i += 1;
        k += 1;
    }
    while j < n {
        v[k] = buf[j];
        j += 1;
        k += 1;
    }
    Ok(())
}

/// Whether Python can hash `v` (for `unique`, dict keys).
pub(crate) fn check_hashable(v: &Value<'_>) -> Result<(), Error> {
    match v {
        Value::List(_) | Value::Dict(_) | Value::Json(_) | Value::Ns(_) => {
            Err(err!(Type, "unhashable type: '{}'", v.type_name()))
        }
        Value::Tuple(items) => items.iter().try_for_each(check_hashable),
        _ => Ok(()),
    }
}

/// Python's `str.splitlines()` (without `keepends`): every Unicode line boundary.
pub(crate) fn splitlines(s: &str) -> Vec<&str> {
    splitlines_keep(s, false)
}

/// `str.splitlines(keepends)`: Python's line boundaries; with `keep`, each line keeps its
/// line break.
pub(crate) fn splitlines_keep(s: &str, keep: bool) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{0b}'
                | '\u{0c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if is_break {
            let mut end = i + c.len_utf8();
            if c == '\r' {
                if let Some(&(_, '\n')) = it.peek() {
                    it.next();
                    end += 1;
                }
            }
            out.push(&s[start..if keep { end } else { i }]);
            start = end;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Python's `str.isspace` notion of whitespace, per character.
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Helpers for the builtins' unit tests.
    pub(crate) use crate::value::testutil::*;
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn splitlines_like_python() {
        assert_eq!(splitlines("a\r\nb\rc\n\nd\n"), ["a", "b", "c", "", "d"]);
        assert_eq!(splitlines(""), Vec::<&str>::new());
        assert_eq!(splitlines("x\u{2028}y"), ["x", "y"]);
    }

    #[test]
    fn sort_is_stable_and_reversible() {
        let mut v = [(1, 'a'), (0, 'b'), (1, 'c'), (0, 'd')];
        sort_by(&mut v, false, &mut |a, b| Ok(a.0 < b.0)).unwrap();
        assert_eq!(v, [(0, 'b'), (0, 'd'), (1, 'a'), (1, 'c')]);
        sort_by(&mut v, true, &mut |a, b| Ok(a.0 < b.0)).unwrap();
        assert_eq!(v, [(1, 'a'), (1, 'c'), (0, 'b'), (0, 'd')]);
    }

    #[test]
    fn bind_checks_names() {
        let a = [Value::Int(1)];
        let kw = [("b", Value::Int(2))];
        let [x, y] = bind("f", ["a", "b"], &a, &kw).unwrap();
        assert!(matches!((x, y), (Some(Value::Int(1)), Some(Value::Int(2)))));
        assert!(bind("f", ["a"], &a, &[("a", Value::None)]).is_err());
        assert!(bind("f", ["a"], &a, &[("z", Value::None)]).is_err());
        assert!(bind("f", [], &a, &[]).is_err());
    }
}
