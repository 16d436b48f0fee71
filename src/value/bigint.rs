//! Python ints beyond 64 bits.
//!
//! A [`Big`] lives in the render arena as a sign and a magnitude (little-endian 32-bit
//! digits), so it is never dropped and owns nothing on the heap. Arithmetic converts to
//! `num_bigint::BigInt` only while computing; [`Ctx::big`] stores a result back, as a
//! `Value::Int` when it fits in 64 bits (so a `Value::Big` is always outside the `i64`
//! range), and refuses results beyond [`MAX_DIGITS`] decimal digits (Python has no limit;
//! this bounds hostile templates such as `2 ** 10 ** 8`).

use std::cmp::Ordering;

use num_bigint::{BigInt, BigUint, Sign};

use crate::error::{err, Error};
use crate::value::{Ctx, VResult, Value};

/// The most decimal digits an int may have (about 100k; Python has no limit).
pub(crate) const MAX_DIGITS: u64 = 100_000;

/// The most bits an int may have: `2^332192` is below `10^100000` (`MAX_DIGITS * log2(10)`
/// is 332192.8), so every int has at most [`MAX_DIGITS`] digits.
const MAX_BITS: u64 = 332_192;

/// Python's limit on `str(int)` and `repr(int)` (`sys.int_info.default_max_str_digits`).
pub(crate) const MAX_STR_DIGITS: usize = 4300;

/// An int outside the `i64` range, in the arena.
#[derive(Debug)]
pub(crate) struct Big<'a> {
    /// Whether it is below zero.
    negative: bool,
    /// The magnitude, least significant digit first, without leading zero digits.
    digits: &'a [u32],
}

impl Big<'_> {
    /// Its 32-bit digits.
    pub(crate) fn digit_count(&self) -> usize {
        self.digits.len()
    }

    /// As a `num_bigint::BigInt`, for computing.
    pub(crate) fn to_bigint(&self) -> BigInt {
        let sign = if self.negative {
            Sign::Minus
        } else {
            Sign::Plus
        };
        BigInt::from_slice(sign, self.digits)
    }

    /// Whether it is below zero.
    pub(crate) fn is_negative(&self) -> bool {
        self.negative
    }

    /// Its value if it fits in 128 bits.
    pub(crate) fn to_i128(&self) -> Option<i128> {
        if self.digits.len() > 4 {
            return None;
        }
        let mag = self
            .digits
            .iter()
            .rev()
            .fold(0u128, |acc, d| (acc << 32) | u128::from(*d));
        if self.negative {
            0i128.checked_sub_unsigned(mag)
        } else {
            i128::try_from(mag).ok()
        }
    }

    /// Python's `float(self)`: correctly rounded, `OverflowError` beyond the float range.
    pub(crate) fn to_f64(&self) -> Result<f64, Error> {
        to_f64(&self.to_bigint())
    }

    /// Python's exact comparison with another big int.
    pub(crate) fn cmp_big(&self, other: &Big<'_>) -> Ordering {
        let magnitude = || {
            self.digits
                .len()
                .cmp(&other.digits.len())
                .then_with(|| self.digits.iter().rev().cmp(other.digits.iter().rev()))
        };
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => magnitude(),
            (true, true) => magnitude().reverse(),
        }
    }

    /// Python's exact comparison with an int of 64 bits (which a big int is outside of).
    pub(crate) fn cmp_small(&self) -> Ordering {
        if self.negative {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }

    /// Python's exact comparison with a float (`None` when it is NaN).
    pub(crate) fn cmp_f64(&self, f: f64) -> Option<Ordering> {
        if f.is_nan() {
            return None;
        }
        if f.is_infinite() {
            return Some(if f > 0.0 {
                Ordering::Less
            } else {
                Ordering::Greater
            });
        }
        // Below 2^63 in magnitude the float is inside the i64 range, which `self` is not.
        if f.abs() < 9_223_372_036_854_775_808.0 {
            return Some(self.cmp_small());
        }
        // Beyond 2^53 a float is an integer: compare exactly.
        Some(self.to_bigint().cmp(&from_f64(f)))
    }

    /// Appends the decimal digits (with a `-` when negative).
    pub(crate) fn write_decimal(&self, out: &mut String) {
        out.push_str(&self.to_bigint().to_string());
    }

    /// The decimal text, or Python's `ValueError` beyond [`MAX_STR_DIGITS`] digits (what
    /// `json.dumps` raises; `str()` and `repr()` print it regardless, see the module docs).
    pub(crate) fn decimal_checked(&self) -> Result<String, Error> {
        let s = self.to_bigint().to_string();
        if s.trim_start_matches('-').len() > MAX_STR_DIGITS {
            return Err(err!(
                Value,
                "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion; \
                 use sys.set_int_max_str_digits() to increase the limit"
            ));
        }
        Ok(s)
    }
}

