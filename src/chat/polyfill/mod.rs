//! Polyfills: adapt an OpenAI-style request to what a template shows (its [`Caps`]), so a
//! standard request renders on any template without losing information.
//!
//! Each polyfill is switchable ([`Polyfills`]); all are off unless asked for, so without them
//! rendering stays byte-exact with transformers. [`apply`] adapts a request for given caps;
//! [`render_with`] also retries with text tool calls and merged turns when the template's
//! own checks (`raise_exception`) refuse the adapted request. With a polyfill off, a request
//! that needs it is an error naming the message ([`apply`] with [`Polyfills::none`] is a
//! check).

use serde_json::{Map, Value};

use super::caps::{Caps, ToolCallIdFormat};
use crate::error::{err, Error, ErrorKind};

mod message;
mod tools;

/// Which polyfills are on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Polyfills {
    /// System messages merged into the next user turn (`system_role`).
    pub system_role: bool,
    /// Tool definitions written into the system prompt (`tools`).
    pub tools: bool,
    /// Tool calls written as text in the assistant content; ids mapped to the shape the
    /// template demands; null content made empty when the template needs it (`tool_calls`).
    pub tool_calls: bool,
    /// Tool results as user turns holding a `tool_response` object; a result's missing
    /// `name` taken from its call (`tool_responses`).
    pub tool_responses: bool,
    /// JSON-string arguments parsed to objects (`object_arguments`).
    pub object_arguments: bool,
    /// String content as `[{"type": "text", "text": ...}]` (`typed_content`).
    pub typed_content: bool,
    /// `reasoning_content` moved into the template's own reasoning format (`reasoning`).
    pub reasoning: bool,
}

impl Polyfills {
    /// The polyfill names, as `--polyfill=LIST` takes them.
    pub const NAMES: [&'static str; 7] = [
        "system_role",
        "tools",
        "tool_calls",
        "tool_responses",
        "object_arguments",
        "typed_content",
        "reasoning",
    ];

    /// Every polyfill on.
    pub fn all() -> Polyfills {
        Polyfills {
            system_role: true,
            tools: true,
            tool_calls: true,
            tool_responses: true,
            object_arguments: true,
            typed_content: true,
            reasoning: true,
        }
    }

    /// Every polyfill off: [`apply`] then only checks that the request needs none.
    pub fn none() -> Polyfills {
        Polyfills::default()
    }

    /// Parses a comma-separated list of names (see [`Polyfills::NAMES`]), `all` or `none`.
    pub fn parse(list: &str) -> Result<Polyfills, Error> {
        let mut p = Polyfills::none();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "all" => p = Polyfills::all(),
                "none" => {}
                _ => {
                    *p.flag_mut(name).ok_or_else(|| {
                        err!(
                            Input,
                            "unknown polyfill '{name}' (known: all, none, {})",
                            Polyfills::NAMES.join(", ")
                        )
                    })? = true
                }
            }
        }
        Ok(p)
    }

    fn flag_mut(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "system_role" => &mut self.system_role,
            "tools" => &mut self.tools,
            "tool_calls" => &mut self.tool_calls,
            "tool_responses" => &mut self.tool_responses,
            "object_arguments" => &mut self.object_arguments,
            "typed_content" => &mut self.typed_content,
            "reasoning" => &mut self.reasoning,
            _ => return None,
        })
    }
}

/// The error for a request that needs polyfill `name`, which is off.
fn needs(what: String, name: &str) -> Error {
    err!(
        Input,
        "{what}, and the '{name}' polyfill is off (use --polyfill or --polyfill={name})"
    )
}

/// Adapts `request` (an OpenAI-style chat request) to a template with capabilities `caps`,
/// using the polyfills `on`. Errors name the message (or field) that needs a polyfill that is
/// off, or that cannot be adapted (e.g. arguments that are not JSON).
pub fn apply(request: &Value, caps: &Caps, on: &Polyfills) -> Result<Value, Error> {
    let Some(req) = request.as_object() else {
        return Err(err!(Input, "a chat request must be a JSON object"));
    };
    let mut req = req.clone();
    let mut messages = match req.remove("messages") {
        Some(Value::Array(m)) => m,
        Some(_) => return Err(err!(Input, "field 'messages' must be a list")),
        None => return Err(err!(Input, "the request has no 'messages'")),
    };
    for (i, m) in messages.iter().enumerate() {
        if !m.is_object() {
            return Err(err!(Input, "message {i}: chat messages must be objects"));
        }
    }
    let has_tools = req
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    if has_tools && !caps.supports_tools {
        if !on.tools {
            return Err(needs(
                "field 'tools': the template does not show tool definitions".into(),
                "tools",
            ));
        }
        if let Some(tools) = req.remove("tools") {
            tools::inject(&mut messages, &tools);
        }
    }
    if caps.tool_call_id_format == ToolCallIdFormat::Alphanumeric9 {
        tools::map_ids(&mut messages, on.tool_calls)?;
    }
    let mut out = message::adapt(messages, caps, on)?;
    if caps.requires_alternation {
        out = message::merge_adjacent_users(out);
    }
    if caps.requires_typed_content_blocks {
        for (i, m) in out.iter_mut().enumerate() {
            message::typed_content(m, i, on.typed_content)?;
        }
    }
    // Templates that iterate `tools` or `documents` unconditionally get empty lists.
    for (key, required) in [
        ("tools", caps.requires_tools),
        ("documents", caps.requires_documents),
    ] {
        if required && !req.get(key).is_some_and(Value::is_array) {
            req.insert(key.into(), Value::Array(Vec::new()));
        }
    }
    let mut result = Map::new();
    result.insert("messages".into(), Value::Array(out));
    result.extend(req);
    Ok(Value::Object(result))
}

/// Adapts `request` with [`apply`] and renders it with `render`; when the template's own
/// checks refuse the result (a `raise_exception`), retries with tool calls and results as
/// text and adjacent user turns merged (as far as `on` allows), then with the system
/// message merged too. Returns the first render that succeeds, or the first error.
pub fn render_with(
    request: &Value,
    caps: &Caps,
    on: &Polyfills,
    mut render: impl FnMut(&Value) -> Result<String, Error>,
) -> Result<String, Error> {
    let first = render(&apply(request, caps, on)?);
    let Err(e) = first else {
        return first;
    };
    if e.kind() != ErrorKind::Raised {
        return Err(e);
    }
    let mut plain = caps.clone();
    plain.requires_alternation = true;
    if on.tool_calls {
        plain.supports_tool_calls = false;
    }
    if on.tool_responses {
        plain.supports_tool_responses = false;
    }
    let mut stricter = vec![plain.clone()];
    if on.system_role {
        plain.supports_system_role = false;
        stricter.push(plain);
    }
    for c in &stricter {
        if let Ok(adapted) = apply(request, c, on) {
            if let Ok(text) = render(&adapted) {
                return Ok(text);
            }
        }
    }
    Err(e)
}
