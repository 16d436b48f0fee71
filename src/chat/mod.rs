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

mod build;
pub mod caps;
pub mod control;
mod data;
mod family;
pub mod incremental;
pub mod media;
pub mod polyfill;
pub mod prompt;
mod request;
mod template;
pub mod validate;

pub use build::{with_builder, Builder, BuiltRequest, Items, Pairs, Val};
pub use data::{Data, DataRequest};
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
/// it starts in `out`) that `{% generation %}` blocks produced: the assistant mask. With
/// `continue_final_message` the ranges are cut with the prompt: none reaches past its end.
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
    /// Limits in place of the template's own (capability probes run on a small budget).
    pub limits: Option<&'e crate::limits::Limits>,
    /// The time `strftime_now` reads, instead of the template's clock.
    pub now: Option<crate::clock::DateTime>,
}

/// Renders one conversation given as [`Data`] (a language binding's own objects, converted
/// without JSON) the way transformers' `render_jinja_template` does; appends the prompt to
/// `out` and returns the `{% generation %}` byte ranges, as [`render_request_spans`].
pub fn render_data_spans(
    template: &Template,
    request: &DataRequest<'_>,
    out: &mut String,
) -> Result<Vec<(usize, usize)>, Error> {
    with_builder(|b| b.render(template, &b.request(request)?, out))
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
    render_json(template, req, extra, out)
}

/// Checks a JSON request; returns the field to continue, if any.
fn check_json(req: &serde_json::Map<String, serde_json::Value>) -> Result<Option<&str>, Error> {
    let messages = match req.get("messages") {
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
    check_fields(req)?;
    match req.get("continue_final_message") {
        None | Some(serde_json::Value::Null) | Some(serde_json::Value::Bool(false)) => Ok(None),
        Some(serde_json::Value::Bool(true)) => Ok(Some("content")),
        Some(serde_json::Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(err!(
            Input,
            "field 'continue_final_message' must be a bool or a field name"
        )),
    }
}

/// The checks of `tools` and `documents` transformers makes before rendering.
pub(crate) fn check_fields(req: &serde_json::Map<String, serde_json::Value>) -> Result<(), Error> {
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
    Ok(())
}

/// The value of template variable `name` (other than `messages`) in a request: `tools` and
/// `documents` default to `None`, `add_generation_prompt` to `False`, arguments of
/// `render_jinja_template` are not variables, other keys are kwargs (then `kwargs`).
pub(crate) fn request_global<'a>(
    req: &'a serde_json::Map<String, serde_json::Value>,
    kwargs: Option<&'a serde_json::Map<String, serde_json::Value>>,
    ctx: &Ctx<'a>,
    name: &str,
) -> Option<Value<'a>> {
    match name {
        "tools" | "documents" => Some(
            req.get(name)
                .map_or(Value::None, |v| Value::from_json_in(v, ctx)),
        ),
        "add_generation_prompt" => Some(
            req.get(name)
                .map_or(Value::Bool(false), |v| Value::from_json_in(v, ctx)),
        ),
        _ if CONSUMED.contains(&name) => None,
        _ => req
            .get(name)
            .or_else(|| kwargs.and_then(|k| k.get(name)))
            .map(|v| Value::from_json_in(v, ctx)),
    }
}

/// Renders a JSON request; spans never reach past the end of the prompt.
fn render_json(
    template: &Template,
    req: &serde_json::Map<String, serde_json::Value>,
    extra: &Extra<'_>,
    out: &mut String,
) -> Result<Vec<(usize, usize)>, Error> {
    let cont = check_json(req)?;
    let start = out.len();
    let prog = &template.program;
    let mut final_text = None;
    let limits = extra.limits.unwrap_or(&template.options.limits);
    let spans = crate::vm::with_arena(|arena| {
        let now = extra.now.unwrap_or_else(|| template.options.clock.now());
        let ctx = Ctx::new(arena, now, limits.max_output);
        let (msgs, final_message) = match req.get("messages") {
            Some(v @ serde_json::Value::Array(m)) => build_messages(
                &ctx,
                Value::Json(v),
                m.iter().map(Value::from_json),
                cont,
                extra.drop_none,
                &prog.source,
            )?,
            _ => (Value::None, None),
        };
        final_text = final_message;
        let globals = crate::vm::resolve_globals(prog, &ctx, |name| match name {
            "messages" => Some(msgs),
            _ => request_global(req, extra.kwargs, &ctx, name),
        });
        crate::vm::run(prog, &ctx, globals, out, limits)
    })?;
    cut_spans(out, start, final_text, spans, false)
}

