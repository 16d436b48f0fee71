//! Python `==` (which never raises) and the ordering comparisons (`<` and friends, which
//! raise `TypeError` across types), recursing into containers to a bounded depth.

use std::cmp::Ordering;

use crate::error::{err, Error};
use crate::value::budget;
use crate::value::{Callable, IterKind, Value};

use super::num::{num, num_cmp};
use super::op::CmpOp;
use super::seq::{json_get, MapRef, SeqRef, SMALL_ITEMS};
use super::undefined::undefined_error;

/// How deep `==` and `<` recurse into nested containers before giving up (Python raises
/// `RecursionError` near 1000 frames).
pub(super) const MAX_DEPTH: usize = 500;

/// Strings up to this many bytes and containers up to this many items are compared and
/// searched within the instruction's own unit of fuel; larger ones charge their size.
pub(super) const SMALL_BYTES: usize = 256;

/// Python `a == b`; never raises. Numbers compare by value across int, float and bool;
/// lists (template or JSON) and dicts (template or JSON) compare deeply, dicts regardless of
/// order; a list never equals a tuple; `Undefined == Undefined`.
pub(crate) fn eq(a: &Value<'_>, b: &Value<'_>) -> bool {
    eq_at(a, b, 0)
}

/// [`eq`] at nesting `depth`.
pub(super) fn eq_at(a: &Value<'_>, b: &Value<'_>, depth: usize) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => {
            if x.len() == y.len() && x.len() > SMALL_BYTES && !budget::spend_bytes(x.len()) {
                return false;
            }
            return x == y;
        }
        (Value::Markup(_), _) | (_, Value::Markup(_)) => {
            return eq_at(&a.demark(), &b.demark(), depth);
        }
        (Value::Int(x), Value::Int(y)) => return x == y,
        (Value::None, Value::None) | (Value::Undefined(_), Value::Undefined(_)) => return true,
        _ => {}
    }
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return num_cmp(x, y) == Some(Ordering::Equal);
    }
    if depth >= MAX_DEPTH {
        return false;
    }
    if let (Some(x), Some(y)) = (SeqRef::of(a, false), SeqRef::of(b, false)) {
        return seq_eq(x, y, depth);
    }
    if let (Value::Tuple(x), Value::Tuple(y)) = (a, b) {
        return seq_eq(SeqRef::Values(x), SeqRef::Values(y), depth);
    }
    if let (Some(x), Some(y)) = (MapRef::of(a), MapRef::of(b)) {
        // The same dict equals itself at once, as in Python (see `seq_eq`).
        match (&x, &y) {
            (MapRef::Dict(p), MapRef::Dict(q)) if same_slice(p, q) => return true,
            (MapRef::Json(p), MapRef::Json(q)) if same(*p, *q) => return true,
            _ => {}
        }
        // Each key is looked up in the other dict: linear for a template dict.
        let work = match &y {
            MapRef::Dict(d) => x.len().saturating_mul(d.len()),
            MapRef::Json(_) => x.len(),
        };
        return x.len() == y.len()
            && budget::spend_items(work)
            && x.all(|k, v| find_key(&y, &k).is_some_and(|w| eq_at(&v, &w, depth + 1)));
    }
    match (a, b) {
        (Value::Iter(x), Value::Iter(y)) => {
            if same(*x, *y) {
                return true;
            }
            match (x.kind, y.kind) {
                // Key and item views compare as sets.
                (IterKind::DictKeys, IterKind::DictKeys)
                | (IterKind::DictItems, IterKind::DictItems) => {
                    x.items.len() == y.items.len()
                        && budget::spend_items(x.items.len().saturating_mul(y.items.len()))
                        && x.items
                            .iter()
                            .all(|i| y.items.iter().any(|j| eq_at(i, j, depth + 1)))
                }
                // Ranges are equal when they hold the same numbers.
                (IterKind::Range { .. }, IterKind::Range { .. })
                | (IterKind::Bytes, IterKind::Bytes) => {
                    x.items.len() == y.items.len()
                        && x.items
                            .iter()
                            .zip(y.items)
                            .all(|(i, j)| eq_at(i, j, depth + 1))
                }
                _ => false,
            }
        }
        (Value::Ns(x), Value::Ns(y)) => same(*x, *y),
        (Value::Loop(x), Value::Loop(y)) => same(*x, *y),
        (Value::Callable(x), Value::Callable(y)) => match (x, y) {
            (Callable::Method { recv: r1, name: n1 }, Callable::Method { recv: r2, name: n2 }) => {
                n1 == n2 && eq_at(r1, r2, depth + 1)
            }
            (Callable::Global(g1), Callable::Global(g2)) => g1 == g2,
            (Callable::Macro { id: i1, .. }, Callable::Macro { id: i2, .. }) => i1 == i2,
            (Callable::Cycle(l1), Callable::Cycle(l2)) => same(*l1, *l2),
            _ => false,
        },
        _ => false,
    }
}

