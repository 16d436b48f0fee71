//! Python numbers: int (of any size), float and bool as one [`Num`], compared exactly across
//! int and float, and the arithmetic of two numbers with Python's semantics (floored `//`
//! and `%`, correctly rounded `/`, `**` with its errors).

use std::cmp::Ordering;

use num_bigint::{BigInt, Sign};

use crate::error::{err, Error};
use crate::value::bigint::{self, Big};
use crate::value::{Ctx, VResult, Value};

use super::op::BinOp;
use super::undefined::undefined_error;

/// An integer argument (`__index__`): ints and bools; floats and others are a TypeError.
pub(crate) fn int_arg(v: &Value<'_>) -> Result<i64, Error> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Big(_) => Err(err!(
            Overflow,
            "Python int too large to convert to C ssize_t"
        )),
        Value::Undefined(_) => Err(undefined_error(v)),
        other => Err(err!(
            Type,
            "'{}' object cannot be interpreted as an integer",
            other.type_name()
        )),
    }
}

/// A Python number: `bool` and `int` as an integer, or a `float`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Num<'a> {
    /// `bool`, `int` of 64 bits (widened, so `+ - *` of two cannot overflow).
    Int(i128),
    /// `int` outside the 64-bit range.
    Big(&'a Big<'a>),
    /// `float`.
    Float(f64),
}

/// The number `v` stands for, if it is one (`True` is 1).
#[inline]
pub(super) fn num<'a>(v: &Value<'a>) -> Option<Num<'a>> {
    match *v {
        Value::Bool(b) => Some(Num::Int(i128::from(b))),
        Value::Int(i) => Some(Num::Int(i128::from(i))),
        Value::Big(b) => Some(Num::Big(b)),
        Value::Float(f) => Some(Num::Float(f)),
        _ => None,
    }
}

impl Num<'_> {
    /// As a float, the way Python converts an int for mixed arithmetic (`OverflowError`
    /// for an int beyond the float range).
    pub(super) fn to_f64(self) -> Result<f64, Error> {
        match self {
            Num::Int(i) => Ok(i as f64),
            Num::Big(b) => b.to_f64(),
            Num::Float(f) => Ok(f),
        }
    }

    /// As a `BigInt`, if it is an int.
    pub(super) fn to_bigint(self) -> Option<BigInt> {
        match self {
            Num::Int(i) => Some(BigInt::from(i)),
            Num::Big(b) => Some(b.to_bigint()),
            Num::Float(_) => None,
        }
    }
}

/// Python's exact comparison of an int with a float (`None` when the float is NaN).
pub(super) fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // 2^127 as a float: every i128 is below it and at or above its negation.
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if f >= LIMIT {
        return Some(Ordering::Less);
    }
    if f < -LIMIT {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    // `t` is integral and within range, so the conversion is exact.
    let ti = t as i128;
    Some(i.cmp(&ti).then(if f > t {
        Ordering::Less
    } else if f < t {
        Ordering::Greater
    } else {
        Ordering::Equal
    }))
}

/// Compares two numbers as Python does (exactly across int and float).
pub(super) fn num_cmp(a: Num<'_>, b: Num<'_>) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
        (Num::Int(x), Num::Float(y)) => cmp_int_float(x, y),
        (Num::Float(x), Num::Int(y)) => cmp_int_float(y, x).map(Ordering::reverse),
        (Num::Big(x), Num::Big(y)) => Some(x.cmp_big(y)),
        (Num::Big(x), Num::Int(_)) => Some(x.cmp_small()),
        (Num::Int(_), Num::Big(y)) => Some(y.cmp_small().reverse()),
        (Num::Big(x), Num::Float(y)) => x.cmp_f64(y),
        (Num::Float(x), Num::Big(y)) => y.cmp_f64(x).map(Ordering::reverse),
    }
}

