//! JSON schemas to grammar rules, in the value syntaxes tool calls use: JSON, Python literals
//! (pythonic calls) and the key-value syntax of Gemma (`{k:<|"|>v<|"|>,n:1}`).
//!
//! Supported: `type` (one or a list), `enum`, `const`, `properties` with `required` (in the
//! schema's property order, no other keys), `items`, `anyOf`/`oneOf`, nested objects and
//! arrays. A schema without a type (or with keywords not listed) accepts any value.

use super::ir::{Expr, Rules};
use serde_json::Value;

/// How values are written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Style {
    /// JSON text.
    Json,
    /// Python literals: strings in either quote, `True`/`False`/`None`, dicts and lists.
    Python,
    /// Gemma key-value: strings between `quote`, bare keys, JSON numbers and booleans.
    KeyValue { quote: String },
}

/// Optional whitespace.
pub(crate) fn ws(r: &mut Rules) -> Expr {
    // Right-recursive rather than a repetition: an engine that lexes (llguidance reading GBNF)
    // then keeps the rules around it as rules instead of fusing them into one greedy token.
    r.shared("ws", |_| {
        Expr::alt(vec![
            Expr::seq(vec![
                Expr::class(&[(' ', ' '), ('\t', '\t'), ('\n', '\n'), ('\r', '\r')]),
                Expr::Ref("ws".into()),
            ]),
            Expr::Empty,
        ])
    })
}

fn json_string(r: &mut Rules) -> Expr {
    r.shared("json-string", |r| {
        let ch = r.shared("json-char", |_| {
            Expr::alt(vec![
                Expr::not(&[('"', '"'), ('\\', '\\'), ('\u{0}', '\u{1f}')]),
                Expr::seq(vec![
                    Expr::lit("\\"),
                    Expr::alt(vec![
                        Expr::class(&[
                            ('"', '"'),
                            ('\\', '\\'),
                            ('/', '/'),
                            ('b', 'b'),
                            ('f', 'f'),
                            ('n', 'n'),
                            ('r', 'r'),
                            ('t', 't'),
                        ]),
                        Expr::seq(vec![Expr::lit("u"), hex(), hex(), hex(), hex()]),
                    ]),
                ]),
            ])
        });
        Expr::seq(vec![Expr::lit("\""), Expr::star(ch), Expr::lit("\"")])
    })
}

fn hex() -> Expr {
    Expr::class(&[('0', '9'), ('a', 'f'), ('A', 'F')])
}

fn integer(r: &mut Rules) -> Expr {
    r.shared("integer", |_| {
        Expr::seq(vec![
            Expr::opt(Expr::lit("-")),
            Expr::alt(vec![
                Expr::lit("0"),
                Expr::seq(vec![
                    Expr::class(&[('1', '9')]),
                    Expr::star(Expr::class(&[('0', '9')])),
                ]),
            ]),
        ])
    })
}

fn number(r: &mut Rules) -> Expr {
    let int = integer(r);
    r.shared("number", |_| {
        let digits = Expr::plus(Expr::class(&[('0', '9')]));
        Expr::seq(vec![
            int,
            Expr::opt(Expr::seq(vec![Expr::lit("."), digits.clone()])),
            Expr::opt(Expr::seq(vec![
                Expr::class(&[('e', 'e'), ('E', 'E')]),
                Expr::opt(Expr::class(&[('+', '+'), ('-', '-')])),
                digits,
            ])),
        ])
    })
}

fn python_string(r: &mut Rules) -> Expr {
    r.shared("py-string", |_| {
        let body = |q: char| {
            Expr::seq(vec![
                Expr::Lit(q.to_string()),
                Expr::star(Expr::alt(vec![
                    Expr::not(&[(q, q), ('\\', '\\'), ('\n', '\n')]),
                    Expr::seq(vec![Expr::lit("\\"), Expr::not(&[])]),
                ])),
                Expr::Lit(q.to_string()),
            ])
        };
        Expr::alt(vec![body('\''), body('"')])
    })
}

/// A string value in `style`.
fn string(r: &mut Rules, style: &Style) -> Expr {
    match style {
        Style::Json => json_string(r),
        Style::Python => python_string(r),
        Style::KeyValue { quote } => {
            let q = quote.clone();
            let body = r.through(&[&q]);
            Expr::seq(vec![Expr::lit(&q), body])
        }
    }
}

/// A string literal (an enum or const member) written in `style`.
fn string_literal(s: &str, style: &Style) -> Expr {
    match style {
        Style::Json => Expr::lit(&serde_json::to_string(s).unwrap_or_default()),
        Style::Python => {
            let esc = |q: char| {
                let mut o = String::new();
                for c in s.chars() {
                    if c == q || c == '\\' {
                        o.push('\\');
                    }
                    o.push(c);
                }
                format!("{q}{o}{q}")
            };
            Expr::alt(vec![Expr::lit(&esc('\'')), Expr::lit(&esc('"'))])
        }
        Style::KeyValue { quote } => Expr::lit(&format!("{quote}{s}{quote}")),
    }
}

