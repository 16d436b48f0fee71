//! The format-spec mini-language (`[[fill]align][sign][#][0][width][,|_][.precision][type]`)
//! that `str.format` fields use and `%` conversions reuse: parsing a spec, and writing an
//! int, a float or a string by it.

use crate::error::{err, Error, ErrorKind, Limit};
use crate::value::bigint::{Big, MAX_STR_DIGITS};
use crate::value::fmt::{write_float, write_repr, write_str};
use crate::value::Value;

/// A parsed format spec (`[[fill]align][sign][#][0][width][,|_][.precision][type]`), also used
/// for `%` conversions.
#[derive(Clone, Copy, Default)]
pub(super) struct Spec {
    /// The fill character of padding.
    pub(super) fill: Option<char>,
    /// `<`, `>`, `^` or `=`.
    pub(super) align: Option<char>,
    /// `+`, `-` or a space.
    pub(super) sign: Option<char>,
    /// `z`: a negative zero (after rounding) printed without its sign (floats only).
    pub(super) z: bool,
    /// `#`: the alternate form.
    pub(super) alt: bool,
    /// `0`: zero padding.
    pub(super) zero: bool,
    /// The minimum width.
    pub(super) width: usize,
    /// The thousands separator, `,` or `_`.
    pub(super) group: Option<char>,
    /// Digits after the point, or of a string.
    pub(super) precision: Option<usize>,
    /// The presentation type (`d`, `f`, `x`, ...).
    pub(super) ty: Option<char>,
}

/// Parses a `str.format` spec.
pub(super) fn parse_spec(s: &str) -> Result<Spec, Error> {
    let mut sp = Spec::default();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '=' | '^');
    if cs.len() >= 2 && is_align(cs[1]) {
        sp.fill = Some(cs[0]);
        sp.align = Some(cs[1]);
        i = 2;
    } else if !cs.is_empty() && is_align(cs[0]) {
        sp.align = Some(cs[0]);
        i = 1;
    }
    if let Some(&c @ ('+' | '-' | ' ')) = cs.get(i) {
        sp.sign = Some(c);
        i += 1;
    }
    if cs.get(i) == Some(&'z') {
        sp.z = true;
        i += 1;
    }
    if cs.get(i) == Some(&'#') {
        sp.alt = true;
        i += 1;
    }
    if cs.get(i) == Some(&'0') {
        sp.zero = true;
        i += 1;
    }
    let num = |i: &mut usize| -> Option<usize> {
        let start = *i;
        while cs.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        cs[start..*i].iter().collect::<String>().parse().ok()
    };
    sp.width = num(&mut i).unwrap_or(0);
    if let Some(&c @ (',' | '_')) = cs.get(i) {
        sp.group = Some(c);
        i += 1;
        match cs.get(i) {
            Some(&d) if d == c => return Err(err!(Value, "Cannot specify '{c}' with '{c}'.")),
            Some(',' | '_') => return Err(err!(Value, "Cannot specify both ',' and '_'.")),
            _ => {}
        }
    }
    if cs.get(i) == Some(&'.') {
        i += 1;
        sp.precision =
            Some(num(&mut i).ok_or_else(|| err!(Value, "Format specifier missing precision"))?);
    }
    if let Some(&c) = cs.get(i) {
        sp.ty = Some(c);
        i += 1;
    }
    if i != cs.len() {
        return Err(err!(Value, "Invalid format specifier '{s}'"));
    }
    Ok(sp)
}

/// Fails with `Limit(Output)` when the spec's width (or, for numbers, its precision) would
/// make a result larger than `max` bytes: checked before any padding is allocated.
pub(super) fn check_spec(sp: &Spec, numeric: bool, max: usize) -> Result<(), Error> {
    let fill = sp.fill.map_or(1, char::len_utf8);
    let width = sp.width.saturating_mul(fill);
    let precision = if numeric {
        sp.precision.unwrap_or(0)
    } else {
        0
    };
    if width > max || precision > max {
        return Err(Error::new(
            ErrorKind::Limit(Limit::Output),
            format!("a value larger than the output limit ({max} bytes)"),
        ));
    }
    Ok(())
}

