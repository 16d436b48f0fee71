//! Rendering probe conversations through a template and cutting out the assistant turn.

use crate::chat::ChatTemplate;
use serde_json::{json, Map, Value};

/// Reasoning text of the probes.
pub(crate) const REASONING: &str = "Thinking about the request step by step.";
/// Content text of the probes.
pub(crate) const CONTENT: &str = "Here is the answer you asked for.";
/// The user turn of the probes.
const USER: &str = "What is the weather in Paris?";
/// The system turn of the probes.
const SYSTEM: &str = "You are a helpful assistant.";

/// One probe tool call: a name and its arguments.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub name: String,
    pub args: Value,
}

impl Call {
    pub(crate) fn new(name: &str, args: Value) -> Call {
        Call {
            name: name.to_string(),
            args,
        }
    }
}

/// The two tools the probes offer.
pub(crate) fn tools() -> Value {
    let props = json!({
        "city": {"type": "string", "description": "A city"},
        "days": {"type": "integer"},
        "ratio": {"type": "number"},
        "metric": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "extra": {"type": "object"},
        "note": {"type": ["string", "null"]},
    });
    json!([
        {"type": "function", "function": {"name": "get_weather", "description": "Weather for a place",
            "parameters": {"type": "object", "properties": props, "required": ["city"]}}},
        {"type": "function", "function": {"name": "search_web", "description": "Search the web",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["query"]}}},
    ])
}

/// How call ids and arguments are written in the probe's assistant message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdStyle {
    /// `call00001`: nine alphanumerics (what Mistral templates check).
    Plain,
    /// `functions.NAME:IDX` (what Kimi templates write as is).
    Kimi,
}

/// The probe call id of call `i`.
pub(crate) fn call_id(style: IdStyle, name: &str, i: usize) -> String {
    match style {
        IdStyle::Plain => format!("call{:05}", i + 1),
        IdStyle::Kimi => format!("functions.{name}:{i}"),
    }
}

/// An assistant turn to render.
#[derive(Debug, Clone, Default)]
pub(crate) struct Turn {
    pub reasoning: Option<String>,
    pub content: Option<String>,
    pub calls: Vec<Call>,
    /// Arguments as a JSON string instead of an object.
    pub string_args: bool,
    pub ids: Option<IdStyle>,
}

/// A template plus the kwargs every probe passes.
pub(crate) struct Prober<'t> {
    pub template: &'t ChatTemplate,
    pub kwargs: Map<String, Value>,
    /// Whether the probes carry a system message (dropped when the template refuses one).
    pub system: bool,
}

/// The rendered assistant part of one probe.
#[derive(Debug, Clone)]
pub(crate) struct Rendered {
    /// The assistant turn as the template wrote it after the generation prompt.
    pub assistant: String,
    /// The prompt (generation prompt on) the turn continues.
    pub prompt: String,
}

impl Prober<'_> {
    fn head(&self) -> Vec<Value> {
        let mut m = Vec::new();
        if self.system {
            m.push(json!({"role": "system", "content": SYSTEM}));
        }
        m.push(json!({"role": "user", "content": USER}));
        m
    }

    /// Renders `messages` (tools offered), with or without the generation prompt.
    pub(crate) fn render(
        &self,
        messages: Vec<Value>,
        gen: bool,
        kw: &[(&str, Value)],
    ) -> Option<String> {
        let mut req = self.kwargs.clone();
        req.insert("messages".into(), Value::Array(messages));
        req.insert("tools".into(), tools());
        req.insert("add_generation_prompt".into(), Value::Bool(gen));
        for (k, v) in kw {
            req.insert((*k).to_string(), v.clone());
        }
        self.template.apply(&Value::Object(req)).ok()
    }

    /// The generation prompt after the user turn.
    pub(crate) fn prompt(&self, gen: bool, kw: &[(&str, Value)]) -> Option<String> {
        self.render(self.head(), gen, kw)
    }

    /// The assistant message of `turn` as a chat message.
    pub(crate) fn message(turn: &Turn) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), json!("assistant"));
        m.insert(
            "content".into(),
            json!(turn.content.clone().unwrap_or_default()),
        );
        if let Some(r) = &turn.reasoning {
            m.insert("reasoning_content".into(), json!(r));
        }
        if !turn.calls.is_empty() {
            let style = turn.ids.unwrap_or(IdStyle::Plain);
            let calls: Vec<Value> = turn
                .calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let args = if turn.string_args {
                        Value::String(c.args.to_string())
                    } else {
                        c.args.clone()
                    };
                    json!({"id": call_id(style, &c.name, i), "type": "function",
                        "function": {"name": c.name, "arguments": args}})
                })
                .collect();
            m.insert("tool_calls".into(), Value::Array(calls));
        }
        Value::Object(m)
    }

    /// Renders `turn` after the user turn and cuts out the assistant part.
    pub(crate) fn assistant(&self, turn: &Turn, kw: &[(&str, Value)]) -> Option<Rendered> {
        let prompt = self.prompt(true, kw)?;
        let mut msgs = self.head();
        msgs.push(Prober::message(turn));
        let full = self.render(msgs, false, kw)?;
        Some(Rendered {
            assistant: assistant_part(&prompt, &full, USER).to_string(),
            prompt,
        })
    }
}