/// A literal JSON value (enum/const member) written in `style`.
pub(crate) fn literal(v: &Value, style: &Style) -> Expr {
    match v {
        Value::String(s) => string_literal(s, style),
        Value::Bool(b) => Expr::lit(match (style, b) {
            (Style::Python, true) => "True",
            (Style::Python, false) => "False",
            (_, true) => "true",
            (_, false) => "false",
        }),
        Value::Null => Expr::lit(if *style == Style::Python {
            "None"
        } else {
            "null"
        }),
        Value::Number(n) => Expr::lit(&n.to_string()),
        Value::Array(a) => {
            let mut items = vec![Expr::lit("[")];
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    items.push(Expr::lit(", "));
                }
                items.push(literal(x, style));
            }
            items.push(Expr::lit("]"));
            Expr::seq(items)
        }
        Value::Object(_) => Expr::lit(&v.to_string()),
    }
}

/// Any value in `style`.
pub(crate) fn any(r: &mut Rules, style: &Style) -> Expr {
    let name = match style {
        Style::Json => "json-value".to_string(),
        Style::Python => "py-value".to_string(),
        Style::KeyValue { .. } => "kv-value".to_string(),
    };
    let style = style.clone();
    r.shared(&name, |r| {
        let me = Expr::Ref(name.clone());
        let w = ws(r);
        let key = match &style {
            Style::KeyValue { .. } => Expr::plus(Expr::not(&[
                (':', ':'),
                ('{', '{'),
                ('}', '}'),
                (',', ','),
                ('"', '"'),
            ])),
            _ => string(r, &style),
        };
        let sep = Expr::seq(vec![w.clone(), Expr::lit(","), w.clone()]);
        let member = Expr::seq(vec![key, w.clone(), Expr::lit(":"), w.clone(), me.clone()]);
        let object = Expr::seq(vec![
            Expr::lit("{"),
            w.clone(),
            Expr::opt(Expr::seq(vec![
                member.clone(),
                Expr::star(Expr::seq(vec![sep.clone(), member])),
            ])),
            w.clone(),
            Expr::lit("}"),
        ]);
        let array = Expr::seq(vec![
            Expr::lit("["),
            w.clone(),
            Expr::opt(Expr::seq(vec![
                me.clone(),
                Expr::star(Expr::seq(vec![sep, me])),
            ])),
            w,
            Expr::lit("]"),
        ]);
        let s = string(r, &style);
        let num = number(r);
        let mut alts = vec![object, array, s, num];
        for lit in [Value::Bool(true), Value::Bool(false), Value::Null] {
            alts.push(literal(&lit, &style));
        }
        Expr::alt(alts)
    })
}

/// A value matching `schema`, written in `style`. `base` names the rules made for it.
pub(crate) fn value(r: &mut Rules, schema: &Value, style: &Style, base: &str) -> Expr {
    let Some(obj) = schema.as_object() else {
        // `true` or a malformed schema: anything.
        return any(r, style);
    };
    if let Some(c) = obj.get("const") {
        return literal(c, style);
    }
    if let Some(Value::Array(e)) = obj.get("enum") {
        return Expr::alt(e.iter().map(|v| literal(v, style)).collect());
    }
    for k in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alts)) = obj.get(k) {
            let alts: Vec<Expr> = alts
                .iter()
                .enumerate()
                .map(|(i, s)| value(r, s, style, &format!("{base}-{i}")))
                .collect();
            return Expr::alt(alts);
        }
    }
    match obj.get("type") {
        Some(Value::String(t)) => typed(r, t, obj, style, base),
        Some(Value::Array(ts)) => {
            let alts: Vec<Expr> = ts
                .iter()
                .filter_map(|t| t.as_str())
                .map(|t| typed(r, t, obj, style, base))
                .collect();
            Expr::alt(alts)
        }
        _ if obj.contains_key("properties") => typed(r, "object", obj, style, base),
        _ => any(r, style),
    }
}

/// The JSON type name of the values a schema's `type` allows, for raw-string decisions.
pub(crate) fn is_string_only(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "string",
        _ => schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_string)),
    }
}