impl<'a> Ctx<'a> {
    /// An integer computed with `num_bigint`: a `Value::Int` when it fits in 64 bits, else a
    /// `Value::Big` in the arena. Beyond [`MAX_DIGITS`] digits it is an `Overflow` error,
    /// beyond the value size limit a `Limit(Output)` one.
    pub(crate) fn big(&self, n: BigInt) -> VResult<'a> {
        if let Ok(small) = i64::try_from(&n) {
            return Ok(Value::Int(small));
        }
        if n.bits() > MAX_BITS {
            return Err(too_many_digits());
        }
        let (sign, digits) = n.to_u32_digits();
        self.check_bytes(digits.len() * 4)?;
        Ok(self.big_from_digits(sign == Sign::Minus, &digits))
    }

    /// The int an integer literal beyond 128 bits denotes (`0x`/`0o`/`0b` prefixes and
    /// `_` separators as Python reads them), bounded as every int is.
    pub(crate) fn big_literal(&self, text: &str) -> VResult<'a> {
        let (digits, radix) = match text.as_bytes().get(1) {
            Some(b'x' | b'X') => (&text[2..], 16),
            Some(b'o' | b'O') => (&text[2..], 8),
            Some(b'b' | b'B') => (&text[2..], 2),
            _ => (text, 10),
        };
        let digits: String = digits.chars().filter(|c| *c != '_').collect();
        if digits.len() as u64 > MAX_DIGITS * 4 {
            return Err(too_many_digits());
        }
        match BigInt::parse_bytes(digits.as_bytes(), radix) {
            Some(n) => self.big(n),
            None => Err(err!(Syntax, "invalid integer literal '{text}'")),
        }
    }

    /// A big int from its sign and magnitude digits (outside the `i64` range).
    pub(crate) fn big_from_digits(&self, negative: bool, digits: &[u32]) -> Value<'a> {
        let digits = self.arena.alloc_slice_copy(digits);
        Value::Big(self.arena.alloc(Big { negative, digits }))
    }
}

/// The error of an int beyond [`MAX_DIGITS`] digits.
pub(crate) fn too_many_digits() -> Error {
    err!(
        Overflow,
        "integer result is too large (beyond {MAX_DIGITS} decimal digits)"
    )
}

/// Whether a product of ints of `a` and `b` bits could exceed the size limit (checked before
/// computing it).
pub(crate) fn product_too_big(a: u64, b: u64) -> bool {
    a.saturating_add(b).saturating_sub(1) > MAX_BITS
}

/// Whether `base ** exp` (of a base of `bits` bits, at least 2 in magnitude) is beyond the
/// size limit, from its lowest possible size.
pub(crate) fn power_too_big(bits: u64, exp: u64) -> bool {
    bits.saturating_sub(1).saturating_mul(exp) >= MAX_BITS
}

