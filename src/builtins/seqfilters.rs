//! Filters over sequences: `list`, `items`, `select`/`reject` and their `attr` forms, `map`,
//! `join`, `sort`, `dictsort`, `unique`, `min`/`max`, `sum`, `reverse`, `batch`, `slice`,
//! `groupby`. Where jinja2 returns a generator, so do these (`IterKind::Generator`, named by [`Gen`]).

use crate::error::{err, Error, ErrorKind, ExceptionClass};
use crate::value::ops::{self, BinOp, CmpOp};
use crate::value::{Ctx, Gen, IterKind, RevOf, VResult, Value};

use super::args::{
    attr_parts, bind, check_hashable, get_path, ignore_case, int_arg, lt, lt_keys, no_args, pair,
    pairs, sort_by, to_str, Part,
};
use super::{FilterFn, Kwargs};

/// The sequence filter called `name`, if there is one.
pub(super) fn lookup(name: &str) -> Option<FilterFn> {
    let f: FilterFn = match name {
        "list" => |ctx, v, a, k| {
            no_args("list", a, k)?;
            Ok(Value::List(ops::iterate(ctx, v)?))
        },
        "items" => |ctx, v, a, k| {
            no_args("items", a, k)?;
            if v.is_undefined() {
                return Ok(ctx.iter(IterKind::Generator(Gen::Items), &[]));
            }
            let Some(p) = pairs(ctx, &v) else {
                let e = err!(Type, "Can only get item pairs from a mapping.");
                return deferred(ctx, Gen::Items, Err(e));
            };
            let items = ctx.slice(p.iter().map(|(k, x)| pair(ctx, *k, *x)));
            Ok(ctx.iter(IterKind::Generator(Gen::Items), items))
        },
        // jinja2 takes these filters' arguments as `*args, **kwargs` inside the generator:
        // every error they raise waits until the generator is iterated.
        "select" => |ctx, v, a, k| select(ctx, v, a, k, false, true),
        "reject" => |ctx, v, a, k| select(ctx, v, a, k, false, false),
        "selectattr" => |ctx, v, a, k| select(ctx, v, a, k, true, true),
        "rejectattr" => |ctx, v, a, k| select(ctx, v, a, k, true, false),
        "map" => |ctx, v, a, k| deferred(ctx, Gen::Map, map(ctx, v, a, k)),
        "join" => |ctx, v, a, k| {
            let [d, attribute] = bind("join", ["d", "attribute"], a, k)?;
            let sep = d.map_or("", |d| to_str(ctx, &d));
            let parts = attribute.map(|a| attr_parts(&a)).unwrap_or_default();
            let mut out = String::new();
            for (i, item) in ops::iterate(ctx, v)?.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                let item = get_path(ctx, *item, &parts, None)?;
                crate::value::fmt::write_str(&mut out, &item);
            }
            Ok(ctx.str(&out))
        },
        "sort" => sort as FilterFn,
        "dictsort" => dictsort as FilterFn,
        "unique" => |ctx, v, a, k| {
            let [cs, attribute] = bind("unique", ["case_sensitive", "attribute"], a, k)?;
            deferred(ctx, Gen::Unique, unique(ctx, v, cs, attribute))
        },
        "min" => |ctx, v, a, k| min_max(ctx, v, a, k, CmpOp::Lt),
        "max" => |ctx, v, a, k| min_max(ctx, v, a, k, CmpOp::Gt),
        "sum" => |ctx, v, a, k| {
            let [attribute, start] = bind("sum", ["attribute", "start"], a, k)?;
            let start = start.unwrap_or(Value::Int(0));
            if let Value::Str(_) = start {
                return Err(err!(
                    Type,
                    "sum() can't sum strings [use ''.join(seq) instead]"
                ));
            }
            let parts = attribute.map(|a| attr_parts(&a)).unwrap_or_default();
            let mut acc = start;
            for item in ops::iterate(ctx, v)? {
                let item = get_path(ctx, *item, &parts, None)?;
                acc = ops::binop(ctx, BinOp::Add, acc, item)?;
            }
            Ok(acc)
        },
        "reverse" => reverse as FilterFn,
        "batch" => |ctx, v, a, k| {
            let [n, fill] = bind("batch", ["linecount", "fill_with"], a, k)?;
            let n = required(n, "do_batch", "linecount")?;
            deferred(ctx, Gen::Batch, batch(ctx, v, n, fill))
        },
        "slice" => |ctx, v, a, k| {
            let [n, fill] = bind("slice", ["slices", "fill_with"], a, k)?;
            let n = required(n, "sync_do_slice", "slices")?;
            deferred(ctx, Gen::Slice, slice(ctx, v, n, fill))
        },
        "groupby" => groupby as FilterFn,
        _ => return None,
    };
    Some(f)
}

