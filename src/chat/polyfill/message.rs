//! Message polyfills: system role, tool calls and results as text, arguments, reasoning,
//! typed content, adjacent user turns.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::tools::{calls_text, parsed_arguments};
use super::{needs, Polyfills};
use crate::chat::caps::{Caps, ReasoningFormat};
use crate::error::{err, Error};

const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "thinking", "reasoning"];

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or("")
}

/// Content `a` then `b`, separated by a blank line: strings joined, lists concatenated.
pub(super) fn join_content(a: &Value, b: &Value) -> Value {
    let as_blocks = |v: &Value| -> Vec<Value> {
        match v {
            Value::Array(a) => a.clone(),
            Value::Null => Vec::new(),
            Value::String(s) if s.is_empty() => Vec::new(),
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            other => vec![json!({"type": "text", "text": other.to_string()})],
        }
    };
    match (a, b) {
        (Value::Null, b) => b.clone(),
        (Value::String(x), Value::String(y)) if x.is_empty() => Value::String(y.clone()),
        (Value::String(x), Value::String(y)) => Value::String(format!("{x}\n\n{y}")),
        _ => {
            let mut v = as_blocks(a);
            v.extend(as_blocks(b));
            Value::Array(v)
        }
    }
}

/// The tool name of each call id, for results without `name`.
fn call_names(messages: &[Value]) -> HashMap<String, Value> {
    let mut names = HashMap::new();
    for m in messages {
        for c in m
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(id), Some(name)) = (
                c.get("id").and_then(Value::as_str),
                c.get("function").and_then(|f| f.get("name")),
            ) {
                names.insert(id.to_string(), name.clone());
            }
        }
    }
    names
}

/// Applies the per-message polyfills.
pub(super) fn adapt(
    messages: Vec<Value>,
    caps: &Caps,
    on: &Polyfills,
) -> Result<Vec<Value>, Error> {
    let names = call_names(&messages);
    let mut out: Vec<Value> = Vec::with_capacity(messages.len());
    let mut pending_system: Option<Value> = None;
    for (i, mut m) in messages.into_iter().enumerate() {
        match role(&m) {
            "system" if !caps.supports_system_role => {
                if !on.system_role {
                    return Err(needs(
                        format!("message {i}: the template does not show system messages"),
                        "system_role",
                    ));
                }
                let content = m.get("content").cloned().unwrap_or(Value::Null);
                pending_system = Some(match pending_system.take() {
                    Some(p) => join_content(&p, &content),
                    None => content,
                });
                continue;
            }
            "user" => {
                if let Some(sys) = pending_system.take() {
                    let content = m.get("content").cloned().unwrap_or(Value::Null);
                    m["content"] = join_content(&sys, &content);
                }
            }
            "assistant" => assistant(&mut m, i, caps, on)?,
            "tool" => {
                m = tool_result(m, i, caps, on, &names)?;
                if let Some(sys) = pending_system.take() {
                    if role(&m) == "user" {
                        let content = m.get("content").cloned().unwrap_or(Value::Null);
                        m["content"] = join_content(&sys, &content);
                    } else {
                        out.push(json!({"role": "user", "content": sys}));
                    }
                }
            }
            _ => {}
        }
        out.push(m);
    }
    if let Some(sys) = pending_system {
        out.insert(0, json!({"role": "user", "content": sys}));
    }
    Ok(out)
}

/// An assistant message: arguments, reasoning, calls as text, non-null content.
fn assistant(m: &mut Value, i: usize, caps: &Caps, on: &Polyfills) -> Result<(), Error> {
    let Some(o) = m.as_object_mut() else {
        return Ok(());
    };
    let n_calls = o
        .get("tool_calls")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if n_calls > 0 && caps.requires_object_arguments && caps.supports_tool_calls {
        if let Some(calls) = o.get_mut("tool_calls").and_then(Value::as_array_mut) {
            for (j, c) in calls.iter_mut().enumerate() {
                let Some(args) = c.get_mut("function").and_then(|f| f.get_mut("arguments")) else {
                    continue;
                };
                if !args.is_string() {
                    continue;
                }
                if !on.object_arguments {
                    return Err(needs(
                        format!("message {i}: tool_calls[{j}].function.arguments is a JSON string and the template shows only objects"),
                        "object_arguments",
                    ));
                }
                *args = parsed_arguments(args).ok_or_else(|| {
                    err!(
                        Input,
                        "message {i}: tool_calls[{j}].function.arguments is not a JSON object"
                    )
                })?;
            }
        }
    }
    reasoning(o, i, caps, on)?;
    let as_text = n_calls > 0
        && (!caps.supports_tool_calls || (n_calls > 1 && !caps.supports_parallel_tool_calls));
    if as_text {
        if !on.tool_calls {
            let why = if caps.supports_tool_calls {
                "the template shows one tool call per message"
            } else {
                "the template does not show tool calls"
            };
            return Err(needs(
                format!("message {i}: {n_calls} tool call(s), but {why}"),
                "tool_calls",
            ));
        }
        let calls = o
            .remove("tool_calls")
            .and_then(|c| c.as_array().cloned())
            .unwrap_or_default();
        let content = o.get("content").cloned().unwrap_or(Value::Null);
        o.insert(
            "content".into(),
            join_content(&content, &Value::String(calls_text(&calls))),
        );
    }
    if caps.requires_non_null_content && on.tool_calls {
        if let Some(c) = o.get_mut("content").filter(|c| c.is_null()) {
            *c = Value::String(String::new());
        }
    }
    Ok(())
}

