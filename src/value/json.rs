//! `json.dumps` as transformers' `tojson` calls it.
//!
//! The writer follows CPython's `json` encoder: `", "`/`": "` separators (`","` when
//! indenting), insertion order unless `sort_keys`, floats as `repr` with `NaN`/`Infinity`,
//! exact integers, tuples as arrays, non-string keys converted (`1` → `"1"`, `True` →
//! `"true"`, `None` → `"null"`). The caller's JSON (`Value::Json`) is written straight from
//! the `serde_json::Value`, without converting it first.

use crate::error::{err, Error, ErrorKind, Limit};
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
    /// The most bytes `dumps` may write (the render's value limit): past it, it stops with
    /// `Limit(Output)`. Checked at every container and separator, so a list built of shared
    /// lists (`[s, s]` nested 40 deep) fails fast instead of writing its unfolded size.
    pub(crate) max_len: usize,
}

impl Default for JsonOpts<'_> {
    fn default() -> Self {
        JsonOpts {
            ensure_ascii: false,
            indent: None,
            item_sep: ", ",
            key_sep: ": ",
            sort_keys: false,
            max_len: usize::MAX,
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
        Value::Str(s) | Value::Markup(s) => Some(s),
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
        max_len: ctx.max_value,
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
/// `json.dumps(v, ...)` as a string in the render arena. Writes into a per-thread scratch
/// buffer that keeps its capacity, so a render's `tojson` calls do not grow fresh strings.
pub(crate) fn dumps_to_arena<'a>(
    ctx: &Ctx<'a>,
    v: &Value<'a>,
    opts: &JsonOpts<'_>,
) -> Result<&'a str, Error> {
    thread_local! {
        static SCRATCH: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
    }
    let mut buf = SCRATCH.with(|s| s.take());
    buf.clear();
    let r = dumps(&mut buf, v, opts).map(|()| &*ctx.arena.alloc_str(&buf));
    if buf.capacity() <= 1 << 20 {
        SCRATCH.with(|s| s.set(buf));
    }
    r
}

