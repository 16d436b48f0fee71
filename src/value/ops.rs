//! Python semantics of operators, attribute and item access, slicing and iteration.
//!
//! Everything follows what jinja2's `ImmutableSandboxedEnvironment` does with Python objects:
//! `x.name` is `getattr` then `x['name']`, `x[k]` is the item then the attribute, attributes
//! that the sandbox refuses (names starting with `_`, mutators such as `list.append`) become
//! an undefined that raises `SecurityError` when used, and every operator raises the
//! `TypeError` Python raises, with its message.

use std::cmp::Ordering;

use num_bigint::{BigInt, Sign};

use crate::error::{err, Error};
use crate::value::bigint::{self, Big};
use crate::value::budget;
use crate::value::fmt::write_str_repr;
use crate::value::{Callable, Ctx, IterKind, LoopState, UndefInfo, VResult, Value};

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

/// The `(key, value)` pairs of a mapping (a template dict or a JSON object), or `None` when
/// `v` is not a mapping.
pub(crate) fn pairs<'a>(ctx: &Ctx<'a>, v: &Value<'a>) -> Option<&'a [(Value<'a>, Value<'a>)]> {
    match v {
        Value::Dict(d) => Some(d),
        Value::Json(serde_json::Value::Object(o)) => {
            let mut out = bumpalo::collections::Vec::with_capacity_in(o.len(), ctx.arena);
            out.extend(
                o.iter()
                    .map(|(k, x)| (Value::Str(k.as_str()), Value::from_json_in(x, ctx))),
            );
            Some(out.into_bump_slice())
        }
        _ => None,
    }
}

/// Binary arithmetic operators (and `~`, string concatenation).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum BinOp {
    /// `+`: numbers, or concatenation of two strs, lists or tuples.
    Add,
    /// `-`.
    Sub,
    /// `*`: numbers, or a str, list or tuple repeated.
    Mul,
    /// `/`: true division, always a float.
    Div,
    /// `//`: floored division.
    FloorDiv,
    /// `%`: floored modulo (the divisor's sign), or printf-style formatting of a str.
    Mod,
    /// `**`: a float for negative int exponents.
    Pow,
    /// `~`: `str(a) + str(b)`.
    Concat,
}

impl BinOp {
    /// The operator as Python's error messages spell it.
    fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "** or pow()",
            BinOp::Concat => "~",
        }
    }
}

/// Ordering comparisons (`==`/`!=` go through [`eq`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum CmpOp {
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CmpOp {
    /// The operator as Python's error messages spell it.
    fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// Whether `ord` satisfies the operator.
    fn holds(self, ord: Ordering) -> bool {
        match self {
            CmpOp::Lt => ord.is_lt(),
            CmpOp::Le => ord.is_le(),
            CmpOp::Gt => ord.is_gt(),
            CmpOp::Ge => ord.is_ge(),
        }
    }
}

/// How deep `==` and `<` recurse into nested containers before giving up (Python raises
/// `RecursionError` near 1000 frames).
const MAX_DEPTH: usize = 500;

/// Strings up to this many bytes and containers up to this many items are compared and
/// searched within the instruction's own unit of fuel; larger ones charge their size.
const SMALL_BYTES: usize = 256;
/// See [`SMALL_BYTES`].
const SMALL_ITEMS: usize = 16;

/// The most bytes (for strings) or items (for lists) that `*` may build.
const MAX_REPEAT: usize = 1 << 26;

// ---------------------------------------------------------------------------------------
// Numbers

/// A Python number: `bool` and `int` as an integer, or a `float`.
#[derive(Clone, Copy, Debug)]
enum Num<'a> {
    /// `bool`, `int` of 64 bits (widened, so `+ - *` of two cannot overflow).
    Int(i128),
    /// `int` outside the 64-bit range.
    Big(&'a Big<'a>),
    /// `float`.
    Float(f64),
}

/// The number `v` stands for, if it is one (`True` is 1).
#[inline]
fn num<'a>(v: &Value<'a>) -> Option<Num<'a>> {
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
    fn to_f64(self) -> Result<f64, Error> {
        match self {
            Num::Int(i) => Ok(i as f64),
            Num::Big(b) => b.to_f64(),
            Num::Float(f) => Ok(f),
        }
    }

    /// As a `BigInt`, if it is an int.
    fn to_bigint(self) -> Option<BigInt> {
        match self {
            Num::Int(i) => Some(BigInt::from(i)),
            Num::Big(b) => Some(b.to_bigint()),
            Num::Float(_) => None,
        }
    }
}

/// Python's exact comparison of an int with a float (`None` when the float is NaN).
fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
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
fn num_cmp(a: Num<'_>, b: Num<'_>) -> Option<Ordering> {
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
fn int_true_div(a: i128, b: i128) -> f64 {
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
fn float_divmod(v: f64, w: f64) -> (f64, f64) {
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
fn is_odd_integer(f: f64) -> bool {
    f.is_finite() && f.trunc() == f && (f % 2.0).abs() == 1.0
}

/// Python's `float ** float`, with its errors.
fn float_pow(v: f64, w: f64) -> Result<f64, Error> {
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
            return Err(err!(Value, "0.0 cannot be raised to a negative power"));
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
fn small_binop<'a>(ctx: &Ctx<'a>, op: BinOp, x: i128, y: i128) -> Option<VResult<'a>> {
    Some(match op {
        BinOp::Add => Ok(ctx.int(x.checked_add(y)?)),
        BinOp::Sub => Ok(ctx.int(x.checked_sub(y)?)),
        BinOp::Mul => Ok(ctx.int(x.checked_mul(y)?)),
        BinOp::Div => {
            if y == 0 {
                Err(err!(Value, "division by zero"))
            } else {
                Ok(Value::Float(int_true_div(x, y)))
            }
        }
        BinOp::FloorDiv => {
            if y == 0 {
                return Some(Err(err!(Value, "integer division or modulo by zero")));
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
                return Some(Err(err!(Value, "integer modulo by zero")));
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
                    return Some(Err(err!(Value, "0.0 cannot be raised to a negative power")));
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
fn big_binop<'a>(ctx: &Ctx<'a>, op: BinOp, x: BigInt, y: BigInt) -> VResult<'a> {
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
                return Err(err!(Value, "division by zero"));
            }
            Ok(Value::Float(bigint::true_div(&x, &y)?))
        }
        BinOp::FloorDiv => {
            if zero(&y) {
                return Err(err!(Value, "integer division or modulo by zero"));
            }
            ctx.big(bigint::floor_divmod(&x, &y).0)
        }
        BinOp::Mod => {
            if zero(&y) {
                return Err(err!(Value, "integer modulo by zero"));
            }
            ctx.big(bigint::floor_divmod(&x, &y).1)
        }
        BinOp::Pow => {
            if y.sign() == Sign::Minus {
                if zero(&x) {
                    return Err(err!(Value, "0.0 cannot be raised to a negative power"));
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
fn num_binop<'a>(ctx: &Ctx<'a>, op: BinOp, a: Num<'a>, b: Num<'a>) -> VResult<'a> {
    if let (Num::Int(x), Num::Int(y)) = (a, b) {
        if let Some(r) = small_binop(ctx, op, x, y) {
            return r;
        }
    }
    if let (Some(x), Some(y)) = (a.to_bigint(), b.to_bigint()) {
        return big_binop(ctx, op, x, y);
    }
    let (x, y) = (a.to_f64()?, b.to_f64()?);
    let f = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return Err(err!(Value, "float division by zero"));
            }
            x / y
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                return Err(err!(Value, "float floor division by zero"));
            }
            float_divmod(x, y).0
        }
        BinOp::Mod => {
            if y == 0.0 {
                return Err(err!(Value, "float modulo"));
            }
            float_divmod(x, y).1
        }
        BinOp::Pow => float_pow(x, y)?,
        BinOp::Concat => return Err(err!(Type, "internal: concatenation is not arithmetic")),
    };
    Ok(Value::Float(f))
}

// ---------------------------------------------------------------------------------------
// Views of lists and dicts, whatever their representation

/// A Python list or tuple's items, from the template or borrowed from the caller's JSON.
#[derive(Clone, Copy)]
pub(crate) enum SeqRef<'a> {
    /// A list or tuple of the template's.
    Values(&'a [Value<'a>]),
    /// A JSON array of the caller's.
    Json(&'a [serde_json::Value]),
}

