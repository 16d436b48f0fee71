//! [`ChatTemplate`]: a model's chat template with its special tokens, applied the way
//! transformers' `apply_chat_template(..., tokenize=False)` applies it.

use serde_json::{Map, Value};

use super::{
    render_impl, with_builder, Builder, BuiltRequest, ChatRequest, DataRequest, Extra, Family,
};
use crate::error::{err, Error};
use crate::template::Template;

/// A compiled chat template, its name and the special tokens it is rendered with.
pub struct ChatTemplate {
    name: String,
    source: String,
    template: Template,
    special_tokens: Map<String, Value>,
    caps: std::sync::OnceLock<super::caps::Caps>,
    content_format: std::sync::OnceLock<super::media::ContentFormat>,
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate")
            .field("name", &self.name)
            .field("special_tokens", &self.special_tokens)
            .finish_non_exhaustive()
    }
}

impl ChatTemplate {
    /// Compiles `source` as the template called `name`, rendered with `special_tokens`
    /// (`bos_token`, `eos_token`, ... as template kwargs; a request's own keys win).
    pub fn new(
        name: &str,
        source: &str,
        special_tokens: Map<String, Value>,
    ) -> Result<ChatTemplate, Error> {
        Ok(ChatTemplate {
            name: name.to_string(),
            source: source.to_string(),
            template: Template::new(source)?,
            special_tokens,
            caps: std::sync::OnceLock::new(),
            content_format: std::sync::OnceLock::new(),
        })
    }

    /// Whether the template reads message content as parts or as a string
    /// ([`super::media::ContentFormat::detect`]), found on first use and kept.
    pub fn content_format(&self) -> super::media::ContentFormat {
        *self
            .content_format
            .get_or_init(|| super::media::ContentFormat::detect(&self.template))
    }

    /// The template's capabilities, probed on first use (with its special tokens, as
    /// [`ChatTemplate::apply`] renders) and cached.
    pub fn caps(&self) -> &super::caps::Caps {
        self.caps
            .get_or_init(|| super::caps::probe_with(&self.template, &self.special_tokens, true))
    }

    /// The compiled template.
    pub fn template(&self) -> &Template {
        &self.template
    }

    /// The template's name (`default`, `tool_use`, a built-in's family name, ...).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The template's Jinja source.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The special tokens passed as kwargs.
    pub fn special_tokens(&self) -> &Map<String, Value> {
        &self.special_tokens
    }

    /// The family the template's markers point to.
    pub fn family(&self) -> Family {
        Family::detect(&self.source)
    }

    /// The compiled template (e.g. to fix its clock through [`Template::options_mut`]).
    pub fn template_mut(&mut self) -> &mut Template {
        &mut self.template
    }

    /// Renders an OpenAI-style chat request (`messages`, `tools`, `documents`,
    /// `add_generation_prompt`, `continue_final_message`, any other key as a kwarg) exactly as
    /// `tokenizer.apply_chat_template(messages, ..., tokenize=False)` does: message keys whose
    /// value is null are dropped, the special tokens are kwargs under the request's own.
    pub fn apply(&self, request: &Value) -> Result<String, Error> {
        let mut out = String::new();
        self.apply_to(request, false, &mut out)?;
        Ok(out)
    }

    /// Renders a typed request: serialized (the caller's key order, nulls and unknown fields
    /// kept) and applied as [`ChatTemplate::apply`] applies JSON. The JSON path is the
    /// zero-copy one; this one pays for the conversion.
    pub fn apply_request(&self, request: &ChatRequest) -> Result<String, Error> {
        self.apply(&request.to_value()?)
    }

    /// [`ChatTemplate::apply_request`] with the assistant mask, as
    /// [`ChatTemplate::apply_with_mask`].
    pub fn apply_request_with_mask(
        &self,
        request: &ChatRequest,
    ) -> Result<(String, Vec<(usize, usize)>), Error> {
        self.apply_with_mask(&request.to_value()?)
    }

