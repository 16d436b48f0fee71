//! `json.dumps` as transformers' `tojson` calls it.
//!
//! The writer follows CPython's `json` encoder: `", "`/`": "` separators (`","` when
//! indenting), insertion order unless `sort_keys`, floats as `repr` with `NaN`/`Infinity`,
//! exact integers, tuples as arrays, non-string keys converted (`1` → `"1"`, `True` →
//! `"true"`, `None` → `"null"`). The caller's JSON (`Value::Json`) is written straight from
//! the `serde_json::Value`, without converting it first.

use crate::error::{err, Error};
use crate::value::fmt::{write_finite_float, write_int};
use crate::value::ops::{compare, iterate, CmpOp};
use crate::value::{Ctx, Value};

/// The keyword arguments of `tojson` that change the output.
pub(crate) struct JsonOpts<'s> {
    /// Escape non-ASCII as `\uXXXX` (with surrogate pairs).
    pub(crate) ensure_ascii: bool,
    /// Newline plus this indent per level, or single-line when `None`.
    pub(crate) indent: Option<&'s str>,
    /// Between items: `", "` by default, `","` when indenting.
    pub(crate) item_sep: &'s str,
    /// Between a key and its value: `": "`.
    pub(crate) key_sep: &'s str,
    /// Sort object keys.
    pub(crate) sort_keys: bool,
}

impl Default for JsonOpts<'_> {
    fn default() -> Self {
        JsonOpts {
            ensure_ascii: false,
            indent: None,
            item_sep: ", ",
            key_sep: ": ",
            sort_keys: false,
        }
    }
}

/// How deep containers may nest before `dumps` gives up (CPython raises `RecursionError`
/// near 1000).
const MAX_DEPTH: usize = 500;

/// The longest indent string `tojson(indent=n)` may ask for.
const MAX_INDENT: usize = 1 << 16;

/// The parameter names of transformers' `tojson(x, ensure_ascii, indent, separators,
/// sort_keys)` after `x`, in positional order.
const PARAMS: [&str; 4] = ["ensure_ascii", "indent", "separators", "sort_keys"];

/// Builds the options of `x|tojson(args..., kwargs...)` with Python's argument binding and
/// `json.dumps`'s checks: `indent` an int (spaces; negative means none), a string or `None`;
/// `separators` any iterable of two strings; `ensure_ascii` and `sort_keys` by truthiness.
pub(crate) fn opts_from_args<'a>(
    ctx: &Ctx<'a>,
    args: &[Value<'a>],
    kwargs: &[(&'a str, Value<'a>)],
) -> Result<JsonOpts<'a>, Error> {
    const FN: &str = "_cached_compile_jinja_template.<locals>.tojson()";
    if args.len() > PARAMS.len() {
        return Err(err!(
            Type,
            "{FN} takes from 1 to 5 positional arguments but {} were given",
            args.len() + 1
        ));
    }
    let mut bound: [Option<Value<'a>>; 4] = [None; 4];
    for (slot, v) in bound.iter_mut().zip(args) {
        *slot = Some(*v);
    }
    for (name, v) in kwargs {
        let Some(i) = PARAMS.iter().position(|p| p == name) else {
            return Err(err!(
                Type,
                "{FN} got an unexpected keyword argument '{name}'"
            ));
        };
        if bound[i].is_some() {
            return Err(err!(Type, "{FN} got multiple values for argument '{name}'"));
        }
        bound[i] = Some(*v);
    }
    let [ensure_ascii, indent, separators, sort_keys] = bound;
    let indent: Option<&'a str> = match indent.unwrap_or(Value::None) {
        Value::None => None,
        Value::Str(s) => Some(s),
        Value::Bool(b) => Some(if b { " " } else { "" }),
        Value::Int(n) => {
            let n = usize::try_from(n).unwrap_or(0);
            if n > MAX_INDENT {
                return Err(err!(Overflow, "indent of {n} spaces is too large"));
            }
            let mut s = bumpalo::collections::String::with_capacity_in(n, ctx.arena);
            s.extend(std::iter::repeat(' ').take(n));
            Some(s.into_bump_str())
        }
        Value::Big(_) => {
            return Err(err!(
                Overflow,
                "cannot fit 'int' into an index-sized integer"
            ))
        }
        v @ Value::Undefined(_) => return Err(crate::value::ops::undefined_error(&v)),
        v => {
            return Err(err!(
                Type,
                "can't multiply sequence by non-int of type '{}'",
                v.type_name()
            ))
        }
    };
    let (item_sep, key_sep) = match separators.unwrap_or(Value::None) {
        Value::None => (if indent.is_some() { "," } else { ", " }, ": "),
        v => {
            let parts = iterate(ctx, v)?;
            match parts {
                [a, b] => (json_sep(a)?, json_sep(b)?),
                [] | [_] => {
                    return Err(err!(
                        Value,
                        "not enough values to unpack (expected 2, got {})",
                        parts.len()
                    ))
                }
                _ => return Err(err!(Value, "too many values to unpack (expected 2)")),
            }
        }
    };
    Ok(JsonOpts {
        ensure_ascii: ensure_ascii.is_some_and(|v| v.is_true()),
        indent,
        item_sep,
        key_sep,
        sort_keys: sort_keys.is_some_and(|v| v.is_true()),
    })
}