/// The result of a generator filter's body: an error it raised (but not a limit, which stops
/// the render) becomes a generator that raises it when iterated, as jinja2 runs the body only
/// then. Errors in binding the filter's arguments are raised by the caller, at the call, as
/// Python raises them.
fn deferred<'a>(ctx: &Ctx<'a>, gen: Gen, r: VResult<'a>) -> VResult<'a> {
    match r {
        Err(e) if !matches!(e.kind(), ErrorKind::Limit(_)) => Ok(ctx.failed_generator(gen, &e)),
        r => r,
    }
}

/// A required argument, or Python's error for the call without it.
fn required<'a>(v: Option<Value<'a>>, function: &str, name: &str) -> Result<Value<'a>, Error> {
    v.ok_or_else(|| {
        err!(
            Type,
            "{function}() missing 1 required positional argument: '{name}'"
        )
    })
}

/// `batch(linecount, fill_with=None)`'s body.
fn batch<'a>(ctx: &Ctx<'a>, v: Value<'a>, n: Value<'a>, fill: Option<Value<'a>>) -> VResult<'a> {
    let n = int_arg(&n)?;
    let fill = fill.filter(|f| !matches!(f, Value::None));
    let items = ops::iterate(ctx, v)?;
    // The batches and their items, and the fill, checked before any is built.
    let batches = if n > 0 {
        items.len() / n as usize + 1
    } else {
        1
    };
    let fill_items = if fill.is_some() {
        usize::try_from(n).unwrap_or(0)
    } else {
        0
    };
    ctx.check_items(
        items
            .len()
            .saturating_add(batches)
            .saturating_add(fill_items),
    )?;
    let mut out = Vec::new();
    let mut tmp: Vec<Value<'_>> = Vec::new();
    for item in items {
        if tmp.len() as i64 == n {
            out.push(ctx.list(tmp.drain(..)));
        }
        tmp.push(*item);
    }
    if !tmp.is_empty() {
        if let Some(f) = fill {
            while (tmp.len() as i64) < n {
                tmp.push(f);
            }
        }
        out.push(ctx.list(tmp));
    }
    Ok(ctx.iter(IterKind::Generator(Gen::Batch), ctx.slice(out)))
}

/// `slice(slices, fill_with=None)`'s body.
fn slice<'a>(ctx: &Ctx<'a>, v: Value<'a>, n: Value<'a>, fill: Option<Value<'a>>) -> VResult<'a> {
    let slices = int_arg(&n)?;
    let fill = fill.filter(|f| !matches!(f, Value::None));
    let seq = ops::iterate(ctx, v)?;
    let len = seq.len() as i64;
    if slices == 0 {
        return Err(err!(ZeroDivision, "integer division or modulo by zero"));
    }
    ctx.check_items(
        usize::try_from(slices)
            .unwrap_or(0)
            .saturating_mul(2)
            .saturating_add(seq.len()),
    )?;
    let per = len.div_euclid(slices);
    let extra = len.rem_euclid(slices);
    let mut offset = 0;
    let mut out = Vec::new();
    for i in 0..slices.max(0) {
        let start = offset + i * per;
        if i < extra {
            offset += 1;
        }
        let end = offset + (i + 1) * per;
        let clamp = |x: i64| x.clamp(0, len) as usize;
        let (s, e) = (clamp(start), clamp(end));
        let mut part: Vec<Value<'_>> = seq[s..e.max(s)].to_vec();
        if let Some(f) = fill {
            if i >= extra {
                part.push(f);
            }
        }
        out.push(ctx.list(part));
    }
    Ok(ctx.iter(IterKind::Generator(Gen::Slice), ctx.slice(out)))
}

