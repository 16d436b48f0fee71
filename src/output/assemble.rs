//! Turns machine captures into events: text, tool-call headers once the name is known,
//! argument text as a growing prefix of the final JSON string (XML-style parameters are
//! converted to JSON as they stream), and malformed regions.

use super::convert::{
    command_args, dict_to_json, dump2, escape_into, may_be_json, python_to_json, quote,
    string_args, typed, xml_to_json,
};
use super::event::Event;
use super::peg::{Kind, Sink};
use super::typing::{convert, may_be_null_word, ToolTypes, Ty};
use std::sync::Arc;

#[derive(Debug, Default)]
struct Call {
    index: usize,
    name: Option<String>,
    id: Option<String>,
    started: bool,
    /// The header waits for the end of the call.
    hold: bool,
    /// Argument text produced before the header could be sent.
    pending: String,
    /// Bytes of argument text produced.
    args_len: usize,
    /// Parameters written in the converted (tagged) form; `Some` once `{` was written.
    params: Option<usize>,
    /// A parameter's key was written and its value has not opened yet.
    awaiting_value: bool,
    /// The content's length in bytes when the header was sent.
    content_at: usize,
}

#[derive(Debug)]
enum Val {
    /// A guessed value: whitespace only so far.
    Undecided(String),
    /// A guessed value that may be JSON: buffered until complete.
    Typed(String),
    /// A string value, streamed; the opening quote is written.
    Str,
    /// Known JSON, buffered.
    Json(String),
    /// A Python literal, buffered.
    Py(String),
    /// Gemma dict arguments, buffered.
    Dict(String),
    /// MiniMax-M3 nested elements, buffered.
    Xml(String),
    /// A string that may be null (its schema allows both): held while it may still be
    /// `null`/`None`.
    Nullable(String),
    /// A value of a non-string schema type, buffered until complete.
    Schema(Ty, String),
    /// Arguments written as a JSON string, buffered.
    SArgs(String),
    /// Arguments written as a command line, buffered.
    Command(String),
}

/// The capture sink of a stream: collects events until the caller takes them.
#[derive(Debug)]
pub(crate) struct Assembler {
    events: Vec<Event>,
    count: usize,
    open: Vec<Kind>,
    call: Option<Call>,
    next_index: usize,
    id_seed: u64,
    name: String,
    id: String,
    key: String,
    val: Option<Val>,
    /// The text of an open `jcontent` capture.
    jtext: String,
    /// Parameter types from the request's tool schemas.
    types: Option<Arc<ToolTypes>>,
    /// The schema type of the current parameter (`None` without schemas).
    param_ty: Option<Ty>,
    /// Announced calls the output broke (see [`Sink::recover`]).
    broken: Vec<Broken>,
    /// Bytes of content produced.
    content_len: usize,
}

/// An announced tool call that the output broke before its end.
#[derive(Debug)]
pub(crate) struct Broken {
    /// The call's index.
    pub(crate) index: usize,
    /// Its input text, opening markers included, up to where the break's own text starts.
    pub(crate) text: String,
    /// Whether the call stays a call when its arguments so far are complete JSON (false
    /// when it had no arguments: the `{}` it was closed with is not the model's).
    pub(crate) keep_if_json: bool,
    /// Where its text goes back: the length in bytes of the content the events had made
    /// when the call started.
    pub(crate) content_at: usize,
}

impl Assembler {
    pub(crate) fn new(id_seed: u64) -> Assembler {
        Assembler {
            events: Vec::new(),
            count: 0,
            open: Vec::new(),
            call: None,
            next_index: 0,
            id_seed,
            name: String::new(),
            id: String::new(),
            key: String::new(),
            jtext: String::new(),
            val: None,
            types: None,
            param_ty: None,
            broken: Vec::new(),
            content_len: 0,
        }
    }

    /// Types parameter values by the request's tool schemas.
    pub(crate) fn set_types(&mut self, types: Arc<ToolTypes>) {
        self.types = Some(types);
    }

    /// The state of a parameter value opened with `kind` (`value` or `pvalue`), by the
    /// current parameter's schema type.
    fn open_value(&mut self, kind: Kind) {
        self.val = Some(match self.param_ty {
            Some(ty) if ty.nullable_string() => Val::Nullable(String::new()),
            Some(ty) if ty.string() || (ty.untyped() && kind == Kind::PValue) => {
                self.args("\"");
                Val::Str
            }
            Some(ty) if !ty.untyped() => Val::Schema(ty, String::new()),
            _ => Val::Undecided(String::new()),
        });
    }