/// The fill character and alignment of padding: the `0` flag makes the fill `0` when none is
/// given, and a number's default alignment `=` (after the sign) when none is given.
fn fill_align(sp: &Spec, numeric: bool) -> (char, char) {
    let fill = sp.fill.unwrap_or(if sp.zero { '0' } else { ' ' });
    let align = sp.align.unwrap_or(match (numeric, sp.zero) {
        (true, true) => '=',
        (true, false) => '>',
        (false, _) => '<',
    });
    (fill, align)
}

/// Pads `body` (already signed/prefixed by `sign_len` leading chars) per the spec.
pub(super) fn pad(out: &mut String, body: &str, sign_len: usize, sp: &Spec, numeric: bool) {
    let n = body.chars().count();
    if n >= sp.width {
        out.push_str(body);
        return;
    }
    let fill_n = sp.width - n;
    let (fill, align) = fill_align(sp, numeric);
    let rep = |k: usize| std::iter::repeat(fill).take(k).collect::<String>();
    match align {
        '<' => {
            out.push_str(body);
            out.push_str(&rep(fill_n));
        }
        '^' => {
            out.push_str(&rep(fill_n / 2));
            out.push_str(body);
            out.push_str(&rep(fill_n - fill_n / 2));
        }
        '=' => {
            let split = body
                .char_indices()
                .nth(sign_len)
                .map_or(body.len(), |p| p.0);
            out.push_str(&body[..split]);
            out.push_str(&rep(fill_n));
            out.push_str(&body[split..]);
        }
        _ => {
            out.push_str(&rep(fill_n));
            out.push_str(body);
        }
    }
}

/// Python's thousands grouping of the integer digits `int` (every `every` from the right),
/// zero-filled to at least `min_width` characters as zero padding with grouping is
/// (`'{:08,}'.format(1234)` is `0,001,234`: a separator never starts the result).
fn group_digits(int: &str, sep: char, every: usize, min_width: usize) -> String {
    let digits: Vec<char> = int.chars().collect();
    let mut remaining = digits.len() as isize;
    let mut min_w = min_width as isize;
    let every = every as isize;
    let mut parts: Vec<String> = Vec::new();
    loop {
        let l = every.min(remaining.max(min_w).max(1));
        let zeros = (l - remaining).max(0) as usize;
        let chars = remaining.min(l).max(0) as usize;
        let end = remaining.max(0) as usize;
        let mut part: String = "0".repeat(zeros);
        part.extend(&digits[end - chars..end]);
        parts.push(part);
        remaining -= chars as isize;
        min_w -= l;
        if remaining <= 0 && min_w <= 0 {
            break;
        }
        // The separator's width.
        min_w -= 1;
    }
    let mut out = String::new();
    for (i, part) in parts.iter().rev().enumerate() {
        if i > 0 {
            out.push(sep);
        }
        out.push_str(part);
    }
    out
}

/// Formats a non-negative finite-or-not float per type `ty` and precision, without sign.
pub(super) fn float_body(x: f64, ty: Option<char>, prec: Option<usize>, alt: bool) -> String {
    let upper = matches!(ty, Some('E' | 'F' | 'G'));
    if !x.is_finite() {
        let s = if x.is_nan() { "nan" } else { "inf" };
        return if upper {
            s.to_uppercase()
        } else {
            s.to_string()
        };
    }
    let mut s = match ty {
        Some('f' | 'F') => fixed(x, prec.unwrap_or(6)),
        Some('%') => fixed(x * 100.0, prec.unwrap_or(6)) + "%",
        Some('e' | 'E') => exp_form(x, prec.unwrap_or(6)),
        Some('g' | 'G') => general(x, prec.unwrap_or(6), alt, false),
        _ => match prec {
            None => {
                let mut r = String::new();
                write_float(&mut r, x);
                r
            }
            Some(p) => general(x, p, alt, true),
        },
    };
    if alt && !s.contains('.') && matches!(ty, Some('f' | 'F' | 'e' | 'E')) {
        let at = s.find('e').unwrap_or(s.len());
        s.insert(at, '.');
    }
    if upper {
        s = s.to_uppercase();
    }
    s
}

