//! Printing values as Python does: `str(x)` for `{{ x }}` and `|string`, `repr(x)` inside
//! containers.
//!
//! Everything writes into a caller's `String`; printing a string or a number allocates
//! nothing. Containers print their items with `repr`. Python's reprs of objects that have no
//! stable text (generators, bound methods, functions) carry a memory address; here it is the
//! fixed [`FAKE_ADDR`].

use std::cell::Cell;
use std::fmt::Write as _;

use crate::value::{Callable, Global, IterKind, LoopState, Namespace, Value};

/// The address printed in reprs that would show one in Python (`<generator object ... at
/// 0x...>`): Python's is not reproducible, so any fixed text will do.
pub(crate) const FAKE_ADDR: &str = "0x7f0000000000";

/// How deep containers nest before printing gives up and writes `...` (Python would raise
/// `RecursionError` somewhere near 1000 frames).
const MAX_DEPTH: usize = 500;

thread_local! {
    /// The output limit of the render running on this thread (set with its `Ctx`, through
    /// [`set_print_limit`]). Printing a container stops once it has written more than this:
    /// the text is then too large for the output, whose caller fails with `Limit(Output)`
    /// on its size. Without it a list built of shared lists (`[s, s]` nested 40 deep)
    /// would print its 2^40 leaves.
    static PRINT_LIMIT: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Makes `max` the most bytes one value prints on this thread (see [`PRINT_LIMIT`]).
pub(crate) fn set_print_limit(max: usize) {
    PRINT_LIMIT.with(|l| l.set(max));
}

/// The most bytes one value prints on this thread (see [`PRINT_LIMIT`]).
pub(crate) fn print_limit() -> usize {
    PRINT_LIMIT.with(Cell::get)
}

/// Appends `str(v)` to `out`; Undefined prints as nothing.
pub(crate) fn write_str(out: &mut String, v: &Value<'_>) {
    match v {
        Value::Str(s) | Value::Markup(s) => out.push_str(s),
        Value::Undefined(_) => {}
        Value::Int(i) => write_int(out, *i),
        _ => write_repr(out, v),
    }
}

/// Appends `repr(v)` to `out`. `repr(Undefined)` is `Undefined`, as in a list: `[Undefined]`.
pub(crate) fn write_repr(out: &mut String, v: &Value<'_>) {
    Printer {
        start: out.len(),
        budget: PRINT_LIMIT.with(Cell::get),
        out,
        depth: 0,
        open_ns: Vec::new(),
    }
    .repr(v);
}

/// Appends the decimal digits of `i`.
#[inline]
pub(crate) fn write_int(out: &mut String, i: i64) {
    let _ = write!(out, "{i}");
}

/// Appends Python's `repr(f)`: the shortest round-trip digits, `1.0`, `1e+16`, `1.5e-07`,
/// `inf`, `nan`, `-0.0`.
pub(crate) fn write_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("nan");
    } else if f.is_infinite() {
        out.push_str(if f < 0.0 { "-inf" } else { "inf" });
    } else {
        write_finite_float(out, f);
    }
}

