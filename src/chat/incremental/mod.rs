//! Incremental rendering: a conversation that grows by one message renders only what is new.
//!
//! ```
//! use chatcodec::chat::incremental::{Incremental, Stability};
//! let t = chatcodec::Template::new(
//!     "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}\
//!      {% if add_generation_prompt %}<|assistant|>{% endif %}",
//! )?;
//! let inc = Incremental::new(&t);
//! assert_eq!(inc.stability(), &Stability::Stable);
//! let mut session = inc.session(&serde_json::json!({"add_generation_prompt": true}))?;
//! assert_eq!(session.push(serde_json::json!({"role": "user", "content": "Hi"}))?, "<|user|>Hi\n");
//! assert_eq!(session.prompt()?, "<|user|>Hi\n<|assistant|>");
//! assert_eq!(session.push(serde_json::json!({"role": "assistant", "content": "Hello"}))?, "<|assistant|>Hello\n");
//! # Ok::<(), chatcodec::Error>(())
//! ```
//!
//! How: [`Incremental::new`] decides once per template whether renders can be continued
//! ([`Stability`]): from static facts of the compiled program (see the `analyze` rules:
//! `messages` is read only by one top-level loop and as `messages[0]`; that loop's `loop`
//! object only for `index`, `index0`, `first`), confirmed by rendering probe conversations
//! of several shapes both ways. Where it can, a [`Session`] renders the conversation once,
//! recording the VM state at the start of the message loop's next iteration (a checkpoint:
//! instruction, variables, namespaces, iteration count), and each [`Session::push`] restores
//! that state over the longer conversation and runs the loop body for the new message, then
//! the rest of the template (the generation prompt). The cost of a turn depends on the new
//! message and the size of the template's state, not on the messages before it. Where it
//! cannot, every push renders the whole conversation.
//!
//! The prompt is byte for byte what the full render of the same request makes
//! ([`crate::chat::render_request`], or [`crate::chat::ChatTemplate::apply`] for
//! [`Incremental::for_chat_template`]), with two deliberate differences: a session reads the
//! clock once, when it starts (a date in the system prompt does not change mid-conversation),
//! and the render limits (fuel, output) apply to each turn's work rather than to the whole
//! conversation.

mod analyze;
mod probe;

use serde_json::{Map, Value as Json};

use crate::clock::DateTime;
use crate::error::{err, Error};
use crate::template::Template;
use crate::value::{Ctx, Value};
use crate::vm::resume::{Checkpoint, Sources, Watch};

use analyze::Plan;
pub use analyze::Reason;

/// Whether a template's renders can be continued when the conversation grows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stability {
    /// The render of `messages[..n]` passes through the state from which the render of any
    /// longer conversation continues: the text before the message loop's next iteration
    /// never changes, and a push renders only the new message (and the generation prompt).
    Stable,
    /// Renders cannot be continued; a push renders the whole conversation.
    Unstable {
        /// Why.
        reason: Reason,
        /// Where in the template (1-based line, column), when the reason is a place.
        at: Option<(u32, u32)>,
    },
}

impl Stability {
    /// Whether renders are continued.
    pub fn is_stable(&self) -> bool {
        matches!(self, Stability::Stable)
    }
}

impl std::fmt::Display for Stability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stability::Stable => write!(f, "stable"),
            Stability::Unstable {
                reason,
                at: Some((l, c)),
            } => write!(f, "unstable: {reason} (line {l}, column {c})"),
            Stability::Unstable { reason, at: None } => write!(f, "unstable: {reason}"),
        }
    }
}

/// A template prepared for incremental rendering: its [`Stability`], decided once.
#[derive(Clone)]
pub struct Incremental<'t> {
    template: &'t Template,
    special_tokens: Option<&'t Map<String, Json>>,
    drop_none: bool,
    plan: Option<Plan>,
    stability: Stability,
}

impl std::fmt::Debug for Incremental<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Incremental")
            .field("stability", &self.stability)
            .finish_non_exhaustive()
    }
}