/// Whether two references point at the same object (Python's `is`), whatever their
/// lifetimes.
pub(super) fn same<T, U>(a: &T, b: &U) -> bool {
    std::ptr::eq(a as *const T as *const (), b as *const U as *const ())
}

/// Whether two slices are the same memory (address and length), whatever their lifetimes.
pub(super) fn same_slice<T, U>(a: &[T], b: &[U]) -> bool {
    a.len() == b.len() && std::ptr::eq(a.as_ptr() as *const (), b.as_ptr() as *const ())
}

/// Item-wise equality of two sequences. The same sequence equals itself at once: Python
/// compares items with `x is y or x == y`, so a list built of shared lists compares in time
/// linear in what was built, not in its unfolded size.
pub(super) fn seq_eq(x: SeqRef<'_>, y: SeqRef<'_>, depth: usize) -> bool {
    match (x, y) {
        (SeqRef::Json(p), SeqRef::Json(q)) if same_slice(p, q) => return true,
        (SeqRef::Values(p), SeqRef::Values(q)) if same_slice(p, q) => return true,
        _ => {}
    }
    x.len() == y.len()
        && budget::spend_items(x.len().max(1))
        && (0..x.len()).all(|i| match (x.get(i), y.get(i)) {
            (Some(p), Some(q)) => eq_at(&p, &q, depth + 1),
            _ => false,
        })
}

/// Python `a < b` and friends. Numbers compare by value, strings by code point, lists (with
/// lists) and tuples (with tuples) lexicographically; an undefined operand raises
/// `UndefinedError`, any other mix `TypeError`.
pub(crate) fn compare(op: CmpOp, a: &Value<'_>, b: &Value<'_>) -> Result<bool, Error> {
    compare_at(op, a, b, 0)
}

/// [`compare`] at nesting `depth`.
pub(super) fn compare_at(
    op: CmpOp,
    a: &Value<'_>,
    b: &Value<'_>,
    depth: usize,
) -> Result<bool, Error> {
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return Ok(num_cmp(x, y).is_some_and(|o| op.holds(o)));
    }
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        // UTF-8 byte order is code point order; a Markup compares as its text.
        let n = x.len().min(y.len());
        if n > SMALL_BYTES {
            budget::charge_bytes(n)?;
        }
        return Ok(op.holds(x.cmp(y)));
    }
    if a.is_undefined() {
        return Err(undefined_error(a));
    }
    if b.is_undefined() {
        return Err(undefined_error(b));
    }
    let seqs = match (SeqRef::of(a, false), SeqRef::of(b, false), a, b) {
        (Some(x), Some(y), _, _) => Some((x, y)),
        (_, _, Value::Tuple(x), Value::Tuple(y)) => Some((SeqRef::Values(x), SeqRef::Values(y))),
        _ => None,
    };
    let Some((x, y)) = seqs else {
        return Err(err!(
            Type,
            "'{}' not supported between instances of '{}' and '{}'",
            op.symbol(),
            a.type_name(),
            b.type_name()
        ));
    };
    if depth >= MAX_DEPTH {
        return Err(err!(
            Runtime,
            "maximum recursion depth exceeded in comparison"
        ));
    }
    // The first items that differ decide; if none do, the shorter sequence is smaller.
    budget::charge_items(x.len().min(y.len()))?;
    for i in 0..x.len().min(y.len()) {
        if let (Some(p), Some(q)) = (x.get(i), y.get(i)) {
            if !eq_at(&p, &q, depth + 1) {
                return compare_at(op, &p, &q, depth + 1);
            }
        }
    }
    Ok(op.holds(x.len().cmp(&y.len())))
}