/// Appends a finite float in Python's `repr` layout: scientific when the decimal exponent is
/// below -4 or at least 16, else positional with at least one digit after the point.
pub(crate) fn write_finite_float(out: &mut String, f: f64) {
    // Rust's `{:e}` prints the shortest digits that round-trip, like Python's repr; only the
    // layout differs: "1.5e-7" has to become "1.5e-07", "1e16" "1e+16", "1e3" "1000.0".
    let mut buf = StackBuf::new();
    let _ = write!(buf, "{f:e}");
    // When two shortest digit strings round-trip, Rust may pick either; Python picks the one
    // closest to the exact value (ties to even), which is the exactly rounded one.
    let digits = buf
        .as_str()
        .bytes()
        .take_while(|b| *b != b'e')
        .filter(u8::is_ascii_digit)
        .count();
    let mut exact = StackBuf::new();
    let _ = write!(exact, "{f:.prec$e}", prec = digits.saturating_sub(1));
    if exact.as_str().parse::<f64>().ok() == Some(f) {
        buf = exact;
    }
    let text = buf.as_str();
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (lead, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if negative {
        out.push('-');
    }
    if !(-4..16).contains(&exp) {
        out.push_str(lead);
        if !frac.is_empty() {
            out.push('.');
            out.push_str(frac);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", exp.unsigned_abs());
    } else if exp >= 0 {
        // `exp + 1` digits before the point, padded with zeros.
        let int_digits = exp as usize + 1;
        out.push_str(lead);
        let from_frac = frac.len().min(int_digits - 1);
        out.push_str(&frac[..from_frac]);
        for _ in from_frac..int_digits - 1 {
            out.push('0');
        }
        out.push('.');
        if from_frac < frac.len() {
            out.push_str(&frac[from_frac..]);
        } else {
            out.push('0');
        }
    } else {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(lead);
        out.push_str(frac);
    }
}

/// A small stack buffer for formatting one float without allocating.
struct StackBuf {
    /// The bytes written so far.
    buf: [u8; 48],
    /// How many of them.
    len: usize,
}

impl StackBuf {
    /// An empty buffer.
    fn new() -> StackBuf {
        StackBuf {
            buf: [0; 48],
            len: 0,
        }
    }

    /// The text written (always ASCII here).
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl std::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Appends Python's `repr(b)` of a `bytes` whose items are the byte values: `b'...'`,
/// single quotes unless it holds `'` and no `"`; `\\`, `\n`, `\r`, `\t` and the quote
/// escaped, other bytes outside printable ASCII as `\xNN`.
fn write_bytes_repr(out: &mut String, items: &[Value<'_>]) {
    let byte = |v: &Value<'_>| match v {
        Value::Int(i) => u8::try_from(*i).unwrap_or(0),
        _ => 0,
    };
    let has = |c: u8| items.iter().any(|v| byte(v) == c);
    let quote = if has(b'\'') && !has(b'"') {
        b'"'
    } else {
        b'\''
    };
    out.push('b');
    out.push(char::from(quote));
    for v in items {
        match byte(v) {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(char::from(c));
            }
            c @ 0x20..=0x7e => out.push(char::from(c)),
            c => {
                let _ = write!(out, "\\x{c:02x}");
            }
        }
    }
    out.push(char::from(quote));
}

/// Appends Python's `repr(s)` of a string: single quotes unless the string contains `'` and
/// no `"`; `\\`, `\n`, `\r`, `\t` and the quote escaped; other non-printable characters as
/// `\xHH`, `\uHHHH` or `\UHHHHHHHH`.
pub(crate) fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    let mut last = 0;
    for (i, c) in s.char_indices() {
        let escape: Option<&str> = match c {
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            _ if c == quote => Some(if quote == '\'' { "\\'" } else { "\\\"" }),
            ' '..='~' => continue,
            _ if c > '\u{7f}' && is_printable(c) => continue,
            _ => None,
        };
        out.push_str(&s[last..i]);
        last = i + c.len_utf8();
        match escape {
            Some(e) => out.push_str(e),
            None => {
                let cp = u32::from(c);
                let _ = if cp <= 0xff {
                    write!(out, "\\x{cp:02x}")
                } else if cp <= 0xffff {
                    write!(out, "\\u{cp:04x}")
                } else {
                    write!(out, "\\U{cp:08x}")
                };
            }
        }
    }
    out.push_str(&s[last..]);
    out.push(quote);
}

/// Python's `str.isprintable()` for one character (Unicode 14.0, Python 3.11): false for the
/// categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs other than the space.
pub(crate) fn is_printable(c: char) -> bool {
    let cp = u32::from(c);
    if cp < 0x80 {
        return (0x20..0x7f).contains(&cp);
    }
    !in_ranges(&NON_PRINTABLE, cp)
}

/// Whether `cp` lies in one of the sorted, disjoint inclusive ranges of `table` (the
/// Unicode tables of the printer and of `builtins::pyunicode`).
pub(crate) fn in_ranges(table: &[(u32, u32)], cp: u32) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Prints nested values, guarding against namespaces that contain themselves and against
/// runaway depth.
struct Printer<'o, 'v> {
    /// Where the text goes.
    out: &'o mut String,
    /// How many containers enclose the value being printed.
    depth: usize,
    /// The namespaces being printed, outermost first: one met again prints as
    /// `<Namespace {...}>`, as Python's recursive dict repr does.
    open_ns: Vec<*const Namespace<'v>>,
    /// The length of `out` before this value.
    start: usize,
    /// The bytes this value may write before printing stops (see [`PRINT_LIMIT`]).
    budget: usize,
}

impl<'v> Printer<'_, 'v> {
    /// Prints `repr(v)`.
    fn repr(&mut self, v: &Value<'v>) {
        match v {
            Value::Undefined(_) => self.out.push_str("Undefined"),
            Value::None => self.out.push_str("None"),
            Value::Bool(true) => self.out.push_str("True"),
            Value::Bool(false) => self.out.push_str("False"),
            Value::Int(i) => write_int(self.out, *i),
            Value::Big(b) => b.write_decimal(self.out),
            Value::Float(f) => write_float(self.out, *f),
            Value::Str(s) => write_str_repr(self.out, s),
            Value::Markup(s) => {
                self.out.push_str("Markup(");
                write_str_repr(self.out, s);
                self.out.push(')');
            }
            Value::List(items) => self.seq("[", items.iter().copied(), "]"),
            Value::Tuple(items) => {
                if items.len() == 1 {
                    self.seq("(", items.iter().copied(), ",)");
                } else {
                    self.seq("(", items.iter().copied(), ")");
                }
            }
            Value::Dict(entries) => self.map(entries.iter().copied()),
            Value::Json(j) => self.json(j),
            Value::Iter(seq) => {
                let (open, close) = match seq.kind {
                    IterKind::DictItems => ("dict_items([", "])"),
                    IterKind::DictKeys => ("dict_keys([", "])"),
                    IterKind::DictValues => ("dict_values([", "])"),
                    IterKind::Generator(g) => {
                        let _ = write!(self.out, "<generator object {} at {FAKE_ADDR}>", g.name());
                        return;
                    }
                    IterKind::Reverse(r) => {
                        let _ = write!(self.out, "<{} at {FAKE_ADDR}>", r.object_repr());
                        return;
                    }
                    IterKind::RangeReverse => {
                        let _ = write!(self.out, "<range_iterator object at {FAKE_ADDR}>");
                        return;
                    }
                    IterKind::Bytes => {
                        write_bytes_repr(self.out, seq.items);
                        return;
                    }
                    IterKind::Range { start, stop, step } => {
                        let _ = if step == 1 {
                            write!(self.out, "range({start}, {stop})")
                        } else {
                            write!(self.out, "range({start}, {stop}, {step})")
                        };
                        return;
                    }
                };
                self.seq(open, seq.items.iter().copied(), close);
            }
            Value::Ns(ns) => self.namespace(ns),
            Value::Callable(c) => self.callable(c),
            Value::Loop(l) => write_loop(self.out, l),
        }
    }

    /// Enters one more level of nesting; false (after writing `...`) when too deep, and
    /// false (writing nothing) once the output limit is passed.
    fn enter(&mut self) -> bool {
        if self.out.len() - self.start > self.budget {
            return false;
        }
        if self.depth >= MAX_DEPTH {
            self.out.push_str("...");
            return false;
        }
        self.depth += 1;
        true
    }

    /// Prints `open item, item close`.
    fn seq(&mut self, open: &str, items: impl Iterator<Item = Value<'v>>, close: &str) {
        if !self.enter() {
            return;
        }
        self.out.push_str(open);
        for (i, item) in items.enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.repr(&item);
        }
        self.out.push_str(close);
        self.depth -= 1;
    }

    /// Prints `{key: value, ...}`.
    fn map(&mut self, entries: impl Iterator<Item = (Value<'v>, Value<'v>)>) {
        if !self.enter() {
            return;
        }
        self.out.push('{');
        for (i, (k, v)) in entries.enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.repr(&k);
            self.out.push_str(": ");
            self.repr(&v);
        }
        self.out.push('}');
        self.depth -= 1;
    }

    /// Prints a borrowed JSON container (or scalar) like the Python list or dict it stands for.
    fn json(&mut self, j: &'v serde_json::Value) {
        match j {
            serde_json::Value::Array(a) => {
                if !self.enter() {
                    return;
                }
                self.out.push('[');
                for (i, item) in a.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.json(item);
                }
                self.out.push(']');
                self.depth -= 1;
            }
            serde_json::Value::Object(o) => {
                if !self.enter() {
                    return;
                }
                self.out.push('{');
                for (i, (k, v)) in o.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    write_str_repr(self.out, k);
                    self.out.push_str(": ");
                    self.json(v);
                }
                self.out.push('}');
                self.depth -= 1;
            }
            serde_json::Value::Number(n) => write_json_number(self.out, n),
            scalar => self.repr(&Value::from_json(scalar)),
        }
    }

    /// Prints `<Namespace {...}>`, or the object a `cycler()` or `joiner()` stands for.
    fn namespace(&mut self, ns: &'v Namespace<'v>) {
        if let Some(class) = helper_class(ns) {
            let _ = write!(self.out, "<jinja2.utils.{class} object at {FAKE_ADDR}>");
            return;
        }
        let ptr: *const Namespace<'v> = ns;
        if self.open_ns.iter().any(|p| std::ptr::eq(*p, ptr)) {
            self.out.push_str("<Namespace {...}>");
            return;
        }
        self.open_ns.push(ptr);
        self.out.push_str("<Namespace ");
        let attrs = ns.attrs.borrow();
        self.map(attrs.iter().map(|(k, v)| (Value::Str(k), *v)));
        drop(attrs);
        self.out.push('>');
        self.open_ns.pop();
    }

    /// Prints a callable as Python would, with the fixed address.
    fn callable(&mut self, c: &Callable<'v>) {
        let out = &mut *self.out;
        let _ = match c {
            Callable::Macro { name: None, .. } => write!(out, "<Macro anonymous>"),
            Callable::Macro { name: Some(n), .. } => {
                out.push_str("<Macro ");
                write_str_repr(out, n);
                out.push('>');
                Ok(())
            }
            Callable::Method {
                recv: Value::Ns(ns),
                name: "__call__",
            } if helper_class(ns).is_some() => {
                write!(out, "<jinja2.utils.Joiner object at {FAKE_ADDR}>")
            }
            // The sandbox wraps `str.format` and `str.format_map` in a plain function.
            Callable::Method {
                recv: Value::Str(_) | Value::Markup(_),
                name: name @ ("format" | "format_map"),
            } => {
                write!(out, "<function str.{name} at {FAKE_ADDR}>")
            }
            Callable::Method { recv, name } => write!(
                out,
                "<built-in method {name} of {} object at {FAKE_ADDR}>",
                recv.type_name()
            ),
            Callable::Global(g) => write_global(out, *g),
            Callable::Cycle(l) => {
                out.push_str("<bound method LoopContext.cycle of ");
                write_loop(out, l);
                out.push('>');
                Ok(())
            }
        };
    }
}