/// Moves `reasoning_content` (or `thinking`, `reasoning`) into the template's format.
fn reasoning(
    o: &mut Map<String, Value>,
    i: usize,
    caps: &Caps,
    on: &Polyfills,
) -> Result<(), Error> {
    let Some(r) = REASONING_FIELDS
        .iter()
        .find_map(|k| o.get(*k).filter(|v| !v.is_null()).cloned())
    else {
        return Ok(());
    };
    let format = caps.reasoning_format;
    let native = matches!(
        format,
        ReasoningFormat::None
            | ReasoningFormat::ReasoningContentField
            | ReasoningFormat::ThinkingField
    );
    let has_calls = o.get("tool_calls").is_some_and(|c| !c.is_null());
    if native || (format == ReasoningFormat::ToolPlanField && !has_calls) {
        return Ok(());
    }
    if !on.reasoning {
        return Err(needs(
            format!(
                "message {i}: the template shows reasoning as {}, not reasoning_content",
                format.name()
            ),
            "reasoning",
        ));
    }
    for k in REASONING_FIELDS {
        o.remove(k);
    }
    let content = o.get("content").cloned().unwrap_or(Value::Null);
    match format {
        ReasoningFormat::ThoughtField => {
            o.insert("thought".into(), r);
        }
        ReasoningFormat::ToolPlanField => {
            o.insert("tool_plan".into(), r);
        }
        ReasoningFormat::ThinkingContentBlock => {
            let block = json!([{"type": "thinking", "thinking": r}]);
            o.insert("content".into(), join_content(&block, &content));
        }
        ReasoningFormat::ThoughtsContentBlock if caps.reasoning_blocks_in_mapping => {
            let mut blocks = vec![json!({"type": "thoughts", "text": r})];
            match content {
                Value::String(s) if !s.is_empty() => {
                    blocks.push(json!({"type": "response", "text": s}))
                }
                Value::Array(a) => blocks.extend(a.into_iter().map(|b| {
                    json!({"type": "response", "text": b.get("text").cloned().unwrap_or(Value::Null)})
                })),
                _ => {}
            }
            o.insert("content".into(), json!({ "blocks": blocks }));
        }
        ReasoningFormat::ThoughtsContentBlock => {
            let block = json!([{"type": "thoughts", "text": r}]);
            o.insert("content".into(), join_content(&block, &content));
        }
        _ => {}
    }
    Ok(())
}

/// A tool result: as a user turn when the template shows none, else with its call's name.
fn tool_result(
    mut m: Value,
    i: usize,
    caps: &Caps,
    on: &Polyfills,
    names: &HashMap<String, Value>,
) -> Result<Value, Error> {
    let id = m.get("tool_call_id").cloned();
    let name = m.get("name").cloned().or_else(|| {
        id.as_ref()
            .and_then(Value::as_str)
            .and_then(|id| names.get(id).cloned())
    });
    if caps.supports_tool_responses {
        if on.tool_responses && m.get("name").is_none() {
            if let (Some(o), Some(n)) = (m.as_object_mut(), name) {
                o.insert("name".into(), n);
            }
        }
        return Ok(m);
    }
    if !on.tool_responses {
        return Err(needs(
            format!("message {i}: the template does not show tool results"),
            "tool_responses",
        ));
    }
    let mut response = Map::new();
    if let Some(n) = name {
        response.insert("tool".into(), n);
    }
    response.insert(
        "content".into(),
        m.get("content").cloned().unwrap_or(Value::Null),
    );
    if let Some(id) = id {
        response.insert("tool_call_id".into(), id);
    }
    Ok(json!({"role": "user", "content": json!({"tool_response": response}).to_string()}))
}

/// Adjacent user turns merged into one.
pub(super) fn merge_adjacent_users(messages: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(messages.len());
    for m in messages {
        if let Some(prev) = out.last_mut() {
            if role(prev) == "user" && role(&m) == "user" {
                let a = prev.get("content").cloned().unwrap_or(Value::Null);
                let b = m.get("content").cloned().unwrap_or(Value::Null);
                prev["content"] = join_content(&a, &b);
                continue;
            }
        }
        out.push(m);
    }
    out
}

/// String content as one typed text block.
pub(super) fn typed_content(m: &mut Value, i: usize, on: bool) -> Result<(), Error> {
    let Some(Value::String(s)) = m.get("content") else {
        return Ok(());
    };
    if !on {
        return Err(needs(
            format!(
                "message {i}: string content, and the template shows only typed content blocks"
            ),
            "typed_content",
        ));
    }
    let blocks = json!([{"type": "text", "text": s}]);
    m["content"] = blocks;
    Ok(())
}
