//! The numeric conversions: the `int`, `float` and `round` filters, with Python's parsing
//! of numbers in strings (`int(s, base)`, `float(s)`, Unicode digits included).

use num_bigint::BigInt;

use crate::error::{err, ExceptionClass};
use crate::value::bigint::{self, MAX_STR_DIGITS};
use crate::value::format::{as_float, as_int};
use crate::value::ops;
use crate::value::{Ctx, VResult, Value};

use super::args::{bind, int_arg, is_py_space};
use super::Kwargs;

/// Python's `int(s, base)` for a string; `None` where Python raises ValueError (beyond
/// 4300 digits too, in a base that is not a power of two).
fn parse_int(s: &str, base: i64) -> Option<BigInt> {
    let s = ascii_digits(s.trim_matches(is_py_space));
    let s = s.as_ref();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let lower = s.to_ascii_lowercase();
    let prefixed = |p: &str| lower.starts_with(p);
    let (radix, digits, had_prefix) = match base {
        0 if prefixed("0x") => (16, &s[2..], true),
        0 if prefixed("0o") => (8, &s[2..], true),
        0 if prefixed("0b") => (2, &s[2..], true),
        0 => (10, s, false),
        16 if prefixed("0x") => (16, &s[2..], true),
        8 if prefixed("0o") => (8, &s[2..], true),
        2 if prefixed("0b") => (2, &s[2..], true),
        2..=36 => (base as u32, s, false),
        _ => return None,
    };
    let digits = if had_prefix {
        digits.strip_prefix('_').unwrap_or(digits)
    } else {
        digits
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if base == 0
        && radix == 10
        && clean.len() > 1
        && clean.starts_with('0')
        && clean.bytes().any(|b| b != b'0')
    {
        return None;
    }
    if !radix.is_power_of_two() && clean.len() > MAX_STR_DIGITS {
        return None;
    }
    let v = match i128::from_str_radix(&clean, radix) {
        Ok(v) => BigInt::from(v),
        Err(_) if clean.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            BigInt::parse_bytes(clean.as_bytes(), radix)?
        }
        Err(_) => return None,
    };
    Some(if neg { -v } else { v })
}

/// Python's `float(s)`; `None` where Python raises ValueError.
fn parse_float(s: &str) -> Option<f64> {
    let s = ascii_digits(s.trim_matches(is_py_space));
    let s = s.as_ref();
    let b = s.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let ok =
                i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !ok {
                return None;
            }
        }
    }
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    let body = clean.trim_start_matches(['+', '-']);
    let lower = body.to_ascii_lowercase();
    if body.is_empty()
        || (!matches!(lower.as_str(), "inf" | "infinity" | "nan")
            && lower.chars().any(|c| c.is_ascii_alphabetic() && c != 'e'))
    {
        return None;
    }
    clean.parse().ok()
}

/// The first code point of each run of ten Unicode decimal digits (category Nd), which
/// Python's `int()` and `float()` read as 0-9.
const DIGIT_ZEROS: [u32; 66] = [
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66,
    0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0,
];

/// `s` with every Unicode decimal digit replaced by its ASCII digit.
fn ascii_digits(s: &str) -> std::borrow::Cow<'_, str> {
    if s.is_ascii() {
        return std::borrow::Cow::Borrowed(s);
    }
    let digit = |c: char| {
        let u = c as u32;
        DIGIT_ZEROS
            .iter()
            .find(|&&z| (z..z + 10).contains(&u))
            .and_then(|z| char::from_digit(u - z, 10))
    };
    std::borrow::Cow::Owned(s.chars().map(|c| digit(c).unwrap_or(c)).collect())
}

/// A float truncated to an integer, or an overflow error.
fn trunc_int<'a>(ctx: &Ctx<'a>, f: f64) -> VResult<'a> {
    if f.is_nan() {
        return Err(err!(Value, "cannot convert float NaN to integer"));
    }
    if !f.is_finite() {
        return Err(err!(Overflow, "cannot convert float infinity to integer"));
    }
    if f.abs() >= 1.7e38 {
        return ctx.big(bigint::from_f64(f));
    }
    Ok(ctx.int(f.trunc() as i128))
}