/// Renders a request built in `arena` (see [`build`]); spans never reach past the end of
/// the prompt.
pub(crate) fn render_built<'a>(
    template: &'a Template,
    arena: &'a bumpalo::Bump,
    req: &BuiltRequest<'a>,
    extra: &Extra<'a>,
    out: &mut String,
) -> Result<Vec<(usize, usize)>, Error> {
    let start = out.len();
    let prog = &template.program;
    let limits = extra.limits.unwrap_or(&template.options.limits);
    // The clock is read only by `strftime_now`, which a template reaches by that global name.
    let now = match extra.now {
        Some(now) => now,
        None if prog.reads_clock() => template.options.clock.now(),
        None => build::epoch(),
    };
    let ctx = Ctx::new(arena, now, limits.max_output);
    let items: &'a [Value<'a>] = match req.messages.0 {
        Value::List(v) | Value::Tuple(v) => v,
        _ => &[],
    };
    let (msgs, final_text) = build_messages(
        &ctx,
        Value::List(items),
        items.iter().copied(),
        req.continue_final_message,
        extra.drop_none,
        &prog.source,
    )?;
    if let Some(name) = colliding_kwarg(req) {
        return Err(err!(
            Type,
            "render() got multiple values for keyword argument '{name}'"
        ));
    }
    let globals = crate::vm::resolve_globals(prog, &ctx, |name| match name {
        "messages" => Some(msgs),
        "tools" => Some(req.tools.0),
        "documents" => Some(req.documents.0),
        "add_generation_prompt" => Some(req.add_generation_prompt.0),
        _ => req
            .kwargs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.0)
            .or_else(|| {
                extra
                    .kwargs
                    .and_then(|k| k.get(name))
                    .map(|v| Value::from_json_in(v, &ctx))
            }),
    });
    // For the mask, the spans are what transformers returns: Python string indices.
    let chars = req.assistant_mask;
    let spans = crate::vm::run_spans(prog, &ctx, globals, out, limits, chars)?;
    let spans = cut_spans(out, start, final_text, spans, chars)?;
    Ok(spans)
}

/// A kwarg that transformers would pass twice: it renders with `template.render(messages=...,
/// **kwargs)` (or, for the mask, `_render_with_assistant_indices(compiled_template,
/// messages=..., **kwargs)` and then `template.generate(...)`), so `messages`, `self` and,
/// with the mask, `compiled_template` raise a TypeError once a conversation is checked.
fn colliding_kwarg<'r>(req: &'r BuiltRequest<'_>) -> Option<&'r str> {
    req.kwargs.iter().map(|(k, _)| *k).find(|k| {
        matches!(*k, "messages" | "self") || (req.assistant_mask && *k == "compiled_template")
    })
}

/// With `continue_final_message`, cuts the prompt (from `start` in `out`) after the final
/// message's text, and the spans (in code points with `chars`, else bytes) with it.
fn cut_spans(
    out: &mut String,
    start: usize,
    final_text: Option<String>,
    mut spans: Vec<(usize, usize)>,
    chars: bool,
) -> Result<Vec<(usize, usize)>, Error> {
    if let Some(final_text) = final_text {
        cut_after_final_message(out, start, &final_text)?;
        // The mask covers only what is left of the prompt.
        let left = out.get(start..).unwrap_or("");
        let end = if chars {
            left.chars().count()
        } else {
            left.len()
        };
        spans.retain(|(s, _)| *s < end);
        for span in &mut spans {
            span.1 = span.1.min(end);
        }
    }
    Ok(spans)
}

