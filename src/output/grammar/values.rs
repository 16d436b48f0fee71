//! Argument values written another way than the call syntax's own ([`ValueWriting`]): every
//! scalar quoted (`limit="5"`), strings bare (`location=Paris, France`), and the value types
//! a parameter's schema allows (for middles that name the type, [`TypedMiddle`]).

use super::ir::{Expr, Rules};
use super::schema::{self, Style};
use crate::output::spec::{TypedMiddle, ValueWriting};
use serde_json::Value;

/// Every JSON schema type name.
const ALL_TYPES: [&str; 7] = [
    "string", "integer", "number", "boolean", "null", "object", "array",
];

/// The JSON types a schema's values may have: its `type` (one or a list), else the types of
/// its `enum`/`const` members, else every type.
pub(crate) fn types_of(s: &Value) -> Vec<String> {
    match s.get("type") {
        Some(Value::String(t)) => return vec![t.clone()],
        Some(Value::Array(ts)) => {
            let v: Vec<String> = ts
                .iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect();
            if !v.is_empty() {
                return v;
            }
        }
        _ => {}
    }
    let members: Vec<&Value> = match (s.get("enum"), s.get("const")) {
        (Some(Value::Array(e)), _) => e.iter().collect(),
        (_, Some(c)) => vec![c],
        _ => Vec::new(),
    };
    if members.is_empty() {
        if s.get("properties").is_some() {
            return vec!["object".into()];
        }
        return ALL_TYPES.iter().map(|t| t.to_string()).collect();
    }
    let mut out: Vec<String> = Vec::new();
    for m in members {
        let t = match m {
            Value::String(_) => "string",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::Bool(_) => "boolean",
            Value::Null => "null",
            Value::Object(_) => "object",
            Value::Array(_) => "array",
        };
        if !out.iter().any(|x| x == t) {
            out.push(t.into());
        }
    }
    out
}

/// `s` restricted to the values of JSON type `t` (its `type` replaced, enum members of
/// other types dropped).
pub(crate) fn with_type(s: &Value, t: &str) -> Value {
    let mut o = s.as_object().cloned().unwrap_or_default();
    if let Some(Value::Array(e)) = o.get("enum") {
        let kept: Vec<Value> = e
            .iter()
            .filter(|m| {
                types_of(&serde_json::json!({"enum": [m]}))
                    .iter()
                    .any(|x| x == t)
            })
            .cloned()
            .collect();
        o.insert("enum".into(), Value::Array(kept));
    }
    o.insert("type".into(), Value::String(t.into()));
    Value::Object(o)
}

/// The middle written before a value of JSON type `t`: the entry naming `t` (an integer
/// also takes an entry naming `number`), else the `*` entry.
pub(crate) fn middle_for<'a>(middles: &'a [TypedMiddle], t: &str) -> Option<&'a str> {
    let names = |m: &TypedMiddle, x: &str| m.types.iter().any(|y| y == x);
    middles
        .iter()
        .find(|m| names(m, t))
        .or_else(|| {
            (t == "integer")
                .then(|| middles.iter().find(|m| names(m, "number")))
                .flatten()
        })
        .or_else(|| middles.iter().find(|m| names(m, "*")))
        .map(|m| m.middle.as_str())
}

/// The quotes a string value takes in `style`.
fn quotes(style: &Style) -> Vec<String> {
    match style {
        Style::Json => vec!["\"".into()],
        Style::Python => vec!["'".into(), "\"".into()],
        Style::KeyValue { quote } => vec![quote.clone()],
    }
}

/// A parameter's value matching `s`, written in `style` as `writing` says.
pub(crate) fn param_value(
    r: &mut Rules,
    s: &Value,
    style: &Style,
    writing: ValueWriting,
    base: &str,
    bare_stops: &[(char, char)],
) -> Expr {
    match writing {
        ValueWriting::Native | ValueWriting::Python => schema::value(r, s, style, base),
        ValueWriting::QuotedScalars => {
            let mut alts = Vec::new();
            for (i, t) in types_of(s).iter().enumerate() {
                let v = schema::value(r, &with_type(s, t), style, &format!("{base}-{i}"));
                if matches!(t.as_str(), "integer" | "number" | "boolean" | "null") {
                    for q in quotes(style) {
                        alts.push(Expr::seq(vec![Expr::lit(&q), v.clone(), Expr::lit(&q)]));
                    }
                } else {
                    alts.push(v);
                }
            }
            Expr::alt(alts)
        }
        ValueWriting::BareStrings => {
            let mut alts = Vec::new();
            for (i, t) in types_of(s).iter().enumerate() {
                let typed = with_type(s, t);
                if t == "string" && typed.get("enum").is_none() {
                    alts.push(Expr::plus(Expr::not(bare_stops)));
                } else if t == "string" {
                    let e: Vec<Expr> = typed
                        .get("enum")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().filter_map(Value::as_str).map(Expr::lit).collect())
                        .unwrap_or_default();
                    alts.push(Expr::alt(e));
                } else {
                    alts.push(schema::value(r, &typed, style, &format!("{base}-{i}")));
                }
            }
            Expr::alt(alts)
        }
    }
}