/// Digits past which a double's exact decimal expansion is all zeros (it has at most 1074
/// fractional and 767 significant digits). Rust's formatter panics on precisions past
/// 65535, so longer precisions are formatted to this many digits and padded with zeros.
pub(super) const EXACT_DIGITS: usize = 1100;

/// `x` with `prec` digits after the point, exactly, for any precision.
pub(super) fn fixed(x: f64, prec: usize) -> String {
    if prec <= EXACT_DIGITS {
        return format!("{x:.prec$}");
    }
    let mut s = format!("{x:.EXACT_DIGITS$}");
    s.push_str(&"0".repeat(prec - EXACT_DIGITS));
    s
}

/// `x` as `d.ddde+XX` with `prec` digits after the point.
pub(super) fn exp_form(x: f64, prec: usize) -> String {
    let s = format!("{x:.*e}", prec.min(EXACT_DIGITS));
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let zeros = prec.saturating_sub(EXACT_DIGITS);
    let pad = "0".repeat(zeros);
    format!(
        "{mant}{pad}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.abs()
    )
}

/// The `g` presentation (`repr_like`: the no-type form, which keeps a `.0`).
pub(super) fn general(x: f64, prec: usize, alt: bool, repr_like: bool) -> String {
    let p = prec.max(1);
    let exp = if x == 0.0 {
        0
    } else {
        let s = format!("{x:.*e}", (p - 1).min(EXACT_DIGITS));
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i64>().ok())
            .unwrap_or(0)
    };
    let limit = if repr_like { p as i64 - 1 } else { p as i64 };
    let sci = exp < -4 || exp >= limit;
    let mut s = if sci {
        exp_form(x, p - 1)
    } else {
        fixed(x, (p as i64 - 1 - exp).max(0) as usize)
    };
    if !alt {
        let (mant, tail) = match s.find('e') {
            Some(i) => s.split_at(i),
            None => (s.as_str(), ""),
        };
        let mant = if mant.contains('.') {
            mant.trim_end_matches('0').trim_end_matches('.')
        } else {
            mant
        };
        let mut m = mant.to_string();
        if repr_like && !sci && !m.contains('.') {
            m.push_str(".0");
        }
        s = format!("{m}{tail}");
    }
    s
}

/// Formats an integer per type `ty` (d, x, X, o, b, c, n), without sign.
pub(super) fn int_body(i: i128, ty: Option<char>, alt: bool) -> Result<String, Error> {
    let a = i.unsigned_abs();
    Ok(match ty {
        Some('x') => format!("{}{a:x}", if alt { "0x" } else { "" }),
        Some('X') => format!("{}{a:X}", if alt { "0X" } else { "" }),
        Some('o') => format!("{}{a:o}", if alt { "0o" } else { "" }),
        Some('b') => format!("{}{a:b}", if alt { "0b" } else { "" }),
        Some('c') => u32::try_from(i)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| err!(Overflow, "%c arg not in range(0x110000)"))?
            .to_string(),
        _ => a.to_string(),
    })
}

/// Formats a big int beyond 128 bits per type `ty` (d, x, X, o, b, c, n), without sign;
/// decimal text is subject to Python's 4300-digit limit.
pub(super) fn big_body(b: &Big<'_>, ty: Option<char>, alt: bool) -> Result<String, Error> {
    let (radix, prefix) = match ty {
        Some('x') => (16, "0x"),
        Some('X') => (16, "0X"),
        Some('o') => (8, "0o"),
        Some('b') => (2, "0b"),
        Some('c') => return Err(err!(Overflow, "%c arg not in range(0x110000)")),
        _ => (10, ""),
    };
    let n = b.to_bigint();
    let mut s = n.magnitude().to_str_radix(radix);
    if radix == 10 && s.len() > MAX_STR_DIGITS {
        return Err(err!(
            Value,
            "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion; \
             use sys.set_int_max_str_digits() to increase the limit"
        ));
    }
    if ty == Some('X') {
        s.make_ascii_uppercase();
    }
    Ok(if alt { format!("{prefix}{s}") } else { s })
}

