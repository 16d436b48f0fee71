//! xgrammar structural tags: `{"type": "structural_tag", "structures": [{"begin", "schema",
//! "end"}, ...], "triggers": [...]}`, one structure per tool. A structure's text is exact
//! (markers as the spec writes them); free text between calls is unconstrained. Only formats
//! whose every call is `BEGIN {json arguments} END` on its own can be written this way.

use super::{Grammar, GrammarOptions, Tool, ToolChoice, Trigger, TriggerKind};
use crate::output::spec::{CallSyntax, FormatSpec, IdSpec, ToolCallSpec, ValueWriting};
use crate::{Error, ErrorKind};
use serde_json::{json, Value};

fn err(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Input, msg)
}

/// The structural tag of `spec` for `tools`.
pub(crate) fn export(
    spec: &FormatSpec,
    tools: &[Tool],
    o: &GrammarOptions,
) -> Result<Grammar, Error> {
    if o.tool_choice != ToolChoice::Auto || !o.parallel {
        return Err(err(
            "structural tags say where calls go, not whether one is required or how many: use --syntax gbnf or lark for tool_choice required/none and --no-parallel",
        ));
    }
    if tools.is_empty() {
        return Err(err("structural tags need tools: the request has none"));
    }
    if spec.messages.is_some() {
        return Err(err("calls written as messages of their own (a header addressed to the function) cannot be written as per-call structural tags"));
    }
    let tc = spec
        .tools
        .as_ref()
        .ok_or_else(|| err("the format has no tool calls"))?;
    let mut structures = Vec::new();
    let mut triggers: Vec<String> = Vec::new();
    shape(tc, tools, &mut structures, &mut triggers)?;
    // Other shapes: the ones a structural tag can express; the rest stay free text.
    let mut notes = Vec::new();
    for (i, alt) in tc.alternatives.iter().enumerate() {
        let (mut s, mut t) = (Vec::new(), triggers.clone());
        match shape(alt, tools, &mut s, &mut t) {
            Ok(()) => {
                structures.extend(s);
                triggers = t;
            }
            Err(e) => notes.push(format!(
                "the calls' other shape {} is left out (free text): {}",
                i + 1,
                e.message()
            )),
        }
    }
    if o.after_prompt_prefix && spec.prompt_prefix.is_some() {
        return Err(err(
            "structural tags cannot start after the prompt's prefix: use --syntax gbnf or lark",
        ));
    }
    // Free text is unconstrained, so a content marker that starts like a trigger would be
    // taken for a call.
    if let Some(cm) = &spec.content {
        if triggers
            .iter()
            .any(|t| !t.trim().is_empty() && cm.open.trim_start().starts_with(t.trim()))
        {
            return Err(err(
                "the content marker starts like a call's trigger, which structural tags cannot tell apart",
            ));
        }
    }
    let tag = json!({"type": "structural_tag", "structures": structures, "triggers": triggers});
    let triggers = if o.lazy {
        triggers
            .into_iter()
            .map(|value| Trigger {
                kind: TriggerKind::Word,
                value,
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Grammar {
        grammar: serde_json::to_string_pretty(&tag).unwrap_or_default(),
        triggers,
        notes,
    })
}

/// The structures (one per tool) and triggers of one shape of the calls.
fn shape(
    tc: &ToolCallSpec,
    tools: &[Tool],
    structures: &mut Vec<Value>,
    triggers: &mut Vec<String>,
) -> Result<(), Error> {
    if tc.values != ValueWriting::Native {
        return Err(err(
            "only arguments written as JSON can be written as structural tags",
        ));
    }
    if matches!(tc.syntax, CallSyntax::OpenAiObject { .. }) {
        return Err(err(
            "OpenAI-shaped call objects write their id before the name, which a structural tag's fixed beginning cannot hold",
        ));
    }
    if tc.section.is_some() {
        return Err(err("calls inside a section (one wrapper around all calls) cannot be written as per-call structural tags"));
    }
    if matches!(
        tc.id,
        IdSpec::Index | IdSpec::Marked { .. } | IdSpec::Position { .. }
    ) {
        return Err(err("calls that write an id between the name and the arguments cannot be written as structural tags"));
    }
    let (open, close) = tc
        .call
        .as_ref()
        .map(|m| (m.open.clone(), m.close.clone()))
        .unwrap_or_default();
    for t in tools {
        let (begin, end, trigger) = match &tc.syntax {
            CallSyntax::JsonObject {
                name_key,
                args_key,
                list: false,
                ..
            } => {
                let begin = format!(
                    "{open}{{{}: {}, {}: ",
                    Value::from(name_key.as_str()),
                    Value::from(t.name.as_str()),
                    Value::from(args_key.as_str())
                );
                (begin, format!("}}{close}"), open.clone())
            }
            CallSyntax::NameThenJson {
                name_prefix,
                name_suffix,
                args_prefix,
                args_suffix,
            } => {
                let begin = format!("{open}{name_prefix}{}{name_suffix}{args_prefix}", t.name);
                let trigger = if open.is_empty() {
                    name_prefix.clone()
                } else {
                    open.clone()
                };
                (begin, format!("{args_suffix}{close}"), trigger)
            }
            _ => {
                return Err(err(
                    "only calls with JSON-object arguments can be written as structural tags",
                ))
            }
        };
        if trigger.is_empty() {
            return Err(err(
                "the format has no marker that starts a call, so no trigger",
            ));
        }
        if !triggers.contains(&trigger) {
            triggers.push(trigger);
        }
        let mut schema = match &t.parameters {
            Value::Object(m) if !m.is_empty() => t.parameters.clone(),
            _ => json!({"type": "object"}),
        };
        // JSON may escape any character as \uXXXX (templates that dump with ensure_ascii
        // do); llguidance's JSON schemas take that only with this option, others ignore it.
        if let Some(o) = schema.as_object_mut() {
            o.entry("x-guidance")
                .or_insert_with(|| json!({"json_allow_general_unicode_escapes": true}));
        }
        structures.push(json!({"begin": begin, "schema": schema, "end": end}));
    }
    Ok(())
}