/// `select`/`reject` (`attr = false`) and `selectattr`/`rejectattr` (`attr = true`).
fn select<'a>(
    ctx: &Ctx<'a>,
    v: Value<'a>,
    args: &[Value<'a>],
    kw: Kwargs<'_, 'a>,
    attr: bool,
    keep: bool,
) -> VResult<'a> {
    // The body, run as jinja2 runs it: inside the generator.
    let body = || -> VResult<'a> {
        if !v.is_true() {
            return Ok(ctx.iter(IterKind::Generator(Gen::SelectOrReject), &[]));
        }
        let (parts, rest) = if attr {
            let (a, rest) = args.split_first().ok_or_else(|| {
                err!(Runtime, "Missing parameter for attribute name")
                    .with_class(ExceptionClass::FilterArgumentError)
            })?;
            (attr_parts(a), rest)
        } else {
            (Vec::new(), args)
        };
        let test = match rest.first() {
            None => None,
            Some(name) => {
                let n = match name {
                    Value::Str(n) => *n,
                    _ => "",
                };
                let f = super::test(n)
                    .ok_or_else(|| err!(Unknown, "No test named {}.", super::args::repr(name)))?;
                if !kw.is_empty() {
                    return Err(err!(Type, "keyword arguments to tests are not supported"));
                }
                Some(f)
            }
        };
        let targs = rest.get(1..).unwrap_or(&[]);
        let mut out = bumpalo::collections::Vec::new_in(ctx.arena);
        for item in ops::iterate(ctx, v)? {
            let x = get_path(ctx, *item, &parts, None)?;
            let ok = match test {
                Some(t) => t(ctx, x, targs)?,
                None => x.is_true(),
            };
            if ok == keep {
                out.push(*item);
            }
        }
        Ok(ctx.iter(
            IterKind::Generator(Gen::SelectOrReject),
            out.into_bump_slice(),
        ))
    };
    deferred(ctx, Gen::SelectOrReject, body())
}

/// `map(attribute=..., default=...)` or `map('filter', args...)`.
fn map<'a>(ctx: &Ctx<'a>, v: Value<'a>, args: &[Value<'a>], kw: Kwargs<'_, 'a>) -> VResult<'a> {
    if !v.is_true() {
        return Ok(ctx.iter(IterKind::Generator(Gen::Map), &[]));
    }
    let items = ops::iterate(ctx, v)?;
    let mut out = bumpalo::collections::Vec::with_capacity_in(items.len(), ctx.arena);
    let attribute = kw.iter().find(|(k, _)| *k == "attribute");
    if let (true, Some((_, attribute))) = (args.is_empty(), attribute) {
        let mut default = None;
        for (k, x) in kw {
            match *k {
                "attribute" => {}
                "default" => default = Some(*x),
                other => {
                    return Err(err!(Runtime, "Unexpected keyword argument '{other}'")
                        .with_class(ExceptionClass::FilterArgumentError))
                }
            }
        }
        let default = default.filter(|d| !matches!(d, Value::None));
        let parts = attr_parts(attribute);
        for item in items {
            out.push(get_path(ctx, *item, &parts, default)?);
        }
    } else {
        let (name, fargs) = args.split_first().ok_or_else(|| {
            err!(Runtime, "map requires a filter argument")
                .with_class(ExceptionClass::FilterArgumentError)
        })?;
        let n = match name {
            Value::Str(n) => *n,
            _ => "",
        };
        let f = super::filter(n)
            .ok_or_else(|| err!(Unknown, "No filter named {}.", super::args::repr(name)))?;
        for item in items {
            crate::value::budget::charge_call(item, fargs, kw)?;
            out.push(f(ctx, *item, fargs, kw)?);
        }
    }
    Ok(ctx.iter(IterKind::Generator(Gen::Map), out.into_bump_slice()))
}