/// The `messages` value, and the text of the final message when continuing it.
fn build_messages<'a>(
    ctx: &Ctx<'a>,
    original: Value<'a>,
    messages: impl ExactSizeIterator<Item = Value<'a>> + Clone,
    cont: Option<&str>,
    drop_none: bool,
    template_source: &str,
) -> Result<(Value<'a>, Option<String>), Error> {
    // A message needs a copy when it has a reasoning field that is not None, or (with
    // `drop_none`) any field that is None: one pass over its fields.
    let needs_alias = |m: Value<'a>| match m {
        Value::Json(serde_json::Value::Object(o)) => o.iter().any(|(k, v)| {
            if v.is_null() {
                drop_none
            } else {
                is_reasoning_field(k)
            }
        }),
        Value::Dict(d) => d.iter().any(|(k, v)| match v {
            Value::None => drop_none,
            _ => matches!(k, Value::Str(k) if is_reasoning_field(k)),
        }),
        _ => false,
    };
    if cont.is_none() && !messages.clone().any(needs_alias) {
        // The common case: the caller's messages, read in place.
        return Ok((original, None));
    }
    let mut out: Vec<Value<'a>> = Vec::with_capacity(messages.len());
    for m in messages {
        out.push(if needs_alias(m) {
            alias_reasoning(ctx, m, drop_none)
        } else {
            m
        });
    }
    let Some(field) = cont else {
        return Ok((Value::List(ctx.slice(out)), None));
    };
    if out.is_empty() {
        return Err(err!(
            Value,
            "continue_final_message is set but the conversation is empty!"
        ));
    }
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
    let (new_last, text) = match final_message {
        Value::Str(_) => {
            let mut pairs = dict_pairs(ctx, last_value).to_vec();
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
        list @ (Value::Json(serde_json::Value::Array(_)) | Value::List(_) | Value::Tuple(_)) => {
            let blocks = crate::value::ops::iterate(ctx, list)?;
            // The last block with Python's `"text" in block`: a key of a dict, but also a
            // substring of a string or an item of a list (then indexing it by "text" fails),
            // and a TypeError for a number or None.
            let mut found = None;
            for (i, b) in blocks.iter().enumerate().rev() {
                if crate::value::ops::contains(ctx, *b, Value::Str("text"))? {
                    found = Some(i);
                    break;
                }
            }
            let Some(pos) = found else {
                return Err(err!(
                    Value,
                    "continue_final_message is set but we could not find any text to continue in the final message!"
                ));
            };
            if get_field(blocks[pos], "text").is_none() {
                let kind = match blocks[pos] {
                    Value::Str(_) => "string",
                    b => b.type_name(),
                };
                return Err(err!(Type, "{kind} indices must be integers, not 'str'"));
            }
            let mut new_blocks = blocks.to_vec();
            let mut pairs = dict_pairs(ctx, blocks[pos]).to_vec();
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
            // A tuple of blocks stays a tuple (transformers edits the block in place).
            let new_list = match list {
                Value::Tuple(_) => Value::Tuple(ctx.slice(new_blocks)),
                _ => Value::List(ctx.slice(new_blocks)),
            };
            let mut msg = dict_pairs(ctx, last_value).to_vec();
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
fn alias_reasoning<'a>(ctx: &Ctx<'a>, m: Value<'a>, drop_none: bool) -> Value<'a> {
    if !matches!(
        m,
        Value::Json(serde_json::Value::Object(_)) | Value::Dict(_)
    ) {
        return m;
    }
    let fields = dict_pairs(ctx, m);
    // The first non-null field of REASONING_FIELDS, in that order of preference: one pass.
    let mut reasoning: Option<(usize, Value<'a>)> = None;
    for (k, v) in fields {
        if let (Value::Str(k), false) = (k, matches!(v, Value::None)) {
            if let Some(rank) = REASONING_FIELDS.iter().position(|f| f == k) {
                if reasoning.map_or(true, |(best, _)| rank < best) {
                    reasoning = Some((rank, *v));
                }
            }
        }
    }
    let keep = |v: &Value<'a>| !(drop_none && matches!(v, Value::None));
    // Built in the arena, where the dict stays.
    let mut pairs = bumpalo::collections::Vec::with_capacity_in(fields.len() + 2, ctx.arena);
    let Some((_, reasoning)) = reasoning else {
        if drop_none {
            pairs.extend(fields.iter().copied().filter(|(_, v)| keep(v)));
            return Value::Dict(pairs.into_bump_slice());
        }
        return alias_fields(pairs, fields, Value::None, keep);
    };
    alias_fields(pairs, fields, reasoning, keep)
}

/// `{"thinking": reasoning, **fields, "reasoning_content": reasoning}` into `pairs`, the
/// fields `keep` refuses left out. The fields' keys are unique (they come from one dict), so
/// only `thinking` and `reasoning_content` can meet a key already there.
fn alias_fields<'a>(
    mut pairs: bumpalo::collections::Vec<'a, (Value<'a>, Value<'a>)>,
    fields: &[(Value<'a>, Value<'a>)],
    reasoning: Value<'a>,
    keep: impl Fn(&Value<'a>) -> bool,
) -> Value<'a> {
    pairs.push((Value::Str("thinking"), reasoning));
    let mut content_at = None;
    for &(k, v) in fields.iter().filter(|(_, v)| keep(v)) {
        match k {
            Value::Str("thinking") | Value::Markup("thinking") => {
                if let Some(first) = pairs.first_mut() {
                    first.1 = v;
                }
            }
            _ => {
                if matches!(k, Value::Str("reasoning_content")) {
                    content_at = Some(pairs.len());
                }
                pairs.push((k, v));
            }
        }
    }
    match content_at.and_then(|i| pairs.get_mut(i)) {
        Some(p) => p.1 = reasoning,
        None => pairs.push((Value::Str("reasoning_content"), reasoning)),
    }
    Value::Dict(pairs.into_bump_slice())
}

/// One of [`REASONING_FIELDS`].
#[inline]
fn is_reasoning_field(key: &str) -> bool {
    // By length first: most keys (`role`, `content`) are told apart without a comparison.
    match key.len() {
        17 | 8 | 9 => REASONING_FIELDS.contains(&key),
        _ => false,
    }
}

fn get_field<'a>(v: Value<'a>, key: &str) -> Option<Value<'a>> {
    match v {
        Value::Json(serde_json::Value::Object(o)) => {
            crate::value::ops::json_get(o, key).map(Value::from_json)
        }
        Value::Dict(d) => crate::value::ops::dict_str_get(d, key),
        _ => None,
    }
}

fn dict_pairs<'a>(ctx: &Ctx<'a>, v: Value<'a>) -> &'a [(Value<'a>, Value<'a>)] {
    match v {
        Value::Json(serde_json::Value::Object(o)) => ctx.arena.alloc_slice_fill_iter(
            o.iter()
                .map(|(k, v)| (Value::Str(k.as_str()), Value::from_json_in(v, ctx))),
        ),
        Value::Dict(d) => d,
        _ => &[],
    }
}

/// transformers' cut: the prompt ends right after the final message's text.
fn cut_after_final_message(out: &mut String, start: usize, final_text: &str) -> Result<(), Error> {
    let rendered = &out[start..];
    let tag = CONTINUE_TAG.trim_end_matches(py_isspace);
    let stripped = final_text.trim_matches(py_isspace);
    if !rendered.contains(stripped) || !rendered.contains(tag) {
        // transformers' message, word for word (the missing space before "Final" included).
        return Err(err!(
            Value,
            "continue_final_message is set but the final message does not appear in the chat after \
             applying the chat template! This can happen if the chat template deletes portions of \
             the final message. Please verify the chat template and final message in your chat to \
             ensure they are compatible.Final message to continue: {stripped}\nRendered chat:\n{rendered}"
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

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn reasoning_field_names() {
        for k in REASONING_FIELDS {
            assert!(is_reasoning_field(k));
        }
        for k in ["", "content", "reasoning_contents", "Thinking", "think"] {
            assert!(!is_reasoning_field(k));
        }
    }
}
