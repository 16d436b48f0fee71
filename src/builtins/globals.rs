//! The global functions of transformers' environment: `range`, `namespace`, `dict`,
//! `raise_exception`, `strftime_now`; `lipsum`, `cycler` and `joiner` are refused.

use std::collections::HashMap;

use num_bigint::BigInt;

use crate::error::{err, Error, ErrorKind, ExceptionClass};
use crate::value::methods::{CYCLER_ITEMS, CYCLER_POS, JOINER_SEP, JOINER_USED};
use crate::value::ops;
use crate::value::{Ctx, Global, IterKind, Namespace, VResult, Value};

use super::args::{bind, check_hashable, int_arg, pairs, to_str};
use super::Kwargs;

/// The sandbox's cap on `range` lengths.
const MAX_RANGE: i128 = 100_000;

/// The global function called `name`, if there is one.
pub(super) fn lookup(name: &str) -> Option<Global> {
    Some(match name {
        "range" => Global::Range,
        "namespace" => Global::Namespace,
        "dict" => Global::Dict,
        "raise_exception" => Global::RaiseException,
        "strftime_now" => Global::StrftimeNow,
        "lipsum" => Global::Lipsum,
        "cycler" => Global::Cycler,
        "joiner" => Global::Joiner,
        "self" => Global::SelfRef,
        _ => return None,
    })
}

/// Calls global function `g`.
pub(super) fn call<'a>(
    ctx: &Ctx<'a>,
    g: Global,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> VResult<'a> {
    match g {
        Global::Range => range(ctx, args, kwargs),
        Global::Namespace => {
            let ns = ctx.namespace_with(kwargs.len());
            if args.is_empty() {
                // `namespace(a=1, b=2)`, the common form: the keywords are the items, set
                // in order (no dict of them built first).
                for &(name, v) in kwargs {
                    set_ns_attr(ns, name, v)?;
                }
                return Ok(Value::Ns(ns));
            }
            for (k, v) in dict_items(ctx, args, kwargs)? {
                if let Value::Str(name) = k {
                    set_ns_attr(ns, name, v)?;
                }
            }
            Ok(Value::Ns(ns))
        }
        Global::Dict => {
            let items = dict_items(ctx, args, kwargs)?;
            Ok(Value::Dict(ctx.arena.alloc_slice_copy(&items)))
        }
        Global::RaiseException => {
            let [msg] = bind("raise_exception", ["message"], args, kwargs)?;
            let msg = msg.ok_or_else(|| {
                err!(
                    Type,
                    "raise_exception() missing 1 required positional argument: 'message'"
                )
            })?;
            Err(Error::new(ErrorKind::Raised, to_str(ctx, &msg)))
        }
        Global::StrftimeNow => {
            let [fmt] = bind("strftime_now", ["format"], args, kwargs)?;
            let fmt = match fmt {
                Some(Value::Str(s)) => s,
                Some(other) => {
                    return Err(err!(
                        Type,
                        "strftime() argument 1 must be str, not {}",
                        other.type_name()
                    ))
                }
                None => {
                    return Err(err!(
                        Type,
                        "strftime_now() missing 1 required positional argument: 'format'"
                    ))
                }
            };
            Ok(ctx.str(&super::strftime::strftime(&ctx.now, fmt)))
        }
        Global::Cycler => {
            if !kwargs.is_empty() {
                return Err(err!(Type, "cycler() got an unexpected keyword argument"));
            }
            let first = *args.first().ok_or_else(|| {
                err!(Runtime, "at least one item has to be provided")
                    .with_class(ExceptionClass::RuntimeError)
            })?;
            let ns = ctx.namespace();
            ns.set(CYCLER_ITEMS, Value::List(ctx.slice(args.iter().copied())));
            ns.set(CYCLER_POS, Value::Int(0));
            ns.set("current", first);
            Ok(Value::Ns(ns))
        }
        Global::SelfRef => Err(err!(Type, "'TemplateReference' object is not callable")),
        Global::Joiner => {
            let [sep] = bind("joiner", ["sep"], args, kwargs)?;
            let ns = ctx.namespace();
            ns.set(JOINER_SEP, sep.unwrap_or(Value::Str(", ")));
            ns.set(JOINER_USED, Value::Bool(false));
            Ok(ctx.callable(crate::value::Callable::Method {
                recv: Value::Ns(ns),
                name: "__call__",
            }))
        }
        Global::Lipsum => Err(err!(
            Unknown,
            "{}() is not supported by chatcodec",
            format!("{g:?}").to_lowercase()
        )),
    }
}

