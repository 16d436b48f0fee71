//! Python string formatting: `fmt % args`, `str.format(...)` with its format-spec
//! mini-language, and the numeric filters (`int`, `float`, `round`) that share its parsing.

use num_bigint::BigInt;

use crate::error::{err, Error, ErrorKind, Limit};
use crate::value::bigint::{self, Big, MAX_STR_DIGITS};
use crate::value::fmt::{write_float, write_repr, write_str};
use crate::value::ops;
use crate::value::{Ctx, VResult, Value};

use super::args::{bind, int_arg, is_py_space, pairs};
use super::Kwargs;

/// A parsed format spec (`[[fill]align][sign][#][0][width][,|_][.precision][type]`), also used
/// for `%` conversions.
#[derive(Clone, Copy, Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alt: bool,
    zero: bool,
    width: usize,
    group: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

/// Parses a `str.format` spec.
fn parse_spec(s: &str) -> Result<Spec, Error> {
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
fn check_spec(sp: &Spec, numeric: bool, max: usize) -> Result<(), Error> {
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

/// Pads `body` (already signed/prefixed by `sign_len` leading chars) per the spec.
fn pad(out: &mut String, body: &str, sign_len: usize, sp: &Spec, numeric: bool) {
    let n = body.chars().count();
    if n >= sp.width {
        out.push_str(body);
        return;
    }
    let fill_n = sp.width - n;
    let zero = sp.zero && sp.fill.is_none() && sp.align.is_none();
    let (fill, align) = if zero && numeric {
        ('0', '=')
    } else {
        (
            sp.fill.unwrap_or(' '),
            sp.align.unwrap_or(if numeric { '>' } else { '<' }),
        )
    };
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

/// Inserts `sep` every `every` digits into the leading run of digits of `digits`.
fn group(digits: &str, sep: char, every: usize) -> String {
    let end = digits
        .find(|c: char| !c.is_ascii_alphanumeric() || c == 'e')
        .unwrap_or(digits.len());
    let (int, rest) = digits.split_at(end);
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % every == 0 {
            out.push(sep);
        }
        out.push(c);
    }
    out.push_str(rest);
    out
}

/// Formats a non-negative finite-or-not float per type `ty` and precision, without sign.
fn float_body(x: f64, ty: Option<char>, prec: Option<usize>, alt: bool) -> String {
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
const EXACT_DIGITS: usize = 1100;

/// `x` with `prec` digits after the point, exactly, for any precision.
fn fixed(x: f64, prec: usize) -> String {
    if prec <= EXACT_DIGITS {
        return format!("{x:.prec$}");
    }
    let mut s = format!("{x:.EXACT_DIGITS$}");
    s.push_str(&"0".repeat(prec - EXACT_DIGITS));
    s
}

/// `x` as `d.ddde+XX` with `prec` digits after the point.
fn exp_form(x: f64, prec: usize) -> String {
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
fn general(x: f64, prec: usize, alt: bool, repr_like: bool) -> String {
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
fn int_body(i: i128, ty: Option<char>, alt: bool) -> Result<String, Error> {
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
fn big_body(b: &Big<'_>, ty: Option<char>, alt: bool) -> Result<String, Error> {
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
fn as_int(v: &Value<'_>) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::Big(b) => b.to_i128(),
        Value::Bool(b) => Some(i128::from(*b)),
        _ => None,
    }
}

/// The float value of a number.
fn as_float(v: &Value<'_>) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f),
        Value::Big(b) => b.to_f64().ok(),
        other => as_int(other).map(|i| i as f64),
    }
}

/// Writes a formatted number: sign, body, grouping, padding.
fn write_number(out: &mut String, neg: bool, body: &str, sp: &Spec) {
    let sign = match (neg, sp.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    };
    let body = match sp.group {
        Some(g) => {
            let every = if matches!(sp.ty, Some('x' | 'X' | 'o' | 'b')) {
                4
            } else {
                3
            };
            let prefix = if sp.alt && matches!(sp.ty, Some('x' | 'X' | 'o' | 'b')) {
                2
            } else {
                0
            };
            format!("{}{}", &body[..prefix], group(&body[prefix..], g, every))
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

/// `format(v, spec)`, as `str.format` calls it; `max` is the value limit.
fn format_value(out: &mut String, v: &Value<'_>, spec: &str, max: usize) -> Result<(), Error> {
    let v = &v.demark();
    if spec.is_empty() {
        write_str(out, v);
        return Ok(());
    }
    let sp = parse_spec(spec)?;
    check_spec(&sp, !matches!(v, Value::Str(_)), max)?;
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
            let body = big_body(b, sp.ty, sp.alt)?;
            write_number(out, b.is_negative(), &body, &sp);
            Ok(())
        }
        Value::Int(_) | Value::Big(_) | Value::Bool(_)
            if matches!(sp.ty, None | Some('d' | 'x' | 'X' | 'o' | 'b' | 'c' | 'n')) =>
        {
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
            write_number(out, f.is_sign_negative() && !f.is_nan(), &body, &sp);
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
fn write_ascii(out: &mut String, v: &Value<'_>) {
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

/// Appends `fmt % args` (Python's printf-style formatting).
pub(crate) fn percent<'a>(
    ctx: &Ctx<'a>,
    out: &mut String,
    fmt: &str,
    args: Value<'a>,
) -> Result<(), Error> {
    let (list, single): (&[Value<'a>], bool) = match args {
        Value::Tuple(items) => (items, false),
        _ => (std::slice::from_ref(ctx.arena.alloc(args)), true),
    };
    let mapping = pairs(ctx, &args);
    let lenient = matches!(args, Value::Dict(_) | Value::Json(_) | Value::List(_));
    let mut next = 0usize;
    let take = |next: &mut usize| -> Result<Value<'a>, Error> {
        let v = list
            .get(*next)
            .copied()
            .ok_or_else(|| err!(Type, "not enough arguments for format string"))?;
        *next += 1;
        Ok(v)
    };
    let cs: Vec<(usize, char)> = fmt.char_indices().collect();
    let mut i = 0;
    let mut used_key = false;
    while i < cs.len() {
        let (pos, c) = cs[i];
        if c != '%' {
            let end = cs[i..]
                .iter()
                .position(|p| p.1 == '%')
                .map_or(cs.len(), |k| i + k);
            let bend = cs.get(end).map_or(fmt.len(), |p| p.0);
            out.push_str(&fmt[pos..bend]);
            i = end;
            continue;
        }
        i += 1;
        let mut arg: Option<Value<'a>> = None;
        if cs.get(i).map(|p| p.1) == Some('(') {
            let start = i + 1;
            let mut depth = 1;
            let mut j = start;
            while j < cs.len() {
                match cs[j].1 {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if j >= cs.len() {
                return Err(err!(Value, "incomplete format key"));
            }
            let key: String = cs[start..j].iter().map(|p| p.1).collect();
            let m = mapping.ok_or_else(|| err!(Type, "format requires a mapping"))?;
            let hit = m
                .iter()
                .find(|(k, _)| matches!(k, Value::Str(s) if *s == key));
            arg = Some(
                hit.map(|p| p.1)
                    .ok_or_else(|| err!(Value, "KeyError: '{key}'"))?,
            );
            used_key = true;
            i = j + 1;
        }
        let mut sp = Spec::default();
        while let Some(&(_, f @ ('-' | '+' | ' ' | '#' | '0'))) = cs.get(i) {
            match f {
                '-' => sp.align = Some('<'),
                '+' => sp.sign = Some('+'),
                ' ' => {
                    if sp.sign.is_none() {
                        sp.sign = Some(' ')
                    }
                }
                '#' => sp.alt = true,
                _ => sp.zero = true,
            }
            i += 1;
        }
        let read_num = |i: &mut usize, next: &mut usize| -> Result<Option<i64>, Error> {
            if cs.get(*i).map(|p| p.1) == Some('*') {
                *i += 1;
                let v = take(next)?;
                return int_arg(&v).map(Some).map_err(|_| err!(Type, "* wants int"));
            }
            let start = *i;
            while cs.get(*i).is_some_and(|p| p.1.is_ascii_digit()) {
                *i += 1;
            }
            let digits: String = cs[start..*i].iter().map(|p| p.1).collect();
            Ok(digits.parse().ok())
        };
        if let Some(w) = read_num(&mut i, &mut next)? {
            if w < 0 {
                sp.align = Some('<');
            }
            sp.width = w.unsigned_abs() as usize;
        }
        if cs.get(i).map(|p| p.1) == Some('.') {
            i += 1;
            sp.precision = Some(read_num(&mut i, &mut next)?.unwrap_or(0).max(0) as usize);
        }
        while let Some(&(_, 'h' | 'l' | 'L')) = cs.get(i) {
            i += 1;
        }
        let Some(&(_, ty)) = cs.get(i) else {
            return Err(err!(Value, "incomplete format"));
        };
        i += 1;
        if ty == '%' {
            out.push('%');
            continue;
        }
        if sp.align == Some('<') {
            sp.zero = false;
        }
        check_spec(&sp, !matches!(ty, 's' | 'r' | 'a'), ctx.max_value)?;
        let v = match arg {
            Some(v) => v,
            None => take(&mut next)?,
        };
        percent_one(out, &v, ty, sp, pos)?;
        if out.len() > ctx.max_value {
            return Err(ctx.too_large());
        }
    }
    let leftover = if single {
        next == 0 && !used_key
    } else {
        next < list.len()
    };
    if leftover && !lenient && !(single && used_key) {
        return Err(err!(
            Type,
            "not all arguments converted during string formatting"
        ));
    }
    Ok(())
}

/// One `%` conversion of `v`.
fn percent_one(
    out: &mut String,
    v: &Value<'_>,
    ty: char,
    mut sp: Spec,
    pos: usize,
) -> Result<(), Error> {
    match ty {
        's' | 'r' | 'a' => {
            let mut s = String::new();
            match ty {
                's' => write_str(&mut s, v),
                'r' => write_repr(&mut s, v),
                _ => write_ascii(&mut s, v),
            }
            let s = match sp.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            };
            sp.zero = false;
            pad(out, &s, 0, &sp, true);
        }
        'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c' => {
            let i = match (ty, v) {
                ('c', Value::Str(s)) if s.chars().count() == 1 => {
                    pad(out, s, 0, &sp, true);
                    return Ok(());
                }
                (_, Value::Big(b)) if b.to_i128().is_none() => {
                    let t = match ty {
                        'x' | 'X' | 'o' | 'c' => Some(ty),
                        _ => None,
                    };
                    let body = big_body(b, t, sp.alt)?;
                    sp.ty = t;
                    write_number(out, b.is_negative(), &body, &sp);
                    return Ok(());
                }
                (_, Value::Float(f))
                    if matches!(ty, 'd' | 'i' | 'u') && f.is_finite() && f.abs() >= 1.7e38 =>
                {
                    // Past 128 bits: the float's exact integer value, as Python's int(f).
                    let b = bigint::from_f64(*f);
                    let body = b.magnitude().to_string();
                    sp.ty = None;
                    write_number(out, *f < 0.0, &body, &sp);
                    return Ok(());
                }
                (_, Value::Float(f)) if matches!(ty, 'd' | 'i' | 'u') => {
                    if !f.is_finite() {
                        return Err(err!(Value, "cannot convert float {f} to integer"));
                    }
                    f.trunc() as i128
                }
                _ => as_int(v).ok_or_else(|| {
                    let what = if matches!(ty, 'd' | 'i' | 'u') {
                        "a real number"
                    } else {
                        "an integer"
                    };
                    err!(
                        Type,
                        "%{ty} format: {what} is required, not {}",
                        v.type_name()
                    )
                })?,
            };
            let t = match ty {
                'x' | 'X' | 'o' | 'c' => Some(ty),
                _ => None,
            };
            let body = int_body(i, t, sp.alt)?;
            sp.ty = t;
            write_number(out, i < 0, &body, &sp);
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let f = as_float(v)
                .ok_or_else(|| err!(Type, "must be real number, not {}", v.type_name()))?;
            let body = float_body(f.abs(), Some(ty), sp.precision, sp.alt);
            write_number(out, f.is_sign_negative() && !f.is_nan(), &body, &sp);
        }
        other => {
            return Err(err!(
                Value,
                "unsupported format character '{other}' ({:#x}) at index {pos}",
                other as u32
            ))
        }
    }
    Ok(())
}

/// Appends `fmt.format(*args, **kwargs)`.
pub(crate) fn str_format<'a>(
    ctx: &Ctx<'a>,
    out: &mut String,
    fmt: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
) -> Result<(), Error> {
    let mut auto: Option<usize> = None;
    let mut manual = false;
    format_into(ctx, out, fmt, args, kwargs, &mut auto, &mut manual, 0)
}

/// The body of [`str_format`]; `depth` limits nested replacement fields in specs.
#[allow(clippy::too_many_arguments)]
fn format_into<'a>(
    ctx: &Ctx<'a>,
    out: &mut String,
    fmt: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
    auto: &mut Option<usize>,
    manual: &mut bool,
    depth: u8,
) -> Result<(), Error> {
    let mut rest = fmt;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let c = rest.as_bytes()[i];
        let after = &rest[i + 1..];
        if c == b'}' {
            if let Some(r) = after.strip_prefix('}') {
                out.push('}');
                rest = r;
                continue;
            }
            return Err(err!(Value, "Single '}}' encountered in format string"));
        }
        if let Some(r) = after.strip_prefix('{') {
            out.push('{');
            rest = r;
            continue;
        }
        // Find the matching '}' (specs may nest one level of fields).
        let mut level = 1;
        let mut end = None;
        for (j, ch) in after.char_indices() {
            match ch {
                '{' => level += 1,
                '}' => {
                    level -= 1;
                    if level == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| err!(Value, "expected '}}' before end of string"))?;
        let field = &after[..end];
        rest = &after[end + 1..];
        let (name_conv, spec) = match field.find(':') {
            Some(k) => (&field[..k], &field[k + 1..]),
            None => (field, ""),
        };
        let (name, conv) = match name_conv.find('!') {
            Some(k) => (&name_conv[..k], Some(&name_conv[k + 1..])),
            None => (name_conv, None),
        };
        let v = field_value(ctx, name, args, kwargs, auto, manual)?;
        let spec_owned;
        let spec = if spec.contains('{') {
            if depth > 0 {
                return Err(err!(Value, "Max string recursion exceeded"));
            }
            let mut s = String::new();
            format_into(ctx, &mut s, spec, args, kwargs, auto, manual, depth + 1)?;
            spec_owned = s;
            spec_owned.as_str()
        } else {
            spec
        };
        match conv {
            None => format_value(out, &v, spec, ctx.max_value)?,
            Some(c) => {
                let mut s = String::new();
                match c {
                    "r" => write_repr(&mut s, &v),
                    "s" => write_str(&mut s, &v),
                    "a" => write_ascii(&mut s, &v),
                    _ => return Err(err!(Value, "Unknown conversion specifier {c}")),
                }
                format_value(
                    out,
                    &Value::Str(ctx.arena.alloc_str(&s)),
                    spec,
                    ctx.max_value,
                )?;
            }
        }
        if out.len() > ctx.max_value {
            return Err(ctx.too_large());
        }
    }
    out.push_str(rest);
    Ok(())
}

/// The value a replacement field names: `0`, `name`, `` (automatic), then `.attr` / `[key]`.
fn field_value<'a>(
    ctx: &Ctx<'a>,
    name: &str,
    args: &[Value<'a>],
    kwargs: Kwargs<'_, 'a>,
    auto: &mut Option<usize>,
    manual: &mut bool,
) -> Result<Value<'a>, Error> {
    let first_end = name.find(['.', '[']).unwrap_or(name.len());
    let (first, mut tail) = name.split_at(first_end);
    let mut v = if first.is_empty() {
        if *manual {
            return Err(err!(
                Value,
                "cannot switch from manual field specification to automatic field numbering"
            ));
        }
        let n = auto.map_or(0, |n| n + 1);
        *auto = Some(n);
        index_arg(args, n)?
    } else if let Ok(n) = first.parse::<usize>() {
        if auto.is_some() {
            return Err(err!(
                Value,
                "cannot switch from automatic field numbering to manual field specification"
            ));
        }
        *manual = true;
        index_arg(args, n)?
    } else {
        kwargs
            .iter()
            .find(|(k, _)| *k == first)
            .map(|p| p.1)
            .ok_or_else(|| err!(Value, "KeyError: '{first}'"))?
    };
    let mut unsafe_attr: Option<(&str, &str)> = None;
    while !tail.is_empty() {
        if let Some(r) = tail.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let attr = ctx.arena.alloc_str(&r[..end]);
            // The sandbox makes an unsafe attribute an undefined that formats as '' but
            // raises when used further.
            if let Some((a, t)) = unsafe_attr {
                return Err(err!(
                    Security,
                    "access to attribute '{a}' of '{t}' object is unsafe."
                ));
            }
            v = if attr.starts_with('_') {
                unsafe_attr = Some((attr, v.type_name()));
                Value::UNDEFINED
            } else {
                ops::getattr(ctx, v, attr)?
            };
            tail = &r[end..];
        } else if let Some(r) = tail.strip_prefix('[') {
            let end = r
                .find(']')
                .ok_or_else(|| err!(Value, "Missing ']' in format string"))?;
            let key = &r[..end];
            let k = match key.parse::<i64>() {
                Ok(n) if key.bytes().all(|b| b.is_ascii_digit()) => Value::Int(n),
                _ => Value::Str(ctx.arena.alloc_str(key)),
            };
            if let Some((a, t)) = unsafe_attr {
                return Err(err!(
                    Security,
                    "access to attribute '{a}' of '{t}' object is unsafe."
                ));
            }
            v = ops::getitem(ctx, v, k)?;
            tail = &r[end + 1..];
        } else {
            return Err(err!(
                Value,
                "Only '.' or '[' may follow ']' in format field specifier"
            ));
        }
    }
    Ok(v)
}

/// Positional argument `n` of `str.format`.
fn index_arg<'a>(args: &[Value<'a>], n: usize) -> Result<Value<'a>, Error> {
    args.get(n).copied().ok_or_else(|| {
        err!(
            Value,
            "Replacement index {n} out of range for positional args tuple"
        )
    })
}

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
        Some(_) => return Err(err!(Runtime, "method must be common, ceil or floor")),
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
    use super::super::args::testutil::{leak, s, with_ctx};
    use super::*;

    fn pct(fmt: &str, args: Value<'static>) -> String {
        with_ctx(|ctx| {
            let mut out = String::new();
            match percent(ctx, &mut out, fmt, args) {
                Ok(()) => out,
                Err(e) => format!("!{:?}", e.kind()),
            }
        })
    }

    #[test]
    fn percent_like_python() {
        let t = leak([
            Value::Float(3.14259),
            Value::Int(42),
            Value::Int(5),
            Value::Int(5),
            Value::Int(-42),
            Value::Int(255),
            Value::Int(255),
            Value::Int(255),
            Value::Int(8),
            Value::Int(8),
            Value::Float(12345.678),
            Value::Float(0.000123),
            Value::Float(1e-5),
            Value::Float(123456789.0),
            Value::Float(0.0001),
            Value::Float(1e20),
        ]);
        assert_eq!(
            pct("%5.2f|%-6d|%+d|% d|%05d|%x|%#x|%X|%o|%#o|%e|%.3E|%g|%g|%g|%G", Value::Tuple(t)),
            " 3.14|42    |+5| 5|-0042|ff|0xff|FF|10|0o10|1.234568e+04|1.230E-04|1e-05|1.23457e+08|0.0001|1E+20"
        );
        let t = leak([
            Value::Int(5),
            Value::Int(3),
            Value::Int(8),
            Value::Int(2),
            Value::Float(1.5),
        ]);
        assert_eq!(pct("%*d|%-*.*f", Value::Tuple(t)), "    3|1.50    ");
        let t = leak([Value::Float(2.5), Value::Float(2.5), Value::Float(2.5)]);
        assert_eq!(pct("%.0f %.0e %#.0f", Value::Tuple(t)), "2 2e+00 2.");
        let t = leak([
            Value::Float(100000.0),
            Value::Float(1e6),
            Value::Float(1.5),
            Value::Float(1.5),
        ]);
        assert_eq!(
            pct("%g %g %g %#g", Value::Tuple(t)),
            "100000 1e+06 1.5 1.50000"
        );
        assert_eq!(pct("%d", Value::Float(3.7)), "3");
        assert_eq!(pct("%i", Value::Bool(true)), "1");
        assert_eq!(pct("%c", Value::Int(65)), "A");
        assert_eq!(pct("%%", Value::Tuple(&[])), "%");
        assert_eq!(pct("%x", Value::Int(-255)), "-ff");
        assert_eq!(pct("%d", Value::Str("3")), "!Type");
        assert_eq!(pct("%x", Value::Float(3.0)), "!Type");
        assert_eq!(pct("%s %s", Value::Tuple(&[Value::Int(1)])), "!Type");
        assert_eq!(
            pct("%s", Value::Tuple(&[Value::Int(1), Value::Int(2)])),
            "!Type"
        );
        assert_eq!(pct("abc", Value::Int(5)), "!Type");
        assert_eq!(pct("abc", Value::List(&[])), "abc");
        assert_eq!(pct("%z", Value::Int(1)), "!Value");
        assert_eq!(
            pct(
                "%.1s|%5s|%-5s|",
                Value::Tuple(&[Value::Str("abc"), Value::Str("ab"), Value::Str("ab")])
            ),
            "a|   ab|ab   |"
        );
        let d = leak([(Value::Str("a"), Value::Int(1))]);
        assert_eq!(pct("%(a)s!", Value::Dict(d)), "1!");
    }

    fn sf(fmt: &str, args: &[Value<'static>], kw: &[(&'static str, Value<'static>)]) -> String {
        with_ctx(|ctx| {
            let mut out = String::new();
            match str_format(ctx, &mut out, fmt, args, kw) {
                Ok(()) => out,
                Err(e) => format!("!{:?}", e.kind()),
            }
        })
    }

    #[test]
    fn str_format_like_python() {
        let a = [Value::Str("x"), Value::Int(7)];
        assert_eq!(sf("{} and {}", &a, &[]), "x and 7");
        assert_eq!(sf("{1}{0}{1}", &a, &[]), "7x7");
        assert_eq!(sf("{n}!", &[], &[("n", Value::Int(3))]), "3!");
        assert_eq!(
            sf(
                "{{}} {:>4}|{:<4}|{:^5}|",
                &[Value::Str("a"), Value::Str("b"), Value::Str("c")],
                &[]
            ),
            "{}    a|b   |  c  |"
        );
        assert_eq!(
            sf(
                "{:.2f} {:05d} {:,} {:x} {:#b} {:e} {:+.1%}",
                &[
                    Value::Float(3.14259),
                    Value::Int(42),
                    Value::Int(1234567),
                    Value::Int(255),
                    Value::Int(5),
                    Value::Float(1234.5),
                    Value::Float(0.5)
                ],
                &[]
            ),
            "3.14 00042 1,234,567 ff 0b101 1.234500e+03 +50.0%"
        );
        assert_eq!(sf("{!r}", &[Value::Str("a")], &[]), "'a'");
        assert_eq!(sf("{:*^7}", &[Value::Str("ab")], &[]), "**ab***");
        assert_eq!(sf("{:.2}", &[Value::Float(1.0)], &[]), "1.0");
        assert_eq!(sf("{:.2}", &[Value::Float(100.0)], &[]), "1e+02");
        assert_eq!(sf("{:.3}", &[Value::Str("abcdef")], &[]), "abc");
        assert_eq!(
            sf("{:{w}}|", &[Value::Str("a")], &[("w", Value::Int(3))]),
            "a  |"
        );
        assert_eq!(sf("{}{1}", &a, &[]), "!Value");
        assert_eq!(sf("{2}", &a, &[]), "!Value");
        assert_eq!(sf("{z}", &a, &[]), "!Value");
        assert_eq!(sf("}", &a, &[]), "!Value");
        assert_eq!(sf("{:d}", &[Value::Str("a")], &[]), "!Value");
        assert_eq!(sf("{:>3}", &[Value::None], &[]), "!Type");
        assert_eq!(sf("{}", &[Value::None], &[]), "None");
    }

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