impl<'t> Incremental<'t> {
    /// Prepares `template`, rendered as [`crate::chat::render_request`] renders: analyses
    /// the program and renders the probe conversations (a few milliseconds).
    pub fn new(template: &'t Template) -> Incremental<'t> {
        Incremental::prepare(template, None, false)
    }

    /// Prepares a model's chat template, rendered as [`crate::chat::ChatTemplate::apply`]
    /// renders (special tokens as kwargs, null message keys dropped).
    pub fn for_chat_template(template: &'t super::ChatTemplate) -> Incremental<'t> {
        Incremental::prepare(template.template(), Some(template.special_tokens()), true)
    }

    fn prepare(
        template: &'t Template,
        special_tokens: Option<&'t Map<String, Json>>,
        drop_none: bool,
    ) -> Incremental<'t> {
        let mut inc = Incremental {
            template,
            special_tokens,
            drop_none,
            plan: None,
            stability: Stability::Stable,
        };
        match analyze::analyze(&template.program) {
            Ok(plan) => {
                inc.plan = Some(plan);
                if let Err(reason) = probe::probe(&inc) {
                    inc.plan = None;
                    inc.stability = Stability::Unstable { reason, at: None };
                }
            }
            Err((reason, offset)) => {
                let at = (offset > 0 || reason != Reason::NoMessageLoop)
                    .then(|| line_col(&template.program.source, offset));
                inc.stability = Stability::Unstable { reason, at };
            }
        }
        inc
    }

    /// Whether renders of this template are continued, and if not, why.
    pub fn stability(&self) -> &Stability {
        &self.stability
    }

    /// Starts a conversation: `request` is a chat request (`tools`, `add_generation_prompt`,
    /// kwargs, and optionally the first `messages`); its keys other than `messages` hold for
    /// the whole session. `continue_final_message` is refused: a session adds messages.
    pub fn session(&self, request: &Json) -> Result<Session<'_>, Error> {
        let Some(req) = request.as_object() else {
            return Err(err!(Input, "a chat request must be a JSON object"));
        };
        super::check_fields(req)?;
        if req
            .get("continue_final_message")
            .is_some_and(|v| !matches!(v, Json::Null | Json::Bool(false)))
        {
            return Err(err!(
                Input,
                "field 'continue_final_message': an incremental session cannot continue a final message; render the request in full"
            ));
        }
        let first: Vec<Json> = match req.get("messages") {
            None | Some(Json::Null) => Vec::new(),
            Some(Json::Array(m)) => m.clone(),
            Some(_) => return Err(err!(Input, "field 'messages' must be a list")),
        };
        let mut rest = req.clone();
        rest.remove("messages");
        let mut session = Session {
            inc: self,
            request: rest,
            messages: Json::Array(Vec::new()),
            now: self.template.options.clock.now(),
            text: String::new(),
            tail: Ok(String::new()),
            checkpoint: None,
            continued: self.plan.is_some(),
        };
        if !first.is_empty() {
            session.extend(first)?;
        }
        Ok(session)
    }

    /// Renders `sources` from the start (no checkpoint) or from `cp`, appending to `out`.
    /// Returns where the message loop ran out in `out` and its checkpoint, with the render's
    /// result.
    fn render(
        &self,
        sources: Sources<'_>,
        now: DateTime,
        cp: Option<&Checkpoint>,
        out: &mut String,
    ) -> Rendered {
        let prog = &self.template.program;
        let limits = &self.template.options.limits;
        crate::vm::with_arena(|arena| {
            let ctx = Ctx::new(arena, now, limits.max_output);
            let globals = crate::vm::resolve_globals(prog, &ctx, |name| match name {
                "messages" => Some(Value::Json(sources.messages)),
                _ => super::request_global(sources.request, sources.extra, &ctx, name),
            });
            let Some(plan) = &self.plan else {
                let result = crate::vm::run(prog, &ctx, globals, out, limits).map(|_| ());
                return Rendered {
                    result,
                    out_at: None,
                    checkpoint: None,
                };
            };
            let mut watch = Watch::new(plan.iter_pc, sources, &plan.dead_slots, plan.min_messages);
            let result = match cp {
                None => {
                    crate::vm::resume::run_watched(prog, &ctx, globals, out, limits, &mut watch)
                }
                Some(cp) => crate::vm::resume::resume(
                    prog,
                    &ctx,
                    globals,
                    out,
                    limits,
                    cp,
                    sources,
                    Some(&mut watch),
                ),
            };
            Rendered {
                result,
                out_at: watch.out_at,
                checkpoint: watch.saved.and_then(Result::ok),
            }
        })
    }
}