/// Sets attribute `name` of a namespace being made, refusing the names transformers'
/// sandbox refuses.
fn set_ns_attr<'a>(ns: &'a Namespace<'a>, name: &'a str, v: Value<'a>) -> Result<(), Error> {
    if name.starts_with('_') {
        return Err(err!(
            Security,
            "Chat templates cannot store underscore-prefixed attributes on a namespace, but \
             got '{name}'. Please rename the attribute."
        ));
    }
    ns.set(name, v);
    Ok(())
}

/// Calls `next()`/`reset()` of a cycler, or a joiner.
pub(crate) fn helper_call<'a>(
    ns: &'a Namespace<'a>,
    name: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> VResult<'a> {
    super::args::no_args(name, args, kwargs)?;
    if name == "__call__" {
        let used = ns.get(JOINER_USED).is_some_and(|u| u.is_true());
        ns.set(JOINER_USED, Value::Bool(true));
        return Ok(if used {
            ns.get(JOINER_SEP).unwrap_or(Value::Str(""))
        } else {
            Value::Str("")
        });
    }
    let items = match ns.get(CYCLER_ITEMS) {
        Some(Value::List(items)) if !items.is_empty() => items,
        _ => return Err(err!(Runtime, "not a cycler")),
    };
    let pos = match ns.get(CYCLER_POS) {
        Some(Value::Int(p)) => usize::try_from(p).unwrap_or(0) % items.len(),
        _ => 0,
    };
    let (ret, next) = if name == "reset" {
        (Value::None, 0)
    } else {
        (items[pos], (pos + 1) % items.len())
    };
    ns.set(CYCLER_POS, Value::Int(next as i64));
    ns.set("current", items[next]);
    Ok(ret)
}