impl<'a> SeqRef<'a> {
    /// The items of a list (template or JSON); tuples only when `tuples` is set.
    #[inline]
    fn of(v: &Value<'a>, tuples: bool) -> Option<SeqRef<'a>> {
        match *v {
            Value::List(l) => Some(SeqRef::Values(l)),
            Value::Tuple(t) if tuples => Some(SeqRef::Values(t)),
            Value::Json(serde_json::Value::Array(a)) => Some(SeqRef::Json(a)),
            _ => None,
        }
    }

    /// How many items.
    #[inline]
    fn len(&self) -> usize {
        match self {
            SeqRef::Values(v) => v.len(),
            SeqRef::Json(a) => a.len(),
        }
    }

    /// Item `i` (in range).
    #[inline]
    fn get(&self, i: usize) -> Option<Value<'a>> {
        match self {
            SeqRef::Values(v) => v.get(i).copied(),
            SeqRef::Json(a) => a.get(i).map(Value::from_json),
        }
    }

    /// Item `i`, exact for big JSON integers.
    #[inline]
    fn get_in(&self, i: usize, ctx: &Ctx<'a>) -> Option<Value<'a>> {
        match self {
            SeqRef::Values(v) => v.get(i).copied(),
            SeqRef::Json(a) => a.get(i).map(|x| Value::from_json_in(x, ctx)),
        }
    }
}

/// A Python dict, from the template or borrowed from the caller's JSON.
#[derive(Clone, Copy)]
enum MapRef<'a> {
    /// A dict of the template's.
    Dict(&'a [(Value<'a>, Value<'a>)]),
    /// A JSON object of the caller's.
    Json(&'a serde_json::Map<String, serde_json::Value>),
}

impl<'a> MapRef<'a> {
    /// The dict `v` is, if it is one.
    #[inline]
    fn of(v: &Value<'a>) -> Option<MapRef<'a>> {
        match *v {
            Value::Dict(d) => Some(MapRef::Dict(d)),
            Value::Json(serde_json::Value::Object(o)) => Some(MapRef::Json(o)),
            _ => None,
        }
    }

    /// How many entries.
    fn len(&self) -> usize {
        match self {
            MapRef::Dict(d) => d.len(),
            MapRef::Json(o) => o.len(),
        }
    }

    /// The value of `key` (compared as Python's dict lookup does: equal numbers match).
    #[inline]
    fn get(&self, key: &Value<'_>) -> Option<Value<'a>> {
        match self {
            MapRef::Dict(d) => {
                // A template dict is searched: linear in its size.
                if d.len() > SMALL_ITEMS && !budget::spend_items(d.len()) {
                    return None;
                }
                d.iter().find(|(k, _)| eq(k, key)).map(|(_, v)| *v)
            }
            MapRef::Json(o) => match key {
                Value::Str(s) | Value::Markup(s) => json_get(o, s).map(Value::from_json),
                _ => None,
            },
        }
    }

    /// The value of string key `name`, exact for big JSON integers.
    #[inline]
    fn get_str(&self, name: &str, ctx: &Ctx<'a>) -> Option<Value<'a>> {
        match self {
            MapRef::Dict(d) => d
                .iter()
                .take(if d.len() > SMALL_ITEMS && !budget::spend_items(d.len()) {
                    0
                } else {
                    usize::MAX
                })
                .find(|(k, _)| k.as_str() == Some(name))
                .map(|(_, v)| *v),
            MapRef::Json(o) => json_get(o, name).map(|v| Value::from_json_in(v, ctx)),
        }
    }

    /// Calls `f` on every entry until it returns false; true if it never did.
    fn all(&self, mut f: impl FnMut(Value<'a>, Value<'a>) -> bool) -> bool {
        match self {
            MapRef::Dict(d) => d.iter().all(|(k, v)| f(*k, *v)),
            MapRef::Json(o) => o
                .iter()
                .all(|(k, v)| f(Value::Str(k.as_str()), Value::from_json(v))),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Binary and unary operators

/// `a <op> b` with Python semantics.
pub(crate) fn binop<'a>(ctx: &Ctx<'a>, op: BinOp, a: Value<'a>, b: Value<'a>) -> VResult<'a> {
    if op == BinOp::Concat {
        return concat(ctx, a, b);
    }
    if matches!(a, Value::Markup(_)) || matches!(b, Value::Markup(_)) {
        return super::markup::binop(ctx, op, a, b);
    }
    if let (BinOp::Mod, Value::Str(fmt)) = (op, a) {
        return super::format::percent_format(ctx, fmt, b);
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
fn non_int_multiplier(v: &Value<'_>) -> Error {
    err!(
        Type,
        "can't multiply sequence by non-int of type '{}'",
        v.type_name()
    )
}

/// Whether `v` is a str, list or tuple (what `*` repeats and `+` concatenates).
fn is_sequence(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Json(serde_json::Value::Array(_))
    )
}

/// The repeat count an int operand of `*` gives (negative counts as 0).
fn repeat_count(v: &Value<'_>) -> Option<Result<usize, Error>> {
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
fn repeat<'a>(ctx: &Ctx<'a>, seq: Value<'a>, n: usize) -> VResult<'a> {
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
fn add_seqs<'a>(ctx: &Ctx<'a>, a: Value<'a>, b: Value<'a>) -> VResult<'a> {
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
fn concat_strs<'a>(ctx: &Ctx<'a>, x: &'a str, y: &'a str) -> Value<'a> {
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
fn concat<'a>(ctx: &Ctx<'a>, a: Value<'a>, b: Value<'a>) -> VResult<'a> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Ok(concat_strs(ctx, x, y)),
        (Value::Str(_), Value::Undefined(_)) => Ok(a),
        (Value::Undefined(_), Value::Str(_)) => Ok(b),
        _ => {
            let mut s = String::new();
            super::fmt::write_str(&mut s, &a);
            super::fmt::write_str(&mut s, &b);
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

// ---------------------------------------------------------------------------------------
// Equality and ordering

/// Python `a == b`; never raises. Numbers compare by value across int, float and bool;
/// lists (template or JSON) and dicts (template or JSON) compare deeply, dicts regardless of
/// order; a list never equals a tuple; `Undefined == Undefined`.
pub(crate) fn eq(a: &Value<'_>, b: &Value<'_>) -> bool {
    eq_at(a, b, 0)
}

/// [`eq`] at nesting `depth`.
fn eq_at(a: &Value<'_>, b: &Value<'_>, depth: usize) -> bool {
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
            && x.all(|k, v| y.get(&k).is_some_and(|w| eq_at(&v, &w, depth + 1)));
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
                (IterKind::Range { .. }, IterKind::Range { .. }) => {
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
fn same<T, U>(a: &T, b: &U) -> bool {
    std::ptr::eq(a as *const T as *const (), b as *const U as *const ())
}

/// Whether two slices are the same memory (address and length), whatever their lifetimes.
fn same_slice<T, U>(a: &[T], b: &[U]) -> bool {
    a.len() == b.len() && std::ptr::eq(a.as_ptr() as *const (), b.as_ptr() as *const ())
}

/// Item-wise equality of two sequences. The same sequence equals itself at once: Python
/// compares items with `x is y or x == y`, so a list built of shared lists compares in time
/// linear in what was built, not in its unfolded size.
fn seq_eq(x: SeqRef<'_>, y: SeqRef<'_>, depth: usize) -> bool {
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
fn compare_at(op: CmpOp, a: &Value<'_>, b: &Value<'_>, depth: usize) -> Result<bool, Error> {
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

// ---------------------------------------------------------------------------------------
// Membership

/// Whether `v` can be a dict key (Python's `hash(v)` succeeds).
fn hashable(v: &Value<'_>) -> Result<(), Error> {
    match v {
        Value::List(_) | Value::Json(serde_json::Value::Array(_)) => {
            Err(err!(Type, "unhashable type: 'list'"))
        }
        Value::Dict(_) | Value::Json(_) => Err(err!(Type, "unhashable type: 'dict'")),
        Value::Iter(s) if matches!(s.kind, IterKind::DictKeys | IterKind::DictItems) => {
            Err(err!(Type, "unhashable type: '{}'", v.type_name()))
        }
        Value::Tuple(items) => items.iter().try_for_each(hashable),
        _ => Ok(()),
    }
}

/// Python `item in container`: substring for strings, key for dicts, element otherwise;
/// nothing is in an undefined.
pub(crate) fn contains<'a>(
    ctx: &Ctx<'a>,
    container: Value<'a>,
    item: Value<'a>,
) -> Result<bool, Error> {
    let _ = ctx;
    let (container, item) = (container.demark(), item.demark());
    if let Some(m) = MapRef::of(&container) {
        hashable(&item)?;
        return Ok(m.get(&item).is_some());
    }
    if let Some(s) = SeqRef::of(&container, true) {
        budget::charge_items(s.len())?;
        return Ok((0..s.len()).any(|i| s.get(i).is_some_and(|x| eq(&x, &item))));
    }
    match container {
        Value::Str(h) => match item {
            Value::Str(n) => {
                budget::charge_bytes(h.len())?;
                Ok(h.contains(n))
            }
            other => Err(err!(
                Type,
                "'in <string>' requires string as left operand, not {}",
                other.type_name()
            )),
        },
        Value::Undefined(_) => Ok(false),
        Value::Iter(s) => {
            if s.kind == IterKind::DictKeys {
                hashable(&item)?;
            }
            budget::charge_items(s.items.len())?;
            Ok(s.items.iter().any(|x| eq(x, &item)))
        }
        Value::Loop(l) => Ok(budget::spend_items(l.items.len())
            && l.items
                .get(l.index0.get() + 1..)
                .unwrap_or(&[])
                .iter()
                .any(|x| eq(x, &item))),
        other => Err(err!(
            Type,
            "argument of type '{}' is not iterable",
            other.type_name()
        )),
    }
}

// ---------------------------------------------------------------------------------------
// Attributes and items

/// `obj.name`: the attribute (methods included) first, then the item. A missing one is an
/// undefined that remembers what was missing; one the sandbox refuses is an undefined whose
/// use raises `SecurityError` (see [`undefined_error`]).
pub(crate) fn getattr<'a>(ctx: &Ctx<'a>, obj: Value<'a>, name: &'a str) -> VResult<'a> {
    if obj.is_undefined() {
        return Err(undefined_error(&obj));
    }
    if let Some(v) = attribute(ctx, obj, name) {
        return Ok(v);
    }
    if let Some(v) = str_item(ctx, obj, name) {
        return Ok(v);
    }
    Ok(missing_attr(ctx, &obj, name))
}

/// `obj[key]`: the item first, then, for a string key, the attribute.
pub(crate) fn getitem<'a>(ctx: &Ctx<'a>, obj: Value<'a>, key: Value<'a>) -> VResult<'a> {
    if obj.is_undefined() {
        return Err(undefined_error(&obj));
    }
    let key = key.demark();
    if let Value::Str(name) = key {
        if let Some(v) = str_item(ctx, obj, name) {
            return Ok(v);
        }
        if let Some(v) = attribute(ctx, obj, name) {
            return Ok(v);
        }
        return Ok(missing_attr(ctx, &obj, name));
    }
    let found = match index_of(&key) {
        Some(i) => {
            if let Value::Iter(super::Seq {
                kind: IterKind::Range { .. },
                items,
            }) = obj
            {
                resolve_index(i, items.len()).and_then(|i| items.get(i).copied())
            } else if let Some(s) = SeqRef::of(&obj, true) {
                resolve_index(i, s.len()).and_then(|i| s.get_in(i, ctx))
            } else if let Value::Str(s) = obj {
                str_char(s, i)
            } else if let Value::Markup(s) = obj {
                str_char(s, i).map(|c| super::markup::wrap(ctx, c))
            } else if let Some(m) = MapRef::of(&obj) {
                m.get(&key)
            } else {
                None
            }
        }
        None => match MapRef::of(&obj) {
            Some(m) if hashable(&key).is_ok() => m.get(&key),
            _ => None,
        },
    };
    Ok(found.unwrap_or_else(|| {
        Value::Undefined(Some(ctx.arena.alloc(UndefInfo::Item {
            obj: obj_type_repr(&obj),
            key,
        })))
    }))
}

/// An integer subscript (`True` is 1); big ints are out of any range (a position far
/// beyond any length, which slices clamp and items do not find, as Python's lookups that
/// cannot fit the int into an index end in an `IndexError`).
fn index_of(key: &Value<'_>) -> Option<i128> {
    match *key {
        Value::Int(i) => Some(i128::from(i)),
        Value::Bool(b) => Some(i128::from(b)),
        Value::Big(b) if b.is_negative() => Some(i128::MIN / 2),
        Value::Big(_) => Some(i128::MAX / 2),
        _ => None,
    }
}

/// A Python index (negative counts from the end) as a position in `0..len`.
fn resolve_index(i: i128, len: usize) -> Option<usize> {
    let len = len as i128;
    let i = if i < 0 { i + len } else { i };
    if (0..len).contains(&i) {
        usize::try_from(i).ok()
    } else {
        None
    }
}

/// Character `i` of `s` (by code point), as a borrowed one-character string.
fn str_char(s: &str, i: i128) -> Option<Value<'_>> {
    if s.is_ascii() {
        let i = resolve_index(i, s.len())?;
        return s.get(i..i + 1).map(Value::Str);
    }
    let i = resolve_index(i, s.chars().count())?;
    let (at, c) = s.char_indices().nth(i)?;
    s.get(at..at + c.len_utf8()).map(Value::Str)
}

/// `obj['name']` without the attribute fallback: dict keys and namespace attributes.
#[inline]
/// `o[key]`. Chat messages and tool schemas are small objects: comparing a handful of keys
/// beats hashing the key (serde_json's map hashes with SipHash).
pub(crate) fn json_get<'j>(
    o: &'j serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'j serde_json::Value> {
    if o.len() <= 16 {
        o.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        o.get(key)
    }
}

fn str_item<'a>(ctx: &Ctx<'a>, obj: Value<'a>, name: &str) -> Option<Value<'a>> {
    match obj {
        Value::Json(serde_json::Value::Object(o)) => {
            json_get(o, name).map(|v| Value::from_json_in(v, ctx))
        }
        Value::Dict(d) => MapRef::Dict(d).get_str(name, ctx),
        Value::Ns(ns) => ns.get(name),
        _ => None,
    }
}

/// The undefined for a missing attribute `name` of `obj`.
fn missing_attr<'a>(ctx: &Ctx<'a>, obj: &Value<'a>, name: &'a str) -> Value<'a> {
    Value::Undefined(Some(ctx.arena.alloc(UndefInfo::Attr {
        obj: obj_type_repr(obj),
        name,
    })))
}

/// An undefined whose use raises `UndefinedError` with `hint` as its whole message, like
/// jinja2's `loop.previtem` on the first iteration ("there is no previous item").
pub(crate) fn undefined_hint<'a>(ctx: &Ctx<'a>, hint: &'a str) -> Value<'a> {
    // An empty object description marks a hint (see `undefined_error`).
    Value::Undefined(Some(ctx.arena.alloc(UndefInfo::Attr {
        obj: "",
        name: hint,
    })))
}

/// Python's `getattr(obj, name)` as the sandbox filters it: `None` when the object has no
/// such attribute (then the item is tried).
fn attribute<'a>(ctx: &Ctx<'a>, obj: Value<'a>, name: &'a str) -> Option<Value<'a>> {
    if name.starts_with('_') {
        // Every name starting with `_` is unsafe; Python only gets that far when the
        // attribute exists (the dunders), else it falls back to the item.
        return is_dunder(name).then(|| missing_attr(ctx, &obj, name));
    }
    if super::methods::is_mutator(&obj, name) {
        return Some(missing_attr(ctx, &obj, name));
    }
    if super::methods::has_method(&obj, name) {
        return Some(ctx.callable(Callable::Method { recv: obj, name }));
    }
    match obj {
        Value::Tuple(t) if ctx.is_group_tuple(t) => match name {
            "grouper" => t.first().copied(),
            "list" => t.get(1).copied(),
            _ => None,
        },
        Value::Loop(l) => loop_attr(ctx, l, name),
        Value::Ns(ns) => ns.get(name),
        Value::Bool(_) | Value::Int(_) | Value::Big(_) => match name {
            "real" | "numerator" => match obj {
                Value::Bool(b) => Some(Value::Int(i64::from(b))),
                other => Some(other),
            },
            "imag" => Some(Value::Int(0)),
            "denominator" => Some(Value::Int(1)),
            _ => None,
        },
        Value::Float(f) => match name {
            "real" => Some(Value::Float(f)),
            "imag" => Some(Value::Float(0.0)),
            _ => None,
        },
        _ => None,
    }
}

/// The attributes of `loop`.
fn loop_attr<'a>(ctx: &Ctx<'a>, l: &'a LoopState<'a>, name: &str) -> Option<Value<'a>> {
    let i = l.index0.get();
    let len = l.items.len();
    let int = |n: usize| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
    Some(match name {
        "index" => int(i + 1),
        "index0" => int(i),
        "revindex" => int(len.saturating_sub(i)),
        "revindex0" => int(len.saturating_sub(i + 1)),
        "first" => Value::Bool(i == 0),
        "last" => Value::Bool(i + 1 >= len),
        "length" => int(len),
        "depth" => int(l.depth),
        "depth0" => int(l.depth.saturating_sub(1)),
        "previtem" => match i.checked_sub(1).and_then(|p| l.items.get(p)) {
            Some(v) => *v,
            None => undefined_hint(ctx, "there is no previous item"),
        },
        "nextitem" => match l.items.get(i + 1) {
            Some(v) => *v,
            None => undefined_hint(ctx, "there is no next item"),
        },
        "cycle" => ctx.callable(Callable::Cycle(l)),
        _ => return None,
    })
}

