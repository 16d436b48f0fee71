//! Parameter types from the request's tool schemas, and tagged parameter values converted by
//! them (the `<parameter=k>v</parameter>` formats write every value as text; the tool's JSON
//! schema says whether `5` is the number or the string).
//!
//! The rules are those of the peers' XML tool parsers (vLLM's Qwen3-Coder, MiniMax-M2 and
//! GLM parsers): a string type keeps the text as is; `integer`, `number` and `boolean` are
//! read from the text; `object` and `array` are JSON (or a Python literal); `null`/`None` is
//! null where the schema allows it or has no string type. A value that does not read as its
//! type is kept as a string, so the arguments are always valid JSON.

use super::convert::{escaped_json, python_literal, quote};
use serde_json::Value;
use std::collections::HashMap;

/// The JSON types a parameter's schema allows: a bit set; empty when the schema gives none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Ty(u8);

impl Ty {
    const STR: u8 = 1;
    const INT: u8 = 2;
    const NUM: u8 = 4;
    const BOOL: u8 = 8;
    const OBJ: u8 = 16;
    const ARR: u8 = 32;
    const NULL: u8 = 64;
    const OTHER: u8 = 128;

    /// No type given (an unknown tool or parameter, or a schema without `type`).
    pub(crate) fn untyped(self) -> bool {
        self.0 == 0
    }

    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// A string type: the text streams as a JSON string.
    pub(crate) fn string(self) -> bool {
        self.has(Ty::STR)
    }

    /// A string type that also allows null: `null`/`None` is null, anything else a string.
    pub(crate) fn nullable_string(self) -> bool {
        self.has(Ty::STR) && self.has(Ty::NULL)
    }

    /// The type a schema's type name means (the names vLLM's parsers accept: `int`,
    /// `float`, `bool`, `dict`, `list`, … besides JSON Schema's).
    fn from_name(name: &str) -> Ty {
        let n = name.trim().to_ascii_lowercase();
        let bit = match n.as_str() {
            "string" | "str" | "text" | "varchar" | "char" | "enum" => Ty::STR,
            "boolean" | "bool" | "binary" => Ty::BOOL,
            "object" => Ty::OBJ,
            "array" | "arr" => Ty::ARR,
            "null" => Ty::NULL,
            _ if ["int", "uint", "long", "short", "unsigned"]
                .iter()
                .any(|p| n.starts_with(p)) =>
            {
                Ty::INT
            }
            _ if n.starts_with("num") || n.starts_with("float") || n.starts_with("double") => {
                Ty::NUM
            }
            _ if n.starts_with("dict") => Ty::OBJ,
            _ if n.starts_with("list") => Ty::ARR,
            _ => Ty::OTHER,
        };
        Ty(bit)
    }

    /// The types a parameter schema allows: `type` (a name or a list), the types of `enum`
    /// values, and those of `anyOf`/`oneOf`/`allOf` branches.
    fn of_schema(schema: &Value, depth: usize) -> Ty {
        let mut t = Ty::default();
        let Some(obj) = schema.as_object() else {
            return t;
        };
        if depth > 16 {
            return t;
        }
        match obj.get("type") {
            Some(Value::String(s)) => t.0 |= Ty::from_name(s).0,
            Some(Value::Array(a)) => {
                for s in a.iter().filter_map(Value::as_str) {
                    t.0 |= Ty::from_name(s).0;
                }
            }
            _ => {}
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            for v in values {
                t.0 |= match v {
                    Value::Null => Ty::NULL,
                    Value::Bool(_) => Ty::BOOL,
                    Value::Number(n) if n.is_f64() => Ty::NUM,
                    Value::Number(_) => Ty::INT,
                    Value::String(_) => Ty::STR,
                    Value::Array(_) => Ty::ARR,
                    Value::Object(_) => Ty::OBJ,
                };
            }
        }
        for k in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(branches)) = obj.get(k) {
                for b in branches {
                    t.0 |= Ty::of_schema(b, depth + 1).0;
                }
            }
        }
        t
    }
}

/// The parameter types of every tool of a request, by tool name and parameter name.
#[derive(Debug, Default)]
pub(crate) struct ToolTypes {
    tools: HashMap<String, HashMap<String, Ty>>,
}

