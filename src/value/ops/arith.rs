//! The arithmetic operators on values (`+ - * / // % **`, `~`, unary `-` and `+`): numbers
//! go to [`super::num`], strings and sequences concatenate and repeat, `%` of a string
//! formats, and anything else is Python's `TypeError`.

use crate::error::{err, Error};
use crate::value::{Ctx, VResult, Value};

use super::num::{num, num_binop, Num};
use super::op::BinOp;
use super::seq::SeqRef;
use super::undefined::undefined_error;

/// The most bytes (for strings) or items (for lists) that `*` may build.
pub(super) const MAX_REPEAT: usize = 1 << 26;

/// `a <op> b` with Python semantics.
pub(crate) fn binop<'a>(ctx: &Ctx<'a>, op: BinOp, a: Value<'a>, b: Value<'a>) -> VResult<'a> {
    if op == BinOp::Concat {
        return concat(ctx, a, b);
    }
    if matches!(a, Value::Markup(_)) || matches!(b, Value::Markup(_)) {
        return crate::value::markup::binop(ctx, op, a, b);
    }
    if let (BinOp::Mod, Value::Str(fmt)) = (op, a) {
        return crate::value::format::percent_format(ctx, fmt, b);
    }
    if a.is_undefined() {
        return Err(undefined_error(&a));
    }
    if b.is_undefined() {
        return Err(undefined_error(&b));
    }
    if let (Some(x), Some(y)) = (num(&a), num(&b)) {
        return num_binop(ctx, op, x, y);
    }
    match op {
        BinOp::Add => add_seqs(ctx, a, b),
        BinOp::Mul => match (repeat_count(&a), repeat_count(&b)) {
            (_, Some(n)) if is_sequence(&a) => repeat(ctx, a, n?),
            (Some(n), _) if is_sequence(&b) => repeat(ctx, b, n?),
            _ if is_sequence(&a) => Err(non_int_multiplier(&b)),
            _ if is_sequence(&b) => Err(non_int_multiplier(&a)),
            _ => Err(unsupported(op, &a, &b)),
        },
        _ => Err(unsupported(op, &a, &b)),
    }
}

/// `TypeError: unsupported operand type(s) for +: 'int' and 'str'`.
pub(crate) fn unsupported(op: BinOp, a: &Value<'_>, b: &Value<'_>) -> Error {
    err!(
        Type,
        "unsupported operand type(s) for {}: '{}' and '{}'",
        op.symbol(),
        a.type_name(),
        b.type_name()
    )
}

/// `TypeError: can't multiply sequence by non-int of type 'float'`.
pub(super) fn non_int_multiplier(v: &Value<'_>) -> Error {
    err!(
        Type,
        "can't multiply sequence by non-int of type '{}'",
        v.type_name()
    )
}

/// Whether `v` is a str, list or tuple (what `*` repeats and `+` concatenates).
pub(super) fn is_sequence(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Json(serde_json::Value::Array(_))
    )
}

/// The repeat count an int operand of `*` gives (negative counts as 0).
pub(super) fn repeat_count(v: &Value<'_>) -> Option<Result<usize, Error>> {
    match *v {
        Value::Bool(b) => Some(Ok(usize::from(b))),
        Value::Int(i) => Some(Ok(usize::try_from(i).unwrap_or(0))),
        Value::Big(_) => Some(Err(err!(
            Overflow,
            "cannot fit 'int' into an index-sized integer"
        ))),
        _ => None,
    }
}

/// `seq * n`.
pub(super) fn repeat<'a>(ctx: &Ctx<'a>, seq: Value<'a>, n: usize) -> VResult<'a> {
    let too_long = || {
        Error::new(
            crate::error::ErrorKind::Limit(crate::error::Limit::Output),
            format!("repeating a sequence {n} times makes it too long"),
        )
    };
    match seq {
        Value::Str(s) => {
            let total = s.len().checked_mul(n);
            let total = total.filter(|t| *t <= MAX_REPEAT && *t <= ctx.max_value);
            let total = total.ok_or_else(too_long)?;
            if n == 1 {
                return Ok(seq);
            }
            let mut out = bumpalo::collections::String::with_capacity_in(total, ctx.arena);
            for _ in 0..n {
                out.push_str(s);
            }
            Ok(Value::Str(out.into_bump_str()))
        }
        _ => {
            let Some(items) = SeqRef::of(&seq, true) else {
                return Err(non_int_multiplier(&seq));
            };
            let len = items.len();
            len.checked_mul(n)
                .filter(|t| *t <= MAX_REPEAT && *t <= ctx.max_value / 8)
                .ok_or_else(too_long)?;
            let out = ctx.slice((0..n).flat_map(|_| (0..len).filter_map(|i| items.get_in(i, ctx))));
            Ok(match seq {
                Value::Tuple(_) => Value::Tuple(out),
                _ => Value::List(out),
            })
        }
    }
}