/// Whether `name` is a dunder attribute that Python objects of the template's types have.
fn is_dunder(name: &str) -> bool {
    DUNDERS.binary_search(&name).is_ok()
}

/// The dunder attributes of str, int, float, bool, None, list, tuple, dict, its views,
/// generators, functions, methods, `LoopContext` and `Macro` (Python 3.11), sorted.
static DUNDERS: &[&str] = &[
    "__abs__",
    "__add__",
    "__and__",
    "__annotations__",
    "__bool__",
    "__builtins__",
    "__call__",
    "__ceil__",
    "__class__",
    "__class_getitem__",
    "__closure__",
    "__code__",
    "__contains__",
    "__defaults__",
    "__del__",
    "__delattr__",
    "__delitem__",
    "__dict__",
    "__dir__",
    "__divmod__",
    "__doc__",
    "__eq__",
    "__float__",
    "__floor__",
    "__floordiv__",
    "__format__",
    "__ge__",
    "__get__",
    "__getattribute__",
    "__getformat__",
    "__getitem__",
    "__getnewargs__",
    "__getstate__",
    "__globals__",
    "__gt__",
    "__hash__",
    "__iadd__",
    "__imul__",
    "__index__",
    "__init__",
    "__init_subclass__",
    "__int__",
    "__invert__",
    "__ior__",
    "__iter__",
    "__kwdefaults__",
    "__le__",
    "__len__",
    "__length_hint__",
    "__lshift__",
    "__lt__",
    "__mod__",
    "__module__",
    "__mul__",
    "__name__",
    "__ne__",
    "__neg__",
    "__new__",
    "__next__",
    "__or__",
    "__pos__",
    "__pow__",
    "__qualname__",
    "__radd__",
    "__rand__",
    "__rdivmod__",
    "__reduce__",
    "__reduce_ex__",
    "__repr__",
    "__reversed__",
    "__rfloordiv__",
    "__rlshift__",
    "__rmod__",
    "__rmul__",
    "__ror__",
    "__round__",
    "__rpow__",
    "__rrshift__",
    "__rshift__",
    "__rsub__",
    "__rtruediv__",
    "__rxor__",
    "__self__",
    "__setattr__",
    "__setitem__",
    "__setstate__",
    "__sizeof__",
    "__str__",
    "__sub__",
    "__subclasshook__",
    "__text_signature__",
    "__truediv__",
    "__trunc__",
    "__weakref__",
    "__xor__",
];

