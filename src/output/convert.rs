//! Value conversions for tagged argument formats: JSON string escaping, typing a raw value,
//! Python literals to JSON, arguments written as a JSON string or a command line, and JSON
//! printed as llama.cpp prints it.

/// Appends `s` JSON-escaped (without quotes) to `out`.
pub(crate) fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

/// `s` as a JSON string literal.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    escape_into(&mut out, s);
    out.push('"');
    out
}

/// Whether a raw value starting with `c` may be a JSON scalar or container.
pub(crate) fn may_be_json(c: char) -> bool {
    matches!(c, '{' | '[' | '-' | '0'..='9' | 't' | 'f' | 'n' | '"')
}

/// A complete raw value as JSON: itself when it is valid JSON, the object or array it
/// holds when it is one written escaped (see [`escaped_json`]), else a JSON string.
pub(crate) fn typed(raw: &str) -> String {
    let t = raw.trim();
    if !t.is_empty() && serde_json::from_str::<serde_json::Value>(t).is_ok() {
        t.to_string()
    } else if let Some(j) = escaped_json(t) {
        j
    } else {
        quote(raw)
    }
}

/// An object or array written escaped, as the inside of a JSON string (`[{\"id\": 1}]`,
/// from output that went through a JSON string once more): the JSON it decodes to, or `None`
/// when the text is not one.
pub(crate) fn escaped_json(t: &str) -> Option<String> {
    if !(t.starts_with('{') || t.starts_with('[')) || !t.contains('\\') {
        return None;
    }
    let inner: String = serde_json::from_str(&format!("\"{t}\"")).ok()?;
    let inner = inner.trim();
    match serde_json::from_str::<serde_json::Value>(inner).ok()? {
        serde_json::Value::Object(_) | serde_json::Value::Array(_) => Some(inner.to_string()),
        _ => None,
    }
}

/// A Python literal (as in `f(a=1, b='x', c=None)`) as JSON; falls back to a JSON string.
/// The flag is set when the text holds a number JSON cannot hold (`1e999`, Python's `inf`):
/// the value is then the string of its text.
pub(crate) fn python_to_json(raw: &str) -> (String, bool) {
    let (json, overflow) = py_parse(raw);
    (json.unwrap_or_else(|| quote(raw.trim())), overflow)
}

/// A Python literal as JSON; `None` if the text is not one.
pub(crate) fn python_literal(raw: &str) -> Option<String> {
    py_parse(raw).0
}

fn py_parse(raw: &str) -> (Option<String>, bool) {
    let t = raw.trim();
    let mut p = Py {
        s: t.as_bytes(),
        i: 0,
        out: String::new(),
        overflow: false,
    };
    let ok = p.value() && p.i == p.s.len();
    (ok.then_some(p.out), p.overflow)
}

struct Py<'a> {
    s: &'a [u8],
    i: usize,
    out: String,
    /// A number literal too large for JSON was met.
    overflow: bool,
}