/// `a + b` for strings, lists and tuples.
pub(super) fn add_seqs<'a>(ctx: &Ctx<'a>, a: Value<'a>, b: Value<'a>) -> VResult<'a> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Ok(concat_strs(ctx, x, y)),
        (Value::Str(_), other) => Err(err!(
            Type,
            "can only concatenate str (not \"{}\") to str",
            other.type_name()
        )),
        (Value::Tuple(x), Value::Tuple(y)) => {
            Ok(Value::Tuple(ctx.slice(x.iter().chain(y.iter()).copied())))
        }
        (Value::Tuple(_), other) => Err(err!(
            Type,
            "can only concatenate tuple (not \"{}\") to tuple",
            other.type_name()
        )),
        _ => match (SeqRef::of(&a, false), SeqRef::of(&b, false)) {
            (Some(x), Some(y)) => {
                let left = (0..x.len()).filter_map(|i| x.get_in(i, ctx));
                let right = (0..y.len()).filter_map(|i| y.get_in(i, ctx));
                Ok(Value::List(ctx.slice(left.chain(right))))
            }
            (Some(_), None) => Err(err!(
                Type,
                "can only concatenate list (not \"{}\") to list",
                b.type_name()
            )),
            _ => Err(unsupported(BinOp::Add, &a, &b)),
        },
    }
}

/// Two strings joined, in the arena (or one of them when the other is empty).
pub(super) fn concat_strs<'a>(ctx: &Ctx<'a>, x: &'a str, y: &'a str) -> Value<'a> {
    if x.is_empty() {
        return Value::Str(y);
    }
    if y.is_empty() {
        return Value::Str(x);
    }
    let mut s = bumpalo::collections::String::with_capacity_in(x.len() + y.len(), ctx.arena);
    s.push_str(x);
    s.push_str(y);
    Value::Str(s.into_bump_str())
}

/// `a ~ b`: `str(a) + str(b)`, Undefined as empty.
pub(super) fn concat<'a>(ctx: &Ctx<'a>, a: Value<'a>, b: Value<'a>) -> VResult<'a> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Ok(concat_strs(ctx, x, y)),
        (Value::Str(_), Value::Undefined(_)) => Ok(a),
        (Value::Undefined(_), Value::Str(_)) => Ok(b),
        _ => {
            let mut s = String::new();
            crate::value::fmt::write_str(&mut s, &a);
            crate::value::fmt::write_str(&mut s, &b);
            Ok(ctx.str(&s))
        }
    }
}

/// `-v`.
pub(crate) fn neg<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> VResult<'a> {
    match num(&v) {
        Some(Num::Int(i)) => Ok(ctx.int(-i)),
        Some(Num::Big(b)) => ctx.big(-b.to_bigint()),
        Some(Num::Float(f)) => Ok(Value::Float(-f)),
        None if v.is_undefined() => Err(undefined_error(&v)),
        None => Err(err!(
            Type,
            "bad operand type for unary -: '{}'",
            v.type_name()
        )),
    }
}

/// `+v` (`+True` is the int 1).
pub(crate) fn pos<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> VResult<'a> {
    match num(&v) {
        Some(Num::Int(i)) => Ok(ctx.int(i)),
        Some(Num::Big(_)) => Ok(v),
        Some(Num::Float(f)) => Ok(Value::Float(f)),
        None if v.is_undefined() => Err(undefined_error(&v)),
        None => Err(err!(
            Type,
            "bad operand type for unary +: '{}'",
            v.type_name()
        )),
    }
}