/// `range(stop)`, `range(start, stop[, step])`, capped at [`MAX_RANGE`] items.
fn range<'a>(ctx: &Ctx<'a>, args: &[Value<'a>], kwargs: Kwargs<'_, 'a>) -> VResult<'a> {
    if !kwargs.is_empty() {
        return Err(err!(Type, "range() takes no keyword arguments"));
    }
    if matches!(args.len(), 1..=3) && args.iter().any(|a| matches!(a, Value::Big(_))) {
        return big_range(ctx, args);
    }
    let int = |i: usize| int_arg(&args[i]).map(i128::from);
    let (start, stop, step) = match args.len() {
        1 => (0, int(0)?, 1),
        2 => (int(0)?, int(1)?, 1),
        3 => (int(0)?, int(1)?, int(2)?),
        0 => return Err(err!(Type, "range expected at least 1 argument, got 0")),
        n => {
            for i in 0..n {
                int(i)?;
            }
            return Err(err!(Type, "range expected at most 3 arguments, got {n}"));
        }
    };
    if step == 0 {
        return Err(err!(Value, "range() arg 3 must not be zero"));
    }
    let len = if step > 0 && stop > start {
        (stop - start + step - 1) / step
    } else if step < 0 && start > stop {
        (start - stop - step - 1) / -step
    } else {
        0
    };
    if len > MAX_RANGE {
        return Err(err!(
            Overflow,
            "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000)."
        ));
    }
    // Every item lies between start and stop, so it is an i64; the arithmetic wraps where
    // only an intermediate product would not fit.
    let (first, by) = (start as i64, step as i64);
    let items =
        ctx.slice((0..len as i64).map(|i| Value::Int(first.wrapping_add(i.wrapping_mul(by)))));
    Ok(ctx.iter(
        IterKind::Range {
            start: start as i64,
            stop: stop as i64,
            step: step as i64,
        },
        items,
    ))
}

/// `range` with an argument beyond 64 bits: Python's lengths in big ints (a length beyond
/// 64 bits is its `OverflowError`), then the sandbox's [`MAX_RANGE`] cap.
fn big_range<'a>(ctx: &Ctx<'a>, args: &[Value<'a>]) -> VResult<'a> {
    let n: Vec<BigInt> = args
        .iter()
        .map(|a| match a {
            Value::Big(b) => Ok(b.to_bigint()),
            other => int_arg(other).map(BigInt::from),
        })
        .collect::<Result<_, _>>()?;
    let (zero, one) = (BigInt::from(0), BigInt::from(1));
    let (start, stop, step) = match &n[..] {
        [stop] => (zero.clone(), stop.clone(), one.clone()),
        [start, stop] => (start.clone(), stop.clone(), one.clone()),
        [start, stop, step] => (start.clone(), stop.clone(), step.clone()),
        _ => return Err(err!(Type, "range expected 1 to 3 arguments")),
    };
    if step == zero {
        return Err(err!(Value, "range() arg 3 must not be zero"));
    }
    let len = if step > zero && stop > start {
        (&stop - &start + &step - &one) / &step
    } else if step < zero && start > stop {
        (&start - &stop - &step - &one) / -&step
    } else {
        zero
    };
    if i64::try_from(&len).is_err() {
        return Err(err!(
            Overflow,
            "Python int too large to convert to C ssize_t"
        ));
    }
    if len > BigInt::from(MAX_RANGE) {
        return Err(err!(
            Overflow,
            "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000)."
        ));
    }
    let mut items = Vec::new();
    let mut at = start;
    while items.len() < usize::try_from(&len).unwrap_or(0) {
        items.push(ctx.big(at.clone())?);
        at += &step;
    }
    Ok(ctx.list(items))
}

/// The items of `dict(*args, **kwargs)`: a mapping or an iterable of pairs, then keywords;
/// a repeated key keeps its first position and takes the last value.
fn dict_items<'a>(
    ctx: &Ctx<'a>,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> Result<Vec<(Value<'a>, Value<'a>)>, Error> {
    let mut out = DictBuilder::default();
    match args {
        [] => {}
        [src] => {
            if let Some(p) = pairs(ctx, src) {
                // A dict's keys are unique already: copied without the search.
                ctx.check_items(p.len().saturating_add(kwargs.len()))?;
                out.items.reserve(p.len() + kwargs.len());
                out.items.extend_from_slice(p);
            } else {
                let items = ops::iterate(ctx, *src)?;
                ctx.check_items(items.len())?;
                for (i, item) in items.iter().enumerate() {
                    let kv = ops::iterate(ctx, *item).map_err(|_| {
                        err!(
                            Type,
                            "cannot convert dictionary update sequence element #{i} to a sequence"
                        )
                    })?;
                    let [k, v] = kv else {
                        return Err(err!(
                            Value,
                            "dictionary update sequence element #{i} has length {}; 2 is required",
                            kv.len()
                        ));
                    };
                    out.put(*k, *v)?;
                }
            }
        }
        _ => {
            return Err(err!(
                Type,
                "dict expected at most 1 argument, got {}",
                args.len()
            ))
        }
    }
    for (k, v) in kwargs {
        out.put(Value::Str(k), *v)?;
    }
    Ok(out.items)
}

/// Dict items being built, with an index of their keys once there are more than a few, so
/// that adding a key costs O(1) for string and integer keys (Python's hash table) instead of
/// a search of every key; keys of other kinds are searched among themselves. A small dict
/// makes no index at all (no hash tables to set up).
#[derive(Default)]
struct DictBuilder<'a> {
    /// The items, in first-insertion order, keys unique.
    items: Vec<(Value<'a>, Value<'a>)>,
    /// The index, made when the items reach [`INDEX_FROM`].
    index: Option<Box<KeyIndex<'a>>>,
}

/// [`DictBuilder`]'s index of its keys.
#[derive(Default)]
struct KeyIndex<'a> {
    /// The position of each string key.
    strs: HashMap<&'a str, usize>,
    /// The position of each key equal to an `i64` (ints, bools, integral floats).
    ints: HashMap<i64, usize>,
    /// The positions of the other keys.
    others: Vec<usize>,
    /// How many items the index covers.
    indexed: usize,
}

/// Below this many items a key is found by comparing with each.
const INDEX_FROM: usize = 16;

/// How [`DictBuilder`] indexes a key: equal keys always index alike.
enum KeyClass<'a> {
    Str(&'a str),
    Int(i64),
    Other,
}

