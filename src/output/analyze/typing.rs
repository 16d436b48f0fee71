//! How a derived call description writes typed values, read off the probe turn with calls:
//! XML parameters whose key-value middle names the value's type (DeepSeek V3.2
//! `" string="true">` / `" string="false">`) and scalars written quoted (`days="3"`,
//! `days:<escape>3<escape>`) or strings written bare (`city=Paris`).

use super::probe::Call;
use crate::output::spec::{CallSyntax, ToolCallSpec, TypedMiddle, ValueWriting};
use serde_json::Value;

/// The JSON type name of a value (`integer` for whole numbers).
fn describe(w: ValueWriting) -> &'static str {
    match w {
        ValueWriting::QuotedScalars => "argument values: every scalar written in string quotes",
        ValueWriting::BareStrings => "argument values: strings written without quotes",
        ValueWriting::Python => "argument values: Python literals",
        ValueWriting::Native => "argument values: as the call syntax writes them",
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
        Value::Object(_) => "object",
        Value::Array(_) => "array",
    }
}

/// Refines `tc` from `render`, the probe turn that wrote `calls`; says what it found in
/// `notes`.
pub(crate) fn refine(tc: &mut ToolCallSpec, render: &str, calls: &[Call], notes: &mut Vec<String>) {
    let args: Vec<(&String, &Value)> = calls
        .iter()
        .filter_map(|c| c.args.as_object())
        .flat_map(|o| o.iter())
        .collect();
    match &mut tc.syntax {
        CallSyntax::XmlParams {
            param_prefix,
            param_middle,
            typed_middles,
            ..
        } => {
            if let Some(found) = middles(render, param_prefix, param_middle, &args) {
                notes.push(format!(
                    "the text between a parameter's key and value names the value's type ({} middles)",
                    found.len()
                ));
                *typed_middles = found;
            }
        }
        CallSyntax::Pythonic { .. } => {
            if let Some(w) = writing(render, "=", &["\"", "'"], &args) {
                tc.values = w;
                notes.push(describe(w).into());
            }
        }
        CallSyntax::KeyValue {
            key_value_separator,
            string_quote,
            ..
        } => {
            let sep = key_value_separator.clone();
            let quote = [string_quote.as_str()];
            if let Some(w) = writing(render, &sep, &quote, &args) {
                if w == ValueWriting::QuotedScalars {
                    tc.values = w;
                    notes.push(describe(w).into());
                }
            }
        }
        _ => {}
    }
}

/// The middle after each argument's key, when they differ by the value's type: one entry per
/// middle, a middle shared by every non-string type given as `*`.
fn middles(
    render: &str,
    prefix: &str,
    middle: &str,
    args: &[(&String, &Value)],
) -> Option<Vec<TypedMiddle>> {
    let prefix = prefix.trim();
    let last = middle.trim_end().chars().last()?;
    if prefix.is_empty() {
        return None;
    }
    let mut seen: Vec<(&'static str, String)> = Vec::new();
    for (k, v) in args {
        let at = render.find(&format!("{prefix}{k}"))? + prefix.len() + k.len();
        let end = render[at..].find(last)? + at + last.len_utf8();
        let t = type_name(v);
        let m = render[at..end].to_string();
        match seen.iter().find(|(x, _)| *x == t) {
            Some((_, old)) if *old != m => return None,
            Some(_) => {}
            None => seen.push((t, m)),
        }
    }
    let distinct: Vec<&String> = {
        let mut d: Vec<&String> = Vec::new();
        for (_, m) in &seen {
            if !d.contains(&m) {
                d.push(m);
            }
        }
        d
    };
    if distinct.len() < 2 {
        return None;
    }
    let string_middle = seen.iter().find(|(t, _)| *t == "string").map(|(_, m)| m);
    let others: Vec<&String> = seen
        .iter()
        .filter(|(t, _)| *t != "string")
        .map(|(_, m)| m)
        .collect();
    if let Some(sm) = string_middle {
        if others.iter().all(|m| *m == others[0]) && !others.is_empty() {
            return Some(vec![
                TypedMiddle {
                    types: vec!["string".into()],
                    middle: sm.clone(),
                },
                TypedMiddle {
                    types: vec!["*".into()],
                    middle: others[0].clone(),
                },
            ]);
        }
    }
    let mut out: Vec<TypedMiddle> = Vec::new();
    for (t, m) in seen {
        match out.iter_mut().find(|x| x.middle == m) {
            Some(x) => x.types.push(t.into()),
            None => out.push(TypedMiddle {
                types: vec![t.into()],
                middle: m,
            }),
        }
    }
    Some(out)
}

/// Quoted scalars when every integer or boolean argument is written in a string quote after
/// `key SEP`; bare strings when a string argument is written without one.
fn writing(
    render: &str,
    sep: &str,
    quotes: &[&str],
    args: &[(&String, &Value)],
) -> Option<ValueWriting> {
    let after = |k: &str| -> Option<&str> {
        let at = render.find(&format!("{k}{sep}"))? + k.len() + sep.len();
        Some(render[at..].trim_start())
    };
    let quoted = |s: &str| quotes.iter().any(|q| s.starts_with(q));
    let mut scalars = 0;
    let mut quoted_scalars = 0;
    let mut bare_strings = 0;
    for (k, v) in args {
        let Some(rest) = after(k) else { continue };
        match v {
            Value::Number(_) | Value::Bool(_) => {
                scalars += 1;
                if quoted(rest) {
                    quoted_scalars += 1;
                }
            }
            Value::String(s) if !s.is_empty() && rest.starts_with(s.as_str()) => bare_strings += 1,
            _ => {}
        }
    }
    if scalars > 0 && quoted_scalars == scalars {
        Some(ValueWriting::QuotedScalars)
    } else if bare_strings > 0 && quoted_scalars == 0 {
        Some(ValueWriting::BareStrings)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn middles_by_type() {
        let r = "<p name=\"city\" string=\"true\">Paris</p><p name=\"days\" string=\"false\">3</p>\
                 <p name=\"metric\" string=\"false\">true</p>";
        let (c, d, m) = ("city".to_string(), "days".to_string(), "metric".to_string());
        let (a, b, e) = (json!("Paris"), json!(3), json!(true));
        let found = middles(
            r,
            "<p name=\"",
            "\" string=\"true\">",
            &[(&c, &a), (&d, &b), (&m, &e)],
        )
        .unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].types, vec!["string"]);
        assert_eq!(found[1].types, vec!["*"]);
        assert_eq!(found[1].middle, "\" string=\"false\">");
        // One middle for every type: nothing to say.
        let r = "<p name=\"city\">Paris</p><p name=\"days\">3</p>";
        assert!(middles(r, "<p name=\"", "\">", &[(&c, &a), (&d, &b)]).is_none());
    }

    #[test]
    fn quoted_and_bare_values() {
        let (c, d) = ("city".to_string(), "days".to_string());
        let (a, b) = (json!("Paris"), json!(3));
        let args = [(&c, &a), (&d, &b)];
        assert_eq!(
            writing("[f(city=\"Paris\", days=\"3\")]", "=", &["\"", "'"], &args),
            Some(ValueWriting::QuotedScalars)
        );
        assert_eq!(
            writing("[f(city=Paris, days=3)]", "=", &["\"", "'"], &args),
            Some(ValueWriting::BareStrings)
        );
        assert_eq!(
            writing("[f(city=\"Paris\", days=3)]", "=", &["\"", "'"], &args),
            None
        );
    }
}