/// The `int(default=0, base=10)` filter.
pub(crate) fn int_filter<'a>(
    ctx: &Ctx<'a>,
    v: Value<'a>,
    a: &[Value<'a>],
    k: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let [default, base] = bind("int", ["default", "base"], a, k)?;
    let default = default.unwrap_or(Value::Int(0));
    match v {
        Value::Undefined(_) => Err(ops::undefined_error(&v)),
        Value::Int(_) | Value::Big(_) => Ok(v),
        Value::Bool(b) => Ok(Value::Int(i64::from(b))),
        Value::Float(f) if f.is_nan() => Ok(default),
        Value::Float(f) => trunc_int(ctx, f),
        Value::Str(s) | Value::Markup(s) => {
            let base = match base {
                None => 10,
                Some(b) => int_arg(&b)?,
            };
            if let Some(i) = parse_int(s, base) {
                return ctx.big(i);
            }
            match parse_float(s) {
                Some(f) => trunc_int(ctx, f).or(Ok(default)),
                None => Ok(default),
            }
        }
        _ => Ok(default),
    }
}

/// The `float(default=0.0)` filter.
pub(crate) fn float_filter<'a>(
    _ctx: &Ctx<'a>,
    v: Value<'a>,
    a: &[Value<'a>],
    k: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let [default] = bind("float", ["default"], a, k)?;
    let default = default.unwrap_or(Value::Float(0.0));
    match v {
        Value::Undefined(_) => Err(ops::undefined_error(&v)),
        Value::Str(s) | Value::Markup(s) => Ok(parse_float(s).map_or(default, Value::Float)),
        // Python's OverflowError, which the filter does not catch.
        Value::Big(b) => b.to_f64().map(Value::Float),
        other => Ok(as_float(&other).map_or(default, Value::Float)),
    }
}

/// Ten to the power `p`, exactly where a float can hold it.
fn pow10(p: i64) -> f64 {
    format!("1e{p}").parse().unwrap_or(f64::INFINITY)
}

/// The `round(precision=0, method='common')` filter.
pub(crate) fn round_filter<'a>(
    ctx: &Ctx<'a>,
    v: Value<'a>,
    a: &[Value<'a>],
    k: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let [precision, method] = bind("round", ["precision", "method"], a, k)?;
    let method = match method {
        None => "common",
        Some(Value::Str(m @ ("common" | "ceil" | "floor"))) => m,
        Some(_) => {
            return Err(err!(Runtime, "method must be common, ceil or floor")
                .with_class(ExceptionClass::FilterArgumentError))
        }
    };
    let p = precision.map_or(Ok(0), |p| int_arg(&p))?;
    let not_round = || {
        err!(
            Type,
            "type {} doesn't define __round__ method",
            v.type_name()
        )
    };
    if method != "common" {
        // jinja2 computes `value * 10 ** precision` first: an undefined value fails there.
        if v.is_undefined() {
            return Err(crate::value::ops::undefined_error(&v));
        }
        let x = as_float(&v).ok_or_else(not_round)?;
        let m = pow10(p);
        let y = if method == "ceil" {
            (x * m).ceil()
        } else {
            (x * m).floor()
        };
        return Ok(Value::Float(y / m));
    }
    match v {
        Value::Float(f) => Ok(Value::Float(round_float(f, p))),
        Value::Big(_) if p >= 0 => Ok(v),
        _ => {
            let i = as_int(&v).ok_or_else(not_round)?;
            if p >= 0 {
                return Ok(ctx.int(i));
            }
            let Some(m) = 10i128.checked_pow(p.unsigned_abs().min(40) as u32) else {
                return Ok(Value::Int(0));
            };
            let (q, r) = (i.div_euclid(m), i.rem_euclid(m));
            let q = if 2 * r > m || (2 * r == m && q % 2 != 0) {
                q + 1
            } else {
                q
            };
            Ok(ctx.int(q * m))
        }
    }
}

