//! Where a request fails to parse: the deepest field whose value does not fit its type.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{parse, ChatRequest, ContentPart, FunctionCall, FunctionDef, Message, Tool, ToolCall};

/// A failure: the path (`messages[2].tool_calls[0].function`) and the message.
type Found = (String, String);

/// Checks one value at `path`.
type Check = fn(&Value, &str) -> Option<Found>;

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The value as a whole as `T`.
fn leaf<T: DeserializeOwned>(v: &Value, path: &str) -> Option<Found> {
    parse::<T>(v).err().map(|e| (path.to_string(), e))
}

/// An object's fields first (the first that fails), then the object as a whole as `T`.
fn object<T: DeserializeOwned>(v: &Value, path: &str, fields: &[(&str, Check)]) -> Option<Found> {
    if let Some(o) = v.as_object() {
        for (name, check) in fields {
            if let Some(found) = o.get(*name).and_then(|x| check(x, &join(path, name))) {
                return Some(found);
            }
        }
    }
    leaf::<T>(v, path)
}

/// A list's items (the first that fails), then the value as a whole as `T`.
fn list<T: DeserializeOwned>(v: &Value, path: &str, item: Check) -> Option<Found> {
    if let Some(items) = v.as_array() {
        for (i, x) in items.iter().enumerate() {
            if let Some(found) = item(x, &format!("{path}[{i}]")) {
                return Some(found);
            }
        }
    }
    leaf::<T>(v, path)
}

fn function_call(v: &Value, path: &str) -> Option<Found> {
    object::<FunctionCall>(
        v,
        path,
        &[
            ("name", leaf::<String>),
            ("arguments", leaf::<Option<Value>>),
        ],
    )
}

fn tool_call(v: &Value, path: &str) -> Option<Found> {
    object::<ToolCall>(
        v,
        path,
        &[
            ("id", leaf::<Option<String>>),
            ("type", leaf::<Option<String>>),
            ("function", function_call),
        ],
    )
}

fn content_part(v: &Value, path: &str) -> Option<Found> {
    object::<ContentPart>(
        v,
        path,
        &[("type", leaf::<String>), ("text", leaf::<Option<String>>)],
    )
}

fn content(v: &Value, path: &str) -> Option<Found> {
    match v {
        Value::Null | Value::String(_) => None,
        Value::Array(_) => list::<Vec<ContentPart>>(v, path, content_part),
        _ => Some((
            path.to_string(),
            "expected a string or a list of content parts".to_string(),
        )),
    }
}

fn tool_calls(v: &Value, path: &str) -> Option<Found> {
    if v.is_null() {
        return None;
    }
    list::<Vec<ToolCall>>(v, path, tool_call)
}

fn message(v: &Value, path: &str) -> Option<Found> {
    object::<Message>(
        v,
        path,
        &[
            ("role", leaf::<String>),
            ("content", content),
            ("name", leaf::<Option<String>>),
            ("tool_calls", tool_calls),
            ("tool_call_id", leaf::<Option<String>>),
            ("reasoning_content", leaf::<Option<String>>),
            ("thinking", leaf::<Option<String>>),
            ("reasoning", leaf::<Option<String>>),
        ],
    )
}

fn function_def(v: &Value, path: &str) -> Option<Found> {
    object::<FunctionDef>(
        v,
        path,
        &[
            ("name", leaf::<String>),
            ("description", leaf::<Option<String>>),
            ("parameters", leaf::<Option<Value>>),
        ],
    )
}

fn tool(v: &Value, path: &str) -> Option<Found> {
    object::<Tool>(
        v,
        path,
        &[("type", leaf::<String>), ("function", function_def)],
    )
}

fn tools(v: &Value, path: &str) -> Option<Found> {
    if v.is_null() {
        return None;
    }
    list::<Vec<Tool>>(v, path, tool)
}

fn messages(v: &Value, path: &str) -> Option<Found> {
    list::<Vec<Message>>(v, path, message)
}

/// The deepest failing place of a request that does not parse (the whole request, path "",
/// when no field is to blame).
pub(super) fn request(v: &Value) -> Found {
    object::<ChatRequest>(
        v,
        "",
        &[
            ("messages", messages),
            ("tools", tools),
            (
                "documents",
                leaf::<Option<Vec<serde_json::Map<String, Value>>>>,
            ),
            ("add_generation_prompt", leaf::<Option<bool>>),
            (
                "continue_final_message",
                leaf::<Option<super::ContinueFinalMessage>>,
            ),
        ],
    )
    .unwrap_or_else(|| (String::new(), "does not parse".to_string()))
}