/// One separator of `separators=`: it must be a string.
fn json_sep<'a>(v: &Value<'a>) -> Result<&'a str, Error> {
    match v {
        Value::Str(s) => Ok(s),
        other => Err(err!(
            Type,
            "make_encoder() argument 5 must be str, not {}",
            other.type_name()
        )),
    }
}

/// Appends `json.dumps(v, ...)` to `out`.
pub(crate) fn dumps(out: &mut String, v: &Value<'_>, opts: &JsonOpts<'_>) -> Result<(), Error> {
    Writer {
        out,
        opts,
        level: 0,
    }
    .value(v)
}

/// Appends `s` as a JSON string literal: `"`, `\\` and control characters escaped (`\n`,
/// `\r`, `\t`, `\b`, `\f`, else `\u00XX`); with `ensure_ascii` everything outside
/// `' '..='~'` is escaped, astral characters as UTF-16 surrogate pairs.
pub(crate) fn write_json_str(out: &mut String, s: &str, ensure_ascii: bool) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let plain = if ensure_ascii {
            (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\'
        } else {
            b >= 0x20 && b != b'"' && b != b'\\'
        };
        if plain {
            i += 1;
            continue;
        }
        out.push_str(&s[last..i]);
        if b < 0x80 {
            write_escape(out, u32::from(b));
            i += 1;
        } else {
            // Only with ensure_ascii: a whole non-ASCII character starts here.
            let c = s[i..].chars().next().unwrap_or('\u{fffd}');
            let cp = u32::from(c);
            if cp > 0xffff {
                let v = cp - 0x10000;
                write_u4(out, 0xd800 | (v >> 10));
                write_u4(out, 0xdc00 | (v & 0x3ff));
            } else {
                write_u4(out, cp);
            }
            i += c.len_utf8();
        }
        last = i;
    }
    out.push_str(&s[last..]);
    out.push('"');
}

/// The escape of one ASCII character that JSON may not carry raw.
fn write_escape(out: &mut String, cp: u32) {
    match cp {
        0x22 => out.push_str("\\\""),
        0x5c => out.push_str("\\\\"),
        0x0a => out.push_str("\\n"),
        0x0d => out.push_str("\\r"),
        0x09 => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        _ => write_u4(out, cp),
    }
}

/// `\uXXXX` with lowercase hex digits, as CPython writes it.
fn write_u4(out: &mut String, cp: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[((cp >> shift) & 0xf) as usize]));
    }
}

/// A JSON float: `NaN`, `Infinity`, `-Infinity`, else Python's `repr`.
pub(crate) fn write_json_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        write_finite_float(out, f);
    }
}

/// The recursive writer.
struct Writer<'o, 'p> {
    /// Where the text goes.
    out: &'o mut String,
    /// The separators and flags.
    opts: &'p JsonOpts<'p>,
    /// How many containers enclose the current value.
    level: usize,
}

impl Writer<'_, '_> {
    /// Writes any value.
    fn value(&mut self, v: &Value<'_>) -> Result<(), Error> {
        match v {
            Value::None => self.out.push_str("null"),
            Value::Bool(true) => self.out.push_str("true"),
            Value::Bool(false) => self.out.push_str("false"),
            Value::Int(i) => write_int(self.out, *i),
            Value::Big(i) => {
                use std::fmt::Write as _;
                let _ = write!(self.out, "{i}");
            }
            Value::Float(f) => write_json_float(self.out, *f),
            Value::Str(s) => write_json_str(self.out, s, self.opts.ensure_ascii),
            Value::List(items) | Value::Tuple(items) => {
                self.array(items.len(), items.iter(), |w, item| w.value(item))?
            }
            Value::Dict(entries) => self.dict(entries)?,
            Value::Json(j) => self.json(j)?,
            other => {
                return Err(err!(
                    Type,
                    "Object of type {} is not JSON serializable",
                    other.type_name()
                ))
            }
        }
        Ok(())
    }