impl Py<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> bool {
        self.ws();
        let Some(&b) = self.s.get(self.i) else {
            return false;
        };
        let ok = match b {
            b'\'' | b'"' => self.string(b, false),
            b'u' | b'U' | b'r' | b'R' if self.prefixed() => self.prefixed_string(),
            b'[' | b'(' => self.seq(if b == b'[' { b']' } else { b')' }),
            b'{' => self.dict(),
            _ => self.word(),
        };
        self.ws();
        ok
    }

    /// Whether a str prefix (`u`, `r`, any case) and a quote are at `self.i`.
    fn prefixed(&self) -> bool {
        matches!(self.s.get(self.i), Some(b'u' | b'U' | b'r' | b'R'))
            && matches!(self.s.get(self.i + 1), Some(b'\'' | b'"'))
    }

    /// A string, quoted or with a str prefix: u'…' reads as '…'; r'…' keeps its backslashes.
    fn prefixed_string(&mut self) -> bool {
        let raw = matches!(self.s.get(self.i), Some(b'r' | b'R'));
        if self.prefixed() {
            self.i += 1;
        }
        match self.s.get(self.i) {
            Some(&q @ (b'\'' | b'"')) => self.string(q, raw),
            _ => false,
        }
    }

    /// A string quoted with `q` (at `self.i`); a raw string keeps its backslashes (a backslash
    /// still keeps the next character from closing it, as in Python).
    fn string(&mut self, q: u8, raw: bool) -> bool {
        self.i += 1;
        let mut v = Vec::new();
        while let Some(&b) = self.s.get(self.i) {
            self.i += 1;
            if b == q {
                self.out.push_str(&quote(&String::from_utf8_lossy(&v)));
                return true;
            }
            if b == b'\\' {
                let Some(&e) = self.s.get(self.i) else {
                    return false;
                };
                self.i += 1;
                if raw {
                    v.extend_from_slice(&[b, e]);
                    continue;
                }
                v.push(match e {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    other => other,
                });
            } else {
                v.push(b);
            }
        }
        false
    }

    fn seq(&mut self, close: u8) -> bool {
        self.i += 1;
        self.out.push('[');
        let mut first = true;
        loop {
            self.ws();
            if self.s.get(self.i) == Some(&close) {
                self.i += 1;
                self.out.push(']');
                return true;
            }
            if !first {
                if self.s.get(self.i) != Some(&b',') {
                    return false;
                }
                self.i += 1;
                self.ws();
                if self.s.get(self.i) == Some(&close) {
                    continue;
                }
                self.out.push_str(", ");
            }
            first = false;
            if !self.value() {
                return false;
            }
        }
    }

    fn dict(&mut self) -> bool {
        self.i += 1;
        self.out.push('{');
        let mut first = true;
        loop {
            self.ws();
            if self.s.get(self.i) == Some(&b'}') {
                self.i += 1;
                self.out.push('}');
                return true;
            }
            if !first {
                if self.s.get(self.i) != Some(&b',') {
                    return false;
                }
                self.i += 1;
                self.ws();
                self.out.push_str(", ");
            }
            first = false;
            if !self.prefixed_string() {
                return false;
            }
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return false;
            }
            self.i += 1;
            self.out.push_str(": ");
            if !self.value() {
                return false;
            }
        }
    }

    fn word(&mut self) -> bool {
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'_'))
        {
            self.i += 1;
        }
        let w = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        let json = match w.as_str() {
            "True" | "true" => "true".to_string(),
            "False" | "false" => "false".to_string(),
            "None" | "null" => "null".to_string(),
            _ if serde_json::from_str::<serde_json::Number>(&w).is_ok() => w,
            _ => {
                // A decimal number that overflows a double (Python reads it as inf).
                let digits = w.trim_start_matches(['+', '-']);
                self.overflow |= digits.starts_with(|c: char| c.is_ascii_digit() || c == '.')
                    && w.parse::<f64>().is_ok_and(f64::is_infinite);
                return false;
            }
        };
        self.out.push_str(&json);
        true
    }
}

/// Gemma dict arguments (`{k:<|"|>str<|"|>,n:1,l:[…]}`; FunctionGemma quotes with `<escape>`)
/// as JSON; falls back to a JSON string of the text.
pub(crate) fn dict_to_json(raw: &str) -> String {
    let t = raw.trim();
    let q = if t.contains("<escape>") {
        "<escape>"
    } else {
        "<|\"|>"
    };
    let mut d = Dict {
        s: t,
        i: 0,
        q,
        out: String::new(),
        quoted: false,
    };
    if d.value() && d.i == t.len() {
        d.out
    } else {
        quote(t)
    }
}

struct Dict<'a> {
    s: &'a str,
    i: usize,
    q: &'a str,
    out: String,
    /// The last value read was a string closed by the quote token: a comma may be missing
    /// after it (`a:<escape>x<escape>b:…`), the token ends the value unambiguously.
    quoted: bool,
}

impl Dict<'_> {
    fn rest(&self) -> &str {
        &self.s[self.i..]
    }

    fn ws(&mut self) {
        let r = self.rest();
        self.i += r.len() - r.trim_start().len();
    }

    fn eat(&mut self, t: &str) -> bool {
        if self.rest().starts_with(t) {
            self.i += t.len();
            true
        } else {
            false
        }
    }

    fn string(&mut self) -> Option<String> {
        let end = self.rest().find(self.q)?;
        let s = self.rest()[..end].to_string();
        self.i += end + self.q.len();
        Some(s)
    }

    /// A JSON string (FunctionGemma writes non-string values with `tojson`, so nested keys
    /// and strings are JSON-quoted).
    fn json_string(&mut self) -> Option<String> {
        let mut it = serde_json::Deserializer::from_str(self.rest()).into_iter::<String>();
        let s = it.next()?.ok()?;
        self.i += it.byte_offset();
        Some(s)
    }

    fn value(&mut self) -> bool {
        self.ws();
        let mut quoted = false;
        if self.eat(self.q) {
            let Some(s) = self.string() else { return false };
            self.out.push_str(&quote(&s));
            quoted = true;
        } else if self.rest().starts_with('"') {
            let Some(s) = self.json_string() else {
                return false;
            };
            self.out.push_str(&quote(&s));
        } else if self.eat("{") {
            self.out.push('{');
            let mut first = true;
            loop {
                self.ws();
                if self.eat("}") {
                    self.out.push('}');
                    break;
                }
                if !first && !self.eat(",") && !self.quoted {
                    return false;
                }
                self.ws();
                let key = if self.eat(self.q) {
                    self.string()
                } else if self.rest().starts_with('"') {
                    self.json_string()
                } else {
                    let end = self.rest().find(':');
                    end.map(|e| {
                        let k = self.rest()[..e].trim().to_string();
                        self.i += e;
                        k
                    })
                };
                let Some(key) = key else { return false };
                self.ws();
                if !self.eat(":") {
                    return false;
                }
                if !first {
                    self.out.push_str(", ");
                }
                first = false;
                self.out.push_str(&quote(&key));
                self.out.push_str(": ");
                if !self.value() {
                    return false;
                }
            }
        } else if self.eat("[") {
            self.out.push('[');
            let mut first = true;
            loop {
                self.ws();
                if self.eat("]") {
                    self.out.push(']');
                    break;
                }
                if !first {
                    if !self.eat(",") {
                        return false;
                    }
                    self.out.push_str(", ");
                }
                first = false;
                if !self.value() {
                    return false;
                }
            }
        } else {
            let end = self
                .rest()
                .find([',', '}', ']'])
                .unwrap_or(self.rest().len());
            let w = self.rest()[..end].trim().to_string();
            if w.is_empty() {
                return false;
            }
            self.i += end;
            self.out.push_str(&typed(&w));
        }
        self.ws();
        self.quoted = quoted;
        true
    }
}