/// The sort keys of `sort`: one list of values per item (jinja2's multi attribute getter).
fn multi_keys<'a>(
    ctx: &Ctx<'a>,
    items: &[Value<'a>],
    attribute: Option<Value<'a>>,
    case_sensitive: bool,
) -> Result<Vec<Vec<Value<'a>>>, Error> {
    let specs: Vec<Vec<Part<'a>>> = match attribute {
        Some(Value::Str(s)) => s.split(',').map(|p| attr_parts(&Value::Str(p))).collect(),
        Some(a) => vec![attr_parts(&a)],
        None => vec![Vec::new()],
    };
    items
        .iter()
        .map(|item| {
            specs
                .iter()
                .map(|parts| {
                    let k = get_path(ctx, *item, parts, None)?;
                    Ok(if case_sensitive {
                        k
                    } else {
                        ignore_case(ctx, k)
                    })
                })
                .collect()
        })
        .collect()
}

/// `sort(reverse=False, case_sensitive=False, attribute=None)`.
fn sort<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let [reverse, cs, attribute] = bind("sort", ["reverse", "case_sensitive", "attribute"], a, k)?;
    let items = ops::iterate(ctx, v)?;
    let cs = cs.is_some_and(|c| c.is_true());
    let keys = multi_keys(ctx, items, attribute, cs)?;
    let mut idx: Vec<usize> = (0..items.len()).collect();
    let reverse = reverse.is_some_and(|r| r.is_true());
    sort_by(&mut idx, reverse, &mut |x, y| lt_keys(&keys[*x], &keys[*y]))?;
    Ok(ctx.list(idx.into_iter().map(|i| items[i])))
}

/// `dictsort(case_sensitive=False, by='key', reverse=False)`.
fn dictsort<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let [cs, by, reverse] = bind("dictsort", ["case_sensitive", "by", "reverse"], a, k)?;
    let pos = match by {
        None => 0,
        Some(Value::Str("key")) => 0,
        Some(Value::Str("value")) => 1,
        Some(_) => {
            return Err(
                err!(Runtime, "You can only sort by either \"key\" or \"value\"")
                    .with_class(ExceptionClass::FilterArgumentError),
            )
        }
    };
    if v.is_undefined() {
        return Err(ops::undefined_error(&v));
    }
    let p = pairs(ctx, &v).ok_or_else(|| {
        err!(Type, "'{}' object has no attribute 'items'", v.type_name())
            .with_class(ExceptionClass::AttributeError)
    })?;
    let cs = cs.is_some_and(|c| c.is_true());
    let keys: Vec<Value<'a>> = p
        .iter()
        .map(|(k, x)| {
            let key = if pos == 0 { *k } else { *x };
            if cs {
                key
            } else {
                ignore_case(ctx, key)
            }
        })
        .collect();
    let mut idx: Vec<usize> = (0..p.len()).collect();
    let reverse = reverse.is_some_and(|r| r.is_true());
    sort_by(&mut idx, reverse, &mut |x, y| lt(&keys[*x], &keys[*y]))?;
    Ok(ctx.list(idx.into_iter().map(|i| pair(ctx, p[i].0, p[i].1))))
}

