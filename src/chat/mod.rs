//! The chat layer: rendering an OpenAI-style chat request the way transformers'
//! `render_jinja_template` does.
//!
//! What transformers does before the template runs, and so what this module does:
//! `tools` and `documents` are `None` when absent; every message with a reasoning field
//! (`reasoning_content`, `thinking`, `reasoning`) gets `thinking` and `reasoning_content` set
//! to the first non-null of them; `continue_final_message` tags the final message's text and
//! cuts the prompt right after it. Messages that need none of this are read in place.

use crate::error::{err, Error};
use crate::syntax::lexer::py_isspace;
use crate::template::Template;
use crate::value::{Ctx, Value};

pub mod control;
mod family;
pub mod prompt;
mod request;
mod template;
pub mod validate;

pub use family::{Family, QWEN3_5_TEMPLATE};
pub use request::{
    ChatRequest, Content, ContentPart, ContinueFinalMessage, FunctionCall, FunctionDef, KeyOrder,
    Message, Tool, ToolCall,
};
pub use template::ChatTemplate;

const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "thinking", "reasoning"];
const CONTINUE_TAG: &str = "CONTINUE_FINAL_MESSAGE_TAG ";

/// Request keys that are arguments of `render_jinja_template` rather than template variables.
const CONSUMED: [&str; 5] = [
    "messages",
    "continue_final_message",
    "return_assistant_tokens_mask",
    "chat_template",
    "conversations",
];

/// Renders a chat request (`messages`, `tools`, `documents`, `add_generation_prompt`,
/// `continue_final_message`, and any other key as a template kwarg) the way transformers'
/// `render_jinja_template` does.
pub fn render_request(template: &Template, request: &serde_json::Value) -> Result<String, Error> {
    let mut out = String::new();
    render_request_to(template, request, &mut out)?;
    Ok(out)
}

/// Like [`render_request`], appending to `out`.
pub fn render_request_to(
    template: &Template,
    request: &serde_json::Value,
    out: &mut String,
) -> Result<(), Error> {
    render_request_spans(template, request, out).map(|_| ())
}

/// Like [`render_request_to`]; also returns the byte ranges of the prompt (relative to where
/// it starts in `out`) that `{% generation %}` blocks produced: the assistant mask.
pub fn render_request_spans(
    template: &Template,
    request: &serde_json::Value,
    out: &mut String,
) -> Result<Vec<(usize, usize)>, Error> {
    render_impl(template, request, &Extra::default(), out)
}

/// What `apply_chat_template` adds on top of `render_jinja_template`.
#[derive(Default)]
pub(crate) struct Extra<'e> {
    /// Kwargs the request does not set (the model's special tokens).
    pub kwargs: Option<&'e serde_json::Map<String, serde_json::Value>>,
    /// Drop message keys whose value is null, as `apply_chat_template` does.
    pub drop_none: bool,
}

/// [`render_request_spans`] with `apply_chat_template`'s additions.
pub(crate) fn render_impl(
    template: &Template,
    request: &serde_json::Value,
    extra: &Extra<'_>,
    out: &mut String,
) -> Result<Vec<(usize, usize)>, Error> {
    let Some(req) = request.as_object() else {
        return Err(err!(Input, "a chat request must be a JSON object"));
    };
    let messages_value = req.get("messages");
    let messages = match messages_value {
        Some(serde_json::Value::Array(m)) => m,
        Some(_) => return Err(err!(Input, "field 'messages' must be a list")),
        None => return Err(err!(Input, "the request has no 'messages'")),
    };
    for (i, m) in messages.iter().enumerate() {
        if !m.is_object() {
            return Err(err!(
                Input,
                "message {i}: chat messages must be objects, got {m}"
            ));
        }
    }
    if let Some(tools) = req.get("tools").filter(|t| !t.is_null()) {
        let ok = tools
            .as_array()
            .is_some_and(|a| a.iter().all(|t| t.is_object()));
        if !ok {
            return Err(err!(
                Input,
                "field 'tools': tools must be a list of JSON schema objects"
            ));
        }
    }
    if let Some(docs) = req.get("documents").filter(|t| !t.is_null()) {
        let ok = docs
            .as_array()
            .is_some_and(|a| a.iter().all(|t| t.is_object()));
        if !ok {
            return Err(err!(
                Input,
                "field 'documents': documents should be a list of dicts"
            ));
        }
    }
    let cont = match req.get("continue_final_message") {
        None | Some(serde_json::Value::Null) | Some(serde_json::Value::Bool(false)) => None,
        Some(serde_json::Value::Bool(true)) => Some("content"),
        Some(serde_json::Value::String(s)) => Some(s.as_str()),
        Some(_) => {
            return Err(err!(
                Input,
                "field 'continue_final_message' must be a bool or a field name"
            ))
        }
    };
    let start = out.len();
    let prog = &template.program;
    let mut final_text = None;
    let spans = crate::vm::with_arena(|arena| {
        let ctx = Ctx::new(
            arena,
            template.options.clock.now(),
            template.options.limits.max_output,
        );
        let (msgs, final_message) = match messages_value {
            Some(v) => build_messages(&ctx, v, messages, cont, extra.drop_none, &prog.source)?,
            None => (Value::None, None),
        };
        final_text = final_message;
        let globals = crate::vm::resolve_globals(prog, &ctx, |name| match name {
            "messages" => Some(msgs),
            "tools" | "documents" => Some(
                req.get(name)
                    .map_or(Value::None, |v| Value::from_json_in(v, &ctx)),
            ),
            "add_generation_prompt" => Some(
                req.get(name)
                    .map_or(Value::Bool(false), |v| Value::from_json_in(v, &ctx)),
            ),
            _ if CONSUMED.contains(&name) => None,
            _ => req
                .get(name)
                .or_else(|| extra.kwargs.and_then(|k| k.get(name)))
                .map(|v| Value::from_json_in(v, &ctx)),
        });
        crate::vm::run(prog, &ctx, &globals, out, &template.options.limits)
    })?;
    if let Some(final_text) = final_text {
        cut_after_final_message(out, start, &final_text)?;
    }
    Ok(spans)
}

