//! Capability probing: what a chat template does with each part of an OpenAI-style request,
//! found by rendering probe conversations through the engine and looking for their
//! codewords in the output (never by reading the template source).
//!
//! The names and meanings follow seed 002 (minja's capabilities) with the JSON names of issue
//! 9; the fields after `supports_clear_thinking` are ours (kwargs that change the output,
//! the generation prompt, the template's own refusals, id shape, alternation). See
//! `docs/capabilities.md` for how each one is probed and where we differ from minja.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::template::Template;

mod probe;
mod reasoning;
mod tools;

/// How a template shows the reasoning of an assistant message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningFormat {
    /// The template shows no reasoning.
    #[default]
    None,
    /// `message.reasoning_content` (transformers also aliases it as `message.thinking`).
    ReasoningContentField,
    /// `message.thought` (MiniCPM3).
    ThoughtField,
    /// `message.thinking`. transformers 5 copies `reasoning_content` into `thinking` before
    /// the template runs, so a template reading `thinking` is reported as
    /// [`ReasoningFormat::ReasoningContentField`]; this value is never probed.
    ThinkingField,
    /// `message.tool_plan`, shown only with tool calls (Command-R7B).
    ToolPlanField,
    /// A `{"type": "thinking", "thinking": ...}` content block.
    ThinkingContentBlock,
    /// A `{"type": "thoughts", "text": ...}` content block.
    ThoughtsContentBlock,
}

impl ReasoningFormat {
    /// The format's JSON name (`reasoning_content_field`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ReasoningFormat::None => "none",
            ReasoningFormat::ReasoningContentField => "reasoning_content_field",
            ReasoningFormat::ThoughtField => "thought_field",
            ReasoningFormat::ThinkingField => "thinking_field",
            ReasoningFormat::ToolPlanField => "tool_plan_field",
            ReasoningFormat::ThinkingContentBlock => "thinking_content_block",
            ReasoningFormat::ThoughtsContentBlock => "thoughts_content_block",
        }
    }
}

/// The shape of tool-call ids a template accepts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallIdFormat {
    /// Any string (or the template shows no ids).
    #[default]
    Any,
    /// Exactly 9 ASCII letters and digits (Mistral): other ids are refused.
    Alphanumeric9,
}

/// What a chat template supports, as found by probing it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Caps {
    /// A system message's text appears in the prompt.
    pub supports_system_role: bool,
    /// A tool definition's name and description appear in the prompt.
    pub supports_tools: bool,
    /// An assistant tool call's argument value appears (in any syntax).
    pub supports_tool_calls: bool,
    /// A tool result's text appears.
    pub supports_tool_responses: bool,
    /// A tool call's id appears (in the call or in the result).
    pub supports_tool_call_id: bool,
    /// Two calls in one assistant message both appear (by argument value or by id).
    pub supports_parallel_tool_calls: bool,
    /// Arguments show only as an object, not as the OpenAI JSON string.
    pub requires_object_arguments: bool,
    /// An assistant message with tool calls fails or prints `None` when its content is null.
    pub requires_non_null_content: bool,
    /// String content does not show; `[{"type": "text", "text": ...}]` does.
    pub requires_typed_content_blocks: bool,
    /// Some reasoning format shows (possibly only with [`Caps::reasoning_kwargs`]).
    pub supports_reasoning: bool,
    /// Which format shows reasoning.
    pub reasoning_format: ReasoningFormat,
    /// Reasoning shows only on an assistant message that also has tool calls.
    pub reasoning_requires_tools: bool,
    /// Reasoning shows on an assistant message whose content is empty.
    pub supports_reasoning_without_content: bool,
    /// Reasoning and content of one assistant message both show.
    pub supports_reasoning_with_content: bool,
    /// `enable_thinking` changes the prompt.
    pub supports_enable_thinking: bool,
    /// `clear_thinking=false` keeps reasoning that `clear_thinking=true` drops.
    pub supports_clear_thinking: bool,
    /// Ours: the kwargs (with values) that reasoning needed to show, e.g. `{"thinking": true}`
    /// (DeepSeek-V3.2) or `{"skip_think": false}` (EXAONE 4); empty when none is needed.
    pub reasoning_kwargs: Map<String, Value>,
    /// Ours: reasoning blocks go in a mapping, `{"blocks": [{"type": "thoughts", ...},
    /// {"type": "response", "text": ...}]}`, rather than a list (Apertus).
    pub reasoning_blocks_in_mapping: bool,
    /// Ours: the reasoning of an assistant turn followed by a user turn shows (templates that
    /// keep only the reasoning after the last user message say false).
    pub shows_past_reasoning: bool,
    /// Ours: the template fails unless the request has `tools` (a list, possibly empty);
    /// every other probe then passes an empty list.
    pub requires_tools: bool,
    /// Ours: the template fails unless the request has `documents` (a list, possibly empty):
    /// retrieval templates.
    pub requires_documents: bool,
    /// Ours: the shape of ids the template accepts.
    pub tool_call_id_format: ToolCallIdFormat,
    /// Ours: two adjacent user messages are refused or lose one text, while an alternating
    /// conversation renders: polyfills merge adjacent user turns.
    pub requires_alternation: bool,
    /// Ours: the keyword arguments that change the prompt (from the template's free
    /// variables, each confirmed by rendering with and without it); special tokens
    /// (`*_token`) are left out.
    pub kwargs: Vec<String>,
    /// Ours: the text `add_generation_prompt=true` appends, when it is an append.
    pub generation_prompt: Option<String>,
    /// Ours: the generation prompt leaves a reasoning block open (`<think>` without
    /// `</think>`, ...).
    pub generation_prompt_opens_reasoning: bool,
    /// Ours: the messages the template's `raise_exception` calls can raise (constant parts,
    /// `…` for values).
    pub raises: Vec<String>,
    /// Ours: whether the template reads a message's content as a list of parts (`openai`) or
    /// as a string (`string`), as vLLM's `--chat-template-content-format auto` decides
    /// (see [`crate::chat::media::ContentFormat::detect`]).
    pub content_format: crate::chat::media::ContentFormat,
    /// Ours: the error of the simplest probe (one user message) when even that fails; every
    /// other capability is then false.
    pub probe_error: Option<String>,
}

impl Caps {
    /// The capabilities as one JSON object.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Probes `template` rendered as `render_jinja_template` renders (null message keys kept),
/// with `bos_token` `<s>` and `eos_token` `</s>` as kwargs, as a server passes a model's
/// special tokens (and as minja probes).
pub fn probe(template: &Template) -> Caps {
    probe_with(template, &default_tokens(), false)
}

/// `bos_token` `<s>` and `eos_token` `</s>`: the special tokens [`probe`] assumes.
pub fn default_tokens() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("bos_token".into(), "<s>".into());
    m.insert("eos_token".into(), "</s>".into());
    m
}

/// Probes `template` rendered with `kwargs` (the model's special tokens) under requests'
/// own keys; `drop_none` drops message keys whose value is null, as `apply_chat_template`
/// does.
pub fn probe_with(template: &Template, kwargs: &Map<String, Value>, drop_none: bool) -> Caps {
    probe::Prober::new(template, Some(kwargs), drop_none).run()
}