    /// Writes a borrowed JSON value.
    fn json(&mut self, j: &serde_json::Value) -> Result<(), Error> {
        match j {
            serde_json::Value::Null => self.out.push_str("null"),
            serde_json::Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            serde_json::Value::Number(n) => {
                if n.is_f64() {
                    write_json_float(self.out, n.as_f64().unwrap_or(f64::NAN));
                } else {
                    crate::value::fmt::write_json_number(self.out, n);
                }
            }
            serde_json::Value::String(s) => write_json_str(self.out, s, self.opts.ensure_ascii),
            serde_json::Value::Array(a) => self.array(a.len(), a.iter(), |w, x| w.json(x))?,
            serde_json::Value::Object(o) => {
                if self.opts.sort_keys && o.len() > 1 {
                    let mut entries: Vec<(&String, &serde_json::Value)> = o.iter().collect();
                    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                    self.object(
                        entries.into_iter(),
                        |w, k| {
                            write_json_str(w.out, k, w.opts.ensure_ascii);
                            Ok(())
                        },
                        |w, v| w.json(v),
                    )?;
                } else {
                    self.object(
                        o.iter(),
                        |w, k| {
                            write_json_str(w.out, k, w.opts.ensure_ascii);
                            Ok(())
                        },
                        |w, v| w.json(v),
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Writes a template dict: keys converted as CPython does, sorted on request.
    fn dict(&mut self, entries: &[(Value<'_>, Value<'_>)]) -> Result<(), Error> {
        if self.opts.sort_keys && entries.len() > 1 {
            let mut sorted: Vec<&(Value<'_>, Value<'_>)> = Vec::with_capacity(entries.len());
            // Binary insertion sort with `<`, as CPython's sort does for short lists; a
            // comparison between unorderable keys raises its TypeError.
            for e in entries {
                let mut lo = 0;
                let mut hi = sorted.len();
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if compare(CmpOp::Lt, &e.0, &sorted[mid].0)? {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                sorted.insert(lo, e);
            }
            self.object(
                sorted.into_iter().map(|(k, v)| (k, v)),
                |w, k| w.key(k),
                |w, v| w.value(v),
            )
        } else {
            self.object(
                entries.iter().map(|(k, v)| (k, v)),
                |w, k| w.key(k),
                |w, v| w.value(v),
            )
        }
    }

    /// Writes a dict key: strings as they are; floats, booleans, `None` and ints as their
    /// JSON text in quotes; anything else is a TypeError.
    fn key(&mut self, k: &Value<'_>) -> Result<(), Error> {
        match k {
            Value::Str(s) => write_json_str(self.out, s, self.opts.ensure_ascii),
            Value::Float(_) | Value::Bool(_) | Value::None | Value::Int(_) | Value::Big(_) => {
                self.out.push('"');
                self.value(k)?;
                self.out.push('"');
            }
            other => {
                return Err(err!(
                    Type,
                    "keys must be str, int, float, bool or None, not {}",
                    other.type_name()
                ))
            }
        }
        Ok(())
    }

    /// Opens a container: one level deeper, with the depth guard.
    fn enter(&mut self, open: char) -> Result<(), Error> {
        if self.level >= MAX_DEPTH {
            return Err(err!(
                Runtime,
                "maximum recursion depth exceeded while encoding a JSON object"
            ));
        }
        self.level += 1;
        self.out.push(open);
        self.newline();
        Ok(())
    }

    /// Closes a container.
    fn leave(&mut self, close: char) {
        self.level -= 1;
        self.newline();
        self.out.push(close);
    }

    /// With an indent: a newline and the indent of the current level.
    fn newline(&mut self) {
        if let Some(indent) = self.opts.indent {
            self.out.push('\n');
            for _ in 0..self.level {
                self.out.push_str(indent);
            }
        }
    }

    /// Between two items.
    fn separator(&mut self) {
        self.out.push_str(self.opts.item_sep);
        self.newline();
    }

    /// Writes `[a, b, ...]`, `[]` when empty.
    fn array<T>(
        &mut self,
        len: usize,
        items: impl Iterator<Item = T>,
        mut each: impl FnMut(&mut Self, T) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if len == 0 {
            self.out.push_str("[]");
            return Ok(());
        }
        self.enter('[')?;
        for (i, item) in items.enumerate() {
            if i > 0 {
                self.separator();
            }
            each(self, item)?;
        }
        self.leave(']');
        Ok(())
    }

    /// Writes `{k: v, ...}`, `{}` when empty.
    fn object<K, V>(
        &mut self,
        entries: impl ExactSizeIterator<Item = (K, V)>,
        mut key: impl FnMut(&mut Self, K) -> Result<(), Error>,
        mut value: impl FnMut(&mut Self, V) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if entries.len() == 0 {
            self.out.push_str("{}");
            return Ok(());
        }
        self.enter('{')?;
        for (i, (k, v)) in entries.enumerate() {
            if i > 0 {
                self.separator();
            }
            key(self, k)?;
            self.out.push_str(self.opts.key_sep);
            value(self, v)?;
        }
        self.leave('}');
        Ok(())
    }
}