/// jinja2's `object_type_repr`: `dict object`, `None`, `jinja2.runtime.LoopContext object`.
pub(crate) fn obj_type_repr(v: &Value<'_>) -> &'static str {
    match v {
        Value::Undefined(_) => "jinja2.runtime.Undefined object",
        Value::None => "None",
        Value::Bool(_) => "bool object",
        Value::Int(_) | Value::Big(_) => "int object",
        Value::Float(_) => "float object",
        Value::Str(_) => "str object",
        Value::Markup(_) => "markupsafe.Markup object",
        Value::List(_) | Value::Json(serde_json::Value::Array(_)) => "list object",
        Value::Tuple(_) => "tuple object",
        Value::Dict(_) | Value::Json(_) => "dict object",
        Value::Iter(s) => match s.kind {
            IterKind::Generator => "generator object",
            IterKind::DictItems => "dict_items object",
            IterKind::DictKeys => "dict_keys object",
            IterKind::DictValues => "dict_values object",
            IterKind::ListReverse => "list_reverseiterator object",
            IterKind::Range { .. } => "range object",
            IterKind::RangeReverse => "range_iterator object",
        },
        Value::Ns(_) => "transformers.utils.chat_template_utils.TemplateNamespace object",
        Value::Loop(_) => "jinja2.runtime.LoopContext object",
        Value::Callable(c) => match c {
            Callable::Macro { .. } => "jinja2.runtime.Macro object",
            Callable::Method { .. } => "builtin_function_or_method object",
            Callable::Global(g) => match g {
                crate::value::Global::Namespace
                | crate::value::Global::Cycler
                | crate::value::Global::Joiner => "type object",
                crate::value::Global::Dict => {
                    "transformers.utils.chat_template_utils.TemplateDict object"
                }
                crate::value::Global::SelfRef => "jinja2.runtime.TemplateReference object",
                _ => "function object",
            },
            Callable::Cycle(_) => "method object",
        },
    }
}

/// The Python type name inside an `object_type_repr`: `dict object` → `dict`.
fn type_of_repr(obj: &str) -> &str {
    if obj == "None" {
        return "NoneType";
    }
    let obj = obj.strip_suffix(" object").unwrap_or(obj);
    obj.rsplit('.').next().unwrap_or(obj)
}

/// The error that using an undefined value raises: jinja2's `UndefinedError` message, or
/// the sandbox's `SecurityError` for an attribute it refused.
pub(crate) fn undefined_error(v: &Value<'_>) -> Error {
    match v {
        Value::Undefined(Some(UndefInfo::Name(n))) => {
            let mut m = String::new();
            write_str_repr(&mut m, n);
            m.push_str(" is undefined");
            Error::new(crate::error::ErrorKind::Undefined, m)
        }
        Value::Undefined(Some(UndefInfo::Attr { obj: "", name })) => {
            Error::new(crate::error::ErrorKind::Undefined, *name)
        }
        Value::Undefined(Some(UndefInfo::Attr { obj, name })) => {
            let ty = type_of_repr(obj);
            let unsafe_attr = (name.starts_with('_') && is_dunder(name))
                || super::methods::is_type_mutator(ty, name);
            if unsafe_attr {
                return err!(
                    Security,
                    "access to attribute '{name}' of '{ty}' object is unsafe."
                );
            }
            no_attribute(obj, name)
        }
        Value::Undefined(Some(UndefInfo::Item { obj, key })) => {
            if let Value::Str(name) = key {
                return no_attribute(obj, name);
            }
            let mut m = String::new();
            m.push_str(obj);
            m.push_str(" has no element ");
            super::fmt::write_repr(&mut m, key);
            Error::new(crate::error::ErrorKind::Undefined, m)
        }
        _ => err!(Undefined, "'undefined' is undefined"),
    }
}

/// `'dict object' has no attribute 'x'`, with Python's quoting of both.
fn no_attribute(obj: &str, name: &str) -> Error {
    let mut m = String::new();
    write_str_repr(&mut m, obj);
    m.push_str(" has no attribute ");
    write_str_repr(&mut m, name);
    Error::new(crate::error::ErrorKind::Undefined, m)
}

// ---------------------------------------------------------------------------------------
// Slicing

/// `obj[start:stop:step]`; absent bounds are `Value::None`. jinja2 compiles a slice to a
/// plain Python subscript, so its errors are Python's, not an undefined: `None[1:]` is
/// "'NoneType' object is not subscriptable", a dict gives "unhashable type: 'slice'".
/// Strings slice by code point; a step-1 slice of a string or a template list borrows.
pub(crate) fn slice<'a>(
    ctx: &Ctx<'a>,
    obj: Value<'a>,
    start: Value<'a>,
    stop: Value<'a>,
    step: Value<'a>,
) -> VResult<'a> {
    if let Value::Markup(s) = obj {
        let r = slice(ctx, Value::Str(s), start, stop, step)?;
        return Ok(super::markup::wrap(ctx, r));
    }
    if let Value::Iter(super::Seq {
        kind:
            IterKind::Range {
                start: rs,
                step: rst,
                ..
            },
        items,
    }) = obj
    {
        return slice_range(ctx, items, (*rs, *rst), start, stop, step);
    }
    let len = match obj {
        Value::Undefined(_) => return Err(undefined_error(&obj)),
        Value::Str(s) if s.is_ascii() => s.len(),
        Value::Str(s) => s.chars().count(),
        Value::List(l) | Value::Tuple(l) => l.len(),
        Value::Json(serde_json::Value::Array(a)) => a.len(),
        Value::Dict(_) | Value::Json(_) => return Err(err!(Type, "unhashable type: 'slice'")),
        _ => {
            return Err(err!(
                Type,
                "'{}' object is not subscriptable",
                obj.type_name()
            ))
        }
    };
    let (start, step, count) = slice_indices(len, start, stop, step)?;
    // Positions picked: start, start + step, ... (count of them), all within 0..len.
    let pick = move |k: usize| -> usize {
        let p = start + step * k as i128;
        usize::try_from(p).unwrap_or(0)
    };
    match obj {
        Value::Str(s) => {
            if count == 0 {
                return Ok(Value::Str(""));
            }
            if s.is_ascii() {
                if step == 1 {
                    let a = pick(0);
                    return Ok(Value::Str(s.get(a..a + count).unwrap_or("")));
                }
                let bytes = s.as_bytes();
                let mut out = bumpalo::collections::String::with_capacity_in(count, ctx.arena);
                for k in 0..count {
                    if let Some(b) = bytes.get(pick(k)) {
                        out.push(char::from(*b));
                    }
                }
                return Ok(Value::Str(out.into_bump_str()));
            }
            if step == 1 {
                let a = pick(0);
                let mut bounds = s.char_indices().map(|(i, _)| i).chain([s.len()]);
                let from = bounds.nth(a).unwrap_or(s.len());
                let to = bounds.nth(count - 1).unwrap_or(s.len());
                return Ok(Value::Str(s.get(from..to).unwrap_or("")));
            }
            let chars: Vec<char> = s.chars().collect();
            let mut out = bumpalo::collections::String::new_in(ctx.arena);
            for k in 0..count {
                if let Some(c) = chars.get(pick(k)) {
                    out.push(*c);
                }
            }
            Ok(Value::Str(out.into_bump_str()))
        }
        Value::List(l) | Value::Tuple(l) if step == 1 => {
            let a = pick(0);
            let items = l.get(a..a + count).unwrap_or(&[]);
            Ok(match obj {
                Value::Tuple(_) => Value::Tuple(items),
                _ => Value::List(items),
            })
        }
        _ => {
            let Some(seq) = SeqRef::of(&obj, true) else {
                return Ok(Value::UNDEFINED);
            };
            let items = ctx.slice((0..count).filter_map(|k| seq.get_in(pick(k), ctx)));
            Ok(match obj {
                Value::Tuple(_) => Value::Tuple(items),
                _ => Value::List(items),
            })
        }
    }
}