struct Rendered {
    result: Result<(), Error>,
    out_at: Option<usize>,
    checkpoint: Option<Checkpoint>,
}

/// A conversation rendered incrementally: push messages, read the prompt. Cloning a session
/// forks the conversation.
pub struct Session<'i> {
    inc: &'i Incremental<'i>,
    /// The request without its messages.
    request: Map<String, Json>,
    /// The messages so far (an array), as the template sees them (reasoning fields aliased,
    /// null keys dropped when the template is applied as transformers' `apply_chat_template`).
    messages: Json,
    now: DateTime,
    /// The text that no later message changes.
    text: String,
    /// The rest of the prompt after `text`, or the render's error.
    tail: Result<String, Error>,
    checkpoint: Option<Checkpoint>,
    /// Renders are continued (the template is stable and nothing has contradicted it).
    continued: bool,
}

impl Clone for Session<'_> {
    /// A fork with the same room to grow as the original (the text and the message list
    /// keep their capacity, so the fork's next push does not copy them).
    fn clone(&self) -> Self {
        let mut text = String::with_capacity(self.text.capacity());
        text.push_str(&self.text);
        let messages = match &self.messages {
            Json::Array(list) => {
                let mut copy = Vec::with_capacity(list.capacity());
                copy.extend(list.iter().cloned());
                Json::Array(copy)
            }
            other => other.clone(),
        };
        Session {
            inc: self.inc,
            request: self.request.clone(),
            messages,
            now: self.now,
            text,
            tail: self.tail.clone(),
            checkpoint: self.checkpoint.clone(),
            continued: self.continued,
        }
    }

    /// Makes this session a fork of `source`, reusing its buffers.
    fn clone_from(&mut self, source: &Self) {
        self.inc = source.inc;
        self.request.clone_from(&source.request);
        self.messages.clone_from(&source.messages);
        self.now = source.now;
        self.text.clear();
        self.text.push_str(&source.text);
        self.tail.clone_from(&source.tail);
        self.checkpoint.clone_from(&source.checkpoint);
        self.continued = source.continued;
    }
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("messages", &self.len())
            .field("text_len", &self.text.len())
            .field("continued", &self.continued)
            .finish_non_exhaustive()
    }
}

