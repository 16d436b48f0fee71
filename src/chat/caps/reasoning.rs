//! Reasoning probes: which of the six formats shows an assistant message's reasoning, under
//! which kwargs, with or without content and tool calls, on past turns or the last one.

use serde_json::{json, Map, Value};

use super::probe::{Prober, ANS, RSN, U1, U2};
use super::tools::CallShape;
use super::{Caps, ReasoningFormat};

/// A reasoning format and, for content blocks, whether the blocks sit in a mapping
/// (`{"blocks": [...]}` with the answer as a `response` block, as Apertus reads them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fmt(ReasoningFormat, bool);

/// The formats in detection order (seed 002), [`ReasoningFormat::ThinkingField`] left out:
/// transformers aliases it to `reasoning_content`.
const FORMATS: [Fmt; 6] = [
    Fmt(ReasoningFormat::ReasoningContentField, false),
    Fmt(ReasoningFormat::ThoughtField, false),
    Fmt(ReasoningFormat::ToolPlanField, false),
    Fmt(ReasoningFormat::ThinkingContentBlock, false),
    Fmt(ReasoningFormat::ThoughtsContentBlock, false),
    Fmt(ReasoningFormat::ThoughtsContentBlock, true),
];

/// Where reasoning showed.
#[derive(Default, Clone, Copy)]
struct Shown {
    past: bool,
    last: bool,
}

impl<'t> Prober<'t> {
    /// The assistant message carrying reasoning `rsn` in `format` (or, when `decoy`, the same
    /// message with the field or block type renamed: what a template that prints every field
    /// or block would also show), with `content`, making tool calls when `calls`.
    fn reasoning_message(
        &self,
        Fmt(format, mapping): Fmt,
        content: &str,
        decoy: bool,
        calls: Option<&CallShape>,
    ) -> Value {
        let field = |name: &'static str| if decoy { "x_probe_field" } else { name };
        let kind = |name: &'static str| if decoy { "x_probe_kind" } else { name };
        let mut extra: Vec<(&str, Value)> = Vec::new();
        let mut body = self.text(content);
        match format {
            ReasoningFormat::ReasoningContentField => {
                extra.push((field("reasoning_content"), RSN.into()))
            }
            ReasoningFormat::ThinkingField => extra.push((field("thinking"), RSN.into())),
            ReasoningFormat::ThoughtField => extra.push((field("thought"), RSN.into())),
            ReasoningFormat::ToolPlanField => extra.push((field("tool_plan"), RSN.into())),
            ReasoningFormat::ThinkingContentBlock => {
                body = blocks(json!({"type": kind("thinking"), "thinking": RSN}), content)
            }
            ReasoningFormat::ThoughtsContentBlock if mapping => {
                let mut b = vec![json!({"type": kind("thoughts"), "text": RSN})];
                if !content.is_empty() {
                    b.push(json!({"type": "response", "text": content}));
                }
                body = json!({ "blocks": b });
            }
            ReasoningFormat::ThoughtsContentBlock => {
                body = blocks(json!({"type": kind("thoughts"), "text": RSN}), content)
            }
            ReasoningFormat::None => {}
        }
        match calls {
            Some(shape) => {
                extra.push(("content", body));
                self.call_message(shape, 1, &extra)
            }
            None => {
                let mut m = Map::new();
                m.insert("role".into(), "assistant".into());
                m.insert("content".into(), body);
                for (k, v) in extra {
                    m.insert(k.to_string(), v);
                }
                Value::Object(m)
            }
        }
    }

    /// Where the reasoning of `message` shows, rendered with `kwargs`: as a past turn
    /// (followed by a user turn) and as the last turn.
    fn shown(
        &self,
        message: &Value,
        calls: Option<&CallShape>,
        kwargs: &Map<String, Value>,
    ) -> Shown {
        let req = |agp: bool| {
            let mut r = kwargs.clone();
            r.insert("add_generation_prompt".into(), agp.into());
            if calls.is_some() {
                r.insert("tools".into(), Self::tool_defs());
            }
            Value::Object(r)
        };
        let convo = |tail: bool| -> Vec<Value> {
            let mut v = match calls {
                Some(shape) => {
                    let s = CallShape {
                        layout: super::tools::Layout::CallResults,
                        ..*shape
                    };
                    self.around(&s, message.clone(), 1, false)
                }
                None => vec![self.msg("user", U1), message.clone()],
            };
            if tail {
                v.push(self.msg("user", U2));
            }
            v
        };
        let has = |o: Option<String>| o.is_some_and(|o| o.contains(RSN));
        Shown {
            past: has(self.render(convo(true), req(true))),
            last: has(self.render(convo(false), req(false))),
        }
    }