/// Python's `slice(start, stop, step).indices(len)` reduced to (first position, step,
/// number of items).
fn slice_indices(
    len: usize,
    start: Value<'_>,
    stop: Value<'_>,
    step: Value<'_>,
) -> Result<(i128, i128, usize), Error> {
    let (start, stop, step) = slice_bounds(len, start, stop, step)?;
    let count = if step > 0 && start < stop {
        (stop - start - 1) / step + 1
    } else if step < 0 && stop < start {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    Ok((start, step, usize::try_from(count).unwrap_or(0)))
}

/// Python's `slice(start, stop, step).indices(len)`.
fn slice_bounds(
    len: usize,
    start: Value<'_>,
    stop: Value<'_>,
    step: Value<'_>,
) -> Result<(i128, i128, i128), Error> {
    /// A slice bound: `None`, or an integer.
    fn bound(v: &Value<'_>) -> Result<Option<i128>, Error> {
        match v {
            Value::None => Ok(None),
            other => index_of(other).map(Some).ok_or_else(|| {
                err!(
                    Type,
                    "slice indices must be integers or None or have an __index__ method"
                )
            }),
        }
    }
    let step = match bound(&step)? {
        None => 1,
        Some(0) => return Err(err!(Value, "slice step cannot be zero")),
        // Python clamps the step to the platform's size range; so do we, harmlessly.
        Some(s) => s.clamp(-(i64::MAX as i128), i64::MAX as i128),
    };
    let len = len as i128;
    let adjust = |b: Option<i128>, default: i128| -> i128 {
        match b {
            None => default,
            Some(mut i) => {
                if i < 0 {
                    i += len;
                    if i < 0 {
                        i = if step < 0 { -1 } else { 0 };
                    }
                } else if i >= len {
                    i = if step < 0 { len - 1 } else { len };
                }
                i
            }
        }
    };
    let (start, stop) = if step > 0 {
        (adjust(bound(&start)?, 0), adjust(bound(&stop)?, len))
    } else {
        (adjust(bound(&start)?, len - 1), adjust(bound(&stop)?, -1))
    };
    Ok((start, stop, step))
}

/// `range[start:stop:step]`: a range again, as Python computes it.
fn slice_range<'a>(
    ctx: &Ctx<'a>,
    items: &'a [Value<'a>],
    (r_start, r_step): (i64, i64),
    start: Value<'a>,
    stop: Value<'a>,
    step: Value<'a>,
) -> VResult<'a> {
    let (s0, s1, st) = slice_bounds(items.len(), start, stop, step)?;
    let (_, _, count) = slice_indices(items.len(), start, stop, step)?;
    let (rs, rst) = (i128::from(r_start), i128::from(r_step));
    let clamp = |v: i128| v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    let new_start = clamp(rs + s0 * rst);
    let new_stop = clamp(rs + s1 * rst);
    let new_step = clamp(st * rst);
    let first = usize::try_from(s0).unwrap_or(0);
    let picked = (0..count).filter_map(|k| {
        let p = first as i128 + st * k as i128;
        usize::try_from(p).ok().and_then(|p| items.get(p)).copied()
    });
    let picked = ctx.slice(picked);
    Ok(ctx.iter(
        IterKind::Range {
            start: new_start,
            stop: new_stop,
            step: new_step,
        },
        picked,
    ))
}