/// `unique(case_sensitive=False, attribute=None)`'s body.
fn unique<'a>(
    ctx: &Ctx<'a>,
    v: Value<'a>,
    cs: Option<Value<'a>>,
    attribute: Option<Value<'a>>,
) -> VResult<'a> {
    let cs = cs.is_some_and(|c| c.is_true());
    let parts = attribute.map(|a| attr_parts(&a)).unwrap_or_default();
    let mut seen: Vec<Value<'a>> = Vec::new();
    let mut out = bumpalo::collections::Vec::new_in(ctx.arena);
    for item in ops::iterate(ctx, v)? {
        let key = get_path(ctx, *item, &parts, None)?;
        let key = if cs { key } else { ignore_case(ctx, key) };
        check_hashable(&key)?;
        crate::value::budget::charge_items(seen.len())?;
        if !seen.iter().any(|s| ops::eq(s, &key)) {
            seen.push(key);
            out.push(*item);
        }
    }
    Ok(ctx.iter(IterKind::Generator(Gen::Unique), out.into_bump_slice()))
}

/// `min`/`max(case_sensitive=False, attribute=None)`: the first extreme item.
fn min_max<'a>(
    ctx: &Ctx<'a>,
    v: Value<'a>,
    a: &[Value<'a>],
    k: Kwargs<'_, 'a>,
    op: CmpOp,
) -> VResult<'a> {
    let [cs, attribute] = bind("min", ["case_sensitive", "attribute"], a, k)?;
    let cs = cs.is_some_and(|c| c.is_true());
    let parts = attribute.map(|a| attr_parts(&a)).unwrap_or_default();
    let items = ops::iterate(ctx, v)?;
    let key = |item: Value<'a>| -> Result<Value<'a>, Error> {
        let k = get_path(ctx, item, &parts, None)?;
        Ok(if cs { k } else { ignore_case(ctx, k) })
    };
    let Some((first, rest)) = items.split_first() else {
        return Ok(Value::UNDEFINED);
    };
    let (mut best, mut best_key) = (*first, key(*first)?);
    for item in rest {
        let k = key(*item)?;
        if ops::compare(op, &k, &best_key)? {
            best = *item;
            best_key = k;
        }
    }
    Ok(best)
}

/// `reverse`: a reversed string, a reverse iterator, or a reversed list of a generator.
fn reverse<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    no_args("reverse", a, k)?;
    match v {
        Value::Str(s) => Ok(ctx.str(&s.chars().rev().collect::<String>())),
        // `value[::-1]` of a Markup is a Markup.
        Value::Markup(s) => Ok(Value::Markup(
            ctx.arena.alloc_str(&s.chars().rev().collect::<String>()),
        )),
        Value::Iter(s)
            if matches!(
                s.kind,
                IterKind::Generator(_) | IterKind::Reverse(_) | IterKind::RangeReverse
            ) =>
        {
            // `list(value)`: a TypeError its body raises is jinja2's FilterArgumentError.
            let items = s.values().map_err(|e| match e.exception_class() {
                ExceptionClass::TypeError => err!(Runtime, "argument must be iterable")
                    .with_class(ExceptionClass::FilterArgumentError),
                _ => e,
            })?;
            Ok(ctx.list(items.iter().rev().copied()))
        }
        Value::Iter(s) if matches!(s.kind, IterKind::Range { .. }) => Ok(ctx.iter(
            IterKind::RangeReverse,
            ctx.slice(s.items.iter().rev().copied()),
        )),
        Value::Undefined(_)
        | Value::List(_)
        | Value::Tuple(_)
        | Value::Dict(_)
        | Value::Json(_)
        | Value::Iter(_) => {
            let of = match v {
                Value::List(_) | Value::Json(serde_json::Value::Array(_)) => RevOf::List,
                Value::Dict(_) | Value::Json(_) => RevOf::DictKeys,
                Value::Iter(s) => match s.kind {
                    IterKind::DictKeys => RevOf::DictKeys,
                    IterKind::DictValues => RevOf::DictValues,
                    IterKind::DictItems => RevOf::DictItems,
                    _ => RevOf::Sequence,
                },
                _ => RevOf::Sequence,
            };
            let items = ops::iterate(ctx, v)?;
            let rev = ctx.slice(items.iter().rev().copied());
            Ok(ctx.iter(IterKind::Reverse(of), rev))
        }
        _ => Err(err!(Runtime, "argument must be iterable")
            .with_class(ExceptionClass::FilterArgumentError)),
    }
}