/// Python's `int / int`: the correctly rounded quotient (`b` is not zero).
pub(super) fn int_true_div(a: i128, b: i128) -> f64 {
    const EXACT: u128 = 1 << 53;
    let negative = (a < 0) != (b < 0);
    let (ua, ub) = (a.unsigned_abs(), b.unsigned_abs());
    let magnitude = if ua <= EXACT && ub <= EXACT {
        // Both convert exactly, so one IEEE division rounds once, correctly.
        ua as f64 / ub as f64
    } else {
        // Long division to at least 56 significant bits, the rest folded into a sticky bit,
        // so the one rounding of the conversion to f64 is the correct one.
        let mut m = ua / ub;
        let mut r = ua % ub;
        let mut exp: i32 = 0;
        while m < (1 << 55) {
            // r < ub <= 2^127, so doubling it cannot overflow.
            r <<= 1;
            m <<= 1;
            if r >= ub {
                r -= ub;
                m |= 1;
            }
            exp -= 1;
        }
        if r != 0 {
            m |= 1;
        }
        let scale = f64::from_bits(((exp + 1023) as u64) << 52);
        m as f64 * scale
    };
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// Python's float `divmod`: the floored quotient and the remainder with the divisor's sign
/// (`w` is not zero).
pub(super) fn float_divmod(v: f64, w: f64) -> (f64, f64) {
    let mut m = v % w;
    let mut div = (v - m) / w;
    if m != 0.0 {
        if (w < 0.0) != (m < 0.0) {
            m += w;
            div -= 1.0;
        }
    } else {
        m = 0.0_f64.copysign(w);
    }
    let floordiv = if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        0.0_f64.copysign(v / w)
    };
    (floordiv, m)
}

/// Whether `f` is an odd integer.
pub(super) fn is_odd_integer(f: f64) -> bool {
    f.is_finite() && f.trunc() == f && (f % 2.0).abs() == 1.0
}

/// Python's `float ** float`, with its errors.
pub(super) fn float_pow(v: f64, w: f64) -> Result<f64, Error> {
    if w == 0.0 {
        return Ok(1.0);
    }
    if v.is_nan() {
        return Ok(v);
    }
    if w.is_nan() {
        return Ok(if v == 1.0 { 1.0 } else { w });
    }
    if w.is_infinite() {
        let av = v.abs();
        return Ok(if av == 1.0 {
            1.0
        } else if (w > 0.0) == (av > 1.0) {
            w.abs()
        } else {
            0.0
        });
    }
    if v.is_infinite() {
        let odd = is_odd_integer(w);
        return Ok(if w > 0.0 {
            if odd {
                v
            } else {
                v.abs()
            }
        } else if odd {
            0.0_f64.copysign(v)
        } else {
            0.0
        });
    }
    if v == 0.0 {
        if w < 0.0 {
            return Err(err!(
                ZeroDivision,
                "0.0 cannot be raised to a negative power"
            ));
        }
        return Ok(if is_odd_integer(w) { v } else { 0.0 });
    }
    let mut base = v;
    let mut negate = false;
    if v < 0.0 {
        if w != w.floor() {
            return Err(err!(
                Value,
                "a negative number raised to a fractional power is complex, which templates \
                 cannot represent"
            ));
        }
        base = -v;
        negate = is_odd_integer(w);
    }
    if base == 1.0 {
        return Ok(if negate { -1.0 } else { 1.0 });
    }
    let r = base.powf(w);
    if r.is_infinite() {
        return Err(err!(Overflow, "(34, 'Numerical result out of range')"));
    }
    Ok(if negate { -r } else { r })
}

/// Arithmetic on two ints of 64 bits (widened); `None` when the result needs a big int.
pub(super) fn small_binop<'a>(ctx: &Ctx<'a>, op: BinOp, x: i128, y: i128) -> Option<VResult<'a>> {
    Some(match op {
        BinOp::Add => Ok(ctx.int(x.checked_add(y)?)),
        BinOp::Sub => Ok(ctx.int(x.checked_sub(y)?)),
        BinOp::Mul => Ok(ctx.int(x.checked_mul(y)?)),
        BinOp::Div => {
            if y == 0 {
                Err(err!(ZeroDivision, "division by zero"))
            } else {
                Ok(Value::Float(int_true_div(x, y)))
            }
        }
        BinOp::FloorDiv => {
            if y == 0 {
                return Some(Err(err!(
                    ZeroDivision,
                    "integer division or modulo by zero"
                )));
            }
            let q = x.checked_div(y)?;
            let floored = if (x % y != 0) && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            };
            Ok(ctx.int(floored))
        }
        BinOp::Mod => {
            if y == 0 {
                return Some(Err(err!(ZeroDivision, "integer modulo by zero")));
            }
            let r = x.checked_rem(y).unwrap_or(0);
            Ok(ctx.int(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            }))
        }
        BinOp::Pow => {
            if y < 0 {
                if x == 0 {
                    return Some(Err(err!(
                        ZeroDivision,
                        "0.0 cannot be raised to a negative power"
                    )));
                }
                return Some(float_pow(x as f64, y as f64).map(Value::Float));
            }
            match x {
                0 | 1 => Ok(ctx.int(if y == 0 { 1 } else { x })),
                -1 => Ok(ctx.int(if y % 2 == 0 { 1 } else { -1 })),
                _ => Ok(ctx.int(x.checked_pow(u32::try_from(y).ok()?)?)),
            }
        }
        BinOp::Concat => Err(err!(Type, "internal: concatenation is not arithmetic")),
    })
}

