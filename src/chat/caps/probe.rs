//! The prober: renders probe conversations on a small budget and fills [`Caps`].

use serde_json::{json, Map, Value};

use super::{Caps, ToolCallIdFormat};
use crate::chat::{render_impl, Extra};
use crate::limits::Limits;
use crate::template::Template;

/// Codewords: texts no template prints by itself, looked for in the output.
pub(super) const SYS: &str = "Sys7cw";
pub(super) const U1: &str = "Usr1cw";
pub(super) const U2: &str = "Usr2cw";
pub(super) const ANS: &str = "Ans5cw";
pub(super) const RSN: &str = "Rsn9cw";
pub(super) const TOOL: &str = "xprobe_fn";
pub(super) const DESC: &str = "Desc3cw";
pub(super) const ARG1: &str = "Arg4cw";
pub(super) const ARG2: &str = "Arg6cw";
pub(super) const RES1: &str = "Res8cw";
pub(super) const RES2: &str = "Res2cw";
/// Ids in the OpenAI style, then ids of 9 alphanumerics (Mistral).
pub(super) const IDS: [[&str; 2]; 2] = [["call_id1cw", "call_id2cw"], ["Id1cwAbcd", "Id2cwAbcd"]];

/// Names a request sets, builtins, and special tokens: never reported as kwargs.
const STANDARD: [&str; 8] = [
    "messages",
    "tools",
    "documents",
    "add_generation_prompt",
    "continue_final_message",
    "chat_template",
    "loop",
    "self",
];

/// Probes that may run out of budget before the rest fail unrun: a template that loops
/// costs at most this many budgets.
const MAX_EXHAUSTED: u32 = 3;

/// Markers that open a reasoning block, each with the marker that closes it.
const REASONING_MARKERS: [(&str, &str); 7] = [
    ("<|START_THINKING|>", "<|END_THINKING|>"),
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("[THINK]", "[/THINK]"),
    ("<seed:think>", "</seed:think>"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
    ("<|channel>thought", "<channel|>"),
];

/// Renders probes for one template.
pub(super) struct Prober<'t> {
    template: &'t Template,
    kwargs: Option<&'t Map<String, Value>>,
    drop_none: bool,
    limits: Limits,
    /// Texts go in typed blocks (the template shows no string content).
    pub(super) typed: bool,
    /// The template's free variables that may be kwargs.
    pub(super) candidates: Vec<String>,
    /// Probes that ran out of budget; past [`MAX_EXHAUSTED`], probes fail without running.
    exhausted: std::cell::Cell<u32>,
    /// Keys every probe passes (`tools`, `documents`: empty lists unless the probe has its
    /// own) because the template fails without them.
    always: Map<String, Value>,
}

