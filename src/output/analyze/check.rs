//! Checking a parser against the probe renders: each probe turn, parsed, must give back the
//! reasoning, content and calls that went in. This names the hand-written format a template
//! follows (the formats that reproduce every probe, the one whose markers the renders use
//! most) and tells whether the parser built from a spec works.

use super::probe::Call;
use crate::output::formats::{Format, SPECS};
use crate::output::spec::CallSyntax;
use crate::output::spec::{FormatSpec, ReasoningMode};
use crate::output::{parse_with, Message, Options, Reasoning};
use serde_json::Value;

/// A rendered assistant turn and what it holds.
#[derive(Debug, Clone)]
pub struct Case {
    /// The assistant turn as rendered, end-of-turn marker removed.
    pub text: String,
    /// The reasoning that went in (empty when the render does not show it).
    pub reasoning: String,
    /// The content that went in (empty when the render does not show it).
    pub content: String,
    /// The calls that went in: names and arguments.
    pub calls: Vec<(String, Value)>,
}

impl Case {
    pub(crate) fn new(
        text: &str,
        eot: Option<&str>,
        reasoning: &str,
        content: &str,
        calls: &[Call],
    ) -> Case {
        let calls: Vec<(String, Value)> = calls
            .iter()
            .map(|c| (c.name.clone(), c.args.clone()))
            .collect();
        Case::from_render(text, eot, reasoning, content, calls)
    }

    /// The case of an assistant turn `text` rendered from `reasoning`, `content` and `calls`:
    /// the text is cut at the first end-of-turn marker (the model stops there), and the
    /// reasoning and content are expected back only when the render shows them.
    pub fn from_render(
        text: &str,
        eot: Option<&str>,
        reasoning: &str,
        content: &str,
        calls: Vec<(String, Value)>,
    ) -> Case {
        let mut t = text;
        if let Some(e) = eot.filter(|e| !e.is_empty()) {
            // The model stops at the first end of turn: a template that writes more after it
            // (a second message) shows what the model does not write in one turn.
            // (An end-of-turn marker the turn starts with separates it from the prompt.)
            let lead = t.len() - t.trim_start().len();
            let skip = if t[lead..].starts_with(e) {
                lead + e.len()
            } else {
                0
            };
            if let Some(i) = t[skip..].find(e) {
                t = &t[..skip + i];
            }
        }
        let t = t.trim_end();
        let shown = |s: &str| {
            if !s.is_empty() && t.contains(s) {
                s.to_string()
            } else {
                String::new()
            }
        };
        Case {
            text: t.to_string(),
            reasoning: shown(reasoning),
            content: shown(content),
            calls,
        }
    }
}

/// The parser options a case is parsed with under `spec`: forced-open reasoning when the
/// turn closes a reasoning block it does not open.
pub fn options_for(spec: &FormatSpec, text: &str) -> Options {
    // The text starts inside the block when it closes one before opening one (the prompt,
    // or the part of the conversation shared with it, opened it).
    let forced = spec.reasoning.mode != ReasoningMode::None
        && spec.reasoning.markers.as_ref().is_some_and(|m| {
            let close = m.close.trim();
            let open = m.open.trim();
            !close.is_empty()
                && text
                    .find(close)
                    .is_some_and(|c| open.is_empty() || text.find(open).map_or(true, |o| c < o))
        });
    Options {
        reasoning: if forced {
            Reasoning::ForcedOpen
        } else {
            Reasoning::Auto
        },
        id_seed: 1,
        tools: None,
        keep_unknown_tools: false,
        tool_schemas: None,
    }
}

/// Why `m` differs from what `case` holds, or `None` when it gives it all back.
pub fn difference(m: &Message, case: &Case) -> Option<String> {
    if m.reasoning.trim() != case.reasoning {
        return Some(format!(
            "reasoning {:?}, want {:?}",
            m.reasoning, case.reasoning
        ));
    }
    if m.content.trim() != case.content {
        return Some(format!("content {:?}, want {:?}", m.content, case.content));
    }
    let got: Vec<(String, Value)> = m
        .tool_calls
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                serde_json::from_str(&c.arguments).unwrap_or(Value::Null),
            )
        })
        .collect();
    if got != case.calls {
        return Some(format!("calls {got:?}, want {:?}", case.calls));
    }
    None
}