/// The index class of `k`: `1`, `1.0` and `True` are the same key, as in Python.
fn key_class<'a>(k: &Value<'a>) -> KeyClass<'a> {
    match *k {
        Value::Str(s) => KeyClass::Str(s),
        Value::Int(i) => KeyClass::Int(i),
        Value::Bool(b) => KeyClass::Int(i64::from(b)),
        Value::Float(f)
            if f.fract() == 0.0 && (i64::MIN as f64..-(i64::MIN as f64)).contains(&f) =>
        {
            KeyClass::Int(f as i64)
        }
        _ => KeyClass::Other,
    }
}

impl<'a> KeyIndex<'a> {
    /// Indexes the items not yet indexed.
    fn update(&mut self, items: &[(Value<'a>, Value<'a>)]) {
        while let Some((k, _)) = items.get(self.indexed) {
            let i = self.indexed;
            match key_class(k) {
                KeyClass::Str(s) => {
                    self.strs.insert(s, i);
                }
                KeyClass::Int(n) => {
                    self.ints.insert(n, i);
                }
                KeyClass::Other => self.others.push(i),
            }
            self.indexed += 1;
        }
    }

    /// The position of the key equal to `k`, if there is one.
    fn find(&self, items: &[(Value<'a>, Value<'a>)], k: &Value<'a>) -> Option<usize> {
        match key_class(k) {
            KeyClass::Str(s) => self.strs.get(s).copied(),
            KeyClass::Int(n) => self.ints.get(&n).copied(),
            KeyClass::Other => self
                .others
                .iter()
                .copied()
                .find(|&i| ops::eq(&items[i].0, k)),
        }
    }
}