fn typed(
    r: &mut Rules,
    t: &str,
    obj: &serde_json::Map<String, Value>,
    style: &Style,
    base: &str,
) -> Expr {
    match t {
        "string" => string(r, style),
        "integer" => integer(r),
        "number" => number(r),
        "boolean" => Expr::alt(vec![
            literal(&Value::Bool(true), style),
            literal(&Value::Bool(false), style),
        ]),
        "null" => literal(&Value::Null, style),
        "array" => {
            let item = match obj.get("items") {
                Some(s) => value(r, s, style, &format!("{base}-item")),
                None => any(r, style),
            };
            let item = r.add(&format!("{base}-item"), item);
            let w = ws(r);
            let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let more = Expr::star(Expr::seq(vec![
                w.clone(),
                Expr::lit(","),
                w.clone(),
                item.clone(),
            ]));
            let items = Expr::seq(vec![item, more]);
            let body = Expr::seq(vec![
                Expr::lit("["),
                w.clone(),
                if min > 0 { items } else { Expr::opt(items) },
                w,
                Expr::lit("]"),
            ]);
            r.add(base, body)
        }
        "object" => {
            let props: Vec<(String, Value)> = obj
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default();
            if props.is_empty() {
                return any_object(r, style);
            }
            let required = required_of(obj);
            let w = ws(r);
            let kv_sep = match style {
                Style::KeyValue { .. } => Expr::lit(":"),
                _ => Expr::seq(vec![w.clone(), Expr::lit(":"), w.clone()]),
            };
            let members: Vec<Member> = props
                .iter()
                .enumerate()
                .map(|(i, (k, s))| {
                    let key = match style {
                        Style::KeyValue { .. } => Expr::lit(k),
                        _ => string_literal(k, style),
                    };
                    let v = value(r, s, style, &format!("{base}-{i}"));
                    Member {
                        required: required.contains(k),
                        expr: Expr::seq(vec![key, kv_sep.clone(), v]),
                    }
                })
                .collect();
            let sep = Expr::seq(vec![w.clone(), Expr::lit(","), w.clone()]);
            let inner = members_rule(r, base, &members, &sep);
            let body = Expr::seq(vec![Expr::lit("{"), w.clone(), inner, w, Expr::lit("}")]);
            r.add(base, body)
        }
        _ => any(r, style),
    }
}

fn any_object(r: &mut Rules, style: &Style) -> Expr {
    // An object of any members: the `any` value rule restricted to its object alternative is
    // not separable, so build it from the any-value rule.
    let v = any(r, style);
    let name = match style {
        Style::Json => "json-object",
        Style::Python => "py-object",
        Style::KeyValue { .. } => "kv-object",
    };
    let style = style.clone();
    r.shared(name, |r| {
        let w = ws(r);
        let key = match &style {
            Style::KeyValue { .. } => Expr::plus(Expr::not(&[
                (':', ':'),
                ('{', '{'),
                ('}', '}'),
                (',', ','),
                ('"', '"'),
            ])),
            _ => string(r, &style),
        };
        let member = Expr::seq(vec![key, w.clone(), Expr::lit(":"), w.clone(), v]);
        Expr::seq(vec![
            Expr::lit("{"),
            w.clone(),
            Expr::opt(Expr::seq(vec![
                member.clone(),
                Expr::star(Expr::seq(vec![
                    w.clone(),
                    Expr::lit(","),
                    w.clone(),
                    member,
                ])),
            ])),
            w,
            Expr::lit("}"),
        ])
    })
}

/// The `required` list of an object schema.
pub(crate) fn required_of(obj: &serde_json::Map<String, Value>) -> Vec<String> {
    obj.get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// One member of an ordered list (an object's property, a call's parameter).
pub(crate) struct Member {
    pub(crate) required: bool,
    pub(crate) expr: Expr,
}

/// The members in order, each required one present, optional ones optional, `sep` between
/// two present members. One rule per (position, whether a member came before), so the size
/// stays linear in the number of members.
pub(crate) fn members_rule(r: &mut Rules, base: &str, members: &[Member], sep: &Expr) -> Expr {
    // Built from the end: after[i][first] = the members from i on.
    let n = members.len();
    let mut after_first = Expr::Empty; // members from i on, none before
    let mut after_rest = Expr::Empty; // members from i on, one before
    for i in (0..n).rev() {
        let m = &members[i];
        let with_first = Expr::seq(vec![m.expr.clone(), after_rest.clone()]);
        let with_rest = Expr::seq(vec![sep.clone(), m.expr.clone(), after_rest.clone()]);
        let (f, rest) = if m.required {
            (with_first, with_rest)
        } else {
            (
                Expr::alt(vec![with_first, after_first.clone()]),
                Expr::alt(vec![with_rest, after_rest.clone()]),
            )
        };
        after_first = if f == Expr::Empty {
            f
        } else {
            r.add(&format!("{base}-m{i}"), f)
        };
        after_rest = if rest == Expr::Empty {
            rest
        } else {
            r.add(&format!("{base}-n{i}"), rest)
        };
    }
    after_first
}