/// [`difference`] with scalar argument values compared as text, and Python's `True`,
/// `False`, `None` read as JSON: formats that write every value untyped (quoted, or a
/// template's Python repr) cannot tell `5` from `"5"` without the tool's schema.
pub fn loose_difference(m: &Message, case: &Case) -> Option<String> {
    fn norm(v: &Value) -> Value {
        match v {
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, v)| (k.clone(), norm(v))).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(norm).collect()),
            Value::String(s) => Value::String(match s.as_str() {
                "True" => "true".into(),
                "False" => "false".into(),
                "None" => "null".into(),
                _ => s.clone(),
            }),
            other => Value::String(other.to_string()),
        }
    }
    let mut m2 = m.clone();
    for c in &mut m2.tool_calls {
        if let Ok(v) = serde_json::from_str::<Value>(&c.arguments) {
            c.arguments = norm(&v).to_string();
        }
    }
    let mut c2 = case.clone();
    for (_, a) in &mut c2.calls {
        *a = norm(a);
    }
    difference(&m2, &c2)
}

/// Whether `format` gives back every case (scalar typing aside, see [`loose_difference`]).
pub(crate) fn passes(format: &Format, spec: &FormatSpec, cases: &[Case]) -> bool {
    cases.iter().all(|c| {
        let m = parse_with(format, &c.text, options_for(spec, &c.text));
        loose_difference(&m, c).is_none()
    })
}

/// The hand-written format that gives back every case; among several, the one whose own
/// description's markers occur most in the renders.
pub(crate) fn name(spec: &FormatSpec, cases: &[Case]) -> Option<&'static str> {
    let mut best: Option<(i64, &'static str)> = None;
    for s in SPECS.iter() {
        // Formats with no description are not offered as names.
        if crate::output::formats::WITHOUT_SPEC
            .iter()
            .any(|(n, _)| *n == s.name)
        {
            continue;
        }
        let Ok(f) = Format::by_name(s.name) else {
            continue;
        };
        if !passes(&f, spec, cases) {
            continue;
        }
        // The format's own description: its markers (reasoning aside: templates often render
        // none) seen in the renders count for it, missing ones against it; the same
        // end-of-turn marker breaks ties between formats that read the same syntax.
        let own = f.spec();
        let mut score: i64 = own_markers(&own)
            .iter()
            .flat_map(|m| m.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .map(|m| {
                if cases.iter().any(|c| c.text.contains(m.as_str())) {
                    2
                } else {
                    -3
                }
            })
            .sum();
        if own.end_of_turn.is_some() && own.end_of_turn == spec.end_of_turn {
            score += 2;
        }
        // A template without calls: a format without calls (which reads tool-call look-alikes
        // as text).
        if spec.tools.is_none() && own.tools.is_none() {
            score += 3;
        }
        // The same kind of call syntax as the one derived.
        if let (Some(a), Some(b)) = (&own.tools, &spec.tools) {
            if std::mem::discriminant(&a.syntax) == std::mem::discriminant(&b.syntax) {
                score += 2;
            }
        }
        // Formats sharing a grammar: the one whose description shows the spec's markers.
        score += spec_markers(spec)
            .iter()
            .filter(|m| s.about.contains(m.as_str()))
            .count() as i64;
        if best.map_or(true, |(b, _)| score > b) {
            best = Some((score, s.name));
        }
    }
    best.map(|(_, n)| n)
}

/// The non-empty markers of a spec's tool syntax.
fn spec_markers(spec: &FormatSpec) -> Vec<String> {
    let mut out = Vec::new();
    let Some(t) = &spec.tools else { return out };
    for m in [&t.section, &t.call].into_iter().flatten() {
        out.push(m.open.clone());
        out.push(m.close.clone());
    }
    match &t.syntax {
        CallSyntax::NameThenJson {
            name_prefix,
            name_suffix,
            args_prefix,
            args_suffix,
        } => {
            out.extend([name_prefix, name_suffix, args_prefix, args_suffix].map(|s| s.clone()));
        }
        CallSyntax::XmlParams {
            name_prefix,
            name_suffix,
            param_prefix,
            ..
        } => {
            out.extend([name_prefix, name_suffix, param_prefix].map(|s| s.clone()));
        }
        _ => {}
    }
    if let crate::output::spec::IdSpec::Marked { prefix, suffix, .. } = &t.id {
        out.push(prefix.clone());
        out.push(suffix.clone());
    }
    out.retain(|m| !m.trim().is_empty());
    out
}

/// The markers of a format's own description that its output shows whenever it has calls or
/// wrapped content: content, section, call, syntax and id markers.
fn own_markers(spec: &FormatSpec) -> Vec<String> {
    let mut out = spec_markers(spec);
    if let Some(m) = &spec.content {
        out.push(m.open.clone());
        out.push(m.close.clone());
    }
    if let Some(t) = &spec.tools {
        if let CallSyntax::XmlParams {
            param_middle,
            param_suffix,
            call_suffix,
            ..
        } = &t.syntax
        {
            out.extend([param_middle, param_suffix, call_suffix].map(|s| s.clone()));
        }
    }
    if let Some(ms) = &spec.messages {
        out.push(ms.message_start.clone());
        out.push(ms.message_marker.clone());
    }
    out.retain(|m| !m.trim().is_empty());
    out
}