/// Python's `round(f, p)`: correctly rounded, ties to even.
fn round_float(f: f64, p: i64) -> f64 {
    if !f.is_finite() || p > 323 {
        return f;
    }
    if p >= 0 {
        return format!("{f:.*}", p as usize).parse().unwrap_or(f);
    }
    let m = pow10(-p);
    if !m.is_finite() {
        return 0.0 * f;
    }
    (f / m).round_ties_even() * m
}

#[cfg(test)]
mod unit {
    use super::super::args::testutil::{s, with_ctx};
    use super::*;

    fn num(
        name: &str,
        v: Value<'static>,
        a: &[Value<'static>],
        k: &[(&'static str, Value<'static>)],
    ) -> String {
        with_ctx(|ctx| {
            let f = match name {
                "int" => int_filter,
                "float" => float_filter,
                _ => round_filter,
            };
            match f(ctx, v, a, k) {
                Ok(v) => s(&v),
                Err(e) => format!("!{:?}", e.kind()),
            }
        })
    }

    #[test]
    fn int_float_round() {
        assert_eq!(num("int", Value::Str("12abc"), &[], &[]), "0");
        assert_eq!(num("int", Value::Str("3.7"), &[], &[]), "3");
        assert_eq!(num("int", Value::Float(-3.7), &[], &[]), "-3");
        assert_eq!(
            num("int", Value::Str("0x1A"), &[], &[("base", Value::Int(16))]),
            "26"
        );
        assert_eq!(num("int", Value::Str("z"), &[Value::Int(7)], &[]), "7");
        assert_eq!(num("int", Value::Str("  12 "), &[], &[]), "12");
        assert_eq!(num("int", Value::Str("1_000"), &[], &[]), "1000");
        assert_eq!(num("int", Value::Str("1e3"), &[], &[]), "1000");
        assert_eq!(num("int", Value::Str("0x1F"), &[], &[]), "0");
        assert_eq!(
            num(
                "int",
                Value::Str("0b101"),
                &[Value::Int(0), Value::Int(0)],
                &[]
            ),
            "5"
        );
        assert_eq!(num("int", Value::Str("inf"), &[], &[]), "0");
        assert_eq!(num("int", Value::None, &[], &[]), "0");
        assert_eq!(num("int", Value::UNDEFINED, &[], &[]), "!Undefined");
        assert_eq!(num("float", Value::Str(" 2.5 "), &[], &[]), "2.5");
        assert_eq!(num("float", Value::Str("x"), &[Value::Int(2)], &[]), "2");
        assert_eq!(num("float", Value::Bool(true), &[], &[]), "1.0");
        assert_eq!(num("round", Value::Float(2.5), &[], &[]), "2.0");
        assert_eq!(num("round", Value::Float(3.5), &[], &[]), "4.0");
        assert_eq!(
            num("round", Value::Float(2.675), &[Value::Int(2)], &[]),
            "2.67"
        );
        assert_eq!(num("round", Value::Int(5), &[Value::Int(1)], &[]), "5");
        assert_eq!(
            num("round", Value::Int(1250), &[Value::Int(-2)], &[]),
            "1200"
        );
        assert_eq!(
            num("round", Value::Float(1234.5), &[Value::Int(-2)], &[]),
            "1200.0"
        );
        assert_eq!(
            num(
                "round",
                Value::Float(2.1),
                &[],
                &[("method", Value::Str("ceil"))]
            ),
            "3.0"
        );
        assert_eq!(
            num(
                "round",
                Value::Int(5),
                &[],
                &[("method", Value::Str("floor"))]
            ),
            "5.0"
        );
        assert_eq!(
            num(
                "round",
                Value::Float(-2.5),
                &[Value::Int(0), Value::Str("floor")],
                &[]
            ),
            "-3.0"
        );
        assert_eq!(
            num(
                "round",
                Value::Float(2.1),
                &[],
                &[("method", Value::Str("x"))]
            ),
            "!Runtime"
        );
        assert_eq!(num("round", Value::Str("1"), &[], &[]), "!Type");
    }
}