/// `Cycler` or `Joiner` when the namespace holds the hidden state of `cycler()` or
/// `joiner()` (names a template cannot write).
fn helper_class(ns: &Namespace<'_>) -> Option<&'static str> {
    let attrs = ns.attrs.borrow();
    attrs.iter().find_map(|(k, _)| match *k {
        "__cycler_items" => Some("Cycler"),
        "__joiner_sep" => Some("Joiner"),
        _ => None,
    })
}

/// Prints a JSON number as the Python int or float it stands for.
pub(crate) fn write_json_number(out: &mut String, n: &serde_json::Number) {
    if let Some(i) = n.as_i64() {
        write_int(out, i);
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else {
        write_float(out, n.as_f64().unwrap_or(f64::NAN));
    }
}

/// `<LoopContext 1/3>`: the 1-based index and the length.
fn write_loop(out: &mut String, l: &LoopState<'_>) {
    let _ = write!(
        out,
        "<LoopContext {}/{}>",
        l.index0.get() + 1,
        l.items.len()
    );
}

/// What transformers' environment prints for its global functions.
fn write_global(out: &mut String, g: Global) -> std::fmt::Result {
    const LOCALS: &str =
        "transformers.utils.chat_template_utils._cached_compile_jinja_template.<locals>";
    match g {
        Global::Range => write!(out, "<function safe_range at {FAKE_ADDR}>"),
        Global::Namespace => write!(out, "<class '{LOCALS}.TemplateNamespace'>"),
        Global::Dict => write!(out, "<{LOCALS}.TemplateDict object at {FAKE_ADDR}>"),
        Global::RaiseException => write!(
            out,
            "<function _cached_compile_jinja_template.<locals>.raise_exception at {FAKE_ADDR}>"
        ),
        Global::StrftimeNow => write!(
            out,
            "<function _cached_compile_jinja_template.<locals>.strftime_now at {FAKE_ADDR}>"
        ),
        Global::Lipsum => write!(out, "<function generate_lorem_ipsum at {FAKE_ADDR}>"),
        Global::Cycler => write!(out, "<class 'jinja2.utils.Cycler'>"),
        Global::Joiner => write!(out, "<class 'jinja2.utils.Joiner'>"),
        Global::SelfRef => write!(out, "<TemplateReference None>"),
    }
}

/// Code point ranges (inclusive) above ASCII that Python 3.11's `str.isprintable()` rejects,
/// generated with `not chr(cp).isprintable()` over Unicode 14.0.
#[rustfmt::skip]
static NON_PRINTABLE: [(u32, u32); 700] = [
    (0x80, 0xA0), (0xAD, 0xAD), (0x378, 0x379), (0x380, 0x383), (0x38B, 0x38B), (0x38D, 0x38D),
    (0x3A2, 0x3A2), (0x530, 0x530), (0x557, 0x558), (0x58B, 0x58C), (0x590, 0x590), (0x5C8, 0x5CF),
    (0x5EB, 0x5EE), (0x5F5, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70E, 0x70F), (0x74B, 0x74C),
    (0x7B2, 0x7BF), (0x7FB, 0x7FC), (0x82E, 0x82F), (0x83F, 0x83F), (0x85C, 0x85D), (0x85F, 0x85F),
    (0x86B, 0x86F), (0x88F, 0x897), (0x8E2, 0x8E2), (0x984, 0x984), (0x98D, 0x98E), (0x991, 0x992),
    (0x9A9, 0x9A9), (0x9B1, 0x9B1), (0x9B3, 0x9B5), (0x9BA, 0x9BB), (0x9C5, 0x9C6), (0x9C9, 0x9CA),
    (0x9CF, 0x9D6), (0x9D8, 0x9DB), (0x9DE, 0x9DE), (0x9E4, 0x9E5), (0x9FF, 0xA00), (0xA04, 0xA04),
    (0xA0B, 0xA0E), (0xA11, 0xA12), (0xA29, 0xA29), (0xA31, 0xA31), (0xA34, 0xA34), (0xA37, 0xA37),
    (0xA3A, 0xA3B), (0xA3D, 0xA3D), (0xA43, 0xA46), (0xA49, 0xA4A), (0xA4E, 0xA50), (0xA52, 0xA58),
    (0xA5D, 0xA5D), (0xA5F, 0xA65), (0xA77, 0xA80), (0xA84, 0xA84), (0xA8E, 0xA8E), (0xA92, 0xA92),
    (0xAA9, 0xAA9), (0xAB1, 0xAB1), (0xAB4, 0xAB4), (0xABA, 0xABB), (0xAC6, 0xAC6), (0xACA, 0xACA),
    (0xACE, 0xACF), (0xAD1, 0xADF), (0xAE4, 0xAE5), (0xAF2, 0xAF8), (0xB00, 0xB00), (0xB04, 0xB04),
    (0xB0D, 0xB0E), (0xB11, 0xB12), (0xB29, 0xB29), (0xB31, 0xB31), (0xB34, 0xB34), (0xB3A, 0xB3B),
    (0xB45, 0xB46), (0xB49, 0xB4A), (0xB4E, 0xB54), (0xB58, 0xB5B), (0xB5E, 0xB5E), (0xB64, 0xB65),
    (0xB78, 0xB81), (0xB84, 0xB84), (0xB8B, 0xB8D), (0xB91, 0xB91), (0xB96, 0xB98), (0xB9B, 0xB9B),
    (0xB9D, 0xB9D), (0xBA0, 0xBA2), (0xBA5, 0xBA7), (0xBAB, 0xBAD), (0xBBA, 0xBBD), (0xBC3, 0xBC5),
    (0xBC9, 0xBC9), (0xBCE, 0xBCF), (0xBD1, 0xBD6), (0xBD8, 0xBE5), (0xBFB, 0xBFF), (0xC0D, 0xC0D),
    (0xC11, 0xC11), (0xC29, 0xC29), (0xC3A, 0xC3B), (0xC45, 0xC45), (0xC49, 0xC49), (0xC4E, 0xC54),
    (0xC57, 0xC57), (0xC5B, 0xC5C), (0xC5E, 0xC5F), (0xC64, 0xC65), (0xC70, 0xC76), (0xC8D, 0xC8D),
    (0xC91, 0xC91), (0xCA9, 0xCA9), (0xCB4, 0xCB4), (0xCBA, 0xCBB), (0xCC5, 0xCC5), (0xCC9, 0xCC9),
    (0xCCE, 0xCD4), (0xCD7, 0xCDC), (0xCDF, 0xCDF), (0xCE4, 0xCE5), (0xCF0, 0xCF0), (0xCF3, 0xCFF),
    (0xD0D, 0xD0D), (0xD11, 0xD11), (0xD45, 0xD45), (0xD49, 0xD49), (0xD50, 0xD53), (0xD64, 0xD65),
    (0xD80, 0xD80), (0xD84, 0xD84), (0xD97, 0xD99), (0xDB2, 0xDB2), (0xDBC, 0xDBC), (0xDBE, 0xDBF),
    (0xDC7, 0xDC9), (0xDCB, 0xDCE), (0xDD5, 0xDD5), (0xDD7, 0xDD7), (0xDE0, 0xDE5), (0xDF0, 0xDF1),
    (0xDF5, 0xE00), (0xE3B, 0xE3E), (0xE5C, 0xE80), (0xE83, 0xE83), (0xE85, 0xE85), (0xE8B, 0xE8B),
    (0xEA4, 0xEA4), (0xEA6, 0xEA6), (0xEBE, 0xEBF), (0xEC5, 0xEC5), (0xEC7, 0xEC7), (0xECE, 0xECF),
    (0xEDA, 0xEDB), (0xEE0, 0xEFF), (0xF48, 0xF48), (0xF6D, 0xF70), (0xF98, 0xF98), (0xFBD, 0xFBD),
    (0xFCD, 0xFCD), (0xFDB, 0xFFF), (0x10C6, 0x10C6), (0x10C8, 0x10CC), (0x10CE, 0x10CF),
    (0x1249, 0x1249), (0x124E, 0x124F), (0x1257, 0x1257), (0x1259, 0x1259), (0x125E, 0x125F),
    (0x1289, 0x1289), (0x128E, 0x128F), (0x12B1, 0x12B1), (0x12B6, 0x12B7), (0x12BF, 0x12BF),
    (0x12C1, 0x12C1), (0x12C6, 0x12C7), (0x12D7, 0x12D7), (0x1311, 0x1311), (0x1316, 0x1317),
    (0x135B, 0x135C), (0x137D, 0x137F), (0x139A, 0x139F), (0x13F6, 0x13F7), (0x13FE, 0x13FF),
    (0x1680, 0x1680), (0x169D, 0x169F), (0x16F9, 0x16FF), (0x1716, 0x171E), (0x1737, 0x173F),
    (0x1754, 0x175F), (0x176D, 0x176D), (0x1771, 0x1771), (0x1774, 0x177F), (0x17DE, 0x17DF),
    (0x17EA, 0x17EF), (0x17FA, 0x17FF), (0x180E, 0x180E), (0x181A, 0x181F), (0x1879, 0x187F),
    (0x18AB, 0x18AF), (0x18F6, 0x18FF), (0x191F, 0x191F), (0x192C, 0x192F), (0x193C, 0x193F),
    (0x1941, 0x1943), (0x196E, 0x196F), (0x1975, 0x197F), (0x19AC, 0x19AF), (0x19CA, 0x19CF),
    (0x19DB, 0x19DD), (0x1A1C, 0x1A1D), (0x1A5F, 0x1A5F), (0x1A7D, 0x1A7E), (0x1A8A, 0x1A8F),
    (0x1A9A, 0x1A9F), (0x1AAE, 0x1AAF), (0x1ACF, 0x1AFF), (0x1B4D, 0x1B4F), (0x1B7F, 0x1B7F),
    (0x1BF4, 0x1BFB), (0x1C38, 0x1C3A), (0x1C4A, 0x1C4C), (0x1C89, 0x1C8F), (0x1CBB, 0x1CBC),
    (0x1CC8, 0x1CCF), (0x1CFB, 0x1CFF), (0x1F16, 0x1F17), (0x1F1E, 0x1F1F), (0x1F46, 0x1F47),
    (0x1F4E, 0x1F4F), (0x1F58, 0x1F58), (0x1F5A, 0x1F5A), (0x1F5C, 0x1F5C), (0x1F5E, 0x1F5E),
    (0x1F7E, 0x1F7F), (0x1FB5, 0x1FB5), (0x1FC5, 0x1FC5), (0x1FD4, 0x1FD5), (0x1FDC, 0x1FDC),
    (0x1FF0, 0x1FF1), (0x1FF5, 0x1FF5), (0x1FFF, 0x200F), (0x2028, 0x202F), (0x205F, 0x206F),
    (0x2072, 0x2073), (0x208F, 0x208F), (0x209D, 0x209F), (0x20C1, 0x20CF), (0x20F1, 0x20FF),
    (0x218C, 0x218F), (0x2427, 0x243F), (0x244B, 0x245F), (0x2B74, 0x2B75), (0x2B96, 0x2B96),
    (0x2CF4, 0x2CF8), (0x2D26, 0x2D26), (0x2D28, 0x2D2C), (0x2D2E, 0x2D2F), (0x2D68, 0x2D6E),
    (0x2D71, 0x2D7E), (0x2D97, 0x2D9F), (0x2DA7, 0x2DA7), (0x2DAF, 0x2DAF), (0x2DB7, 0x2DB7),
    (0x2DBF, 0x2DBF), (0x2DC7, 0x2DC7), (0x2DCF, 0x2DCF), (0x2DD7, 0x2DD7), (0x2DDF, 0x2DDF),
    (0x2E5E, 0x2E7F), (0x2E9A, 0x2E9A), (0x2EF4, 0x2EFF), (0x2FD6, 0x2FEF), (0x2FFC, 0x3000),
    (0x3040, 0x3040), (0x3097, 0x3098), (0x3100, 0x3104), (0x3130, 0x3130), (0x318F, 0x318F),
    (0x31E4, 0x31EF), (0x321F, 0x321F), (0xA48D, 0xA48F), (0xA4C7, 0xA4CF), (0xA62C, 0xA63F),
    (0xA6F8, 0xA6FF), (0xA7CB, 0xA7CF), (0xA7D2, 0xA7D2), (0xA7D4, 0xA7D4), (0xA7DA, 0xA7F1),
    (0xA82D, 0xA82F), (0xA83A, 0xA83F), (0xA878, 0xA87F), (0xA8C6, 0xA8CD), (0xA8DA, 0xA8DF),
    (0xA954, 0xA95E), (0xA97D, 0xA97F), (0xA9CE, 0xA9CE), (0xA9DA, 0xA9DD), (0xA9FF, 0xA9FF),
    (0xAA37, 0xAA3F), (0xAA4E, 0xAA4F), (0xAA5A, 0xAA5B), (0xAAC3, 0xAADA), (0xAAF7, 0xAB00),
    (0xAB07, 0xAB08), (0xAB0F, 0xAB10), (0xAB17, 0xAB1F), (0xAB27, 0xAB27), (0xAB2F, 0xAB2F),
    (0xAB6C, 0xAB6F), (0xABEE, 0xABEF), (0xABFA, 0xABFF), (0xD7A4, 0xD7AF), (0xD7C7, 0xD7CA),
    (0xD7FC, 0xF8FF), (0xFA6E, 0xFA6F), (0xFADA, 0xFAFF), (0xFB07, 0xFB12), (0xFB18, 0xFB1C),
    (0xFB37, 0xFB37), (0xFB3D, 0xFB3D), (0xFB3F, 0xFB3F), (0xFB42, 0xFB42), (0xFB45, 0xFB45),
    (0xFBC3, 0xFBD2), (0xFD90, 0xFD91), (0xFDC8, 0xFDCE), (0xFDD0, 0xFDEF), (0xFE1A, 0xFE1F),
    (0xFE53, 0xFE53), (0xFE67, 0xFE67), (0xFE6C, 0xFE6F), (0xFE75, 0xFE75), (0xFEFD, 0xFF00),
    (0xFFBF, 0xFFC1), (0xFFC8, 0xFFC9), (0xFFD0, 0xFFD1), (0xFFD8, 0xFFD9), (0xFFDD, 0xFFDF),
    (0xFFE7, 0xFFE7), (0xFFEF, 0xFFFB), (0xFFFE, 0xFFFF), (0x1000C, 0x1000C), (0x10027, 0x10027),
    (0x1003B, 0x1003B), (0x1003E, 0x1003E), (0x1004E, 0x1004F), (0x1005E, 0x1007F),
    (0x100FB, 0x100FF), (0x10103, 0x10106), (0x10134, 0x10136), (0x1018F, 0x1018F),
    (0x1019D, 0x1019F), (0x101A1, 0x101CF), (0x101FE, 0x1027F), (0x1029D, 0x1029F),
    (0x102D1, 0x102DF), (0x102FC, 0x102FF), (0x10324, 0x1032C), (0x1034B, 0x1034F),
    (0x1037B, 0x1037F), (0x1039E, 0x1039E), (0x103C4, 0x103C7), (0x103D6, 0x103FF),
    (0x1049E, 0x1049F), (0x104AA, 0x104AF), (0x104D4, 0x104D7), (0x104FC, 0x104FF),
    (0x10528, 0x1052F), (0x10564, 0x1056E), (0x1057B, 0x1057B), (0x1058B, 0x1058B),
    (0x10593, 0x10593), (0x10596, 0x10596), (0x105A2, 0x105A2), (0x105B2, 0x105B2),
    (0x105BA, 0x105BA), (0x105BD, 0x105FF), (0x10737, 0x1073F), (0x10756, 0x1075F),
    (0x10768, 0x1077F), (0x10786, 0x10786), (0x107B1, 0x107B1), (0x107BB, 0x107FF),
    (0x10806, 0x10807), (0x10809, 0x10809), (0x10836, 0x10836), (0x10839, 0x1083B),
    (0x1083D, 0x1083E), (0x10856, 0x10856), (0x1089F, 0x108A6), (0x108B0, 0x108DF),
    (0x108F3, 0x108F3), (0x108F6, 0x108FA), (0x1091C, 0x1091E), (0x1093A, 0x1093E),
    (0x10940, 0x1097F), (0x109B8, 0x109BB), (0x109D0, 0x109D1), (0x10A04, 0x10A04),
    (0x10A07, 0x10A0B), (0x10A14, 0x10A14), (0x10A18, 0x10A18), (0x10A36, 0x10A37),
    (0x10A3B, 0x10A3E), (0x10A49, 0x10A4F), (0x10A59, 0x10A5F), (0x10AA0, 0x10ABF),
    (0x10AE7, 0x10AEA), (0x10AF7, 0x10AFF), (0x10B36, 0x10B38), (0x10B56, 0x10B57),
    (0x10B73, 0x10B77), (0x10B92, 0x10B98), (0x10B9D, 0x10BA8), (0x10BB0, 0x10BFF),
    (0x10C49, 0x10C7F), (0x10CB3, 0x10CBF), (0x10CF3, 0x10CF9), (0x10D28, 0x10D2F),
    (0x10D3A, 0x10E5F), (0x10E7F, 0x10E7F), (0x10EAA, 0x10EAA), (0x10EAE, 0x10EAF),
    (0x10EB2, 0x10EFF), (0x10F28, 0x10F2F), (0x10F5A, 0x10F6F), (0x10F8A, 0x10FAF),
    (0x10FCC, 0x10FDF), (0x10FF7, 0x10FFF), (0x1104E, 0x11051), (0x11076, 0x1107E),
    (0x110BD, 0x110BD), (0x110C3, 0x110CF), (0x110E9, 0x110EF), (0x110FA, 0x110FF),
    (0x11135, 0x11135), (0x11148, 0x1114F), (0x11177, 0x1117F), (0x111E0, 0x111E0),
    (0x111F5, 0x111FF), (0x11212, 0x11212), (0x1123F, 0x1127F), (0x11287, 0x11287),
    (0x11289, 0x11289), (0x1128E, 0x1128E), (0x1129E, 0x1129E), (0x112AA, 0x112AF),
    (0x112EB, 0x112EF), (0x112FA, 0x112FF), (0x11304, 0x11304), (0x1130D, 0x1130E),
    (0x11311, 0x11312), (0x11329, 0x11329), (0x11331, 0x11331), (0x11334, 0x11334),
    (0x1133A, 0x1133A), (0x11345, 0x11346), (0x11349, 0x1134A), (0x1134E, 0x1134F),
    (0x11351, 0x11356), (0x11358, 0x1135C), (0x11364, 0x11365), (0x1136D, 0x1136F),
    (0x11375, 0x113FF), (0x1145C, 0x1145C), (0x11462, 0x1147F), (0x114C8, 0x114CF),
    (0x114DA, 0x1157F), (0x115B6, 0x115B7), (0x115DE, 0x115FF), (0x11645, 0x1164F),
    (0x1165A, 0x1165F), (0x1166D, 0x1167F), (0x116BA, 0x116BF), (0x116CA, 0x116FF),
    (0x1171B, 0x1171C), (0x1172C, 0x1172F), (0x11747, 0x117FF), (0x1183C, 0x1189F),
    (0x118F3, 0x118FE), (0x11907, 0x11908), (0x1190A, 0x1190B), (0x11914, 0x11914),
    (0x11917, 0x11917), (0x11936, 0x11936), (0x11939, 0x1193A), (0x11947, 0x1194F),
    (0x1195A, 0x1199F), (0x119A8, 0x119A9), (0x119D8, 0x119D9), (0x119E5, 0x119FF),
    (0x11A48, 0x11A4F), (0x11AA3, 0x11AAF), (0x11AF9, 0x11BFF), (0x11C09, 0x11C09),
    (0x11C37, 0x11C37), (0x11C46, 0x11C4F), (0x11C6D, 0x11C6F), (0x11C90, 0x11C91),
    (0x11CA8, 0x11CA8), (0x11CB7, 0x11CFF), (0x11D07, 0x11D07), (0x11D0A, 0x11D0A),
    (0x11D37, 0x11D39), (0x11D3B, 0x11D3B), (0x11D3E, 0x11D3E), (0x11D48, 0x11D4F),
    (0x11D5A, 0x11D5F), (0x11D66, 0x11D66), (0x11D69, 0x11D69), (0x11D8F, 0x11D8F),
    (0x11D92, 0x11D92), (0x11D99, 0x11D9F), (0x11DAA, 0x11EDF), (0x11EF9, 0x11FAF),
    (0x11FB1, 0x11FBF), (0x11FF2, 0x11FFE), (0x1239A, 0x123FF), (0x1246F, 0x1246F),
    (0x12475, 0x1247F), (0x12544, 0x12F8F), (0x12FF3, 0x12FFF), (0x1342F, 0x143FF),
    (0x14647, 0x167FF), (0x16A39, 0x16A3F), (0x16A5F, 0x16A5F), (0x16A6A, 0x16A6D),
    (0x16ABF, 0x16ABF), (0x16ACA, 0x16ACF), (0x16AEE, 0x16AEF), (0x16AF6, 0x16AFF),
    (0x16B46, 0x16B4F), (0x16B5A, 0x16B5A), (0x16B62, 0x16B62), (0x16B78, 0x16B7C),
    (0x16B90, 0x16E3F), (0x16E9B, 0x16EFF), (0x16F4B, 0x16F4E), (0x16F88, 0x16F8E),
    (0x16FA0, 0x16FDF), (0x16FE5, 0x16FEF), (0x16FF2, 0x16FFF), (0x187F8, 0x187FF),
    (0x18CD6, 0x18CFF), (0x18D09, 0x1AFEF), (0x1AFF4, 0x1AFF4), (0x1AFFC, 0x1AFFC),
    (0x1AFFF, 0x1AFFF), (0x1B123, 0x1B14F), (0x1B153, 0x1B163), (0x1B168, 0x1B16F),
    (0x1B2FC, 0x1BBFF), (0x1BC6B, 0x1BC6F), (0x1BC7D, 0x1BC7F), (0x1BC89, 0x1BC8F),
    (0x1BC9A, 0x1BC9B), (0x1BCA0, 0x1CEFF), (0x1CF2E, 0x1CF2F), (0x1CF47, 0x1CF4F),
    (0x1CFC4, 0x1CFFF), (0x1D0F6, 0x1D0FF), (0x1D127, 0x1D128), (0x1D173, 0x1D17A),
    (0x1D1EB, 0x1D1FF), (0x1D246, 0x1D2DF), (0x1D2F4, 0x1D2FF), (0x1D357, 0x1D35F),
    (0x1D379, 0x1D3FF), (0x1D455, 0x1D455), (0x1D49D, 0x1D49D), (0x1D4A0, 0x1D4A1),
    (0x1D4A3, 0x1D4A4), (0x1D4A7, 0x1D4A8), (0x1D4AD, 0x1D4AD), (0x1D4BA, 0x1D4BA),
    (0x1D4BC, 0x1D4BC), (0x1D4C4, 0x1D4C4), (0x1D506, 0x1D506), (0x1D50B, 0x1D50C),
    (0x1D515, 0x1D515), (0x1D51D, 0x1D51D), (0x1D53A, 0x1D53A), (0x1D53F, 0x1D53F),
    (0x1D545, 0x1D545), (0x1D547, 0x1D549), (0x1D551, 0x1D551), (0x1D6A6, 0x1D6A7),
    (0x1D7CC, 0x1D7CD), (0x1DA8C, 0x1DA9A), (0x1DAA0, 0x1DAA0), (0x1DAB0, 0x1DEFF),
    (0x1DF1F, 0x1DFFF), (0x1E007, 0x1E007), (0x1E019, 0x1E01A), (0x1E022, 0x1E022),
    (0x1E025, 0x1E025), (0x1E02B, 0x1E0FF), (0x1E12D, 0x1E12F), (0x1E13E, 0x1E13F),
    (0x1E14A, 0x1E14D), (0x1E150, 0x1E28F), (0x1E2AF, 0x1E2BF), (0x1E2FA, 0x1E2FE),
    (0x1E300, 0x1E7DF), (0x1E7E7, 0x1E7E7), (0x1E7EC, 0x1E7EC), (0x1E7EF, 0x1E7EF),
    (0x1E7FF, 0x1E7FF), (0x1E8C5, 0x1E8C6), (0x1E8D7, 0x1E8FF), (0x1E94C, 0x1E94F),
    (0x1E95A, 0x1E95D), (0x1E960, 0x1EC70), (0x1ECB5, 0x1ED00), (0x1ED3E, 0x1EDFF),
    (0x1EE04, 0x1EE04), (0x1EE20, 0x1EE20), (0x1EE23, 0x1EE23), (0x1EE25, 0x1EE26),
    (0x1EE28, 0x1EE28), (0x1EE33, 0x1EE33), (0x1EE38, 0x1EE38), (0x1EE3A, 0x1EE3A),
    (0x1EE3C, 0x1EE41), (0x1EE43, 0x1EE46), (0x1EE48, 0x1EE48), (0x1EE4A, 0x1EE4A),
    (0x1EE4C, 0x1EE4C), (0x1EE50, 0x1EE50), (0x1EE53, 0x1EE53), (0x1EE55, 0x1EE56),
    (0x1EE58, 0x1EE58), (0x1EE5A, 0x1EE5A), (0x1EE5C, 0x1EE5C), (0x1EE5E, 0x1EE5E),
    (0x1EE60, 0x1EE60), (0x1EE63, 0x1EE63), (0x1EE65, 0x1EE66), (0x1EE6B, 0x1EE6B),
    (0x1EE73, 0x1EE73), (0x1EE78, 0x1EE78), (0x1EE7D, 0x1EE7D), (0x1EE7F, 0x1EE7F),
    (0x1EE8A, 0x1EE8A), (0x1EE9C, 0x1EEA0), (0x1EEA4, 0x1EEA4), (0x1EEAA, 0x1EEAA),
    (0x1EEBC, 0x1EEEF), (0x1EEF2, 0x1EFFF), (0x1F02C, 0x1F02F), (0x1F094, 0x1F09F),
    (0x1F0AF, 0x1F0B0), (0x1F0C0, 0x1F0C0), (0x1F0D0, 0x1F0D0), (0x1F0F6, 0x1F0FF),
    (0x1F1AE, 0x1F1E5), (0x1F203, 0x1F20F), (0x1F23C, 0x1F23F), (0x1F249, 0x1F24F),
    (0x1F252, 0x1F25F), (0x1F266, 0x1F2FF), (0x1F6D8, 0x1F6DC), (0x1F6ED, 0x1F6EF),
    (0x1F6FD, 0x1F6FF), (0x1F774, 0x1F77F), (0x1F7D9, 0x1F7DF), (0x1F7EC, 0x1F7EF),
    (0x1F7F1, 0x1F7FF), (0x1F80C, 0x1F80F), (0x1F848, 0x1F84F), (0x1F85A, 0x1F85F),
    (0x1F888, 0x1F88F), (0x1F8AE, 0x1F8AF), (0x1F8B2, 0x1F8FF), (0x1FA54, 0x1FA5F),
    (0x1FA6E, 0x1FA6F), (0x1FA75, 0x1FA77), (0x1FA7D, 0x1FA7F), (0x1FA87, 0x1FA8F),
    (0x1FAAD, 0x1FAAF), (0x1FABB, 0x1FABF), (0x1FAC6, 0x1FACF), (0x1FADA, 0x1FADF),
    (0x1FAE8, 0x1FAEF), (0x1FAF7, 0x1FAFF), (0x1FB93, 0x1FB93), (0x1FBCB, 0x1FBEF),
    (0x1FBFA, 0x1FFFF), (0x2A6E0, 0x2A6FF), (0x2B739, 0x2B73F), (0x2B81E, 0x2B81F),
    (0x2CEA2, 0x2CEAF), (0x2EBE1, 0x2F7FF), (0x2FA1E, 0x2FFFF), (0x3134B, 0xE00FF),
    (0xE01F0, 0x10FFFF),
];

#[cfg(test)]
mod tests {
    //! Expected strings come from probing Python 3.11 / jinja2 3.1.6 in transformers'
    //! environment (`{{ x }}` renders `str(x)`).

    use std::cell::Cell;

    use bumpalo::Bump;

    use super::*;
    use crate::value::{Ctx, LoopState, UndefInfo};

    /// `str(v)`.
    fn s(v: &Value<'_>) -> String {
        let mut o = String::new();
        write_str(&mut o, v);
        o
    }

    /// `repr(f)`.
    fn f(x: f64) -> String {
        s(&Value::Float(x))
    }

    #[test]
    fn float_repr() {
        let cases: &[(f64, &str)] = &[
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (1e22, "1e+22"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1.0, "1.0"),
            (2.0, "2.0"),
            (-1.5, "-1.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.0 / 3.0, "0.3333333333333333"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e15, "1000000000000000.0"),
            (123.456, "123.456"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (3.333333333333333e17, "3.333333333333333e+17"),
            (1234.5e-10, "1.2345e-07"),
            (-2.5e-5, "-2.5e-05"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ];
        for (x, want) in cases {
            assert_eq!(f(*x), *want, "repr({x:e})");
        }
    }

    #[test]
    fn scalars() {
        assert_eq!(s(&Value::None), "None");
        assert_eq!(s(&Value::Bool(true)), "True");
        assert_eq!(s(&Value::Bool(false)), "False");
        assert_eq!(s(&Value::Int(-42)), "-42");
        let arena = bumpalo::Bump::new();
        let c = crate::value::Ctx::for_tests(&arena);
        assert_eq!(s(&c.int(1i128 << 100)), "1267650600228229401496703205376");
        // 10**20 * 10**20 and -(2**200) (reference values).
        let big: num_bigint::BigInt = "10000000000000000000000000000000000000000".parse().unwrap();
        let v = c.big(big.clone() * big).unwrap();
        assert_eq!(s(&v), format!("1{}", "0".repeat(80)));
        let v = c.big(-(num_bigint::BigInt::from(1) << 200u32)).unwrap();
        assert_eq!(
            s(&v),
            "-1606938044258990275541962092341162602522202993782792835301376"
        );
        assert_eq!(s(&Value::UNDEFINED), "");
        assert_eq!(s(&Value::Str("it's")), "it's");
    }

    #[test]
    fn str_repr_quoting_and_escapes() {
        let mut o = String::new();
        let items = [
            Value::Str("a'b"),
            Value::Str("a\"b"),
            Value::Str("a'\"b"),
            Value::Str("\x00\x7f\u{200b}\n\t\r\\"),
            Value::Str("é😀"),
        ];
        write_str(&mut o, &Value::List(&items));
        assert_eq!(
            o,
            r#"["a'b", 'a"b', 'a\'"b', '\x00\x7f\u200b\n\t\r\\', 'é😀']"#
        );
        let items = [
            "\u{80}",
            "\u{a0}",
            "\u{ad}",
            "\u{2028}",
            "\u{d7ff}",
            "\u{e000}",
            "\u{1F600}",
            "\u{E0001}",
            "\u{378}",
        ]
        .map(Value::Str);
        assert_eq!(
            s(&Value::List(&items)),
            r"['\x80', '\xa0', '\xad', '\u2028', '\ud7ff', '\ue000', '😀', '\U000e0001', '\u0378']"
        );
        assert!(is_printable('a') && is_printable('é') && !is_printable('\u{200b}'));
    }

    #[test]
    fn containers() {
        let dict = [(Value::Str("a"), Value::None)];
        let tuple = [Value::Float(1e16), Value::Str("it's"), Value::Dict(&dict)];
        assert_eq!(s(&Value::Tuple(&tuple)), r#"(1e+16, "it's", {'a': None})"#);
        assert_eq!(s(&Value::Tuple(&[Value::Int(1)])), "(1,)");
        assert_eq!(s(&Value::Tuple(&[])), "()");
        assert_eq!(s(&Value::List(&[])), "[]");
        assert_eq!(s(&Value::Dict(&[])), "{}");
        let und = [Value::UNDEFINED];
        assert_eq!(s(&Value::List(&und)), "[Undefined]");
        assert_eq!(s(&Value::Tuple(&und)), "(Undefined,)");
    }

    #[test]
    fn json_containers_print_like_python() {
        let j: serde_json::Value = serde_json::from_str(
            r#"{"items": 1, "a": [2.0, null, true, "x'y", {}], "b": 18446744073709551615}"#,
        )
        .unwrap_or_default();
        assert_eq!(
            s(&Value::Json(&j)),
            r#"{'items': 1, 'a': [2.0, None, True, "x'y", {}], 'b': 18446744073709551615}"#
        );
    }

    #[test]
    fn iterables_namespaces_loops_callables() {
        let bump = Bump::new();
        let ctx = Ctx::for_tests(&bump);
        let pairs = [
            Value::Tuple(ctx.slice([Value::Str("items"), Value::Int(1)])),
            Value::Tuple(ctx.slice([Value::Str("a"), Value::Int(2)])),
        ];
        assert_eq!(
            s(&ctx.iter(IterKind::DictItems, &pairs)),
            "dict_items([('items', 1), ('a', 2)])"
        );
        let keys = [Value::Str("items"), Value::Str("a")];
        assert_eq!(
            s(&ctx.iter(IterKind::DictKeys, &keys)),
            "dict_keys(['items', 'a'])"
        );
        let vals = [Value::Int(1), Value::Int(2)];
        assert_eq!(
            s(&ctx.iter(IterKind::DictValues, &vals)),
            "dict_values([1, 2])"
        );
        assert!(
            s(&ctx.iter(IterKind::Generator(crate::value::Gen::Map), &vals))
                .starts_with("<generator object ")
        );
        assert!(
            s(&ctx.iter(IterKind::Reverse(crate::value::RevOf::List), &vals))
                .starts_with("<list_reverseiterator object at 0x")
        );

        let ns = ctx.namespace();
        ns.set("a", Value::Int(1));
        assert_eq!(s(&Value::Ns(ns)), "<Namespace {'a': 1}>");
        // A namespace holding itself prints like Python's recursive dict repr.
        ns.set("me", Value::List(ctx.slice([Value::Ns(ns)])));
        assert_eq!(
            s(&Value::Ns(ns)),
            "<Namespace {'a': 1, 'me': [<Namespace {...}>]}>"
        );

        let items = [Value::Int(1), Value::Int(2), Value::Int(3)];
        let l = LoopState {
            items: &items,
            index0: Cell::new(0),
            depth: 1,
            changed: Cell::new(None),
        };
        assert_eq!(s(&Value::Loop(&l)), "<LoopContext 1/3>");
        assert_eq!(
            s(&ctx.callable(Callable::Cycle(&l))),
            "<bound method LoopContext.cycle of <LoopContext 1/3>>"
        );
        let m = ctx.callable(Callable::Method {
            recv: Value::Str("abc"),
            name: "upper",
        });
        assert!(s(&m).starts_with("<built-in method upper of str object at 0x"));
        assert_eq!(
            s(&ctx.callable(Callable::Global(Global::Cycler))),
            "<class 'jinja2.utils.Cycler'>"
        );
        let info = UndefInfo::Name("x");
        assert_eq!(s(&Value::Undefined(Some(&info))), "");
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let bump = Bump::new();
        let ctx = Ctx::for_tests(&bump);
        let mut v = Value::Int(0);
        for _ in 0..10_000 {
            v = ctx.list([v]);
        }
        let out = s(&v);
        assert!(out.starts_with("[[[[") && out.contains("..."));
    }
}