/// MiniMax-M3's namespace token, which prefixes every tag of a call.
const MM_NS: &str = "]<]minimax[>[";

/// A MiniMax-M3 parameter value as JSON: elements `NS<k>v NS</k>…` become an object, elements
/// all named `item` a list, recursively; a value without elements is typed like any raw value,
/// and one whose elements do not nest properly becomes a JSON string.
pub(crate) fn xml_to_json(raw: &str) -> String {
    if !raw.trim_start().starts_with(MM_NS) {
        return typed(raw);
    }
    let mut out = String::new();
    if xml_into(&mut out, raw, 0) {
        out
    } else {
        quote(raw)
    }
}

/// Appends the JSON of `s`, a sequence of elements, to `out`; false if it is not one.
fn xml_into(out: &mut String, s: &str, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    let mut elems: Vec<(&str, &str)> = Vec::new();
    let mut rest = s.trim();
    while !rest.is_empty() {
        let Some(r) = rest.strip_prefix(MM_NS).and_then(|r| r.strip_prefix('<')) else {
            return false;
        };
        let Some(gt) = r.find('>') else { return false };
        let tag = &r[..gt];
        if tag.starts_with('/') {
            return false;
        }
        let body = &r[gt + 1..];
        // The matching close: count nested opens and closes of elements.
        let (mut level, mut i) = (0usize, 0usize);
        let end = loop {
            let Some(j) = body[i..].find(MM_NS) else {
                return false;
            };
            let at = i + j;
            let after = &body[at + MM_NS.len()..];
            if after.starts_with("</") {
                if level == 0 {
                    break at;
                }
                level -= 1;
            } else if after.starts_with('<') {
                level += 1;
            }
            i = at + MM_NS.len();
        };
        elems.push((tag, &body[..end]));
        let after = &body[end + MM_NS.len()..];
        let Some(gt) = after.find('>') else {
            return false;
        };
        rest = after[gt + 1..].trim_start();
    }
    let list = elems.iter().all(|(t, _)| *t == "item");
    out.push(if list { '[' } else { '{' });
    for (i, (tag, inner)) in elems.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if !list {
            out.push_str(&quote(tag));
            out.push_str(": ");
        }
        if inner.trim_start().starts_with(MM_NS) {
            if !xml_into(out, inner, depth + 1) {
                return false;
            }
        } else {
            out.push_str(&typed(inner));
        }
    }
    out.push(if list { ']' } else { '}' });
    true
}

/// `v` as llama.cpp's JSON library prints it with an indent of 2 (`dump(2)`): object keys
/// sorted, one member or element a line, empty containers as `{}` / `[]`.
pub(crate) fn dump2(out: &mut String, v: &serde_json::Value, depth: usize) {
    use serde_json::Value;
    let pad = |out: &mut String, d: usize| {
        out.push('\n');
        out.push_str(&" ".repeat(2 * d));
    };
    match v {
        Value::Object(m) if !m.is_empty() => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, depth + 1);
                out.push_str(&quote(k));
                out.push_str(": ");
                if let Some(x) = m.get(*k) {
                    dump2(out, x, depth + 1);
                }
            }
            pad(out, depth);
            out.push('}');
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, depth + 1);
                dump2(out, x, depth + 1);
            }
            pad(out, depth);
            out.push(']');
        }
        Value::String(s) => out.push_str(&quote(s)),
        other => out.push_str(&other.to_string()),
    }
}