#[cfg(test)]
mod tests {
    //! Expected results come from probing transformers' environment (jinja2 3.1.6, Python
    //! 3.11): `{{ expr }}` renders `str()` of the result; errors are shown as
    //! `Kind: message`.

    use super::*;
    use crate::value::ops::*;
    use crate::value::testutil::ops::*;

    #[test]
    fn arithmetic() {
        let bump = Bump::new();
        let c = ctx(&bump);
        use BinOp::*;
        let (i, f, t) = (Value::Int, Value::Float, Value::Bool(true));
        let cases: &[(BinOp, Value<'_>, Value<'_>, &str)] = &[
            (Add, t, i(1), "2"),
            (Add, t, t, "2"),
            (FloorDiv, i(7), i(-2), "-4"),
            (Mod, i(-7), i(3), "2"),
            (Mod, i(7), i(-3), "-2"),
            (Pow, i(2), i(-1), "0.5"),
            (Div, i(7), i(2), "3.5"),
            (Div, i(4), i(2), "2.0"),
            (FloorDiv, f(7.5), i(2), "3.0"),
            (Mod, f(-7.5), i(2), "0.5"),
            (FloorDiv, f(-7.0), i(2), "-4.0"),
            (Mod, i(7), f(-3.0), "-2.0"),
            (Mod, f(-0.0), i(5), "0.0"),
            (Mod, f(0.0), i(-5), "-0.0"),
            (FloorDiv, i(5), f(0.3), "16.0"),
            (FloorDiv, f(1e308), f(1e-308), "inf"),
            (Pow, i(2), i(3), "8"),
            (Pow, f(2.0), i(3), "8.0"),
            (Pow, i(2), f(3.0), "8.0"),
            (Pow, i(-2), i(3), "-8"),
            (Pow, i(-2), i(-3), "-0.125"),
            (Pow, i(0), i(0), "1"),
            (Pow, f(0.0), i(0), "1.0"),
            (Pow, f(-8.0), i(2), "64.0"),
            (Pow, i(2), f(0.5), "1.4142135623730951"),
            (Pow, i(10), i(-400), "0.0"),
            (Pow, i(2), i(100), "1267650600228229401496703205376"),
            (Add, i(i64::MAX), i(1), "9223372036854775808"),
            (Add, f(0.1), f(0.2), "0.30000000000000004"),
            (Div, i(1), i(3), "0.3333333333333333"),
            (Div, i(10i64.pow(18)), i(3), "3.333333333333333e+17"),
            (Div, i(9007199254740993), i(1), "9007199254740992.0"),
            (Mul, Value::Str("ab"), i(3), "ababab"),
            (Mul, i(3), Value::Str("ab"), "ababab"),
            (Mul, Value::Str("ab"), i(-1), ""),
            (Mul, Value::Str("ab"), t, "ab"),
            (Sub, i(1), f(0.5), "0.5"),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(show(binop(&c, *op, *a, *b)), *want, "{op:?}");
        }
        let two64 = c.int(1i128 << 64);
        let big_cases: &[(BinOp, Value<'_>, Value<'_>, &str)] = &[
            (Div, c.int((1i128 << 64) + 1), i(3), "6.148914691236517e+18"),
            (
                Div,
                c.int(1i128 << 100),
                c.int((1i128 << 50) + 1),
                "1125899906842623.0",
            ),
            (FloorDiv, two64, i(7), "2635249153387078802"),
            (Mod, c.int(-(1i128 << 64)), i(7), "5"),
            (Mul, two64, f(1.5), "2.7670116110564327e+19"),
        ];
        for (op, a, b, want) in big_cases {
            assert_eq!(show(binop(&c, *op, *a, *b)), *want, "{op:?}");
        }
    }