impl<'t> Prober<'t> {
    pub(super) fn new(
        template: &'t Template,
        kwargs: Option<&'t Map<String, Value>>,
        drop_none: bool,
    ) -> Prober<'t> {
        let limits = Limits {
            fuel: 2_000_000,
            max_depth: 100,
            max_output: 1 << 20,
            max_nesting: template.options().limits.max_nesting,
            ..template.options().limits
        };
        let candidates = template
            .global_names()
            .into_iter()
            .filter(|n| {
                !STANDARD.contains(n)
                    && !n.ends_with("_token")
                    && crate::builtins::global(n).is_none()
            })
            .map(str::to_string)
            .collect();
        Prober {
            template,
            kwargs,
            drop_none,
            limits,
            typed: false,
            candidates,
            always: Map::new(),
            exhausted: std::cell::Cell::new(0),
        }
    }

    /// Renders `messages` (and the request's other keys from `extra`); `None` on any error.
    pub(super) fn render(&self, messages: Vec<Value>, extra: Value) -> Option<String> {
        self.try_render(messages, extra).ok()
    }

    /// Renders `messages`, returning the error as text.
    pub(super) fn try_render(&self, messages: Vec<Value>, extra: Value) -> Result<String, String> {
        if self.exhausted.get() >= MAX_EXHAUSTED {
            return Err("probe budget exhausted".into());
        }
        let mut req = match extra {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        req.insert("messages".into(), Value::Array(messages));
        for (k, v) in &self.always {
            if !req.contains_key(k) {
                req.insert(k.clone(), v.clone());
            }
        }
        let req = Value::Object(req);
        let ex = Extra {
            kwargs: self.kwargs,
            drop_none: self.drop_none,
            limits: Some(&self.limits),
            now: None,
        };
        let mut out = String::new();
        match render_impl(self.template, &req, &ex, &mut out) {
            Ok(_) => Ok(out),
            Err(e) => {
                if matches!(e.kind(), crate::ErrorKind::Limit(_)) {
                    self.exhausted.set(self.exhausted.get() + 1);
                }
                Err(e.message().to_string())
            }
        }
    }

    /// Message content for `text`: a string, or one typed text block.
    pub(super) fn text(&self, text: &str) -> Value {
        if self.typed {
            json!([{"type": "text", "text": text}])
        } else {
            Value::String(text.to_string())
        }
    }

    /// A message of `role` with `text`.
    pub(super) fn msg(&self, role: &str, text: &str) -> Value {
        json!({"role": role, "content": self.text(text)})
    }

    /// The probe tool definition.
    pub(super) fn tool_defs() -> Value {
        json!([{"type": "function", "function": {
            "name": TOOL,
            "description": DESC,
            "parameters": {"type": "object",
                "properties": {"city": {"type": "string", "description": "A city"}},
                "required": ["city"]}}}])
    }

    /// Runs every probe.
    pub(super) fn run(mut self) -> Caps {
        let mut caps = Caps {
            raises: self.template.raise_messages(),
            content_format: crate::chat::media::ContentFormat::detect(self.template),
            ..Caps::default()
        };
        let agp = json!({"add_generation_prompt": true});
        let mut first = self.try_render(vec![self.msg("user", U1)], agp.clone());
        if first.is_err() {
            for keys in [&["tools"][..], &["documents"], &["tools", "documents"]] {
                self.always = keys
                    .iter()
                    .map(|k| (k.to_string(), Value::Array(Vec::new())))
                    .collect();
                let with = self.try_render(vec![self.msg("user", U1)], agp.clone());
                if with.is_ok() {
                    caps.requires_tools = keys.contains(&"tools");
                    caps.requires_documents = keys.contains(&"documents");
                    first = with;
                    break;
                }
                self.always.clear();
            }
        }
        let shows = first.as_ref().is_ok_and(|o| o.contains(U1));
        if !shows {
            self.typed = true;
            let typed = self.render(vec![self.msg("user", U1)], agp.clone());
            if typed.is_some_and(|o| o.contains(U1)) {
                caps.requires_typed_content_blocks = true;
            } else {
                self.typed = false;
                if let Err(e) = first {
                    caps.probe_error = Some(e);
                    return caps;
                }
            }
        }
        self.generation_prompt(&mut caps);
        caps.supports_system_role = self
            .render(
                vec![self.msg("system", SYS), self.msg("user", U1)],
                agp.clone(),
            )
            .is_some_and(|o| o.contains(SYS));
        let both = |o: Option<String>| o.is_some_and(|o| o.contains(U1) && o.contains(U2));
        let adjacent = both(self.render(
            vec![self.msg("user", U1), self.msg("user", U2)],
            agp.clone(),
        ));
        let alternating = both(self.render(
            vec![
                self.msg("user", U1),
                self.msg("assistant", ANS),
                self.msg("user", U2),
            ],
            agp.clone(),
        ));
        caps.requires_alternation = alternating && !adjacent;
        caps.supports_tools = self
            .render(
                vec![self.msg("user", U1)],
                json!({"add_generation_prompt": true, "tools": Self::tool_defs()}),
            )
            .is_some_and(|o| o.contains(TOOL) && o.contains(DESC));
        let shape = self.tool_calls(&mut caps);
        caps.tool_call_id_format = if shape.ids == 1 {
            ToolCallIdFormat::Alphanumeric9
        } else {
            ToolCallIdFormat::Any
        };
        self.kwargs(&mut caps);
        self.reasoning(&mut caps, &shape);
        caps
    }

    /// `generation_prompt` and whether it opens a reasoning block.
    fn generation_prompt(&self, caps: &mut Caps) {
        let without = self.render(vec![self.msg("user", U1)], json!({}));
        let with = self.render(
            vec![self.msg("user", U1)],
            json!({"add_generation_prompt": true}),
        );
        let (Some(without), Some(with)) = (without, with) else {
            return;
        };
        let Some(gp) = with.strip_prefix(without.as_str()) else {
            return;
        };
        caps.generation_prompt_opens_reasoning = opens_reasoning(gp);
        caps.generation_prompt = Some(gp.to_string());
    }

    /// The kwargs that change the prompt, `supports_enable_thinking`, `supports_clear_thinking`.
    fn kwargs(&self, caps: &mut Caps) {
        let mut messages = vec![self.msg("user", U1)];
        if caps.supports_system_role {
            messages.insert(0, self.msg("system", SYS));
        }
        let mut base = Map::new();
        base.insert("add_generation_prompt".into(), true.into());
        if caps.supports_tools {
            base.insert("tools".into(), Self::tool_defs());
        }
        // The last turn an assistant message with reasoning: kwargs that gate reasoning
        // (EXAONE `skip_think`) change only that.
        let last = vec![
            self.msg("user", U1),
            json!({"role": "assistant", "content": self.text(ANS), "reasoning_content": RSN}),
        ];
        let probes = [(messages.clone(), base.clone()), (last, Map::new())];
        let outs: Vec<_> = probes
            .iter()
            .map(|(m, r)| self.try_render(m.clone(), Value::Object(r.clone())))
            .collect();
        let values = [
            json!(true),
            json!(false),
            json!("high"),
            json!("low"),
            // Effort levels some templates test for alone (DeepSeek V4 `max`, Command A
            // `none`).
            json!("max"),
            json!("none"),
            json!("medium"),
            json!(["python"]),
        ];
        // Names that change nothing are most of the candidates (variables of macros read
        // before they are set): test them in groups, splitting a group that changes the
        // prompt until each name that does is alone.
        let changes = |names: &[String]| {
            values.iter().any(|v| {
                probes.iter().zip(&outs).any(|((m, r), out)| {
                    let mut req = r.clone();
                    for name in names {
                        req.insert(name.clone(), v.clone());
                    }
                    self.try_render(m.clone(), Value::Object(req)) != *out
                })
            })
        };
        let mut groups = vec![&self.candidates[..]];
        while let Some(group) = groups.pop() {
            if group.is_empty() || !changes(group) {
                continue;
            }
            if let [name] = group {
                caps.kwargs.push(name.clone());
                continue;
            }
            let (a, b) = group.split_at(group.len() / 2);
            groups.push(b);
            groups.push(a);
        }
        if caps.kwargs.iter().any(|k| k == "enable_thinking") {
            let with = |v: bool| {
                let mut req = base.clone();
                req.insert("enable_thinking".into(), v.into());
                self.try_render(messages.clone(), Value::Object(req))
            };
            caps.supports_enable_thinking = with(true) != with(false);
        }
    }
}

/// The generation prompt `gp` leaves a reasoning block open.
fn opens_reasoning(gp: &str) -> bool {
    REASONING_MARKERS
        .iter()
        .any(|(open, close)| gp.rfind(open).is_some_and(|o| !gp[o..].contains(close)))
}