/// The integer value of a number, for integer conversions.
pub(crate) fn as_int(v: &Value<'_>) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::Big(b) => b.to_i128(),
        Value::Bool(b) => Some(i128::from(*b)),
        _ => None,
    }
}

/// The float value of a number.
pub(crate) fn as_float(v: &Value<'_>) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f),
        Value::Big(b) => b.to_f64().ok(),
        other => as_int(other).map(|i| i as f64),
    }
}

/// Writes a formatted number: sign, body, grouping, padding.
pub(super) fn write_number(out: &mut String, neg: bool, body: &str, sp: &Spec) {
    let sign = match (neg, sp.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    };
    let radix = matches!(sp.ty, Some('x' | 'X' | 'o' | 'b'));
    let body = match sp.group {
        Some(g) => {
            let prefix = if sp.alt && radix { 2 } else { 0 };
            let (pre, rest) = body.split_at(prefix.min(body.len()));
            // The integer digits: all of a hex/octal/binary body, else the leading
            // decimal digits (before a point, an exponent or `%`).
            let int_end = if radix {
                rest.len()
            } else {
                rest.find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len())
            };
            let (int, tail) = rest.split_at(int_end);
            if int.is_empty() {
                body.to_string()
            } else {
                // Zero padding fills with grouped zeros.
                let min_width = match fill_align(sp, true) {
                    ('0', '=') => sp
                        .width
                        .saturating_sub(sign.len() + prefix + tail.chars().count()),
                    _ => 0,
                };
                let every = if radix { 4 } else { 3 };
                format!("{pre}{}{tail}", group_digits(int, g, every, min_width))
            }
        }
        None => body.to_string(),
    };
    let prefix_len = sign.len()
        + if sp.alt && matches!(sp.ty, Some('x' | 'X' | 'o' | 'b')) {
            2
        } else {
            0
        };
    pad(out, &format!("{sign}{body}"), prefix_len, sp, true);
}