/// `groupby(attribute, default=None, case_sensitive=False)`: a list of `(grouper, list)`
/// tuples, sorted by the grouper.
fn groupby<'a>(ctx: &Ctx<'a>, v: Value<'a>, a: &[Value<'a>], k: Kwargs<'_, 'a>) -> VResult<'a> {
    let [attribute, default, cs] =
        bind("groupby", ["attribute", "default", "case_sensitive"], a, k)?;
    let attribute =
        attribute.ok_or_else(|| err!(Type, "groupby() missing required argument 'attribute'"))?;
    let parts = attr_parts(&attribute);
    let default = default.filter(|d| !matches!(d, Value::None));
    let cs = cs.is_some_and(|c| c.is_true());
    let items = ops::iterate(ctx, v)?;
    let mut raw = Vec::with_capacity(items.len());
    let mut keys = Vec::with_capacity(items.len());
    for item in items {
        let r = get_path(ctx, *item, &parts, default)?;
        raw.push(r);
        keys.push(if cs { r } else { ignore_case(ctx, r) });
    }
    let mut idx: Vec<usize> = (0..items.len()).collect();
    sort_by(&mut idx, false, &mut |x, y| lt(&keys[*x], &keys[*y]))?;
    let mut out = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i + 1;
        while j < idx.len() && ops::eq(&keys[idx[j]], &keys[idx[i]]) {
            j += 1;
        }
        let group = ctx.list(idx[i..j].iter().map(|&n| items[n]));
        let t = ctx.slice([raw[idx[i]], group]);
        ctx.mark_group_tuple(t);
        out.push(Value::Tuple(t));
        i = j;
    }
    Ok(ctx.list(out))
}

#[cfg(test)]
mod unit {
    use super::super::args::testutil::{leak, s, with_ctx};
    use super::*;

    /// Runs filter `name` and shows the result's items (materializing iterables).
    fn f(
        name: &str,
        v: Value<'static>,
        a: &[Value<'static>],
        k: &[(&'static str, Value<'static>)],
    ) -> String {
        with_ctx(|ctx| match lookup(name).unwrap()(ctx, v, a, k) {
            // A generator whose body failed: `!Kind` after it, the error iterating raises.
            Ok(Value::Iter(it)) => match it.failed {
                Some((kind, _, _)) => format!("{:?}!{kind:?}", it.kind),
                None => {
                    let parts: Vec<String> = it.items.iter().map(show).collect();
                    format!("{:?}[{}]", it.kind, parts.join(","))
                }
            },
            Ok(v) => show(&v),
            Err(e) => format!("!{:?}", e.kind()),
        })
    }

    fn show(v: &Value<'static>) -> String {
        match v {
            Value::List(items) | Value::Tuple(items) => {
                let parts: Vec<String> = items.iter().map(show).collect();
                format!("[{}]", parts.join(","))
            }
            v => s(v),
        }
    }

    fn ints(xs: &[i64]) -> Vec<Value<'static>> {
        xs.iter().map(|&i| Value::Int(i)).collect()
    }

