//! The final assistant message and its OpenAI JSON shape.

use super::event::Event;
use serde_json::{json, Map, Value};

/// One tool call of a message.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCall {
    /// The call id (the model's, or generated).
    pub id: String,
    /// The function name.
    pub name: String,
    /// The arguments, a JSON string.
    pub arguments: String,
}

/// An assistant message: what the events of a whole output add up to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Message {
    /// Assistant text.
    pub content: String,
    /// Reasoning text.
    pub reasoning: String,
    /// Tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// How many malformed regions were degraded to content.
    pub malformed: usize,
}

impl Message {
    /// Adds one event.
    pub fn apply(&mut self, e: &Event) {
        match e {
            Event::Content(s) => self.content.push_str(s),
            Event::Reasoning(s) => self.reasoning.push_str(s),
            Event::ToolCallStart { id, name, .. } => self.tool_calls.push(ToolCall {
                id: id.clone(),
                name: name.clone(),
                arguments: String::new(),
            }),
            Event::ToolCallArgs { index, text } => {
                if let Some(c) = self.tool_calls.get_mut(*index) {
                    c.arguments.push_str(text);
                }
            }
            Event::ToolCallEnd { .. } => {}
            Event::Malformed { .. } => self.malformed += 1,
        }
    }

    /// The message as an OpenAI assistant message: `content` (null when empty),
    /// `reasoning_content` when there is reasoning, `tool_calls` when there are calls.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), json!("assistant"));
        m.insert(
            "content".into(),
            if self.content.is_empty() {
                Value::Null
            } else {
                json!(self.content)
            },
        );
        if !self.reasoning.is_empty() {
            m.insert("reasoning_content".into(), json!(self.reasoning));
        }
        if !self.tool_calls.is_empty() {
            let calls: Vec<Value> = self
                .tool_calls
                .iter()
                .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                .collect();
            m.insert("tool_calls".into(), Value::Array(calls));
        }
        Value::Object(m)
    }
}

/// The OpenAI `choices[0].delta` object for an event (`None` for events with no delta:
/// call ends and malformed reports).
pub fn delta(e: &Event) -> Option<Value> {
    Some(match e {
        Event::Content(s) => json!({"content": s}),
        Event::Reasoning(s) => json!({"reasoning_content": s}),
        Event::ToolCallStart { index, id, name } => json!({"tool_calls": [{
            "index": index, "id": id, "type": "function",
            "function": {"name": name, "arguments": ""}}]}),
        Event::ToolCallArgs { index, text } => {
            json!({"tool_calls": [{"index": index, "function": {"arguments": text}}]})
        }
        Event::ToolCallEnd { .. } | Event::Malformed { .. } => return None,
    })
}