/// The `messages` value, and the text of the final message when continuing it.
fn build_messages<'a>(
    ctx: &Ctx<'a>,
    messages_value: &'a serde_json::Value,
    messages: &'a [serde_json::Value],
    cont: Option<&str>,
    drop_none: bool,
    template_source: &str,
) -> Result<(Value<'a>, Option<String>), Error> {
    let has_null = |m: &serde_json::Value| {
        drop_none
            && m.as_object()
                .is_some_and(|o| o.values().any(|v| v.is_null()))
    };
    let needs_alias = |m: &serde_json::Value| {
        has_null(m)
            || REASONING_FIELDS.iter().any(|k| {
                m.as_object()
                    .and_then(|o| crate::value::ops::json_get(o, k))
                    .is_some_and(|v| !v.is_null())
            })
    };
    if cont.is_none() && !messages.iter().any(needs_alias) {
        // The common case: the caller's JSON, read in place.
        return Ok((Value::Json(messages_value), None));
    }
    let mut out: Vec<Value<'a>> = Vec::with_capacity(messages.len());
    for m in messages {
        out.push(if needs_alias(m) {
            alias_reasoning(ctx, m, drop_none)
        } else {
            Value::from_json(m)
        });
    }
    let Some(field) = cont else {
        return Ok((Value::List(ctx.slice(out)), None));
    };
    let Some(last) = messages.last() else {
        return Err(err!(
            Value,
            "continue_final_message is set but the conversation is empty!"
        ));
    };
    let last_value = out.last().copied().unwrap_or(Value::None);
    let final_message = get_field(last_value, field);
    if matches!(final_message, None | Some(Value::None)) {
        return Err(err!(
            Value,
            "continue_final_message is set but the final message has no \"{field}\" to continue!"
        ));
    }
    let final_message = final_message.unwrap_or(Value::None);
    let fields: Vec<&str> = if REASONING_FIELDS.contains(&field) {
        REASONING_FIELDS
            .iter()
            .copied()
            .filter(|f| {
                get_field(last_value, f).is_some_and(|v| crate::value::ops::eq(&v, &final_message))
            })
            .collect()
    } else {
        vec![field]
    };
    if !fields.iter().any(|f| template_source.contains(f)) {
        return Err(err!(
            Value,
            "continue_final_message is set to \"{field}\" but this is not an accepted field in the chat_template"
        ));
    }
    let _ = last;
    let (new_last, text) = match final_message {
        Value::Str(_) => {
            let mut pairs = dict_pairs(ctx, last_value);
            let mut text = String::new();
            for f in &fields {
                if let Some(p) = pairs
                    .iter_mut()
                    .find(|(k, _)| matches!(k, Value::Str(s) if s == f))
                {
                    let Value::Str(s) = p.1 else {
                        return Err(err!(Type, "can only concatenate str to str"));
                    };
                    text = s.to_string();
                    p.1 = ctx.str(&format!("{s}{CONTINUE_TAG}"));
                }
            }
            (Value::Dict(ctx.arena.alloc_slice_copy(&pairs)), text)
        }
        list @ (Value::Json(serde_json::Value::Array(_)) | Value::List(_)) => {
            let blocks = crate::value::ops::iterate(ctx, list)?;
            let Some(pos) = blocks.iter().rposition(|b| get_field(*b, "text").is_some()) else {
                return Err(err!(
                    Value,
                    "continue_final_message is set but we could not find any text to continue in the final message!"
                ));
            };
            let mut new_blocks = blocks.to_vec();
            let mut pairs = dict_pairs(ctx, blocks[pos]);
            let mut text = String::new();
            if let Some(p) = pairs
                .iter_mut()
                .find(|(k, _)| matches!(k, Value::Str("text")))
            {
                let Value::Str(s) = p.1 else {
                    return Err(err!(Type, "can only concatenate str to str"));
                };
                text = s.to_string();
                p.1 = ctx.str(&format!("{s}{CONTINUE_TAG}"));
            }
            new_blocks[pos] = Value::Dict(ctx.arena.alloc_slice_copy(&pairs));
            let new_list = Value::List(ctx.slice(new_blocks));
            let mut msg = dict_pairs(ctx, last_value);
            for p in msg.iter_mut() {
                if matches!(p.0, Value::Str(k) if k == field) {
                    p.1 = new_list;
                }
            }
            (Value::Dict(ctx.arena.alloc_slice_copy(&msg)), text)
        }
        other => {
            return Err(err!(
                Type,
                "can only concatenate {} (not \"str\") to {}",
                other.type_name(),
                other.type_name()
            ))
        }
    };
    if let Some(l) = out.last_mut() {
        *l = new_last;
    }
    Ok((Value::List(ctx.slice(out)), Some(text)))
}