    #[test]
    fn generators_where_jinja_has_them() {
        let l = leak(ints(&[3, 1, 2]));
        let l = Value::List(l);
        assert_eq!(f("select", l, &[], &[]), "Generator(SelectOrReject)[3,1,2]");
        assert_eq!(
            f("reject", l, &[Value::Str("odd")], &[]),
            "Generator(SelectOrReject)[2]"
        );
        assert_eq!(
            f("select", l, &[Value::Str("gt"), Value::Int(1)], &[]),
            "Generator(SelectOrReject)[3,2]"
        );
        // Errors in a generator's body wait until it is iterated.
        assert_eq!(
            f("select", l, &[Value::Str("nope")], &[]),
            "Generator(SelectOrReject)!Unknown"
        );
        assert_eq!(
            f("select", Value::UNDEFINED, &[], &[]),
            "Generator(SelectOrReject)[]"
        );
        assert_eq!(
            f("map", l, &[Value::Str("string")], &[]),
            "Generator(Map)[3,1,2]"
        );
        assert_eq!(f("map", l, &[], &[]), "Generator(Map)!Runtime");
        assert_eq!(
            f("unique", Value::Int(5), &[], &[]),
            "Generator(Unique)!Type"
        );
        // Argument binding is checked at the call, as Python checks it.
        assert_eq!(f("batch", l, &[], &[]), "!Type");
        assert_eq!(f("map", Value::List(&[]), &[], &[]), "Generator(Map)[]");
        assert_eq!(
            f("unique", Value::List(leak(ints(&[1, 2, 1]))), &[], &[]),
            "Generator(Unique)[1,2]"
        );
        assert_eq!(f("reverse", l, &[], &[]), "Reverse(List)[2,1,3]");
        assert_eq!(f("reverse", Value::Str("ab"), &[], &[]), "ba");
        assert_eq!(f("list", Value::Str("ab"), &[], &[]), "[a,b]");
        assert_eq!(f("list", Value::Int(5), &[], &[]), "!Type");
        assert_eq!(f("items", Value::UNDEFINED, &[], &[]), "Generator(Items)[]");
        // The error is raised when the generator is iterated.
        assert_eq!(f("items", Value::Int(1), &[], &[]), "Generator(Items)!Type");
    }