    #[test]
    fn arithmetic_errors() {
        let bump = Bump::new();
        let c = ctx(&bump);
        use BinOp::*;
        let (i, f, s) = (Value::Int, Value::Float, Value::Str);
        let cases: &[(BinOp, Value<'_>, Value<'_>, &str)] = &[
            (Div, i(1), i(0), "ZeroDivision: division by zero"),
            (
                FloorDiv,
                i(1),
                i(0),
                "ZeroDivision: integer division or modulo by zero",
            ),
            (Mod, i(1), i(0), "ZeroDivision: integer modulo by zero"),
            (Div, f(1.0), i(0), "ZeroDivision: float division by zero"),
            (Mod, f(1.5), i(0), "ZeroDivision: float modulo"),
            (
                FloorDiv,
                f(1.5),
                i(0),
                "ZeroDivision: float floor division by zero",
            ),
            (
                FloorDiv,
                i(1),
                f(0.0),
                "ZeroDivision: float floor division by zero",
            ),
            (
                Pow,
                i(0),
                i(-1),
                "ZeroDivision: 0.0 cannot be raised to a negative power",
            ),
            (
                Pow,
                f(10.0),
                i(400),
                "Overflow: (34, 'Numerical result out of range')",
            ),
            (
                Add,
                s("a"),
                i(1),
                "Type: can only concatenate str (not \"int\") to str",
            ),
            (
                Add,
                i(1),
                s("a"),
                "Type: unsupported operand type(s) for +: 'int' and 'str'",
            ),
            (
                Mul,
                s("a"),
                f(1.5),
                "Type: can't multiply sequence by non-int of type 'float'",
            ),
            (
                Mul,
                s("a"),
                s("b"),
                "Type: can't multiply sequence by non-int of type 'str'",
            ),
            (
                Mul,
                Value::Dict(&[]),
                i(2),
                "Type: unsupported operand type(s) for *: 'dict' and 'int'",
            ),
            (
                Sub,
                s("a"),
                i(1),
                "Type: unsupported operand type(s) for -: 'str' and 'int'",
            ),
            (
                Add,
                Value::None,
                i(1),
                "Type: unsupported operand type(s) for +: 'NoneType' and 'int'",
            ),
            (
                Div,
                s("a"),
                i(1),
                "Type: unsupported operand type(s) for /: 'str' and 'int'",
            ),
            (
                Mod,
                i(1),
                s("a"),
                "Type: unsupported operand type(s) for %: 'int' and 'str'",
            ),
            (
                Pow,
                i(1),
                s("a"),
                "Type: unsupported operand type(s) for ** or pow(): 'int' and 'str'",
            ),
            (
                Mul,
                s("a"),
                c.int(1 << 70),
                "Overflow: cannot fit 'int' into an index-sized integer",
            ),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(show(binop(&c, *op, *a, *b)), *want, "{op:?}");
        }
        // Ints of any size, as Python computes them (reference values).
        let pow = |a: i64, b: i64| binop(&c, Pow, i(a), i(b)).unwrap();
        let p200 = pow(2, 200);
        let p50 = pow(3, 50);
        let neg50 = neg(&c, p50).unwrap();
        let cases = [
            (Pow, i(2), i(127), "170141183460469231731687303715884105728"),
            (
                Add,
                c.int(i128::MAX),
                i(1),
                "170141183460469231731687303715884105728",
            ),
            (
                Mul,
                binop(&c, Mul, pow(2, 64), pow(2, 64)).unwrap(),
                pow(2, 64),
                "6277101735386680763835789423207666416102355444464034512896",
            ),
            (
                FloorDiv,
                p200,
                neg50,
                "-2238393297946874000179418290327143434",
            ),
            (Mod, p200, neg50, "-468230674383506259593690"),
            (Sub, p200, p200, "0"),
            (Div, p200, pow(2, 100), "1.2676506002282294e+30"),
            (Pow, i(-1), pow(2, 70), "1"),
            (Pow, i(2), neg(&c, pow(10, 30)).unwrap(), "0.0"),
            (
                Add,
                pow(10, 400),
                Value::Float(1.0),
                "Overflow: int too large to convert to float",
            ),
            (
                Div,
                pow(10, 400),
                i(3),
                "Overflow: integer division result too large for a float",
            ),
            (Mod, p200, i(0), "ZeroDivision: integer modulo by zero"),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(show(binop(&c, op, a, b)), want, "{op:?}");
        }
        let cmp = |op: CmpOp, a: Value<'_>, b: Value<'_>| compare(op, &a, &b).unwrap();
        assert!(cmp(CmpOp::Gt, p200, pow(2, 199)));
        assert!(cmp(
            CmpOp::Lt,
            neg(&c, p200).unwrap(),
            neg(&c, pow(2, 199)).unwrap()
        ));
        assert!(cmp(CmpOp::Lt, i(-5), p200));
        assert!(cmp(CmpOp::Lt, neg(&c, p200).unwrap(), Value::Float(1e300)));
        assert!(!cmp(CmpOp::Gt, pow(10, 400), Value::Float(f64::INFINITY)));
        assert!(eq(&p200, &Value::Float(2f64.powi(200))));
        assert!(!eq(&pow(10, 400), &Value::Float(1e300)));
        // Beyond 100k decimal digits is an overflow error (Python would go on).
        for (a, b) in [
            (i(10), i(100_001)),
            (pow(10, 50_000), i(3)),
            (i(2), pow(10, 40)),
        ] {
            let e = binop(&c, Pow, a, b);
            assert_eq!(
                e.err().map(|e| e.kind()),
                Some(crate::error::ErrorKind::Overflow)
            );
        }
        // Undefined operands raise, on either side; `~` prints them as empty.
        let x = Value::Undefined(Some(c.arena.alloc(UndefInfo::Name("x"))));
        assert_eq!(show(binop(&c, Add, x, i(1))), "Undefined: 'x' is undefined");
        assert_eq!(show(binop(&c, Add, i(1), x)), "Undefined: 'x' is undefined");
        assert_eq!(
            show(binop(&c, Add, s("a"), x)),
            "Undefined: 'x' is undefined"
        );
        assert_eq!(show(neg(&c, x)), "Undefined: 'x' is undefined");
        assert_eq!(show(binop(&c, Concat, x, s("a"))), "a");
    }