pub(crate) fn dumps(out: &mut String, v: &Value<'_>, opts: &JsonOpts<'_>) -> Result<(), Error> {
    Writer {
        start: out.len(),
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
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none of them needs an escape.
        if i + 8 <= bytes.len()
            && !word_needs_escape(crate::value::ops::le64(bytes, i), ensure_ascii)
        {
            i += 8;
            continue;
        }
        let b = bytes[i];
        // One table lookup per byte: control characters, `"` and `\\` always need an escape,
        // non-ASCII only with `ensure_ascii`.
        if !NEEDS_ESCAPE[usize::from(b)] && (b < 0x7f || !ensure_ascii) {
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

/// Whether any of the eight bytes of `w` needs an escape (see [`NEEDS_ESCAPE`]; with
/// `ensure_ascii`, also 0x7f and above). Exact: a byte that needs none never makes it true.
#[inline]
fn word_needs_escape(w: u64, ensure_ascii: bool) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte below `n` (n <= 0x80) sets its high bit in `(w - n*ONES) & !w & HIGH`, and only
    // such a byte can (the borrow a byte below `n` starts moves up, never down).
    let below = |w: u64, n: u64| w.wrapping_sub(ONES * n) & !w & HIGH;
    let zero = |w: u64| below(w, 1);
    let mut hit =
        below(w, 0x20) | zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\')));
    if ensure_ascii {
        hit |= (w & HIGH) | zero(w ^ (ONES * 0x7f));
    }
    hit != 0
}

/// Bytes that JSON never carries raw: control characters, `"` and `\\`.
static NEEDS_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

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
    /// The length of `out` before this value, for the size limit.
    start: usize,
}

impl Writer<'_, '_> {
    /// Writes any value.
    fn value(&mut self, v: &Value<'_>) -> Result<(), Error> {
        match v {
            Value::None => self.out.push_str("null"),
            Value::Bool(true) => self.out.push_str("true"),
            Value::Bool(false) => self.out.push_str("false"),
            Value::Int(i) => write_int(self.out, *i),
            Value::Big(b) => self.out.push_str(&b.decimal_checked()?),
            Value::Float(f) => write_json_float(self.out, *f),
            Value::Str(s) | Value::Markup(s) => write_json_str(self.out, s, self.opts.ensure_ascii),
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
            Value::Str(s) | Value::Markup(s) => write_json_str(self.out, s, self.opts.ensure_ascii),
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
        self.check_len()?;
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
    fn separator(&mut self) -> Result<(), Error> {
        self.check_len()?;
        self.out.push_str(self.opts.item_sep);
        self.newline();
        Ok(())
    }

    /// Fails with `Limit(Output)` once more than `opts.max_len` bytes are written.
    #[inline]
    fn check_len(&self) -> Result<(), Error> {
        if self.out.len() - self.start > self.opts.max_len {
            return Err(Error::new(
                ErrorKind::Limit(Limit::Output),
                format!(
                    "a value larger than the output limit ({} bytes)",
                    self.opts.max_len
                ),
            ));
        }
        Ok(())
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
                self.separator()?;
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
                self.separator()?;
            }
            key(self, k)?;
            self.out.push_str(self.opts.key_sep);
            value(self, v)?;
        }
        self.leave('}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Expected strings come from probing `tojson` in transformers' environment
    //! (`json.dumps` of Python 3.11).

    use bumpalo::Bump;

    use super::*;
    use crate::error::ErrorKind;
    use crate::value::{Gen, IterKind};

    /// `write_json_str` one character at a time, with no word-at-a-time skipping.
    fn json_str_by_char(s: &str, ensure_ascii: bool) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            let cp = u32::from(c);
            if cp < 0x80 && NEEDS_ESCAPE[cp as usize] {
                write_escape(&mut out, cp);
            } else if ensure_ascii && cp >= 0x7f {
                if cp > 0xffff {
                    write_u4(&mut out, 0xd800 | ((cp - 0x10000) >> 10));
                    write_u4(&mut out, 0xdc00 | ((cp - 0x10000) & 0x3ff));
                } else {
                    write_u4(&mut out, cp);
                }
            } else {
                out.push(c);
            }
        }
        out.push('"');
        out
    }

    proptest::proptest! {
        #[test]
        fn json_str_words_equal_chars(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "a", "bcdefgh", " ", "~", "\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}", "é", "日",
                "🙂", "\u{80}", "0123456789abcdef",
            ]), 0..40),
            ensure_ascii in proptest::bool::ANY,
        ) {
            let s = parts.concat();
            let mut out = String::new();
            write_json_str(&mut out, &s, ensure_ascii);
            proptest::prop_assert_eq!(out, json_str_by_char(&s, ensure_ascii));
        }
    }

    #[test]
    fn json_str_escapes_at_every_word_position() {
        for special in ["\"", "\\", "\n", "\u{0}", "\u{1f}", "\u{7f}", "é", "🙂"] {
            for at in 0..17 {
                let s = format!("{}{special}{}", "x".repeat(at), "y".repeat(17 - at));
                for ensure_ascii in [false, true] {
                    let mut out = String::new();
                    write_json_str(&mut out, &s, ensure_ascii);
                    assert_eq!(out, json_str_by_char(&s, ensure_ascii), "{s:?}");
                }
            }
        }
    }

    /// A context over `bump`.
    fn ctx(bump: &Bump) -> Ctx<'_> {
        Ctx::for_tests(bump)
    }

    /// `json.dumps(v, **kwargs)` through [`opts_from_args`].
    fn dump<'a>(
        ctx: &Ctx<'a>,
        v: Value<'a>,
        kwargs: &[(&'a str, Value<'a>)],
    ) -> Result<String, Error> {
        let opts = opts_from_args(ctx, &[], kwargs)?;
        let mut out = String::new();
        dumps(&mut out, &v, &opts)?;
        Ok(out)
    }

    /// The `{'a': [1, {'x': 2}], 'b': {}, 'c': []}` of several probes.
    fn nested<'a>(ctx: &Ctx<'a>) -> Value<'a> {
        let inner = Value::Dict(ctx.arena.alloc([(Value::Str("x"), Value::Int(2))]));
        Value::Dict(ctx.arena.alloc([
            (Value::Str("a"), ctx.list([Value::Int(1), inner])),
            (Value::Str("b"), Value::Dict(&[])),
            (Value::Str("c"), Value::List(&[])),
        ]))
    }

    #[test]
    fn default_separators_and_escapes() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let s = Value::Str("é\n\x1f\x7f\"\\😀");
        let list = c.list([
            Value::Int(1),
            Value::Float(2.5),
            Value::None,
            Value::Bool(true),
            s,
        ]);
        let v = Value::Dict(c.arena.alloc([
            (Value::Str("a"), list),
            (Value::Str("b"), Value::Dict(&[])),
            (Value::Str("c"), Value::List(&[])),
        ]));
        assert_eq!(
            dump(&c, v, &[]).ok().as_deref(),
            Some("{\"a\": [1, 2.5, null, true, \"é\\n\\u001f\x7f\\\"\\\\😀\"], \"b\": {}, \"c\": []}")
        );
    }

    #[test]
    fn indent_forms() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let v = nested(&c);
        assert_eq!(
            dump(&c, v, &[("indent", Value::Int(2))]).ok().as_deref(),
            Some("{\n  \"a\": [\n    1,\n    {\n      \"x\": 2\n    }\n  ],\n  \"b\": {},\n  \"c\": []\n}")
        );
        assert_eq!(
            dump(&c, v, &[("indent", Value::Str("\t"))]).ok().as_deref(),
            Some("{\n\t\"a\": [\n\t\t1,\n\t\t{\n\t\t\t\"x\": 2\n\t\t}\n\t],\n\t\"b\": {},\n\t\"c\": []\n}")
        );
        let small = Value::Dict(c.arena.alloc([(Value::Str("a"), c.list([Value::Int(1)]))]));
        for indent in [Value::Int(0), Value::Int(-1), Value::Str("")] {
            assert_eq!(
                dump(&c, small, &[("indent", indent)]).ok().as_deref(),
                Some("{\n\"a\": [\n1\n]\n}")
            );
        }
        assert_eq!(
            dump(&c, small, &[("indent", Value::Bool(true))])
                .ok()
                .as_deref(),
            Some("{\n \"a\": [\n  1\n ]\n}")
        );
        let e = dump(&c, small, &[("indent", Value::Float(2.5))]).err();
        assert_eq!(
            e.as_ref().map(Error::message),
            Some("can't multiply sequence by non-int of type 'float'")
        );
        let empty_in_list = c.list([Value::Dict(&[])]);
        assert_eq!(
            dump(&c, empty_in_list, &[("indent", Value::Int(2))])
                .ok()
                .as_deref(),
            Some("[\n  {}\n]")
        );
        assert_eq!(
            dump(
                &c,
                small,
                &[("indent", Value::None), ("separators", Value::None)]
            )
            .ok()
            .as_deref(),
            Some("{\"a\": [1]}")
        );
    }

    #[test]
    fn separators() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let v = Value::Dict(
            c.arena
                .alloc([(Value::Str("a"), c.list([Value::Int(1), Value::Int(2)]))]),
        );
        let tight = Value::Tuple(c.slice([Value::Str(","), Value::Str(":")]));
        assert_eq!(
            dump(&c, v, &[("separators", tight)]).ok().as_deref(),
            Some("{\"a\":[1,2]}")
        );
        let as_list = c.list([Value::Str(","), Value::Str(":")]);
        assert_eq!(
            dump(&c, v, &[("separators", as_list), ("indent", Value::Int(1))])
                .ok()
                .as_deref(),
            Some("{\n \"a\":[\n  1,\n  2\n ]\n}")
        );
        let one = Value::Tuple(c.slice([Value::Str(",")]));
        let e = dump(&c, v, &[("separators", one)]).err();
        assert_eq!(
            e.as_ref().map(Error::message),
            Some("not enough values to unpack (expected 2, got 1)")
        );
        let ints = Value::Tuple(c.slice([Value::Int(1), Value::Int(2)]));
        let e = dump(&c, v, &[("separators", ints)]).err();
        assert_eq!(e.map(|e| e.kind()), Some(ErrorKind::Type));
        let e = dump(&c, v, &[("foo", Value::Int(1))]).err();
        assert_eq!(
            e.as_ref().map(Error::message),
            Some("_cached_compile_jinja_template.<locals>.tojson() got an unexpected keyword argument 'foo'")
        );
    }

    #[test]
    fn ensure_ascii_and_truthy_flags() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let s = Value::Str("é😀\x7f\u{2028}");
        assert_eq!(
            dump(&c, s, &[("ensure_ascii", Value::Bool(true))])
                .ok()
                .as_deref(),
            Some(r#""\u00e9\ud83d\ude00\u007f\u2028""#)
        );
        assert_eq!(
            dump(
                &c,
                Value::Str("a"),
                &[
                    ("ensure_ascii", Value::Int(1)),
                    ("sort_keys", Value::Str("x"))
                ]
            )
            .ok()
            .as_deref(),
            Some("\"a\"")
        );
        // Positional: tojson(x, ensure_ascii, indent, separators, sort_keys).
        let opts = opts_from_args(&c, &[Value::Bool(true), Value::Int(1)], &[]);
        assert!(opts.is_ok_and(|o| o.ensure_ascii && o.indent == Some(" ") && o.item_sep == ","));
    }

    #[test]
    fn sort_keys() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let sort = [("sort_keys", Value::Bool(true))];
        let v = Value::Dict(c.arena.alloc([
            (Value::Str("b"), Value::Int(1)),
            (Value::Str("a"), Value::Int(2)),
        ]));
        assert_eq!(
            dump(&c, v, &sort).ok().as_deref(),
            Some("{\"a\": 2, \"b\": 1}")
        );
        let mixed = Value::Dict(c.arena.alloc([
            (Value::Int(1), Value::Int(1)),
            (Value::Str("a"), Value::Int(2)),
        ]));
        let e = dump(&c, mixed, &sort).err();
        assert_eq!(
            e.as_ref().map(Error::message),
            Some("'<' not supported between instances of 'str' and 'int'")
        );
        let nums = Value::Dict(c.arena.alloc([
            (Value::Int(2), Value::Int(1)),
            (Value::Float(1.5), Value::Int(2)),
            (Value::Bool(true), Value::Int(3)),
        ]));
        assert_eq!(
            dump(&c, nums, &sort).ok().as_deref(),
            Some("{\"true\": 3, \"1.5\": 2, \"2\": 1}")
        );
        let none_key = Value::Dict(c.arena.alloc([
            (Value::None, Value::Int(1)),
            (Value::Str("a"), Value::Int(2)),
        ]));
        let e = dump(&c, none_key, &sort).err();
        assert_eq!(
            e.as_ref().map(Error::message),
            Some("'<' not supported between instances of 'str' and 'NoneType'")
        );
    }

    #[test]
    fn keys_are_converted() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let big = c.int(1i128 << 70);
        let v = Value::Dict(c.arena.alloc([
            (Value::Int(1), Value::Str("c")),
            (Value::Float(1.5), Value::Str("b")),
            (Value::None, Value::Str("d")),
            (big, Value::Str("e")),
            (Value::Bool(false), Value::Str("f")),
            (Value::Float(f64::INFINITY), Value::Int(1)),
            (Value::Float(f64::NEG_INFINITY), Value::Int(2)),
            (Value::Float(f64::NAN), Value::Int(3)),
            (Value::Float(1e16), Value::Int(4)),
        ]));
        assert_eq!(
            dump(&c, v, &[]).ok().as_deref(),
            Some(
                "{\"1\": \"c\", \"1.5\": \"b\", \"null\": \"d\", \"1180591620717411303424\": \"e\", \
                 \"false\": \"f\", \"Infinity\": 1, \"-Infinity\": 2, \"NaN\": 3, \"1e+16\": 4}"
            )
        );
        let tuple_key = Value::Dict(c.arena.alloc([(
            Value::Tuple(c.slice([Value::Int(1), Value::Int(2)])),
            Value::Str("a"),
        )]));
        let e = dump(&c, tuple_key, &[]).err();
        assert_eq!(
            e.as_ref().map(Error::message),
            Some("keys must be str, int, float, bool or None, not tuple")
        );
        let undef_key = Value::Dict(c.arena.alloc([(Value::UNDEFINED, Value::Str("a"))]));
        let e = dump(&c, undef_key, &[]).err();
        assert_eq!(
            e.as_ref().map(Error::message),
            Some("keys must be str, int, float, bool or None, not Undefined")
        );
    }

    #[test]
    fn numbers_tuples_and_unserializable() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let v = Value::Tuple(c.slice([
            Value::Int(1),
            Value::Float(1e16),
            Value::Float(f64::INFINITY),
            Value::Float(f64::NEG_INFINITY),
            Value::Float(f64::NAN),
            c.int(1i128 << 100),
            Value::Float(1.0),
        ]));
        assert_eq!(
            dump(&c, v, &[]).ok().as_deref(),
            Some("[1, 1e+16, Infinity, -Infinity, NaN, 1267650600228229401496703205376, 1.0]")
        );
        let cases = [
            (Value::UNDEFINED, "Undefined"),
            (c.iter(IterKind::Generator(Gen::Map), &[]), "generator"),
            (c.iter(IterKind::DictItems, &[]), "dict_items"),
            (Value::Ns(c.namespace()), "TemplateNamespace"),
            (c.list([Value::UNDEFINED]), "Undefined"),
        ];
        for (v, ty) in cases {
            let e = dump(&c, v, &[]).err();
            assert_eq!(e.as_ref().map(Error::kind), Some(ErrorKind::Type));
            assert_eq!(
                e.as_ref().map(Error::message),
                Some(format!("Object of type {ty} is not JSON serializable").as_str())
            );
        }
    }

    #[test]
    fn borrowed_json_is_written_directly() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let src = r#"{"z": [1, -2, 3.25, 1e300, 1.0, 12345678901234567890, null, true, false, "\u00e9\ud83d\ude00 \" \\ \n\u0001\u007f</"], "a": {"nested": {"k": []}, "e": {}}, "m": 0.1}"#;
        let j: serde_json::Value = serde_json::from_str(src).unwrap_or_default();
        let v = Value::Json(&j);
        assert_eq!(
            dump(&c, v, &[]).ok().as_deref(),
            Some("{\"z\": [1, -2, 3.25, 1e+300, 1.0, 12345678901234567890, null, true, false, \"é😀 \\\" \\\\ \\n\\u0001\x7f</\"], \"a\": {\"nested\": {\"k\": []}, \"e\": {}}, \"m\": 0.1}")
        );
        assert_eq!(
            dump(&c, v, &[("ensure_ascii", Value::Bool(true))])
                .ok()
                .as_deref(),
            Some(
                r#"{"z": [1, -2, 3.25, 1e+300, 1.0, 12345678901234567890, null, true, false, "\u00e9\ud83d\ude00 \" \\ \n\u0001\u007f</"], "a": {"nested": {"k": []}, "e": {}}, "m": 0.1}"#
            )
        );
        assert_eq!(
            dump(
                &c,
                v,
                &[
                    ("indent", Value::Int(2)),
                    ("sort_keys", Value::Bool(true)),
                    ("ensure_ascii", Value::Bool(true))
                ]
            )
            .ok()
            .as_deref(),
            Some("{\n  \"a\": {\n    \"e\": {},\n    \"nested\": {\n      \"k\": []\n    }\n  },\n  \"m\": 0.1,\n  \"z\": [\n    1,\n    -2,\n    3.25,\n    1e+300,\n    1.0,\n    12345678901234567890,\n    null,\n    true,\n    false,\n    \"\\u00e9\\ud83d\\ude00 \\\" \\\\ \\n\\u0001\\u007f</\"\n  ]\n}")
        );
        // A template list holding borrowed JSON.
        let mixed = c.list([Value::Json(&j["a"]), Value::Str("x")]);
        assert_eq!(
            dump(&c, mixed, &[]).ok().as_deref(),
            Some("[{\"nested\": {\"k\": []}, \"e\": {}}, \"x\"]")
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let bump = Bump::new();
        let c = ctx(&bump);
        let mut v = Value::Int(0);
        for _ in 0..10_000 {
            v = c.list([v]);
        }
        assert!(dump(&c, v, &[]).is_err());
    }
}