    #[test]
    fn attribute_forms() {
        with_ctx(|ctx| {
            let j: &serde_json::Value = ctx.arena.alloc(serde_json::json!([
                {"n": "b", "k": {"x": 2}, "t": true},
                {"n": "A", "k": {"x": 1}},
                {"n": "c", "k": {"x": 3}, "t": false}
            ]));
            let v = Value::Json(j);
            let r = |name: &str,
                     a: &[Value<'static>],
                     k: &[(&'static str, Value<'static>)]|
             -> String {
                match lookup(name).unwrap()(ctx, v, a, k) {
                    Ok(Value::Iter(it)) => match it.failed {
                        Some((kind, _, _)) => format!("!{kind:?}"),
                        None => it.items.iter().map(show_n).collect(),
                    },
                    Ok(Value::List(items)) => items.iter().map(show_n).collect(),
                    Ok(x) => show_n(&x),
                    Err(e) => format!("!{:?}", e.kind()),
                }
            };
            fn show_n(v: &Value<'static>) -> String {
                let r = s(v);
                match r.find("'n': '") {
                    Some(i) => r[i + 6..i + 7].to_string(),
                    None => r,
                }
            }
            assert_eq!(r("sort", &[], &[("attribute", Value::Str("n"))]), "Abc");
            assert_eq!(
                r(
                    "sort",
                    &[],
                    &[
                        ("attribute", Value::Str("n")),
                        ("case_sensitive", Value::Bool(true))
                    ]
                ),
                "Abc"
            );
            assert_eq!(
                r(
                    "sort",
                    &[Value::Bool(true)],
                    &[("attribute", Value::Str("k.x"))]
                ),
                "cbA"
            );
            assert_eq!(r("selectattr", &[Value::Str("t")], &[]), "b");
            assert_eq!(r("rejectattr", &[Value::Str("t")], &[]), "Ac");
            assert_eq!(
                r(
                    "selectattr",
                    &[Value::Str("n"), Value::Str("equalto"), Value::Str("c")],
                    &[]
                ),
                "c"
            );
            assert_eq!(
                r("selectattr", &[Value::Str("t"), Value::Str("defined")], &[]),
                "bc"
            );
            assert_eq!(r("map", &[], &[("attribute", Value::Str("k.x"))]), "213");
            assert_eq!(
                r(
                    "map",
                    &[],
                    &[("attribute", Value::Str("t")), ("default", Value::Int(7))]
                ),
                "True7False"
            );
            assert_eq!(
                r(
                    "map",
                    &[],
                    &[("attribute", Value::Str("n")), ("x", Value::Int(1))]
                ),
                "!Runtime"
            );
            assert_eq!(
                r(
                    "join",
                    &[Value::Str("-")],
                    &[("attribute", Value::Str("n"))]
                ),
                "b-A-c"
            );
            assert_eq!(r("min", &[], &[("attribute", Value::Str("n"))]), "A");
            assert_eq!(r("max", &[], &[("attribute", Value::Str("k.x"))]), "c");
            assert_eq!(r("sum", &[], &[("attribute", Value::Str("k.x"))]), "6");
            assert_eq!(r("unique", &[], &[("attribute", Value::Str("t"))]), "bAc");
        });
    }

    #[test]
    fn sorting_and_grouping() {
        let l = leak([Value::Str("b"), Value::Str("A"), Value::Str("a")]);
        assert_eq!(f("sort", Value::List(l), &[], &[]), "[A,a,b]");
        assert_eq!(
            f(
                "sort",
                Value::List(l),
                &[],
                &[("case_sensitive", Value::Bool(true))]
            ),
            "[A,a,b]"
        );
        assert_eq!(
            f("sort", Value::List(l), &[Value::Bool(true)], &[]),
            "[b,A,a]"
        );
        assert_eq!(
            f("unique", Value::List(l), &[], &[]),
            "Generator(Unique)[b,A]"
        );
        assert_eq!(f("min", Value::List(l), &[], &[]), "A");
        assert_eq!(f("max", Value::List(&[]), &[], &[]), "");
        let mixed = leak([Value::Int(1), Value::Str("a")]);
        assert_eq!(f("sort", Value::List(mixed), &[], &[]), "!Type");
        let nums = leak(ints(&[1, 2, 3, 4, 5]));
        assert_eq!(
            f("batch", Value::List(nums), &[Value::Int(2)], &[]),
            "Generator(Batch)[[1,2],[3,4],[5]]"
        );
        assert_eq!(
            f(
                "batch",
                Value::List(nums),
                &[Value::Int(2), Value::Int(0)],
                &[]
            ),
            "Generator(Batch)[[1,2],[3,4],[5,0]]"
        );
        assert_eq!(
            f("slice", Value::List(nums), &[Value::Int(2)], &[]),
            "Generator(Slice)[[1,2,3],[4,5]]"
        );
        assert_eq!(
            f(
                "slice",
                Value::List(nums),
                &[Value::Int(3), Value::Int(0)],
                &[]
            ),
            "Generator(Slice)[[1,2],[3,4],[5,0]]"
        );
        assert_eq!(
            f("sum", Value::List(nums), &[], &[("start", Value::Int(10))]),
            "25"
        );
        assert_eq!(
            f("join", Value::List(nums), &[Value::Str(",")], &[]),
            "1,2,3,4,5"
        );
    }

    #[test]
    fn dictsort_forms() {
        with_ctx(|ctx| {
            let j: &serde_json::Value =
                ctx.arena.alloc(serde_json::json!({"b": 1, "A": 3, "c": 2}));
            let d = Value::Json(j);
            let r = |a: &[Value<'static>], k: &[(&'static str, Value<'static>)]| match dictsort(
                ctx, d, a, k,
            ) {
                Ok(Value::List(items)) => items
                    .iter()
                    .map(|t| match t {
                        Value::Tuple([k, _]) => s(k),
                        _ => "?".into(),
                    })
                    .collect::<String>(),
                Ok(_) => "?".into(),
                Err(e) => format!("!{:?}", e.kind()),
            };
            assert_eq!(r(&[], &[]), "Abc");
            assert_eq!(r(&[], &[("by", Value::Str("value"))]), "bcA");
            assert_eq!(r(&[], &[("reverse", Value::Bool(true))]), "cbA");
            assert_eq!(r(&[], &[("by", Value::Str("x"))]), "!Runtime");
        });
    }
}