    /// Like [`ChatTemplate::apply`], also returning the assistant mask: the byte ranges of the
    /// prompt produced inside `{% generation %}` blocks (`return_assistant_tokens_mask`).
    pub fn apply_with_mask(&self, request: &Value) -> Result<(String, Vec<(usize, usize)>), Error> {
        let mut out = String::new();
        let spans = self.apply_to(request, true, &mut out)?;
        Ok((out, spans))
    }

    /// Appends the prompt to `out`; returns the mask ranges (relative to where the prompt
    /// starts in `out`) when `mask` is set, else an empty list.
    pub fn apply_to(
        &self,
        request: &Value,
        mask: bool,
        out: &mut String,
    ) -> Result<Vec<(usize, usize)>, Error> {
        check_request(request, mask)?;
        let extra = Extra {
            kwargs: Some(&self.special_tokens),
            drop_none: true,
            limits: None,
            now: None,
        };
        let spans = render_impl(&self.template, request, &extra, out)?;
        Ok(if mask { spans } else { Vec::new() })
    }
}

impl ChatTemplate {
    /// [`ChatTemplate::apply_to`] for a request given as [`Data`] (a language binding's own
    /// objects): the checks of `apply_chat_template`, null message keys dropped, the special
    /// tokens as kwargs under the request's own.
    pub fn apply_data_to(
        &self,
        request: &DataRequest<'_>,
        mask: bool,
        out: &mut String,
    ) -> Result<Vec<(usize, usize)>, Error> {
        with_builder(|b| self.apply_built(b, &b.request(request)?, mask, out))
    }

    /// [`ChatTemplate::apply_to`] for a request built with `b` (a language binding's own
    /// objects made into template values directly, see [`Builder`]); with
    /// [`BuiltRequest::assistant_mask`] set, the spans are transformers' code point indices.
    pub fn apply_built<'a>(
        &'a self,
        b: &Builder<'a, '_>,
        request: &BuiltRequest<'a>,
        mask: bool,
        out: &mut String,
    ) -> Result<Vec<(usize, usize)>, Error> {
        check_flags(
            request.messages.items().is_some_and(|m| m.is_empty()),
            request.continue_final_message.is_some(),
            request.add_generation_prompt.is_true(),
            mask,
        )?;
        // `apply_chat_template` calls `render_jinja_template(conversations=..., **kwargs)`.
        if request.kwargs.iter().any(|(k, _)| *k == "conversations") {
            return Err(err!(
                Type,
                "render_jinja_template() got multiple values for keyword argument 'conversations'"
            ));
        }
        let extra = Extra {
            kwargs: Some(&self.special_tokens),
            drop_none: true,
            ..Extra::default()
        };
        let spans = b.render_with(&self.template, request, &extra, out)?;
        Ok(if mask { spans } else { Vec::new() })
    }
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::Bool(true)) => true,
    }
}

/// The checks `apply_chat_template` makes before rendering.
fn check_request(request: &Value, mask: bool) -> Result<(), Error> {
    let empty = matches!(request.get("messages"), Some(Value::Array(m)) if m.is_empty());
    check_flags(
        empty,
        truthy(request.get("continue_final_message")),
        truthy(request.get("add_generation_prompt")),
        mask,
    )
}

/// The flag checks of `apply_chat_template`.
fn check_flags(
    empty: bool,
    cont: bool,
    add_generation_prompt: bool,
    mask: bool,
) -> Result<(), Error> {
    if empty {
        return Err(err!(
            Value,
            "Cannot apply chat template to an empty conversation. Provide at least one message."
        ));
    }
    if cont && add_generation_prompt {
        return Err(err!(
            Value,
            "continue_final_message and add_generation_prompt are not compatible. Use continue_final_message when you want the model to continue the final message, and add_generation_prompt when you want to add a header that will prompt it to start a new assistant message instead."
        ));
    }
    if cont && mask {
        return Err(err!(
            Value,
            "continue_final_message is not compatible with return_assistant_tokens_mask."
        ));
    }
    Ok(())
}
