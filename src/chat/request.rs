//! Typed chat requests: OpenAI chat-completion shaped serde types whose unknown fields pass
//! through to the template untouched.
//!
//! Every type keeps the fields it does not know in `extra` (`#[serde(flatten)]`) and the
//! caller's key order in `key_order`, so serializing a parsed request gives back exactly the
//! JSON the caller sent (same keys, same order, same nulls): the template sees the dicts as
//! given, as transformers does. Values built in code serialize their known fields in
//! declaration order, then `extra`.
//!
//! [`ChatRequest::from_json`] parses with errors that name the place, e.g.
//! `messages[2].tool_calls[0].function: missing field name`.
//!
//! Rendering a typed request serializes it and renders the JSON
//! ([`super::ChatTemplate::apply_request`]); the `serde_json::Value` path
//! ([`super::render_request_to`], [`super::ChatTemplate::apply`]) stays the zero-copy fast one.

use serde::de::{DeserializeOwned, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{err, Error};

mod locate;

/// The caller's key order of a parsed object (empty for values built in code).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyOrder(Vec<String>);

impl KeyOrder {
    /// The keys, in the order the caller sent them.
    pub fn keys(&self) -> &[String] {
        &self.0
    }
}

/// A chat request: `messages`, `tools`, `documents`, `add_generation_prompt`,
/// `continue_final_message`; every other key (`enable_thinking`, `bos_token`, ...) is a
/// template kwarg kept in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct ChatRequest {
    /// The conversation.
    pub messages: Vec<Message>,
    /// Tool definitions (`None`: the template sees `tools` as None).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// Documents for retrieval-augmented generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documents: Option<Vec<Map<String, Value>>>,
    /// Append the header that starts an assistant turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_generation_prompt: Option<bool>,
    /// Continue the final message (`true`: its `content`; a string: that field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continue_final_message: Option<ContinueFinalMessage>,
    /// Every other key: a template kwarg, passed through untouched.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The caller's key order.
    #[serde(skip)]
    pub key_order: KeyOrder,
}

/// `continue_final_message`: a flag, or the name of the field to continue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ContinueFinalMessage {
    /// `true` continues `content`.
    Flag(bool),
    /// The field to continue (e.g. `reasoning_content`).
    Field(String),
}

/// One chat message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct Message {
    /// `system`, `user`, `assistant`, `tool`, ...
    pub role: String,
    /// A string or a list of content parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    /// The author's name (or the tool's, on a tool response).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The calls an assistant message makes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The call a tool response answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Reasoning text (the `reasoning_content` spelling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// Reasoning text (the `thinking` spelling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// Reasoning text (the `reasoning` spelling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Every other key, passed through untouched.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The caller's key order.
    #[serde(skip)]
    pub key_order: KeyOrder,
}

/// A message's content: a string or a list of parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Content parts (`{"type": "text", "text": ...}`, images, ...).
    Parts(Vec<ContentPart>),
}

/// One content part.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct ContentPart {
    /// `text`, `image_url`, `image`, ...
    pub r#type: String,
    /// The text of a `text` part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Every other key (`image_url`, ...), passed through untouched.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The caller's key order.
    #[serde(skip)]
    pub key_order: KeyOrder,
}

/// A tool call made by an assistant message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct ToolCall {
    /// The call id tool responses refer to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `function`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
    /// The function called.
    pub function: FunctionCall,
    /// Every other key, passed through untouched.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The caller's key order.
    #[serde(skip)]
    pub key_order: KeyOrder,
}

/// The function of a tool call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct FunctionCall {
    /// The function's name.
    pub name: String,
    /// Its arguments: a JSON string (OpenAI) or an object (as many templates expect).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Every other key, passed through untouched.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The caller's key order.
    #[serde(skip)]
    pub key_order: KeyOrder,
}

/// A tool definition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct Tool {
    /// `function` (other tool types keep their fields in `extra`).
    pub r#type: String,
    /// The function's definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<FunctionDef>,
    /// Every other key, passed through untouched.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The caller's key order.
    #[serde(skip)]
    pub key_order: KeyOrder,
}

/// A function definition: name, description, JSON schema of the parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct FunctionDef {
    /// The function's name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON schema of its parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Every other key (`strict`, ...), passed through untouched.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The caller's key order.
    #[serde(skip)]
    pub key_order: KeyOrder,
}

/// `fields` in the caller's `order`; keys the caller sent whose typed field is now `None`
/// (`known`) come back as null, as sent; keys not in `order` follow in their own order.
fn ordered(value: Value, order: &KeyOrder, known: &[&str]) -> Value {
    let Value::Object(mut fields) = value else {
        return value;
    };
    if order.0.is_empty() {
        return Value::Object(fields);
    }
    let mut out = Map::with_capacity(fields.len());
    for k in &order.0 {
        match fields.shift_remove(k) {
            Some(v) => {
                out.insert(k.clone(), v);
            }
            None if known.contains(&k.as_str()) => {
                out.insert(k.clone(), Value::Null);
            }
            None => {}
        }
    }
    out.extend(fields);
    Value::Object(out)
}

/// Serialize and Deserialize through the derived (`remote = "Self"`) code, recording and
/// restoring the caller's key order.
macro_rules! keep_order {
    ($ty:ident, [$($field:literal),*]) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let value = $ty::serialize(self, serde_json::value::Serializer)
                    .map_err(serde::ser::Error::custom)?;
                ordered(value, &self.key_order, &[$($field),*]).serialize(s)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let map = Map::<String, Value>::deserialize(d)?;
                let order = KeyOrder(map.keys().cloned().collect());
                let mut v = $ty::deserialize(Value::Object(map))
                    .map_err(serde::de::Error::custom)?;
                v.key_order = order;
                Ok(v)
            }
        }
    };
}

keep_order!(
    ChatRequest,
    [
        "messages",
        "tools",
        "documents",
        "add_generation_prompt",
        "continue_final_message"
    ]
);
keep_order!(
    Message,
    [
        "role",
        "content",
        "name",
        "tool_calls",
        "tool_call_id",
        "reasoning_content",
        "thinking",
        "reasoning"
    ]
);
keep_order!(ContentPart, ["type", "text"]);
keep_order!(ToolCall, ["id", "type", "function"]);
keep_order!(FunctionCall, ["name", "arguments"]);
keep_order!(Tool, ["type", "function"]);
keep_order!(FunctionDef, ["name", "description", "parameters"]);

impl ChatRequest {
    /// Parses a request from JSON text; errors name the place (`messages[2].role: ...`).
    pub fn from_json(text: &str) -> Result<ChatRequest, Error> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| err!(Input, "the request is not valid JSON: {e}"))?;
        ChatRequest::from_value(&value)
    }

    /// Parses a request from a JSON value; errors name the place
    /// (`messages[2].tool_calls[0].function: missing field name`).
    pub fn from_value(value: &Value) -> Result<ChatRequest, Error> {
        parse::<ChatRequest>(value).map_err(|_| {
            let (path, msg) = locate::request(value);
            if path.is_empty() {
                err!(Input, "invalid chat request: {msg}")
            } else {
                err!(Input, "{path}: {msg}")
            }
        })
    }

    /// The request as JSON: exactly what the caller sent for a parsed request (key order,
    /// nulls and unknown fields included).
    pub fn to_value(&self) -> Result<Value, Error> {
        serde_json::to_value(self).map_err(|e| err!(Input, "cannot serialize the request: {e}"))
    }
}

/// Deserializes `T` from a borrowed value; the error message without serde's backticks.
fn parse<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    T::deserialize(value).map_err(|e| e.to_string().replace('`', ""))
}