/// `{"thinking": r, **message, "reasoning_content": r}` with `r` the first non-null
/// reasoning field, in transformers' key order.
/// With `drop_none`, keys whose value is null are dropped first (and a message without a
/// reasoning field is not aliased).
fn alias_reasoning<'a>(ctx: &Ctx<'a>, m: &'a serde_json::Value, drop_none: bool) -> Value<'a> {
    let Some(obj) = m.as_object() else {
        return Value::from_json(m);
    };
    let reasoning = REASONING_FIELDS
        .iter()
        .find_map(|k| obj.get(*k).filter(|v| !v.is_null()));
    let mut pairs: Vec<(Value<'a>, Value<'a>)> = Vec::with_capacity(obj.len() + 2);
    if drop_none && reasoning.is_none() {
        for (k, v) in obj.iter().filter(|(_, v)| !v.is_null()) {
            pairs.push((Value::Str(k), Value::from_json_in(v, ctx)));
        }
        return Value::Dict(ctx.arena.alloc_slice_copy(&pairs));
    }
    let reasoning = reasoning.map_or(Value::None, |v| Value::from_json_in(v, ctx));
    pairs.push((Value::Str("thinking"), reasoning));
    for (k, v) in obj.iter().filter(|(_, v)| !(drop_none && v.is_null())) {
        let v = Value::from_json_in(v, ctx);
        match pairs
            .iter_mut()
            .find(|(pk, _)| matches!(pk, Value::Str(s) if *s == k.as_str()))
        {
            Some(p) => p.1 = v,
            None => pairs.push((Value::Str(k), v)),
        }
    }
    match pairs
        .iter_mut()
        .find(|(pk, _)| matches!(pk, Value::Str("reasoning_content")))
    {
        Some(p) => p.1 = reasoning,
        None => pairs.push((Value::Str("reasoning_content"), reasoning)),
    }
    Value::Dict(ctx.arena.alloc_slice_copy(&pairs))
}

fn get_field<'a>(v: Value<'a>, key: &str) -> Option<Value<'a>> {
    match v {
        Value::Json(serde_json::Value::Object(o)) => o.get(key).map(Value::from_json),
        Value::Dict(d) => d
            .iter()
            .find(|(k, _)| matches!(k, Value::Str(s) if *s == key))
            .map(|(_, v)| *v),
        _ => None,
    }
}

fn dict_pairs<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> Vec<(Value<'a>, Value<'a>)> {
    match v {
        Value::Json(serde_json::Value::Object(o)) => o
            .iter()
            .map(|(k, v)| (Value::Str(k.as_str()), Value::from_json_in(v, ctx)))
            .collect(),
        Value::Dict(d) => d.to_vec(),
        _ => Vec::new(),
    }
}

/// transformers' cut: the prompt ends right after the final message's text.
fn cut_after_final_message(out: &mut String, start: usize, final_text: &str) -> Result<(), Error> {
    let rendered = &out[start..];
    let tag = CONTINUE_TAG.trim_end_matches(py_isspace);
    let stripped = final_text.trim_matches(py_isspace);
    if !rendered.contains(stripped) || !rendered.contains(tag) {
        return Err(err!(
            Value,
            "continue_final_message is set but the final message does not appear in the chat after applying the chat template!"
        ));
    }
    let tag_loc = rendered.rfind(tag).unwrap_or(0);
    let cut = if rendered[tag_loc..].starts_with(CONTINUE_TAG) {
        start + tag_loc
    } else {
        start + rendered[..tag_loc].trim_end_matches(py_isspace).len()
    };
    out.truncate(cut);
    Ok(())
}