/// `2^e` as a float, for `e` in the normal exponent range.
fn pow2(e: i64) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// `x * 2^e`, in steps that keep each factor a normal float.
fn ldexp(mut x: f64, mut e: i64) -> f64 {
    while e > 1000 {
        x *= pow2(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= pow2(-1000);
        e += 1000;
    }
    x * pow2(e)
}

/// The magnitude as a float of its top bits with a sticky bit: `(m, shift)` with
/// `|n| ≈ m * 2^shift`, `m` correctly rounded to 53 bits.
fn top_bits(mag: &BigUint) -> (f64, i64) {
    let bits = mag.bits();
    if bits <= 64 {
        let v = mag.iter_u64_digits().next().unwrap_or(0);
        return (v as f64, 0);
    }
    let shift = bits - 64;
    let top: BigUint = mag >> shift;
    let mut m = top.iter_u64_digits().next().unwrap_or(0);
    if mag.trailing_zeros().is_some_and(|z| z < shift) {
        m |= 1;
    }
    (m as f64, shift as i64)
}

/// Python's `float(n)`: correctly rounded, `OverflowError` beyond the float range.
pub(crate) fn to_f64(n: &BigInt) -> Result<f64, Error> {
    let (m, shift) = top_bits(n.magnitude());
    let f = ldexp(m, shift);
    if f.is_infinite() {
        return Err(err!(Overflow, "int too large to convert to float"));
    }
    Ok(if n.sign() == Sign::Minus { -f } else { f })
}

/// The exact integer value of a finite float, truncated toward zero.
pub(crate) fn from_f64(f: f64) -> BigInt {
    let t = f.trunc();
    if t.abs() < 9_223_372_036_854_775_808.0 {
        return BigInt::from(t as i64);
    }
    let bits = t.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64 - 1075;
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    // |t| >= 2^63, so the exponent is positive.
    let mag = BigInt::from(mantissa) << exp.max(0);
    if t < 0.0 {
        -mag
    } else {
        mag
    }
}

/// Python's `a / b` for ints: the correctly rounded quotient (`b` is not zero), or
/// `OverflowError` when it is beyond the float range.
pub(crate) fn true_div(a: &BigInt, b: &BigInt) -> Result<f64, Error> {
    let negative = (a.sign() == Sign::Minus) != (b.sign() == Sign::Minus);
    let (ua, ub) = (a.magnitude(), b.magnitude());
    if ua.bits() == 0 {
        return Ok(if negative { -0.0 } else { 0.0 });
    }
    // Scale so the quotient has 55 or 56 bits; the remainder becomes a sticky bit, so the
    // conversion to float rounds once, correctly.
    let shift = ua.bits() as i64 - ub.bits() as i64 - 55;
    let (num, den) = if shift >= 0 {
        (ua.clone(), ub << shift as u64)
    } else {
        (ua << shift.unsigned_abs(), ub.clone())
    };
    let q = &num / &den;
    let sticky = &q * &den != num;
    let mut m = q.iter_u64_digits().next().unwrap_or(0);
    if sticky {
        m |= 1;
    }
    let f = ldexp(m as f64, shift);
    if f.is_infinite() {
        return Err(err!(
            Overflow,
            "integer division result too large for a float"
        ));
    }
    Ok(if negative { -f } else { f })
}

/// Python's `divmod(a, b)` for ints: the floored quotient and the remainder with the
/// divisor's sign (`b` is not zero).
pub(crate) fn floor_divmod(a: &BigInt, b: &BigInt) -> (BigInt, BigInt) {
    let mut q = a / b;
    let mut r = a % b;
    if r.sign() != Sign::NoSign && (r.sign() == Sign::Minus) != (b.sign() == Sign::Minus) {
        q -= 1;
        r += b;
    }
    (q, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bumpalo::Bump;

    fn big(s: &str) -> BigInt {
        s.parse().unwrap()
    }

    #[test]
    fn normalizes_to_int() {
        let arena = Bump::new();
        let c = Ctx::for_tests(&arena);
        assert!(matches!(
            c.big(big("-9223372036854775808")),
            Ok(Value::Int(i64::MIN))
        ));
        let Ok(Value::Big(b)) = c.big(big("9223372036854775808")) else {
            panic!("not big")
        };
        assert_eq!(b.to_i128(), Some(1i128 << 63));
        let Value::Big(b) = c.int(i128::MIN) else {
            panic!("not big")
        };
        assert_eq!(b.to_i128(), Some(i128::MIN));
        assert_eq!(b.to_bigint(), BigInt::from(i128::MIN));
        assert!(matches!(
            c.big(BigInt::from(10).pow(100_001)),
            Err(e) if e.kind() == crate::error::ErrorKind::Overflow
        ));
    }

    #[test]
    fn float_conversion_as_python() {
        // float(10**40), float(2**1023 * 1.99...), float(10**400) (reference values).
        assert_eq!(
            to_f64(&big("10000000000000000000000000000000000000000")).ok(),
            Some(1e40)
        );
        assert_eq!(
            to_f64(&-big("123456789012345678901234567890")).ok(),
            Some(-1.2345678901234568e29)
        );
        assert!(to_f64(&BigInt::from(10).pow(400)).is_err());
        // Ties round to even: 2^64 + 2^11 is halfway between two floats.
        assert_eq!(
            to_f64(&big("18446744073709553664")).ok(),
            Some(1.8446744073709552e19)
        );
        assert_eq!(
            from_f64(1e40),
            big("10000000000000000303786028427003666890752")
        );
        assert_eq!(from_f64(-1e20), big("-100000000000000000000"));
    }

    #[test]
    fn division_as_python() {
        let p = |a: &BigInt, b: &BigInt| true_div(a, b).ok();
        // 10**400 / 10**399, 2**1074 / 3**600, 3**700 / 2**50 (reference values).
        let ten = BigInt::from(10);
        assert_eq!(p(&ten.pow(400), &ten.pow(399)), Some(10.0));
        assert_eq!(
            p(&BigInt::from(2).pow(1074), &BigInt::from(3).pow(600)),
            Some(1.080096381988032e37)
        );
        assert!(p(&BigInt::from(3).pow(700), &BigInt::from(2).pow(50)).is_none());
        assert_eq!(p(&BigInt::from(1), &ten.pow(400)), Some(0.0));
        let (q, r) = floor_divmod(&-ten.pow(40), &BigInt::from(7));
        assert_eq!(q, big("-1428571428571428571428571428571428571429"));
        assert_eq!(r, BigInt::from(3));
        let (_, r) = floor_divmod(&ten.pow(40), &BigInt::from(-7));
        assert_eq!(r, BigInt::from(-3));
    }
}
