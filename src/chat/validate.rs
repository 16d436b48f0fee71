//! History validation (opt-in): tool calls and tool responses must be well sequenced before a
//! conversation is sent to a model.
//!
//! Rules, checked in message order:
//! - an assistant message with `tool_calls` must be followed immediately by a tool response
//!   for each call ([`Rule::ToolCallAnswered`]);
//! - a tool response's `tool_call_id` must be the id of one of those calls
//!   ([`Rule::ToolIdMatch`]);
//! - a tool response must follow an assistant tool call ([`Rule::NoOrphanToolResponse`]);
//! - after tool responses, the next message (if any) must be an assistant message
//!   ([`Rule::AssistantAfterToolResponse`]);
//! - with [`validate_tool_calls`]: a call's `arguments` string must be valid JSON
//!   ([`Rule::ToolArgumentsJson`]) and, when the request lists `tools`, the called function
//!   must be one of them ([`Rule::ToolExists`]).

use serde_json::Value;

/// A history rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Every tool call is answered by a tool response right after the call.
    ToolCallAnswered,
    /// Tool response ids match the ids of the calls they answer.
    ToolIdMatch,
    /// No tool response without a preceding assistant tool call.
    NoOrphanToolResponse,
    /// After tool responses, the next message is an assistant message.
    AssistantAfterToolResponse,
    /// A tool call's `arguments`, when a string, is valid JSON.
    ToolArgumentsJson,
    /// A called tool is one of the request's `tools` (checked when the request lists tools).
    ToolExists,
}

impl Rule {
    /// The rule's short name, as printed in errors.
    pub fn name(self) -> &'static str {
        match self {
            Rule::ToolCallAnswered => "tool-call-answered",
            Rule::ToolIdMatch => "tool-id-match",
            Rule::NoOrphanToolResponse => "no-orphan-tool-response",
            Rule::AssistantAfterToolResponse => "assistant-after-tool-response",
            Rule::ToolArgumentsJson => "tool-arguments-json",
            Rule::ToolExists => "tool-exists",
        }
    }
}

/// A broken rule: which message and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryError {
    /// The index of the offending message in `messages`.
    pub index: usize,
    /// The rule broken.
    pub rule: Rule,
    /// What is wrong, for a person.
    pub detail: String,
}

impl std::fmt::Display for HistoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "message {}: rule {}: {}",
            self.index,
            self.rule.name(),
            self.detail
        )
    }
}

impl std::error::Error for HistoryError {}

impl From<HistoryError> for crate::Error {
    fn from(e: HistoryError) -> crate::Error {
        crate::Error::new(crate::ErrorKind::Input, format!("invalid history: {e}"))
    }
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or("")
}

fn id_text(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    }
}

fn show(id: &Option<String>) -> String {
    id.as_deref()
        .map_or_else(|| "(no id)".to_string(), |s| format!("'{s}'"))
}

/// Checks `messages` (a chat request's message list) against the rules above.
pub fn validate_history(messages: &[Value]) -> Result<(), HistoryError> {
    // The ids of the calls of the last assistant tool-call message still awaiting a
    // response, and the index of that message.
    let mut pending: Vec<Option<String>> = Vec::new();
    let mut call_index = 0usize;
    let mut in_responses = false;
    for (i, m) in messages.iter().enumerate() {
        let r = role(m);
        if r == "tool" {
            if !in_responses && pending.is_empty() {
                return Err(HistoryError {
                    index: i,
                    rule: Rule::NoOrphanToolResponse,
                    detail: "a tool response that follows no assistant tool call".into(),
                });
            }
            let id = id_text(m.get("tool_call_id"));
            match pending.iter().position(|p| *p == id) {
                Some(pos) => {
                    pending.remove(pos);
                }
                None if pending.is_empty() => {
                    return Err(HistoryError {
                        index: i,
                        rule: Rule::NoOrphanToolResponse,
                        detail: format!(
                        "tool response {} after every call of message {call_index} was answered",
                        show(&id)
                    ),
                    })
                }
                None => {
                    let expected: Vec<String> = pending.iter().map(show).collect();
                    return Err(HistoryError {
                        index: i,
                        rule: Rule::ToolIdMatch,
                        detail: format!(
                            "tool_call_id {} matches no call of message {call_index} (expected one of {})",
                            show(&id),
                            expected.join(", ")
                        ),
                    });
                }
            }
            in_responses = true;
            continue;
        }
        if let Some(id) = pending.first() {
            return Err(HistoryError {
                index: i,
                rule: Rule::ToolCallAnswered,
                detail: format!(
                    "tool call {} of message {call_index} has no response before this {r} message",
                    show(id)
                ),
            });
        }
        if in_responses && r != "assistant" {
            return Err(HistoryError {
                index: i,
                rule: Rule::AssistantAfterToolResponse,
                detail: format!(
                    "a {r} message follows tool responses; expected an assistant message"
                ),
            });
        }
        in_responses = false;
        if r == "assistant" {
            if let Some(Value::Array(calls)) = m.get("tool_calls") {
                pending = calls.iter().map(|c| id_text(c.get("id"))).collect();
                call_index = i;
            }
        }
    }
    if let Some(id) = pending.first() {
        return Err(HistoryError {
            index: call_index,
            rule: Rule::ToolCallAnswered,
            detail: format!("tool call {} has no response: the history ends", show(id)),
        });
    }
    Ok(())
}

/// The name of a tool in a request's `tools` list (`{"type": "function", "function":
/// {"name": ...}}`, or a bare `{"name": ...}`).
fn tool_name(t: &Value) -> Option<&str> {
    t.get("function")
        .and_then(|f| f.get("name"))
        .or_else(|| t.get("name"))
        .and_then(Value::as_str)
}

/// Checks the tool calls of `messages`: each call's `arguments`, when a string, must be valid
/// JSON, and when `tools` (the request's `tools`) is a list, each called function must be in
/// it. Runs [`validate_history`] first.
pub fn validate_tool_calls(messages: &[Value], tools: Option<&Value>) -> Result<(), HistoryError> {
    validate_history(messages)?;
    let known: Option<Vec<&str>> = match tools {
        Some(Value::Array(list)) => Some(list.iter().filter_map(tool_name).collect()),
        _ => None,
    };
    for (i, m) in messages.iter().enumerate() {
        let Some(Value::Array(calls)) = m.get("tool_calls") else {
            continue;
        };
        for (j, call) in calls.iter().enumerate() {
            let f = call.get("function").unwrap_or(call);
            let name = f.get("name").and_then(Value::as_str).unwrap_or("");
            if let Some(Value::String(args)) = f.get("arguments") {
                if let Err(e) = serde_json::from_str::<Value>(args) {
                    return Err(HistoryError {
                        index: i,
                        rule: Rule::ToolArgumentsJson,
                        detail: format!(
                            "tool call {j} ('{name}'): arguments are not valid JSON: {e}"
                        ),
                    });
                }
            }
            if let Some(known) = &known {
                if !known.contains(&name) {
                    return Err(HistoryError {
                        index: i,
                        rule: Rule::ToolExists,
                        detail: format!(
                            "tool call {j} calls '{name}', which is not in the request's tools ({})",
                            known.join(", ")
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}