    /// Takes the events produced since the last call.
    pub(crate) fn take(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// Whether an announced call broke since the last [`Assembler::take_broken`].
    pub(crate) fn has_broken(&self) -> bool {
        !self.broken.is_empty()
    }

    /// The announced calls the output broke since the last call, in order.
    pub(crate) fn take_broken(&mut self) -> Vec<Broken> {
        std::mem::take(&mut self.broken)
    }

    fn push(&mut self, e: Event) {
        self.count += 1;
        if let Event::Content(text) = &e {
            self.content_len += text.len();
        }
        match (self.events.last_mut(), e) {
            (Some(Event::Content(a)), Event::Content(b)) => a.push_str(&b),
            (Some(Event::Reasoning(a)), Event::Reasoning(b)) => a.push_str(&b),
            (
                Some(Event::ToolCallArgs { index: i, text: a }),
                Event::ToolCallArgs { index, text },
            ) if *i == index => a.push_str(&text),
            (_, e) => self.events.push(e),
        }
    }

    fn generated_id(&self, index: usize) -> String {
        // splitmix64 of (seed, index): deterministic for a given seed.
        let mut z = self
            .id_seed
            .wrapping_add((index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        format!("call_{z:016x}")
    }

    fn call_mut(&mut self) -> &mut Call {
        let next = &mut self.next_index;
        self.call.get_or_insert_with(|| {
            let index = *next;
            *next += 1;
            Call {
                index,
                ..Call::default()
            }
        })
    }

    /// Sends the header if the name is known, then any argument text held for it.
    fn start(&mut self) {
        let Some(c) = &self.call else { return };
        if c.started || c.name.is_none() || c.hold {
            return;
        }
        let index = c.index;
        let id = c.id.clone().unwrap_or_else(|| self.generated_id(index));
        let name = c.name.clone().unwrap_or_default();
        self.push(Event::ToolCallStart { index, id, name });
        let content_at = self.content_len;
        let pending = match &mut self.call {
            Some(c) => {
                c.started = true;
                c.content_at = content_at;
                std::mem::take(&mut c.pending)
            }
            None => String::new(),
        };
        if !pending.is_empty() {
            self.push(Event::ToolCallArgs {
                index,
                text: pending,
            });
        }
    }

    fn args(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        let c = self.call_mut();
        c.args_len += s.len();
        if c.started {
            let index = c.index;
            self.push(Event::ToolCallArgs {
                index,
                text: s.to_string(),
            });
        } else {
            c.pending.push_str(s);
            // The header goes out with the first argument byte, not when the capture opens:
            // arguments that fail before any byte (a stray marker in prose) are no call.
            self.start();
        }
    }

    /// Writes `null` for a parameter whose key was written but whose value never opened (the
    /// output broke between them), so that the arguments stay JSON.
    fn fill_missing_value(&mut self) {
        if let Some(c) = &mut self.call {
            if std::mem::take(&mut c.awaiting_value) {
                self.args("null");
            }
        }
    }

    fn end_value(&mut self) {
        let out = match self.val.take() {
            None => return,
            Some(Val::Undecided(s)) => quote(&s),
            Some(Val::Typed(s)) => typed(&s),
            Some(Val::Str) => "\"".to_string(),
            Some(Val::Json(s)) => typed(&s),
            Some(Val::Py(s)) => {
                let (json, overflow) = python_to_json(&s);
                if overflow {
                    self.push(Event::Malformed {
                        at: 0,
                        reason: "a number JSON cannot hold, kept as a string".into(),
                    });
                }
                json
            }
            Some(Val::Dict(s)) => dict_to_json(&s),
            Some(Val::Xml(s)) => match self.param_ty {
                // Elements are converted as such; a plain value is typed by the schema.
                Some(ty) if !s.trim_start().starts_with("]<]minimax[>[") => convert(ty, &s),
                _ => xml_to_json(&s),
            },
            Some(Val::Nullable(s)) => convert(self.param_ty.unwrap_or_default(), &s),
            Some(Val::Schema(ty, s)) => convert(ty, &s),
            Some(Val::SArgs(s)) => string_args(&s),
            Some(Val::Command(s)) => command_args(&s),
        };
        self.args(&out);
    }

    fn value_text(&mut self, s: &str) {
        let mut out = String::new();
        match &mut self.val {
            None => {}
            Some(Val::Str) => escape_into(&mut out, s),
            Some(Val::Json(b))
            | Some(Val::Py(b))
            | Some(Val::Typed(b))
            | Some(Val::Dict(b))
            | Some(Val::Xml(b))
            | Some(Val::Schema(_, b))
            | Some(Val::SArgs(b))
            | Some(Val::Command(b)) => b.push_str(s),
            Some(Val::Nullable(b)) => {
                b.push_str(s);
                if !may_be_null_word(b.trim()) {
                    out.push('"');
                    escape_into(&mut out, b);
                    self.val = Some(Val::Str);
                }
            }
            Some(Val::Undecided(b)) => {
                b.push_str(s);
                if let Some(c) = b.chars().find(|c| !c.is_whitespace()) {
                    if may_be_json(c) {
                        self.val = Some(Val::Typed(std::mem::take(b)));
                    } else {
                        out.push('"');
                        escape_into(&mut out, b);
                        self.val = Some(Val::Str);
                    }
                }
            }
        }
        self.args(&out);
    }

    /// Whether `kind` opens the whole arguments of a call that has some already.
    fn arguments_again(&self, kind: Kind) -> bool {
        let Some(c) = &self.call else { return false };
        let written = c.args_len > 0 || c.params.is_some();
        match kind {
            Kind::Args | Kind::SArgs | Kind::Dict => written,
            // A Python value is the whole arguments when no parameter key is open.
            Kind::PyValue => written && c.params.is_none(),
            _ => false,
        }
    }

    fn end_call(&mut self) {
        self.end_value();
        self.fill_missing_value();
        let Some(c) = &self.call else { return };
        let (params, args_len) = (c.params, c.args_len);
        if c.name.is_none() {
            // A call without a name cannot be reported as one.
            let c = self.call.take();
            if let Some(c) = c {
                if !c.pending.is_empty() {
                    self.push(Event::Content(c.pending));
                }
                self.push(Event::Malformed {
                    at: 0,
                    reason: "tool call without a name".into(),
                });
                self.next_index = self.next_index.saturating_sub(1);
            }
            return;
        }
        if let Some(c) = &mut self.call {
            c.hold = false;
        }
        self.start();
        match params {
            Some(_) => self.args("}"),
            None if args_len == 0 => self.args("{}"),
            None => {}
        }
        if let Some(c) = self.call.take() {
            self.push(Event::ToolCallEnd { index: c.index });
        }
    }
}

impl Sink for Assembler {
    fn open(&mut self, kind: Kind) {
        if self.arguments_again(kind) {
            // A call's arguments are written once: a second arguments member of the same
            // call (`"arguments"` and `"parameters"`, or a repeated key) is not appended,
            // which would make them invalid JSON; the first one stands.
            return;
        }
        if kind.is_value() {
            if let Some(c) = &mut self.call {
                c.awaiting_value = false;
            }
        }
        match kind {
            Kind::Call | Kind::WholeCall => {
                if self.call.is_some() {
                    self.end_call();
                }
                self.call_mut().hold = kind == Kind::WholeCall;
            }
            Kind::Name => self.name.clear(),
            Kind::Id => self.id.clear(),
            Kind::Key => self.key.clear(),
            Kind::Args => {
                self.call_mut();
            }
            Kind::Value | Kind::PValue => self.open_value(kind),
            Kind::SValue => match self.param_ty {
                // The request's schema types the value over the format's own string mark
                // (DSML's string="true" on an integer parameter), as vLLM reads it.
                Some(ty) if !ty.untyped() && !ty.string() && !ty.nullable_string() => {
                    self.val = Some(Val::Schema(ty, String::new()));
                }
                _ => {
                    self.val = Some(Val::Str);
                    self.args("\"");
                }
            },
            Kind::JValue => self.val = Some(Val::Json(String::new())),
            Kind::PyValue => self.val = Some(Val::Py(String::new())),
            Kind::XValue => self.val = Some(Val::Xml(String::new())),
            Kind::JContent | Kind::JDump => self.jtext.clear(),
            Kind::Dict => {
                self.call_mut();
                self.val = Some(Val::Dict(String::new()));
            }
            Kind::SArgs => {
                self.call_mut();
                self.val = Some(Val::SArgs(String::new()));
            }
            Kind::Command => {
                self.call_mut();
                self.val = Some(Val::Command(String::new()));
            }
            Kind::Content | Kind::Reasoning => {}
        }
        if kind.has_text() {
            self.open.push(kind);
        }
    }

    fn text(&mut self, s: &str) {
        for i in 0..self.open.len() {
            match self.open[i] {
                Kind::Content => self.push(Event::Content(s.to_string())),
                Kind::Reasoning => self.push(Event::Reasoning(s.to_string())),
                Kind::Name => self.name.push_str(s),
                Kind::Id => self.id.push_str(s),
                Kind::Key => self.key.push_str(s),
                Kind::Args => self.args(s),
                Kind::Value
                | Kind::PValue
                | Kind::SValue
                | Kind::JValue
                | Kind::PyValue
                | Kind::Dict
                | Kind::XValue
                | Kind::SArgs
                | Kind::Command => self.value_text(s),
                Kind::JContent | Kind::JDump => self.jtext.push_str(s),
                Kind::Call | Kind::WholeCall => {}
            }
        }
    }

    fn close(&mut self, kind: Kind) {
        if let Some(i) = self.open.iter().rposition(|&k| k == kind) {
            self.open.remove(i);
        }
        match kind {
            Kind::Call | Kind::WholeCall => self.end_call(),
            Kind::Name => {
                // A blank name is no name: the call is not announced (the machine fails it).
                let name = unescape_entities(self.name.trim());
                let call = self.call_mut();
                if !name.is_empty() {
                    call.name = Some(name);
                }
            }
            Kind::Id => {
                let id = self.id.trim().to_string();
                self.call_mut().id = Some(id);
            }
            Kind::Key => {
                self.end_value();
                self.fill_missing_value();
                let key = unescape_entities(self.key.trim());
                self.param_ty = self.types.as_ref().map(|t| {
                    let tool = self.call.as_ref().and_then(|c| c.name.as_deref());
                    tool.map_or_else(Ty::default, |tool| t.param(tool, &key))
                });
                let key = quote(&key);
                let c = self.call_mut();
                let sep = match c.params {
                    None => "{",
                    Some(_) => ", ",
                };
                c.params = Some(c.params.map_or(1, |n| n + 1));
                self.start();
                self.args(&format!("{sep}{key}: "));
                self.call_mut().awaiting_value = true;
            }
            Kind::Value
            | Kind::PValue
            | Kind::SValue
            | Kind::JValue
            | Kind::PyValue
            | Kind::Dict
            | Kind::XValue
            | Kind::SArgs
            | Kind::Command => self.end_value(),
            Kind::JContent => {
                let raw = std::mem::take(&mut self.jtext);
                // The grammar matched a JSON string's inside; keep the raw text if it does
                // not decode (nothing is lost).
                let text = serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or(raw);
                if !text.is_empty() {
                    self.push(Event::Content(text));
                }
            }
            Kind::JDump => {
                let raw = std::mem::take(&mut self.jtext);
                let text = match serde_json::from_str::<serde_json::Value>(&raw) {
                    Ok(v) => {
                        let mut out = String::new();
                        dump2(&mut out, &v, 0);
                        out
                    }
                    Err(_) => raw,
                };
                if !text.is_empty() {
                    self.push(Event::Content(text));
                }
            }
            Kind::Args | Kind::Content | Kind::Reasoning => {}
        }
    }

    fn recover(&mut self, raw: &str, at: usize, reason: &str, call: &str) {
        self.open.clear();
        match &self.call {
            Some(c) if c.started => {
                // A call broken before any of its arguments was read has none to keep, nor
                // one broken between a parameter's key and its value.
                let whole = (c.args_len > 0 || c.params.is_some()) && !c.awaiting_value;
                self.broken.push(Broken {
                    index: c.index,
                    text: call.to_string(),
                    keep_if_json: whole,
                    content_at: c.content_at,
                });
                self.end_call();
            }
            Some(_) => {
                // Not announced yet: its text is part of `raw`.
                self.call = None;
                self.val = None;
                self.next_index = self.next_index.saturating_sub(1);
            }
            None => {}
        }
        if !raw.is_empty() {
            self.push(Event::Content(raw.to_string()));
        }
        self.push(Event::Malformed {
            at,
            reason: reason.to_string(),
        });
    }

    fn emitted(&self) -> usize {
        self.count
    }
}

/// XML character entities in an attribute value (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;`,
/// as Kimi K3's template escapes `tool="…"` and `key="…"`) replaced by their characters.
fn unescape_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let known = [
            ("&amp;", '&'),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&quot;", '"'),
            ("&apos;", '\''),
        ];
        match known.iter().find(|(e, _)| rest.starts_with(e)) {
            Some((e, c)) => {
                out.push(*c);
                rest = &rest[e.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