/// The value of `key` in `map`: Python's dict lookup, a search by `==` (equal numbers
/// match), so it lives with equality.
#[inline]
pub(super) fn find_key<'a>(map: &MapRef<'a>, key: &Value<'_>) -> Option<Value<'a>> {
    match map {
        MapRef::Dict(d) => {
            // A template dict is searched: linear in its size.
            if d.len() > SMALL_ITEMS && !budget::spend_items(d.len()) {
                return None;
            }
            match key {
                // A short string key (the usual `'x' in message`): compared in registers;
                // only a string key can equal it.
                Value::Str(s) | Value::Markup(s) if s.len() <= SMALL_BYTES => {
                    super::seq::dict_str_get(d, s)
                }
                _ => d.iter().find(|(k, _)| eq(k, key)).map(|(_, v)| *v),
            }
        }
        MapRef::Json(o) => match key {
            Value::Str(s) | Value::Markup(s) => json_get(o, s).map(Value::from_json),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    //! Expected results come from probing transformers' environment (jinja2 3.1.6, Python
    //! 3.11): `{{ expr }}` renders `str()` of the result; errors are shown as
    //! `Kind: message`.

    use super::*;

    use crate::value::testutil::ops::*;

    #[test]
    fn equality() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let (i, f) = (Value::Int, Value::Float);
        assert!(eq(&i(1), &f(1.0)));
        assert!(eq(&Value::Bool(true), &i(1)));
        assert!(!eq(&Value::Str("a"), &i(1)));
        assert!(eq(&Value::UNDEFINED, &Value::UNDEFINED));
        assert!(!eq(&Value::UNDEFINED, &Value::None));
        assert!(!eq(&c.int(9007199254740993), &f(9007199254740992.0)));
        assert!(eq(&c.int(1 << 64), &f(18446744073709551616.0)));
        assert!(!eq(&f(f64::NAN), &f(f64::NAN)));
        let t1 = Value::Tuple(c.slice([i(1)]));
        assert!(!eq(&t1, &c.list([i(1)])));
        let l = json("[1, 2, 3]");
        assert!(eq(&Value::Json(&l), &c.list([i(1), i(2), f(3.0)])));
        assert!(!eq(
            &Value::Json(&l),
            &Value::Tuple(c.slice([i(1), i(2), i(3)]))
        ));
        let d = json(r#"{"items": 1, "a": 2}"#);
        let dict = Value::Dict(
            c.arena
                .alloc([(Value::Str("a"), i(2)), (Value::Str("items"), i(1))]),
        );
        assert!(
            eq(&Value::Json(&d), &dict),
            "dicts compare regardless of order"
        );
        let other = Value::Dict(
            c.arena
                .alloc([(Value::Str("a"), i(2)), (Value::Str("items"), i(2))]),
        );
        assert!(!eq(&Value::Json(&d), &other));
        assert!(!eq(&c.list([i(1), Value::Str("a")]), &c.list([i(1), i(2)])));
        let keys1 = c.iter(
            IterKind::DictKeys,
            c.slice([Value::Str("a"), Value::Str("b")]),
        );
        let keys2 = c.iter(
            IterKind::DictKeys,
            c.slice([Value::Str("b"), Value::Str("a")]),
        );
        assert!(eq(&keys1, &keys2));
        let vals = c.iter(IterKind::DictValues, c.slice([i(1)]));
        let vals2 = c.iter(IterKind::DictValues, c.slice([i(1)]));
        assert!(eq(&vals, &vals) && !eq(&vals, &vals2));
        let ns = Value::Ns(c.namespace());
        assert!(eq(&ns, &ns) && !eq(&ns, &Value::Ns(c.namespace())));
    }

    #[test]
    fn ordering() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let (i, f) = (Value::Int, Value::Float);
        let lt =
            |a: Value<'_>, b: Value<'_>| show_err(compare(CmpOp::Lt, &a, &b).map(|r| assert!(r)));
        assert_eq!(lt(c.list([i(1), i(2)]), c.list([i(1), i(3)])), "ok");
        let t12 = Value::Tuple(c.slice([i(1), i(2)]));
        assert_eq!(lt(t12, Value::Tuple(c.slice([i(1), i(2), i(0)]))), "ok");
        assert_eq!(lt(Value::Str("a"), Value::Str("b")), "ok");
        assert_eq!(lt(Value::Str("z"), Value::Str("é")), "ok");
        assert_eq!(lt(Value::Bool(true), i(2)), "ok");
        assert_eq!(lt(f(1.5), i(2)), "ok");
        let two64 = c.int(1 << 64);
        assert_eq!(
            compare(CmpOp::Lt, &two64, &f(1.8446744073709552e19)).ok(),
            Some(false)
        );
        assert_eq!(
            compare(CmpOp::Ge, &two64, &f(1.8446744073709552e19)).ok(),
            Some(true)
        );
        let two53p1 = c.int(9007199254740993);
        assert_eq!(
            compare(CmpOp::Gt, &two53p1, &f(9007199254740992.0)).ok(),
            Some(true)
        );
        assert_eq!(compare(CmpOp::Lt, &t12, &t12).ok(), Some(false));
        assert_eq!(compare(CmpOp::Le, &t12, &t12).ok(), Some(true));
        assert_eq!(compare(CmpOp::Ge, &f(f64::NAN), &f(1.0)).ok(), Some(false));
        let j = json("[1, 2]");
        assert_eq!(
            compare(CmpOp::Gt, &Value::Json(&j), &c.list([i(1)])).ok(),
            Some(true)
        );
        let errs: &[(Value<'_>, Value<'_>, &str)] = &[
            (
                i(1),
                Value::Str("a"),
                "Type: '<' not supported between instances of 'int' and 'str'",
            ),
            (
                c.list([i(1)]),
                Value::Tuple(c.slice([i(1)])),
                "Type: '<' not supported between instances of 'list' and 'tuple'",
            ),
            (
                Value::None,
                Value::None,
                "Type: '<' not supported between instances of 'NoneType' and 'NoneType'",
            ),
            (
                Value::Dict(&[]),
                Value::Dict(&[]),
                "Type: '<' not supported between instances of 'dict' and 'dict'",
            ),
            (
                c.list([i(1), Value::Str("a")]),
                c.list([i(1), i(2)]),
                "Type: '<' not supported between instances of 'str' and 'int'",
            ),
        ];
        for (a, b, want) in errs {
            assert_eq!(show_err(compare(CmpOp::Lt, a, b)), *want);
        }
        let x = Value::Undefined(Some(c.arena.alloc(UndefInfo::Name("x"))));
        assert_eq!(
            show_err(compare(CmpOp::Lt, &x, &i(1))),
            "Undefined: 'x' is undefined"
        );
        assert_eq!(
            show_err(compare(CmpOp::Lt, &i(1), &x)),
            "Undefined: 'x' is undefined"
        );
    }
}