/// Python's check of a thousands separator against the presentation type (a string's default
/// type is `s`, an int's `d`): `,` goes with decimal and float types, `_` also with `b`,
/// `o`, `x` and `X`.
fn check_grouping(sp: &Spec, v: &Value<'_>) -> Result<(), Error> {
    let Some(g) = sp.group else {
        return Ok(());
    };
    let ty = sp.ty.or(match v {
        Value::Str(_) => Some('s'),
        _ => None,
    });
    let ok = match ty {
        None | Some('d' | 'e' | 'f' | 'g' | 'E' | 'G' | '%' | 'F') => true,
        Some('b' | 'o' | 'x' | 'X') => g == '_',
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(err!(
        Value,
        "Cannot specify '{g}' with '{}'.",
        ty.unwrap_or('?')
    ))
}

/// The checks of `int.__format__` for an integer presentation type.
fn check_int_spec(sp: &Spec) -> Result<(), Error> {
    if sp.precision.is_some() {
        return Err(err!(
            Value,
            "Precision not allowed in integer format specifier"
        ));
    }
    if sp.z {
        return Err(err!(
            Value,
            "Negative zero coercion (z) not allowed in integer format specifier"
        ));
    }
    if sp.ty == Some('c') {
        if sp.sign.is_some() {
            return Err(err!(
                Value,
                "Sign not allowed with integer format specifier 'c'"
            ));
        }
        if sp.alt {
            return Err(err!(
                Value,
                "Alternate form (#) not allowed with integer format specifier 'c'"
            ));
        }
    }
    Ok(())
}

/// `format(v, spec)`, as `str.format` calls it; `max` is the value limit.
pub(super) fn format_value(
    out: &mut String,
    v: &Value<'_>,
    spec: &str,
    max: usize,
) -> Result<(), Error> {
    let v = &v.demark();
    if spec.is_empty() {
        write_str(out, v);
        return Ok(());
    }
    let sp = parse_spec(spec)?;
    check_spec(&sp, !matches!(v, Value::Str(_)), max)?;
    check_grouping(&sp, v)?;
    match v {
        Value::Str(s) => {
            if !matches!(sp.ty, None | Some('s')) {
                return Err(err!(
                    Value,
                    "Unknown format code '{}' for object of type 'str'",
                    sp.ty.unwrap_or('?')
                ));
            }
            if sp.sign.is_some() {
                return Err(err!(Value, "Sign not allowed in string format specifier"));
            }
            if sp.z {
                return Err(err!(
                    Value,
                    "Negative zero coercion (z) not allowed in string format specifier"
                ));
            }
            if sp.alt {
                return Err(err!(
                    Value,
                    "Alternate form (#) not allowed in string format specifier"
                ));
            }
            if sp.align == Some('=') {
                return Err(err!(
                    Value,
                    "'=' alignment not allowed in string format specifier"
                ));
            }
            let s = match sp.precision {
                Some(p) => s.char_indices().nth(p).map_or(*s, |(i, _)| &s[..i]),
                None => s,
            };
            pad(out, s, 0, &sp, false);
            Ok(())
        }
        Value::Big(b)
            if b.to_i128().is_none()
                && matches!(sp.ty, None | Some('d' | 'x' | 'X' | 'o' | 'b' | 'c' | 'n')) =>
        {
            check_int_spec(&sp)?;
            let body = big_body(b, sp.ty, sp.alt)?;
            write_number(out, b.is_negative(), &body, &sp);
            Ok(())
        }
        Value::Int(_) | Value::Big(_) | Value::Bool(_)
            if matches!(sp.ty, None | Some('d' | 'x' | 'X' | 'o' | 'b' | 'c' | 'n')) =>
        {
            check_int_spec(&sp)?;
            let i = as_int(v).unwrap_or(0);
            let body = int_body(i, sp.ty, sp.alt)?;
            write_number(out, i < 0, &body, &sp);
            Ok(())
        }
        Value::Int(_) | Value::Big(_) | Value::Bool(_) | Value::Float(_)
            if matches!(
                sp.ty,
                None | Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' | 'n')
            ) =>
        {
            let f = as_float(v).unwrap_or(0.0);
            let ty = if sp.ty == Some('n') { Some('g') } else { sp.ty };
            let body = float_body(f.abs(), ty, sp.precision, sp.alt);
            // `z`: a zero after rounding prints without its sign.
            let zero = sp.z && body.chars().filter(char::is_ascii_digit).all(|c| c == '0');
            write_number(
                out,
                f.is_sign_negative() && !f.is_nan() && !zero,
                &body,
                &sp,
            );
            Ok(())
        }
        Value::Int(_) | Value::Big(_) | Value::Bool(_) | Value::Float(_) => Err(err!(
            Value,
            "Unknown format code '{}' for object of type '{}'",
            sp.ty.unwrap_or('?'),
            v.type_name()
        )),
        other => Err(err!(
            Type,
            "unsupported format string passed to {}.__format__",
            other.type_name()
        )),
    }
}

/// Python's `ascii(repr(v))`.
pub(super) fn write_ascii(out: &mut String, v: &Value<'_>) {
    let mut r = String::new();
    write_repr(&mut r, v);
    for c in r.chars() {
        match c as u32 {
            0..=0x7f => out.push(c),
            n @ 0x80..=0xff => out.push_str(&format!("\\x{n:02x}")),
            n @ 0x100..=0xffff => out.push_str(&format!("\\u{n:04x}")),
            n => out.push_str(&format!("\\U{n:08x}")),
        }
    }
}