/// The assistant part of `full` (a conversation ending with an assistant turn) given `prompt`
/// (the same conversation without that turn, generation prompt on) and the text of the last
/// user turn. Usually `full` extends `prompt`; templates that render the last user turn
/// differently when an answer follows (tool lists placed before it) are cut after that user
/// text and the rest of the prompt's tail.
pub fn assistant_part<'a>(prompt: &str, full: &'a str, user: &str) -> &'a str {
    let mut n = split_point(prompt, full);
    let (pu, fu) = (prompt.rfind(user), full.rfind(user));
    let mut pn = n;
    if let (Some(pu), Some(fu)) = (pu, fu) {
        if n < fu + user.len() {
            // The prompt's text after the user turn (its end-of-turn and the assistant
            // header), as far as the conversation repeats it.
            let ptail = &prompt[pu + user.len()..];
            let ftail = &full[fu + user.len()..];
            let k = split_point(ptail, ftail);
            n = fu + user.len() + k;
            pn = pu + user.len() + k;
        }
    }
    // Whitespace one has and the other does not (`\n<|header_start|>`, `\n  <|im_start|>`).
    for _ in 0..8 {
        let (pt, ft) = (&prompt[pn.min(prompt.len())..], &full[n..]);
        let (pw, fw) = (
            pt.len() - pt.trim_start().len(),
            ft.len() - ft.trim_start().len(),
        );
        if pw == 0 && fw == 0 {
            break;
        }
        let k = split_point(&pt[pw..], &ft[fw..]);
        if k == 0 {
            break;
        }
        n += fw + k;
        pn += pw + k;
    }
    strip_role_header(full, n, user)
}

/// The assistant turn without its role header, when the prompt did not write it (a template
/// whose generation prompt is broken): the user turn's header with the role renamed.
fn strip_role_header<'a>(full: &'a str, n: usize, user: &str) -> &'a str {
    let part = &full[n..];
    let Some(fu) = full[..n].rfind(user) else {
        return part;
    };
    let head = &full[..fu];
    for (u, a) in [
        ("user", "assistant"),
        ("User", "Assistant"),
        ("USER", "ASSISTANT"),
    ] {
        let Some(ui) = head.rfind(u) else { continue };
        let Some(hs) = head[..ui].rfind(['<', '[']) else {
            continue;
        };
        let header = head[hs..].replace(u, a);
        let h = header.trim_end();
        let mut from = n.saturating_sub(h.len());
        while !full.is_char_boundary(from) {
            from -= 1;
        }
        if h.is_empty() {
            break;
        }
        if let Some(i) = full[from..].find(h) {
            let end = from + i + h.len();
            if from + i <= n && end >= n {
                return full[end..].trim_start_matches([' ', '\n']);
            }
        }
        break;
    }
    part
}

/// The length of the common prefix of the prompt and the full conversation, backed off so it
/// does not end inside a marker (`<…`, `[…`) or a `>>>` recipient arrow.
pub(crate) fn split_point(prompt: &str, full: &str) -> usize {
    let mut n = prompt
        .bytes()
        .zip(full.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !full.is_char_boundary(n) {
        n -= 1;
    }
    let head = &full[..n];
    for (open, close) in [('<', '>'), ('[', ']')] {
        if let Some(i) = head.rfind(open) {
            if head.rfind(close).map_or(true, |c| c < i) {
                n = n.min(i);
            }
        }
    }
    while full[..n].ends_with(">>>") {
        n -= 3;
    }
    n
}