impl ToolTypes {
    /// The types of an OpenAI `tools` array (`[{"type": "function", "function": {"name",
    /// "parameters": {"properties": {…}}}}]`; bare `{"name", "parameters"}` entries too).
    pub(crate) fn from_tools(tools: &Value) -> ToolTypes {
        let mut map = HashMap::new();
        for t in tools.as_array().into_iter().flatten() {
            let f = t.get("function").unwrap_or(t);
            let Some(name) = f.get("name").and_then(Value::as_str) else {
                continue;
            };
            let props = f
                .get("parameters")
                .and_then(|p| p.get("properties"))
                .and_then(Value::as_object);
            let params = props
                .into_iter()
                .flatten()
                .map(|(k, s)| (k.clone(), Ty::of_schema(s, 0)))
                .collect();
            map.entry(name.to_string()).or_insert(params);
        }
        ToolTypes { tools: map }
    }

    /// The type of parameter `key` of tool `tool`; untyped when either is unknown.
    pub(crate) fn param(&self, tool: &str, key: &str) -> Ty {
        self.tools
            .get(tool)
            .and_then(|p| p.get(key))
            .copied()
            .unwrap_or_default()
    }
}

/// Whether `t` is `null` or `None` (any case), which a nullable or non-string type reads as
/// null.
pub(crate) fn is_null_word(t: &str) -> bool {
    t.eq_ignore_ascii_case("null") || t.eq_ignore_ascii_case("none")
}

/// Whether `t` may still grow into a null word (used to hold a nullable string's start).
pub(crate) fn may_be_null_word(t: &str) -> bool {
    t.len() <= 4
        && ["null", "none"]
            .iter()
            .any(|w| w.as_bytes()[..t.len()].eq_ignore_ascii_case(t.as_bytes()))
}

/// The complete raw value of a parameter of type `ty` as JSON.
pub(crate) fn convert(ty: Ty, raw: &str) -> String {
    let t = raw.trim();
    if ty.untyped() {
        return quote(raw);
    }
    if (ty.has(Ty::NULL) || !ty.string()) && is_null_word(t) {
        return "null".into();
    }
    if ty.string() {
        return quote(raw);
    }
    if ty.has(Ty::INT) {
        if let Some(i) = integer(t) {
            return i;
        }
    }
    if ty.has(Ty::NUM) {
        if let Some(n) = number(t) {
            return n;
        }
    }
    if ty.has(Ty::BOOL) {
        match t.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => return "true".into(),
            "false" | "0" | "no" | "off" => return "false".into(),
            _ => {}
        }
    }
    if ty.has(Ty::OBJ) || ty.has(Ty::ARR) || ty.has(Ty::OTHER) {
        if let Ok(v) = serde_json::from_str::<Value>(t) {
            // A container written as a JSON string holding a Python literal (`"{'k': 1}"`,
            // from templates that dump `str(dict)`) is read once more.
            if let (Value::String(inner), false) = (&v, ty.has(Ty::OTHER)) {
                if let Some(j) = python_literal(inner).filter(|j| !j.starts_with('"')) {
                    return j;
                }
            }
            return t.to_string();
        }
        if let Some(j) = escaped_json(t) {
            return j;
        }
        if let Some(j) = python_literal(t) {
            return j;
        }
    }
    quote(raw)
}

/// An integer as Python's `int()` reads it (sign, digits, single `_` between digits), as a
/// JSON integer without leading zeros.
fn integer(t: &str) -> Option<String> {
    let (neg, digits) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let b = digits.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() || !b[b.len() - 1].is_ascii_digit() {
        return None;
    }
    let mut out = String::with_capacity(b.len() + 1);
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                if !(out.is_empty() && c == b'0') {
                    out.push(c as char);
                }
            }
            b'_' if b[i - 1] != b'_' => {}
            _ => return None,
        }
    }
    if out.is_empty() {
        return Some("0".into());
    }
    if neg {
        out.insert(0, '-');
    }
    Some(out)
}