/// Arithmetic on two ints of any size, with Python's semantics (floored `//` and `%`,
/// a float for `/` and for negative powers); results beyond the size limit are errors.
pub(super) fn big_binop<'a>(ctx: &Ctx<'a>, op: BinOp, x: BigInt, y: BigInt) -> VResult<'a> {
    let zero = |y: &BigInt| y.sign() == Sign::NoSign;
    match op {
        BinOp::Add => ctx.big(x + y),
        BinOp::Sub => ctx.big(x - y),
        BinOp::Mul => {
            if bigint::product_too_big(x.bits(), y.bits()) {
                return Err(bigint::too_many_digits());
            }
            ctx.big(x * y)
        }
        BinOp::Div => {
            if zero(&y) {
                return Err(err!(ZeroDivision, "division by zero"));
            }
            Ok(Value::Float(bigint::true_div(&x, &y)?))
        }
        BinOp::FloorDiv => {
            if zero(&y) {
                return Err(err!(ZeroDivision, "integer division or modulo by zero"));
            }
            ctx.big(bigint::floor_divmod(&x, &y).0)
        }
        BinOp::Mod => {
            if zero(&y) {
                return Err(err!(ZeroDivision, "integer modulo by zero"));
            }
            ctx.big(bigint::floor_divmod(&x, &y).1)
        }
        BinOp::Pow => {
            if y.sign() == Sign::Minus {
                if zero(&x) {
                    return Err(err!(
                        ZeroDivision,
                        "0.0 cannot be raised to a negative power"
                    ));
                }
                let (v, w) = (bigint::to_f64(&x)?, bigint::to_f64(&y)?);
                return Ok(Value::Float(float_pow(v, w)?));
            }
            let one = BigInt::from(1);
            if zero(&y) {
                return Ok(Value::Int(1));
            }
            if zero(&x) || x == one {
                return ctx.big(x);
            }
            if x == -one {
                let odd = y.bit(0);
                return Ok(Value::Int(if odd { -1 } else { 1 }));
            }
            let e = u32::try_from(&y).map_err(|_| bigint::too_many_digits())?;
            if bigint::power_too_big(x.bits(), u64::from(e)) {
                return Err(bigint::too_many_digits());
            }
            ctx.big(x.pow(e))
        }
        BinOp::Concat => Err(err!(Type, "internal: concatenation is not arithmetic")),
    }
}

/// Arithmetic on two numbers.
pub(super) fn num_binop<'a>(ctx: &Ctx<'a>, op: BinOp, a: Num<'a>, b: Num<'a>) -> VResult<'a> {
    if let (Num::Int(x), Num::Int(y)) = (a, b) {
        if let Some(r) = small_binop(ctx, op, x, y) {
            return r;
        }
    }
    // A float on either side makes it float arithmetic: no big int is built for the other.
    if !matches!(a, Num::Float(_)) && !matches!(b, Num::Float(_)) {
        if let (Some(x), Some(y)) = (a.to_bigint(), b.to_bigint()) {
            return big_binop(ctx, op, x, y);
        }
    }
    let (x, y) = (a.to_f64()?, b.to_f64()?);
    let f = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return Err(err!(ZeroDivision, "float division by zero"));
            }
            x / y
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                return Err(err!(ZeroDivision, "float floor division by zero"));
            }
            float_divmod(x, y).0
        }
        BinOp::Mod => {
            if y == 0.0 {
                return Err(err!(ZeroDivision, "float modulo"));
            }
            float_divmod(x, y).1
        }
        BinOp::Pow => float_pow(x, y)?,
        BinOp::Concat => return Err(err!(Type, "internal: concatenation is not arithmetic")),
    };
    Ok(Value::Float(f))
}

#[cfg(test)]
mod tests {
    //! Expected results come from probing transformers' environment (jinja2 3.1.6, Python
    //! 3.11): `{{ expr }}` renders `str()` of the result; errors are shown as
    //! `Kind: message`.

    use super::*;

    #[test]
    fn int_true_division_is_correctly_rounded() {
        // Python: (2**64 + 1) / 3, 10**30 / 7, -(2**100) / 3, (2**127 - 1) / (2**64 - 1)
        assert_eq!(int_true_div((1 << 64) + 1, 3), 6.148914691236517e18);
        assert_eq!(int_true_div(10i128.pow(30), 7), 1.4285714285714285e29);
        assert_eq!(int_true_div(-(1 << 100), 3), -4.2255020007607644e29);
        assert_eq!(int_true_div(i128::MAX, (1 << 64) - 1), 9.223372036854776e18);
    }
}
