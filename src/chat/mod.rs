//! The chat layer: rendering an OpenAI-style chat request the way transformers'
//! `render_jinja_template` does.

use crate::error::Error;
use crate::template::Template;

/// Renders a chat request (`messages`, `tools`, `documents`, `add_generation_prompt`,
/// `continue_final_message`, and any other key as a template kwarg) the way transformers'
/// `render_jinja_template` does: absent `tools`/`documents` are `None`, and the reasoning
/// fields of each message are aliased.
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
    crate::vm::render_json(template, request, out)
}