    /// Where reasoning in `format` shows (decoys checked), or `None`.
    fn try_format(
        &self,
        format: Fmt,
        calls: Option<&CallShape>,
        kwargs: &Map<String, Value>,
    ) -> Option<Shown> {
        let m = self.reasoning_message(format, ANS, false, calls);
        let s = self.shown(&m, calls, kwargs);
        if !s.past && !s.last {
            return None;
        }
        let decoy = self.reasoning_message(format, ANS, true, calls);
        let d = self.shown(&decoy, calls, kwargs);
        let real = Shown {
            past: s.past && !d.past,
            last: s.last && !d.last,
        };
        (real.past || real.last).then_some(real)
    }

    /// Kwarg settings that may gate reasoning: none, then each kwarg that changes the prompt
    /// set to true, then to false.
    fn gates(&self, kwargs: &[String]) -> Vec<Map<String, Value>> {
        let mut v = vec![Map::new()];
        for value in [true, false] {
            for name in kwargs {
                let mut m = Map::new();
                m.insert(name.clone(), value.into());
                v.push(m);
            }
        }
        v
    }

    /// Fills the reasoning capabilities.
    pub(super) fn reasoning(&self, caps: &mut Caps, shape: &CallShape) {
        let calls = shape.shown.then_some(shape);
        let mut found = None;
        'search: for (i, kwargs) in self.gates(&caps.kwargs).into_iter().enumerate() {
            // Gated reasoning (DeepSeek-V3.2 `thinking`, EXAONE `skip_think`) is a field.
            let formats: &[Fmt] = if i == 0 { &FORMATS } else { &FORMATS[..1] };
            for &format in formats {
                let with_calls = format.0 == ReasoningFormat::ToolPlanField;
                if with_calls && calls.is_none() {
                    continue;
                }
                let c = if with_calls { calls } else { None };
                if let Some(s) = self.try_format(format, c, &kwargs) {
                    found = Some((format, s, with_calls, kwargs));
                    break 'search;
                }
            }
            if let Some(c) = calls {
                if let Some(s) = self.try_format(FORMATS[0], Some(c), &kwargs) {
                    found = Some((FORMATS[0], s, true, kwargs));
                    break 'search;
                }
            }
        }
        let Some((format, shown, requires_tools, kwargs)) = found else {
            return;
        };
        caps.supports_reasoning = true;
        caps.reasoning_format = format.0;
        caps.reasoning_blocks_in_mapping = format.1;
        caps.reasoning_requires_tools = requires_tools;
        caps.shows_past_reasoning = shown.past;
        caps.reasoning_kwargs = kwargs.clone();
        let calls = requires_tools.then_some(shape);
        let with = self.reasoning_message(format, ANS, false, calls);
        let without = self.reasoning_message(format, "", false, calls);
        let s = self.shown(&without, calls, &kwargs);
        caps.supports_reasoning_without_content = s.past || s.last;
        // Both texts in one render.
        let both = |agp: bool, tail: bool| {
            let mut r = kwargs.clone();
            r.insert("add_generation_prompt".into(), agp.into());
            if calls.is_some() {
                r.insert("tools".into(), Self::tool_defs());
            }
            let mut v = match calls {
                Some(sh) => {
                    let s = CallShape {
                        layout: super::tools::Layout::CallResults,
                        ..*sh
                    };
                    self.around(&s, with.clone(), 1, false)
                }
                None => vec![self.msg("user", U1), with.clone()],
            };
            if tail {
                v.push(self.msg("user", U2));
            }
            self.render(v, Value::Object(r))
                .is_some_and(|o| o.contains(RSN) && o.contains(ANS))
        };
        caps.supports_reasoning_with_content = both(true, true) || both(false, false);
        if self.candidates.iter().any(|c| c == "clear_thinking") {
            let mut keep = kwargs.clone();
            keep.insert("clear_thinking".into(), false.into());
            let mut clear = kwargs.clone();
            clear.insert("clear_thinking".into(), true.into());
            let k = self.shown(&with, calls, &keep);
            let c = self.shown(&with, calls, &clear);
            caps.supports_clear_thinking = (k.past && !c.past) || (k.last && !c.last);
        }
    }
}

/// Content blocks: `first`, then a text block with `content` unless it is empty.
fn blocks(first: Value, content: &str) -> Value {
    if content.is_empty() {
        json!([first])
    } else {
        json!([first, {"type": "text", "text": content}])
    }
}