/// Arguments written as a JSON string literal: the JSON it holds, or the literal itself when
/// its text is not JSON (nothing is lost, and the arguments stay valid JSON).
pub(crate) fn string_args(lit: &str) -> String {
    match serde_json::from_str::<String>(lit.trim()) {
        Ok(inner) if serde_json::from_str::<serde_json::Value>(&inner).is_ok() => {
            inner.trim().to_string()
        }
        _ => typed(lit),
    }
}

/// CWM's command-line arguments (the text after the name): JSON when the text is a JSON
/// object or array, else `{"command": text}` with blank lines dropped and the text trimmed,
/// as vLLM's `cwm` parser reads it.
pub(crate) fn command_args(raw: &str) -> String {
    let text = raw
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let t = text.trim();
    if (t.starts_with('{') || t.starts_with('['))
        && serde_json::from_str::<serde_json::Value>(t).is_ok()
    {
        return t.to_string();
    }
    format!("{{\"command\": {}}}", quote(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(typed("12"), "12");
        assert_eq!(typed(" {\"a\": [1]} "), "{\"a\": [1]}");
        assert_eq!(typed("Paris"), "\"Paris\"");
        assert_eq!(typed("true story"), "\"true story\"");
        let py = |s: &str| python_to_json(s).0;
        assert_eq!(py("'it\\'s'"), "\"it's\"");
        assert_eq!(py("[1, 'a', None, True]"), "[1, \"a\", null, true]");
        assert_eq!(py("{'k': (1, 2)}"), "{\"k\": [1, 2]}");
        assert_eq!(py("os.getcwd"), "\"os.getcwd\"");
        assert_eq!(py("r'C:\\new\\'x'"), "\"C:\\\\new\\\\'x\"");
        assert_eq!(py("{u'k': [U\"a\\tb\"]}"), "{\"k\": [\"a\\tb\"]}");
        assert_eq!(python_to_json("1e999"), ("\"1e999\"".to_string(), true));
        assert!(python_to_json("[1, -1E999]").1);
        assert_eq!(python_to_json("inf"), ("\"inf\"".to_string(), false));
        assert_eq!(quote("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(
            dict_to_json("{city:<|\"|>Paris, FR<|\"|>,days:3,tags:[<|\"|>a<|\"|>,true],o:{<|\"|>k<|\"|>:null}}"),
            "{\"city\": \"Paris, FR\", \"days\": 3, \"tags\": [\"a\", true], \"o\": {\"k\": null}}"
        );
        assert_eq!(dict_to_json("{q:<escape>hi<escape>}"), "{\"q\": \"hi\"}");
        // A comma left out after a quoted string: the quote token ends the value.
        assert_eq!(
            dict_to_json("{city:<escape>NYC<escape>unit:<escape>celsius<escape>n:3}"),
            "{\"city\": \"NYC\", \"unit\": \"celsius\", \"n\": 3}"
        );
        // FunctionGemma writes non-string values with tojson: JSON keys and strings nest.
        assert_eq!(
            dict_to_json("{q:<escape>x<escape>,o:{\"a\": [{\"b\": \"c, }d\"}], \"n\": 1}}"),
            "{\"q\": \"x\", \"o\": {\"a\": [{\"b\": \"c, }d\"}], \"n\": 1}}"
        );
        assert_eq!(dict_to_json("{}"), "{}");
        let ns = MM_NS;
        assert_eq!(xml_to_json("Paris"), "\"Paris\"");
        assert_eq!(xml_to_json("5"), "5");
        assert_eq!(
            xml_to_json(&format!(
                "{ns}<item>{ns}<a>1{ns}</a>{ns}<b>x{ns}</b>{ns}</item>{ns}<item>2{ns}</item>"
            )),
            "[{\"a\": 1, \"b\": \"x\"}, 2]"
        );
        assert_eq!(
            xml_to_json(&format!("{ns}<k>{ns}<item>t{ns}</item>{ns}</k>")),
            "{\"k\": [\"t\"]}"
        );
        assert_eq!(string_args("\"{\\\"a\\\": 1}\""), "{\"a\": 1}");
        assert_eq!(string_args("\"words\""), "\"words\"");
        assert_eq!(
            command_args(" ls -la\n\n  | wc\n"),
            "{\"command\": \"ls -la\\n  | wc\"}"
        );
        assert_eq!(command_args("\n[1, 2]\n"), "[1, 2]");
        assert_eq!(command_args("{x"), "{\"command\": \"{x\"}");
        let mut d = String::new();
        dump2(&mut d, &serde_json::json!({"b": [], "a": [1]}), 0);
        assert_eq!(d, "{\n  \"a\": [\n    1\n  ],\n  \"b\": []\n}");
        assert_eq!(
            xml_to_json(&format!("{ns}<k>open")),
            format!("{:?}", format!("{ns}<k>open"))
        );
    }
}