// ---------------------------------------------------------------------------------------
// Iteration and length

/// The items `for x in v` visits. Undefined iterates as empty; dicts yield their keys;
/// strings their characters. Template lists, tuples and materialized iterables are returned
/// as they are; JSON arrays, dicts and strings are materialized in the arena.
pub(crate) fn iterate<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> Result<&'a [Value<'a>], Error> {
    match v {
        Value::Undefined(_) => Ok(&[]),
        Value::List(l) | Value::Tuple(l) => Ok(l),
        Value::Iter(s) => Ok(s.items),
        Value::Loop(l) => Ok(l.items.get(l.index0.get() + 1..).unwrap_or(&[])),
        _ => Ok(ctx.slice(items(ctx, v)?)),
    }
}

/// An allocation-free iterator over what `for x in v` visits (see [`items`]).
pub(crate) enum Items<'c, 'a> {
    /// Items already in the arena.
    Values(std::slice::Iter<'a, Value<'a>>),
    /// A JSON array's elements.
    Json(&'c Ctx<'a>, std::slice::Iter<'a, serde_json::Value>),
    /// A template dict's keys.
    DictKeys(std::slice::Iter<'a, (Value<'a>, Value<'a>)>),
    /// A JSON object's keys.
    JsonKeys(serde_json::map::Keys<'a>),
    /// A string's characters, each a borrowed one-character string.
    Chars(&'a str, std::str::CharIndices<'a>),
}

impl<'a> Iterator for Items<'_, 'a> {
    type Item = Value<'a>;

    #[inline]
    fn next(&mut self) -> Option<Value<'a>> {
        match self {
            Items::Values(it) => it.next().copied(),
            Items::Json(ctx, it) => it.next().map(|x| Value::from_json_in(x, ctx)),
            Items::DictKeys(it) => it.next().map(|(k, _)| *k),
            Items::JsonKeys(it) => it.next().map(|k| Value::Str(k.as_str())),
            Items::Chars(s, it) => it
                .next()
                .and_then(|(i, c)| s.get(i..i + c.len_utf8()))
                .map(Value::Str),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Items::Values(it) => it.size_hint(),
            Items::Json(_, it) => it.size_hint(),
            Items::DictKeys(it) => it.size_hint(),
            Items::JsonKeys(it) => it.size_hint(),
            Items::Chars(_, it) => it.size_hint(),
        }
    }
}

/// Iterates `v` without materializing it; `TypeError: 'int' object is not iterable` for
/// what Python cannot iterate.
pub(crate) fn items<'c, 'a>(ctx: &'c Ctx<'a>, v: Value<'a>) -> Result<Items<'c, 'a>, Error> {
    Ok(match v {
        Value::Undefined(_) => Items::Values([].iter()),
        Value::List(l) | Value::Tuple(l) => Items::Values(l.iter()),
        Value::Iter(s) => Items::Values(s.items.iter()),
        Value::Loop(l) => Items::Values(l.items.get(l.index0.get() + 1..).unwrap_or(&[]).iter()),
        Value::Dict(d) => Items::DictKeys(d.iter()),
        Value::Json(serde_json::Value::Array(a)) => Items::Json(ctx, a.iter()),
        Value::Json(serde_json::Value::Object(o)) => Items::JsonKeys(o.keys()),
        Value::Str(s) | Value::Markup(s) => Items::Chars(s, s.char_indices()),
        _ => return Err(err!(Type, "'{}' object is not iterable", v.type_name())),
    })
}

/// Python `len(v)`; an undefined has length 0.
pub(crate) fn length(v: &Value<'_>) -> Result<usize, Error> {
    match v {
        Value::Undefined(_) => Ok(0),
        Value::Str(s) | Value::Markup(s) if s.is_ascii() => Ok(s.len()),
        Value::Str(s) | Value::Markup(s) => Ok(s.chars().count()),
        Value::List(l) | Value::Tuple(l) => Ok(l.len()),
        Value::Dict(d) => Ok(d.len()),
        Value::Json(serde_json::Value::Array(a)) => Ok(a.len()),
        Value::Json(serde_json::Value::Object(o)) => Ok(o.len()),
        Value::Iter(s)
            if !matches!(
                s.kind,
                IterKind::Generator | IterKind::ListReverse | IterKind::RangeReverse
            ) =>
        {
            Ok(s.items.len())
        }
        Value::Loop(l) => Ok(l.items.len()),
        _ => Err(err!(
            Type,
            "object of type '{}' has no len()",
            v.type_name()
        )),
    }
}

#[cfg(test)]
mod tests {
    //! Expected results come from probing transformers' environment (jinja2 3.1.6, Python
    //! 3.11): `{{ expr }}` renders `str()` of the result; errors are shown as
    //! `Kind: message`.

    use std::cell::Cell;

    use bumpalo::Bump;

    use super::*;

    /// A context over `bump`.
    fn ctx(bump: &Bump) -> Ctx<'_> {
        Ctx::for_tests(bump)
    }

    /// `str(v)`, or `Kind: message` for an error.
    fn show(r: Result<Value<'_>, Error>) -> String {
        match r {
            Ok(v) => {
                let mut s = String::new();
                crate::value::fmt::write_str(&mut s, &v);
                s
            }
            Err(e) => format!("{:?}: {}", e.kind(), e.message()),
        }
    }

    /// `Kind: message` of an error, or `ok`.
    fn show_err<T>(r: Result<T, Error>) -> String {
        match r {
            Ok(_) => "ok".to_string(),
            Err(e) => format!("{:?}: {}", e.kind(), e.message()),
        }
    }