impl<'a> DictBuilder<'a> {
    /// Sets `k` to `v`: in place when the key is there, else appended.
    fn put(&mut self, k: Value<'a>, v: Value<'a>) -> Result<(), Error> {
        check_hashable(&k)?;
        let found = if self.items.len() < INDEX_FROM {
            self.items.iter().position(|(x, _)| ops::eq(x, &k))
        } else {
            let index = self.index.get_or_insert_with(Box::default);
            index.update(&self.items);
            index.find(&self.items, &k)
        };
        match found {
            Some(i) => self.items[i].1 = v,
            None => self.items.push((k, v)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod unit {
    use super::super::args::testutil::{leak, s, with_ctx};
    use super::*;

    fn ints(v: &Value<'static>) -> Vec<i64> {
        match v {
            Value::List(items) | Value::Iter(crate::value::Seq { items, .. }) => items
                .iter()
                .map(|x| if let Value::Int(i) = x { *i } else { -999 })
                .collect(),
            _ => vec![],
        }
    }

    #[test]
    fn ranges() {
        with_ctx(|ctx| {
            let r = |a: &[Value<'static>]| call(ctx, Global::Range, a, &[]);
            assert_eq!(ints(&r(&[Value::Int(3)]).unwrap()), [0, 1, 2]);
            assert_eq!(
                ints(&r(&[Value::Int(5), Value::Int(0), Value::Int(-2)]).unwrap()),
                [5, 3, 1]
            );
            assert_eq!(
                ints(&r(&[Value::Int(2), Value::Int(5)]).unwrap()),
                [2, 3, 4]
            );
            assert_eq!(ints(&r(&[Value::Int(-3)]).unwrap()), Vec::<i64>::new());
            assert_eq!(
                r(&[Value::Float(1.5)]).err().expect("an error").kind(),
                ErrorKind::Type
            );
            let z = [Value::Int(0), Value::Int(3), Value::Int(0)];
            assert_eq!(r(&z).err().expect("an error").kind(), ErrorKind::Value);
            let e = r(&[Value::Int(100_001)]).err().expect("an error");
            assert_eq!(e.kind(), ErrorKind::Overflow);
            assert!(r(&[Value::Int(100_000)]).is_ok());
        });
    }

    #[test]
    fn dict_dedups_keys_past_the_index_threshold() {
        with_ctx(|ctx| {
            // 40 pairs: 20 string keys, each twice; then 1, 1.0 and True, one key.
            let mut pairs: Vec<Value<'static>> = (0..40)
                .map(|i| {
                    let k = ctx.arena.alloc_str(&format!("k{}", i % 20));
                    Value::Tuple(leak([Value::Str(k), Value::Int(i)]))
                })
                .collect();
            for k in [Value::Int(1), Value::Float(1.0), Value::Bool(true)] {
                pairs.push(Value::Tuple(leak([k, Value::Str("one")])));
            }
            let d = call(ctx, Global::Dict, &[Value::List(leak(pairs))], &[]).unwrap();
            let Value::Dict(items) = d else {
                panic!("not a dict")
            };
            assert_eq!(items.len(), 21);
            assert_eq!(s(&items[0].0), "k0");
            assert_eq!(s(&items[0].1), "20");
            assert_eq!(s(&items[20].0), "1");
            // Copying a big dict and adding a keyword keeps the order, replaces in place.
            let d2 = call(ctx, Global::Dict, &[d], &[("k3", Value::Int(-1))]).unwrap();
            let Value::Dict(items2) = d2 else {
                panic!("not a dict")
            };
            assert_eq!(items2.len(), 21);
            assert_eq!(s(&items2[3].1), "-1");
        });
    }

    #[test]
    fn cycler_and_joiner() {
        with_ctx(|ctx| {
            let c = call(
                ctx,
                Global::Cycler,
                &[Value::Str("odd"), Value::Str("even")],
                &[],
            );
            let Ok(c @ Value::Ns(ns)) = c else {
                panic!("not a namespace")
            };
            assert!(crate::value::methods::has_method(&c, "next"));
            let next = || s(&crate::builtins::call_method(ctx, c, "next", &[], &[]).unwrap());
            assert_eq!(
                (next(), next(), next()),
                ("odd".into(), "even".into(), "odd".into())
            );
            assert_eq!(s(&ns.get("current").unwrap()), "even");
            crate::builtins::call_method(ctx, c, "reset", &[], &[]).unwrap();
            assert_eq!(s(&ns.get("current").unwrap()), "odd");
            let Ok(Value::Callable(j)) = call(ctx, Global::Joiner, &[Value::Str("|")], &[]) else {
                panic!("not callable")
            };
            let crate::value::Callable::Method { recv, name } = *j else {
                panic!("not a method")
            };
            let call_j = || s(&crate::builtins::call_method(ctx, recv, name, &[], &[]).unwrap());
            assert_eq!(
                (call_j(), call_j(), call_j()),
                ("".into(), "|".into(), "|".into())
            );
        });
    }

    #[test]
    fn namespace_dict_raise() {
        with_ctx(|ctx| {
            let d = leak([(Value::Str("a"), Value::Int(1))]);
            let v = call(
                ctx,
                Global::Namespace,
                &[Value::Dict(d)],
                &[("b", Value::Int(2))],
            );
            let Ok(Value::Ns(ns)) = v else {
                panic!("not a namespace")
            };
            assert!(matches!(ns.get("a"), Some(Value::Int(1))));
            assert!(matches!(ns.get("b"), Some(Value::Int(2))));
            // Keywords alone (the common form) keep their order, as jinja2's dict does.
            let v = call(
                ctx,
                Global::Namespace,
                &[],
                &[("b", Value::Int(2)), ("a", Value::Int(1))],
            );
            let Ok(Value::Ns(ns)) = v else {
                panic!("not a namespace")
            };
            let names: Vec<&str> = ns.attrs.borrow().iter().map(|(k, _)| *k).collect();
            assert_eq!(names, ["b", "a"]);
            let e = call(ctx, Global::Namespace, &[], &[("_a", Value::Int(1))])
                .err()
                .expect("an error");
            assert_eq!(e.kind(), ErrorKind::Security);
            let v = call(
                ctx,
                Global::Dict,
                &[Value::Dict(d)],
                &[("a", Value::Int(5))],
            )
            .unwrap();
            let Value::Dict(items) = v else {
                panic!("not a dict")
            };
            assert_eq!(items.len(), 1);
            assert_eq!(s(&items[0].1), "5");
            let e = call(ctx, Global::RaiseException, &[Value::Str("boom")], &[])
                .err()
                .expect("an error");
            assert_eq!((e.kind(), e.message()), (ErrorKind::Raised, "boom"));
            let e = call(ctx, Global::RaiseException, &[], &[])
                .err()
                .expect("an error");
            assert_eq!(e.kind(), ErrorKind::Type);
            let e = call(ctx, Global::Lipsum, &[], &[]).err().expect("an error");
            assert_eq!(e.kind(), ErrorKind::Unknown);
            let v = call(ctx, Global::StrftimeNow, &[Value::Str("%Y-%m-%d")], &[]).unwrap();
            assert_eq!(s(&v), "1970-01-01");
        });
    }
}