/// A number as Python's `float()` reads it, as JSON: an integral value is written as an
/// integer (vLLM's parsers do), infinities and NaN are not numbers in JSON (`None`).
fn number(t: &str) -> Option<String> {
    if t.is_empty() || t.starts_with('_') || t.ends_with('_') || t.contains("__") {
        return None;
    }
    let clean: String = t.chars().filter(|&c| c != '_').collect();
    if clean.len() != t.len()
        && t.as_bytes()
            .windows(3)
            .any(|w| w[1] == b'_' && !(w[0].is_ascii_digit() && w[2].is_ascii_digit()))
    {
        return None;
    }
    let f: f64 = clean.parse().ok()?;
    if !f.is_finite() {
        return None;
    }
    if f == 0.0 {
        return Some("0".into());
    }
    if f.fract() == 0.0 {
        return Some(format!("{f:.0}"));
    }
    serde_json::Number::from_f64(f).map(|n| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ty(schema: Value) -> Ty {
        Ty::of_schema(&schema, 0)
    }

    #[test]
    fn schema_types() {
        assert!(ty(json!({"type": "string"})).string());
        assert!(ty(json!({"description": "x"})).untyped());
        assert!(ty(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})).nullable_string());
        assert!(ty(json!({"type": ["integer", "null"]})).has(Ty::INT));
        assert!(ty(json!({"enum": ["a", "b"]})).string());
        assert!(ty(json!({"enum": [1, 2]})).has(Ty::INT));
        let tools = json!([{"type": "function", "function": {"name": "f", "parameters":
            {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}}}]);
        let t = ToolTypes::from_tools(&tools);
        assert!(t.param("f", "n").has(Ty::INT));
        assert!(t.param("f", "s").string());
        assert!(t.param("f", "x").untyped());
        assert!(t.param("g", "n").untyped());
    }

    #[test]
    fn conversions() {
        let c = |s: Value, raw: &str| convert(ty(s), raw);
        let int = json!({"type": "integer"});
        assert_eq!(c(int.clone(), " 42 "), "42");
        assert_eq!(c(int.clone(), "-007"), "-7");
        assert_eq!(c(int.clone(), "1_000"), "1000");
        assert_eq!(c(int.clone(), "1__0"), "\"1__0\"");
        assert_eq!(c(int.clone(), "4.5"), "\"4.5\"");
        assert_eq!(c(int.clone(), "null"), "null");
        assert_eq!(c(int, "12345678901234567890123"), "12345678901234567890123");
        let num = json!({"type": "number"});
        assert_eq!(c(num.clone(), "3.0"), "3");
        assert_eq!(c(num.clone(), "2.5"), "2.5");
        assert_eq!(c(num.clone(), "1e3"), "1000");
        assert_eq!(c(num.clone(), "-0.0"), "0");
        assert_eq!(c(num.clone(), "inf"), "\"inf\"");
        assert_eq!(c(num.clone(), "NaN"), "\"NaN\"");
        assert_eq!(c(num, "abc"), "\"abc\"");
        let b = json!({"type": "boolean"});
        assert_eq!(c(b.clone(), "True"), "true");
        assert_eq!(c(b.clone(), "no"), "false");
        assert_eq!(c(b, "maybe"), "\"maybe\"");
        let s = json!({"type": "string"});
        assert_eq!(c(s.clone(), "5"), "\"5\"");
        assert_eq!(c(s.clone(), "null"), "\"null\"");
        assert_eq!(c(s, " {\"a\": 1} "), "\" {\\\"a\\\": 1} \"");
        let ns = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        assert_eq!(c(ns.clone(), "None"), "null");
        assert_eq!(c(ns, "Alice"), "\"Alice\"");
        let o = json!({"type": "object"});
        assert_eq!(c(o.clone(), "{\"a\": [1, 2]}"), "{\"a\": [1, 2]}");
        assert_eq!(c(o.clone(), "{'a': True}"), "{\"a\": true}");
        assert_eq!(c(o.clone(), "\"{'a': 1}\""), "{\"a\": 1}");
        assert_eq!(c(o, "{broken"), "\"{broken\"");
        let a = json!({"type": "array", "items": {"type": "string"}});
        assert_eq!(c(a.clone(), "[\"x\", \"y\"]"), "[\"x\", \"y\"]");
        // Escaped JSON (the inside of a JSON string) is unescaped once, then read as JSON.
        assert_eq!(
            c(a.clone(), r#"[\"x\", \"C:\\\\tmp\"]"#),
            r#"["x", "C:\\tmp"]"#
        );
        assert_eq!(c(a, r#"[\"x\", y]"#), r#""[\\\"x\\\", y]""#);
        assert_eq!(c(json!({}), "5"), "\"5\"");
        assert!(may_be_null_word("Nu"));
        assert!(may_be_null_word(""));
        assert!(!may_be_null_word("Nul!"));
        assert!(!may_be_null_word("nulls"));
    }
}