    /// The caller's JSON for `{{ d }}`-style probes.
    fn json(src: &str) -> serde_json::Value {
        serde_json::from_str(src).unwrap_or_default()
    }

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
            (Div, i(1), i(0), "Value: division by zero"),
            (
                FloorDiv,
                i(1),
                i(0),
                "Value: integer division or modulo by zero",
            ),
            (Mod, i(1), i(0), "Value: integer modulo by zero"),
            (Div, f(1.0), i(0), "Value: float division by zero"),
            (Mod, f(1.5), i(0), "Value: float modulo"),
            (
                FloorDiv,
                f(1.5),
                i(0),
                "Value: float floor division by zero",
            ),
            (
                FloorDiv,
                i(1),
                f(0.0),
                "Value: float floor division by zero",
            ),
            (
                Pow,
                i(0),
                i(-1),
                "Value: 0.0 cannot be raised to a negative power",
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
            (Mod, p200, i(0), "Value: integer modulo by zero"),
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

    #[test]
    fn membership() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let d = json(r#"{"items": 1, "a": 2}"#);
        let d = Value::Json(&d);
        let l = json("[1, 2, 3]");
        let l = Value::Json(&l);
        let x = Value::Undefined(Some(c.arena.alloc(UndefInfo::Name("x"))));
        let yes = |cont, item| contains(&c, cont, item).ok();
        assert_eq!(yes(Value::Str("items"), Value::Str("it")), Some(true));
        assert_eq!(yes(d, Value::Str("a")), Some(true));
        assert_eq!(yes(d, Value::Int(1)), Some(false));
        assert_eq!(yes(x, Value::Int(1)), Some(false));
        assert_eq!(yes(l, x), Some(false));
        assert_eq!(yes(l, Value::Float(2.0)), Some(true));
        assert_eq!(
            yes(c.list([c.list([Value::Int(1)])]), c.list([Value::Int(1)])),
            Some(true)
        );
        let dict = Value::Dict(c.arena.alloc([(Value::Int(1), Value::Str("a"))]));
        assert_eq!(yes(dict, Value::Bool(true)), Some(true));
        let vals = c.iter(
            IterKind::DictValues,
            c.slice([Value::Int(1), Value::Int(2)]),
        );
        assert_eq!(yes(vals, Value::Int(2)), Some(true));
        let errs: &[(Value<'_>, Value<'_>, &str)] = &[
            (
                Value::Int(1),
                Value::Str("a"),
                "Type: argument of type 'int' is not iterable",
            ),
            (
                Value::Str("abc"),
                Value::Int(1),
                "Type: 'in <string>' requires string as left operand, not int",
            ),
            (
                Value::Str("abc"),
                Value::None,
                "Type: 'in <string>' requires string as left operand, not NoneType",
            ),
            (d, c.list([Value::Int(1)]), "Type: unhashable type: 'list'"),
            (
                d,
                Value::Tuple(c.slice([Value::Int(1), c.list([])])),
                "Type: unhashable type: 'list'",
            ),
            (
                Value::Ns(c.namespace()),
                Value::Str("a"),
                "Type: argument of type 'TemplateNamespace' is not iterable",
            ),
        ];
        for (cont, item, want) in errs {
            assert_eq!(show_err(contains(&c, *cont, *item)), *want);
        }
    }

    #[test]
    fn attributes_before_keys() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let j = json(r#"{"items": 1, "a": 2, "_x": 3, "__class__": 4}"#);
        let d = Value::Json(&j);
        // `d.items` is the method even though the key exists; `d['items']` is the key.
        let m = getattr(&c, d, "items");
        assert!(matches!(
            m,
            Ok(Value::Callable(Callable::Method { name: "items", .. }))
        ));
        assert_eq!(show(getitem(&c, d, Value::Str("items"))), "1");
        assert_eq!(show(getattr(&c, d, "a")), "2");
        // A `_` name that is no Python attribute falls back to the key...
        assert_eq!(show(getattr(&c, d, "_x")), "3");
        // ... but a real dunder is found first and refused by the sandbox.
        let class = getattr(&c, d, "__class__").unwrap_or(Value::None);
        assert_eq!(show(Ok(class)), "");
        assert_eq!(
            show_err::<()>(Err(undefined_error(&class))),
            "Security: access to attribute '__class__' of 'dict' object is unsafe."
        );
        assert_eq!(show(getitem(&c, d, Value::Str("__class__"))), "4");
        let empty = json("{}");
        let class = getitem(&c, Value::Json(&empty), Value::Str("__class__"));
        assert!(matches!(class, Ok(Value::Undefined(_))));
        // Mutators are refused: printing gives nothing, using raises SecurityError.
        let l = json("[1, 2, 3]");
        for name in ["append", "pop", "clear"] {
            let v = getattr(&c, Value::Json(&l), name).unwrap_or(Value::None);
            assert!(v.is_undefined());
            assert_eq!(
                show_err::<()>(Err(undefined_error(&v))),
                format!("Security: access to attribute '{name}' of 'list' object is unsafe.")
            );
        }
        let pop = getattr(&c, d, "setdefault").unwrap_or(Value::None);
        assert_eq!(
            show_err::<()>(Err(undefined_error(&pop))),
            "Security: access to attribute 'setdefault' of 'dict' object is unsafe."
        );
        // Missing attributes remember what was missing.
        let missing = getattr(&c, d, "x").unwrap_or(Value::None);
        assert!(!missing.is_true());
        assert_eq!(
            show_err::<()>(Err(undefined_error(&missing))),
            "Undefined: 'dict object' has no attribute 'x'"
        );
        let none_attr = getattr(&c, Value::None, "foo").unwrap_or(Value::Int(0));
        assert!(none_attr.is_undefined());
        assert_eq!(
            show_err::<()>(Err(undefined_error(&none_attr))),
            "Undefined: 'None' has no attribute 'foo'"
        );
        let x = Value::Undefined(Some(c.arena.alloc(UndefInfo::Name("x"))));
        assert_eq!(show(getattr(&c, x, "y")), "Undefined: 'x' is undefined");
        assert_eq!(
            show(getitem(&c, x, Value::Int(0))),
            "Undefined: 'x' is undefined"
        );
        // Numbers have their few data attributes.
        assert_eq!(show(getattr(&c, Value::Int(1), "real")), "1");
        assert_eq!(show(getattr(&c, Value::Float(1.5), "imag")), "0.0");
        assert_eq!(show(getattr(&c, Value::Bool(true), "numerator")), "1");
        // Namespaces: attributes, also by subscript.
        let ns = c.namespace();
        ns.set("a", Value::Int(1));
        assert_eq!(show(getattr(&c, Value::Ns(ns), "a")), "1");
        assert_eq!(show(getitem(&c, Value::Ns(ns), Value::Str("a"))), "1");
        let b = getattr(&c, Value::Ns(ns), "b").unwrap_or(Value::None);
        assert_eq!(
            show_err::<()>(Err(undefined_error(&b))),
            "Undefined: 'transformers.utils.chat_template_utils.TemplateNamespace object' has no attribute 'b'"
        );
    }

    #[test]
    fn items_by_key_and_index() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let l = json("[1, 2, 3]");
        let l = Value::Json(&l);
        let get = |obj, key| show(getitem(&c, obj, key));
        assert_eq!(get(l, Value::Bool(true)), "2");
        assert_eq!(get(l, Value::Int(-1)), "3");
        assert_eq!(get(l, Value::Int(10)), "");
        assert_eq!(get(l, Value::Float(1.0)), "");
        assert_eq!(get(l, Value::Str("a")), "");
        assert_eq!(get(Value::Str("abc"), Value::Int(1)), "b");
        assert_eq!(get(Value::Str("abc"), Value::Int(-1)), "c");
        assert_eq!(get(Value::Str("abc"), Value::Int(5)), "");
        assert_eq!(get(Value::Str("héllo"), Value::Int(1)), "é");
        let dict = Value::Dict(c.arena.alloc([(Value::Int(1), Value::Str("a"))]));
        assert_eq!(get(dict, Value::Bool(true)), "a");
        assert_eq!(get(dict, Value::Float(1.0)), "a");
        let dict = Value::Dict(c.arena.alloc([(Value::Bool(true), Value::Str("a"))]));
        assert_eq!(get(dict, Value::Int(1)), "a");
        let err = |v: VResult<'_>| show_err::<()>(Err(undefined_error(&v.unwrap_or(Value::None))));
        assert_eq!(
            err(getitem(&c, l, Value::Int(10))),
            "Undefined: list object has no element 10"
        );
        assert_eq!(
            err(getitem(&c, l, Value::Str("a"))),
            "Undefined: 'list object' has no attribute 'a'"
        );
        let d = json(r#"{"a": 1}"#);
        assert_eq!(
            err(getitem(&c, Value::Json(&d), Value::Int(1))),
            "Undefined: dict object has no element 1"
        );
        assert_eq!(
            err(getitem(&c, Value::Json(&d), Value::Str("x"))),
            "Undefined: 'dict object' has no attribute 'x'"
        );
        // A string key that is no key finds the attribute: `{}['items']` is the method.
        let m = getitem(&c, Value::Dict(&[]), Value::Str("items"));
        assert!(matches!(m, Ok(Value::Callable(_))));
    }

    #[test]
    fn loop_attributes() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let items = [Value::Int(1), Value::Int(2), Value::Int(3)];
        let l = c.arena.alloc(LoopState {
            items: &items,
            index0: Cell::new(0),
            depth: 1,
            changed: Cell::new(None),
        });
        let names = [
            "index",
            "revindex",
            "revindex0",
            "first",
            "last",
            "length",
            "depth",
            "depth0",
            "previtem",
            "nextitem",
        ];
        let mut rows = Vec::new();
        for i in 0..3 {
            l.index0.set(i);
            let row: String = names
                .iter()
                .map(|n| show(getattr(&c, Value::Loop(l), n)))
                .collect();
            rows.push(row);
        }
        // `{{ loop.index }}{{ loop.revindex }}...{{ loop.previtem }}{{ loop.nextitem }}`
        assert_eq!(
            rows,
            ["132TrueFalse3102", "221FalseFalse31013", "310FalseTrue3102"]
        );
        l.index0.set(0);
        let prev = getattr(&c, Value::Loop(l), "previtem").unwrap_or(Value::None);
        assert!(prev.is_undefined());
        assert_eq!(
            show_err::<()>(Err(undefined_error(&prev))),
            "Undefined: there is no previous item"
        );
        l.index0.set(2);
        let next = getattr(&c, Value::Loop(l), "nextitem").unwrap_or(Value::None);
        assert_eq!(
            show_err::<()>(Err(undefined_error(&next))),
            "Undefined: there is no next item"
        );
        assert!(matches!(
            getattr(&c, Value::Loop(l), "cycle"),
            Ok(Value::Callable(Callable::Cycle(_)))
        ));
        assert_eq!(show(getitem(&c, Value::Loop(l), Value::Str("index"))), "3");
        let foo = getattr(&c, Value::Loop(l), "foo").unwrap_or(Value::None);
        assert_eq!(
            show_err::<()>(Err(undefined_error(&foo))),
            "Undefined: 'jinja2.runtime.LoopContext object' has no attribute 'foo'"
        );
        assert_eq!(length(&Value::Loop(l)).ok(), Some(3));
    }

