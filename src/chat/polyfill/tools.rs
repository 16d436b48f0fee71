//! Tool polyfills: definitions in the system prompt, calls as text, ids of the demanded shape.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::needs;
use crate::error::Error;

/// Writes `tools` into the system message (the first message, made if absent).
pub(super) fn inject(messages: &mut Vec<Value>, tools: &Value) {
    let listing = serde_json::to_string_pretty(tools).unwrap_or_default();
    let example =
        json!({"tool_calls": [{"name": "tool_name", "arguments": {"arg1": "some_value"}}]});
    let text = format!(
        "You can call any of the following tools to satisfy the user's requests: {listing}\n\n\
         Example tool call syntax:\n\n{}",
        serde_json::to_string_pretty(&example).unwrap_or_default()
    );
    let first_is_system = messages
        .first()
        .and_then(|m| m.get("role"))
        .is_some_and(|r| r == "system");
    if first_is_system {
        if let Some(m) = messages.first_mut() {
            let content = m.get("content").cloned().unwrap_or(Value::Null);
            let merged = super::message::join_content(&content, &Value::String(text));
            m["content"] = merged;
        }
    } else {
        messages.insert(0, json!({"role": "system", "content": text}));
    }
}

/// An id of 9 ASCII letters and digits.
fn is_alnum9(id: &str) -> bool {
    id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Maps every tool-call id (in calls and in results) that is not 9 alphanumerics to one
/// that is, the same way everywhere.
pub(super) fn map_ids(messages: &mut [Value], on: bool) -> Result<(), Error> {
    let mut map: HashMap<String, String> = HashMap::new();
    let mut used: Vec<String> = Vec::new();
    let mut next = 0u32;
    let mut fresh = |old: &str, used: &mut Vec<String>| -> String {
        loop {
            next += 1;
            let id = format!("call{next:05}");
            if !used.contains(&id) && id != old {
                used.push(id.clone());
                return id;
            }
        }
    };
    for m in messages.iter() {
        for id in ids_of(m) {
            if is_alnum9(&id) {
                used.push(id);
            }
        }
    }
    for (i, m) in messages.iter_mut().enumerate() {
        let slots: Vec<&mut Value> = match m.get("role").and_then(Value::as_str) {
            Some("tool") => m.get_mut("tool_call_id").into_iter().collect(),
            _ => m
                .get_mut("tool_calls")
                .and_then(Value::as_array_mut)
                .map(|calls| calls.iter_mut().filter_map(|c| c.get_mut("id")).collect())
                .unwrap_or_default(),
        };
        for slot in slots {
            let Some(old) = slot.as_str().map(str::to_string) else {
                continue;
            };
            if is_alnum9(&old) {
                continue;
            }
            if !on {
                return Err(needs(
                    format!("message {i}: tool-call id '{old}' is not 9 letters and digits, as the template demands"),
                    "tool_calls",
                ));
            }
            let new = match map.get(&old) {
                Some(n) => n.clone(),
                None => {
                    let n = fresh(&old, &mut used);
                    map.insert(old, n.clone());
                    n
                }
            };
            *slot = Value::String(new);
        }
    }
    Ok(())
}

/// The ids a message carries (its calls' ids, or a result's `tool_call_id`).
fn ids_of(m: &Value) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    if let Some(id) = m.get("tool_call_id").and_then(Value::as_str) {
        v.push(id.to_string());
    }
    if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
        v.extend(
            calls
                .iter()
                .filter_map(|c| c.get("id").and_then(Value::as_str))
                .map(str::to_string),
        );
    }
    v
}

/// A call's arguments as an object when they are a JSON string holding one.
pub(super) fn parsed_arguments(args: &Value) -> Option<Value> {
    match args {
        Value::String(s) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object),
        _ => None,
    }
}

/// The calls of an assistant message as text: `{"tool_calls": [{"name", "arguments", "id"}]}`.
pub(super) fn calls_text(calls: &[Value]) -> String {
    let list: Vec<Value> = calls
        .iter()
        .map(|c| {
            let f = c.get("function").unwrap_or(c);
            let mut o = Map::new();
            o.insert("name".into(), f.get("name").cloned().unwrap_or(Value::Null));
            let args = f.get("arguments").cloned().unwrap_or(Value::Null);
            o.insert("arguments".into(), parsed_arguments(&args).unwrap_or(args));
            if let Some(id) = c.get("id") {
                o.insert("id".into(), id.clone());
            }
            Value::Object(o)
        })
        .collect();
    json!({ "tool_calls": list }).to_string()
}