impl Session<'_> {
    /// The number of messages.
    pub fn len(&self) -> usize {
        self.messages.as_array().map_or(0, Vec::len)
    }

    /// Whether the conversation has no message yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether pushes continue the previous render (else each renders in full).
    pub fn is_incremental(&self) -> bool {
        self.continued
    }

    /// The start of the prompt that no later message changes (empty when renders are not
    /// continued). Each push appends to it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The prompt of the conversation so far: [`Session::text`] followed by what the
    /// template renders after the message loop (the generation prompt), exactly the full
    /// render of the request with these messages. An empty conversation has an empty prompt.
    pub fn prompt(&self) -> Result<String, Error> {
        let tail = self.tail.as_ref().map_err(Clone::clone)?;
        let mut p = String::with_capacity(self.text.len() + tail.len());
        p.push_str(&self.text);
        p.push_str(tail);
        Ok(p)
    }

    /// The part of the prompt after [`Session::text`] (the generation prompt, or the whole
    /// prompt when renders are not continued).
    pub fn tail(&self) -> Result<&str, Error> {
        self.tail.as_deref().map_err(Clone::clone)
    }

    /// Adds a message and renders; returns the text appended to [`Session::text`].
    ///
    /// A message that is not a JSON object is refused (the session is unchanged). A template
    /// error (`raise_exception`, a type error) is returned and also kept for
    /// [`Session::prompt`]; the message stays, as it would in the request.
    pub fn push(&mut self, message: Json) -> Result<&str, Error> {
        let before = self.text.len();
        self.extend(vec![message])?;
        self.tail.as_ref().map_err(Clone::clone)?;
        // The kept text only grows, unless a session gave up continuing (then it is empty).
        Ok(self.text.get(before..).unwrap_or(""))
    }

    /// Adds messages and renders once.
    fn extend(&mut self, messages: Vec<Json>) -> Result<(), Error> {
        let index = self.len();
        for (i, m) in messages.iter().enumerate() {
            if !m.is_object() {
                return Err(err!(
                    Input,
                    "message {}: chat messages must be objects, got {m}",
                    index + i
                ));
            }
        }
        if let Json::Array(list) = &mut self.messages {
            // Room to grow by doubling, so that pushes do not copy the list.
            list.reserve(messages.len().max(list.len()));
            list.extend(
                messages
                    .into_iter()
                    .map(|m| prepare_message(m, self.inc.drop_none)),
            );
        }
        self.render();
        Ok(())
    }

    /// Renders the conversation: continued from the checkpoint when there is one, else in
    /// full.
    fn render(&mut self) {
        let sources = Sources {
            messages: &self.messages,
            request: &self.request,
            extra: self.inc.special_tokens,
        };
        let mut out = String::new();
        let cp = if self.continued {
            self.checkpoint.take()
        } else {
            None
        };
        let r = self.inc.render(sources, self.now, cp.as_ref(), &mut out);
        if !self.continued {
            self.tail = r.result.map(|()| out);
            return;
        }
        let full = cp.is_none();
        // Where the kept text ends in `out`: where the loop ran out; without that (the loop
        // ended early, or the render failed before), a continued render keeps nothing new
        // and a full render keeps what was kept before.
        let keep = match (r.out_at, full) {
            (Some(at), _) => at,
            (None, false) => 0,
            (None, true) if r.result.is_ok() => self.text.len(),
            (None, true) => {
                self.tail = r.result.map(|()| String::new());
                return;
            }
        };
        let Some(new_text) = out.get(..keep) else {
            return self.give_up();
        };
        if !full {
            self.text.push_str(new_text);
        } else if new_text.starts_with(self.text.as_str()) {
            // A full render must extend what was kept (the analysis guarantees it). Room to
            // grow by doubling, so that pushes do not copy the text.
            self.text.clear();
            self.text.reserve(2 * new_text.len());
            self.text.push_str(new_text);
        } else {
            return self.give_up();
        }
        self.checkpoint = r.checkpoint;
        self.tail = r.result.map(|()| out[keep..].to_string());
    }

    /// Stops continuing renders (a full render contradicted the kept text: never seen) and
    /// renders in full.
    fn give_up(&mut self) {
        self.continued = false;
        self.text.clear();
        self.checkpoint = None;
        self.render();
    }
}

/// A message as the template sees it: `thinking` and `reasoning_content` both set to the
/// first non-null reasoning field, null keys dropped with `drop_none` (transformers'
/// aliasing, done once per message instead of once per render).
fn prepare_message(m: Json, drop_none: bool) -> Json {
    let Json::Object(obj) = m else {
        return m;
    };
    let reasoning = super::REASONING_FIELDS
        .iter()
        .find_map(|k| obj.get(*k).filter(|v| !v.is_null()))
        .cloned();
    let has_null = drop_none && obj.values().any(Json::is_null);
    let Some(reasoning) = reasoning else {
        if !has_null {
            return Json::Object(obj);
        }
        return Json::Object(obj.into_iter().filter(|(_, v)| !v.is_null()).collect());
    };
    let mut out = Map::with_capacity(obj.len() + 2);
    out.insert("thinking".to_string(), reasoning.clone());
    for (k, v) in obj {
        if !(drop_none && v.is_null()) {
            out.insert(k, v);
        }
    }
    out.insert("reasoning_content".to_string(), reasoning);
    Json::Object(out)
}

fn line_col(source: &str, offset: usize) -> (u32, u32) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() as u32 + 1;
    let col = before[line_start..].chars().count() as u32 + 1;
    (line, col)
}