    #[test]
    fn sequences_concat_and_repeat() {
        let bump = Bump::new();
        let c = ctx(&bump);
        use BinOp::*;
        let one = c.list([Value::Int(1)]);
        let tup = Value::Tuple(c.slice([Value::Int(2)]));
        let j = json("[3, \"x\"]");
        assert_eq!(show(binop(&c, Mul, one, Value::Int(2))), "[1, 1]");
        assert_eq!(show(binop(&c, Add, one, Value::Json(&j))), "[1, 3, 'x']");
        assert_eq!(show(binop(&c, Add, Value::Json(&j), one)), "[3, 'x', 1]");
        assert_eq!(
            show(binop(&c, Mul, Value::Json(&j), Value::Int(2))),
            "[3, 'x', 3, 'x']"
        );
        assert_eq!(show(binop(&c, Add, tup, tup)), "(2, 2)");
        assert_eq!(show(binop(&c, Mul, tup, Value::Int(2))), "(2, 2)");
        assert_eq!(
            show(binop(&c, Add, one, tup)),
            "Type: can only concatenate list (not \"tuple\") to list"
        );
        assert_eq!(
            show(binop(&c, Add, tup, one)),
            "Type: can only concatenate tuple (not \"list\") to tuple"
        );
        let d = json(r#"{"items": 1, "a": 2}"#);
        let concat = binop(
            &c,
            Concat,
            c.list([Value::Int(1), Value::Int(2), Value::Int(3)]),
            Value::Json(&d),
        );
        let concat = concat.and_then(|v| binop(&c, Concat, v, Value::None));
        let concat = concat.and_then(|v| binop(&c, Concat, v, Value::Float(1.0)));
        assert_eq!(show(concat), "[1, 2, 3]{'items': 1, 'a': 2}None1.0");
        assert!(binop(&c, Mul, Value::Str("ab"), Value::Int(1 << 40)).is_err());
    }

    #[test]
    fn unary() {
        let bump = Bump::new();
        let c = ctx(&bump);
        assert_eq!(show(neg(&c, Value::Bool(true))), "-1");
        assert_eq!(show(pos(&c, Value::Bool(true))), "1");
        assert_eq!(show(neg(&c, Value::Int(i64::MIN))), "9223372036854775808");
        assert_eq!(show(neg(&c, Value::Float(0.0))), "-0.0");
        assert_eq!(
            show(neg(&c, Value::Str("a"))),
            "Type: bad operand type for unary -: 'str'"
        );
    }
}