    #[test]
    fn slicing() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let (n, i) = (Value::None, Value::Int);
        let l = json("[1, 2, 3]");
        let l = Value::Json(&l);
        let sl = |obj, a, b, s| show(slice(&c, obj, a, b, s));
        let s = Value::Str("héllo");
        assert_eq!(sl(s, n, n, i(-1)), "olléh");
        assert_eq!(sl(s, i(1), i(3), n), "él");
        assert_eq!(sl(s, i(1), n, n), "éllo");
        assert_eq!(sl(s, n, n, i(2)), "hlo");
        assert_eq!(sl(Value::Str("abc"), i(10), n, n), "");
        assert_eq!(sl(Value::Str("abcdef"), i(-2), n, n), "ef");
        assert_eq!(sl(Value::Str("abcdef"), n, n, i(-2)), "fdb");
        assert_eq!(sl(l, n, n, i(-2)), "[3, 1]");
        assert_eq!(sl(l, i(-100), i(100), n), "[1, 2, 3]");
        assert_eq!(sl(l, i(5), i(1), i(-1)), "[3]");
        assert_eq!(sl(l, Value::Bool(true), n, n), "[2, 3]");
        assert_eq!(sl(l, c.int(1 << 70), n, n), "[]");
        assert_eq!(sl(l, c.int(-(1 << 70)), n, n), "[1, 2, 3]");
        let t = Value::Tuple(c.slice([i(1), i(2), i(3)]));
        assert_eq!(sl(t, i(1), n, n), "(2, 3)");
        assert_eq!(sl(t, n, n, i(-1)), "(3, 2, 1)");
        assert_eq!(sl(c.list([i(1), i(2), i(3)]), i(1), i(2), n), "[2]");
        let errs: &[(Value<'_>, Value<'_>, Value<'_>, Value<'_>, &str)] = &[
            (
                l,
                Value::Str("a"),
                n,
                n,
                "Type: slice indices must be integers or None or have an __index__ method",
            ),
            (
                l,
                i(1),
                Value::Float(2.0),
                n,
                "Type: slice indices must be integers or None or have an __index__ method",
            ),
            (l, n, n, i(0), "Value: slice step cannot be zero"),
            (
                n,
                i(1),
                n,
                n,
                "Type: 'NoneType' object is not subscriptable",
            ),
            (i(5), i(1), n, n, "Type: 'int' object is not subscriptable"),
            (
                Value::Dict(&[]),
                i(1),
                n,
                n,
                "Type: unhashable type: 'slice'",
            ),
            (
                c.iter(IterKind::Generator, &[]),
                i(1),
                n,
                n,
                "Type: 'generator' object is not subscriptable",
            ),
            (
                c.iter(IterKind::DictItems, &[]),
                i(1),
                n,
                n,
                "Type: 'dict_items' object is not subscriptable",
            ),
        ];
        for (obj, a, b, s, want) in errs {
            assert_eq!(sl(*obj, *a, *b, *s), *want);
        }
        let x = Value::Undefined(Some(c.arena.alloc(UndefInfo::Name("x"))));
        assert_eq!(sl(x, i(1), n, n), "Undefined: 'x' is undefined");
    }

    #[test]
    fn iteration_and_length() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let d = json(r#"{"items": 1, "a": 2}"#);
        let keys = iterate(&c, Value::Json(&d)).map(|k| c.list(k.iter().copied()));
        assert_eq!(show(keys), "['items', 'a']");
        let chars = iterate(&c, Value::Str("hé")).map(|k| c.list(k.iter().copied()));
        assert_eq!(show(chars), "['h', 'é']");
        assert_eq!(iterate(&c, Value::UNDEFINED).map(<[_]>::len).ok(), Some(0));
        assert_eq!(
            show_err(iterate(&c, Value::None)),
            "Type: 'NoneType' object is not iterable"
        );
        assert_eq!(
            show_err(iterate(&c, Value::Ns(c.namespace()))),
            "Type: 'TemplateNamespace' object is not iterable"
        );
        let big = json("[18446744073709551615]");
        let items: Vec<String> = items(&c, Value::Json(&big))
            .map(|it| it.map(|v| show(Ok(v))).collect())
            .unwrap_or_default();
        assert_eq!(items, ["18446744073709551615"]);

        assert_eq!(length(&Value::Json(&d)).ok(), Some(2));
        assert_eq!(length(&Value::UNDEFINED).ok(), Some(0));
        assert_eq!(length(&Value::Str("héllo")).ok(), Some(5));
        assert_eq!(
            length(&c.iter(IterKind::DictKeys, c.slice([Value::Int(1)]))).ok(),
            Some(1)
        );
        assert_eq!(
            show_err(length(&c.iter(IterKind::Generator, &[]))),
            "Type: object of type 'generator' has no len()"
        );
        assert_eq!(
            show_err(length(&c.iter(IterKind::ListReverse, &[]))),
            "Type: object of type 'list_reverseiterator' has no len()"
        );
        assert_eq!(
            show_err(length(&Value::Ns(c.namespace()))),
            "Type: object of type 'TemplateNamespace' has no len()"
        );
    }

    #[test]
    fn int_true_division_is_correctly_rounded() {
        // Python: (2**64 + 1) / 3, 10**30 / 7, -(2**100) / 3, (2**127 - 1) / (2**64 - 1)
        assert_eq!(int_true_div((1 << 64) + 1, 3), 6.148914691236517e18);
        assert_eq!(int_true_div(10i128.pow(30), 7), 1.4285714285714285e29);
        assert_eq!(int_true_div(-(1 << 100), 3), -4.2255020007607644e29);
        assert_eq!(int_true_div(i128::MAX, (1 << 64) - 1), 9.223372036854776e18);
    }
}
