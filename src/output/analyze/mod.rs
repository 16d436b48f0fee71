//! Template analysis: a chat template rendered with controlled differences (with and without
//! reasoning, content, one and two tool calls, generation prompt on and off, `enable_thinking`
//! on and off), the renders compared, and the output format described as a [`FormatSpec`].
//! See docs/analysis.md.
//!
//! ```
//! use chatcodec::chat::ChatTemplate;
//! use chatcodec::output::analyze::analyze;
//! let src = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}\
//!     {% for c in m.tool_calls or [] %}<tool_call>\n{{ {'name': c.function.name, \
//!     'arguments': c.function.arguments} | tojson }}\n</tool_call>{% endfor %}<|im_end|>\n\
//!     {% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
//! let t = ChatTemplate::new("default", src, Default::default()).unwrap();
//! let spec = analyze(&t);
//! assert_eq!(spec.end_of_turn.as_deref(), Some("<|im_end|>"));
//! assert_eq!(spec.format.as_deref(), Some("hermes"));
//! ```

mod check;
mod messages;
mod parser;
mod prefix;
mod probe;
mod reasoning;
mod text;
mod tools;
mod typing;

pub use check::{difference, loose_difference, options_for, Case};
pub use probe::assistant_part;

use crate::chat::ChatTemplate;
use crate::output::formats::Format;
use crate::output::spec::{ChannelSpec, FormatSpec, ReasoningSpec};
use crate::{Error, ErrorKind};
use probe::{Prober, CONTENT, REASONING};
use serde_json::{Map, Value};

/// The description of a template's output format, with the probe turns it was checked on.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The format.
    pub spec: FormatSpec,
    /// The rendered probe turns (assistant part, end of turn removed) and what each holds.
    pub cases: Vec<Case>,
}

/// Analyses `template` (rendered with its special tokens; `bos_token` and `eos_token` default
/// to `<s>` and `</s>`). Never fails: a template that defeats analysis gets a spec whose
/// confidence and notes say so.
pub fn analyze(template: &ChatTemplate) -> FormatSpec {
    analyze_with_cases(template).spec
}

/// [`analyze`], also returning the probe turns.
pub fn analyze_with_cases(template: &ChatTemplate) -> Analysis {
    let mut kwargs = Map::new();
    for (k, v) in [("bos_token", "<s>"), ("eos_token", "</s>")] {
        if !template.special_tokens().contains_key(k) {
            kwargs.insert(k.into(), Value::String(v.into()));
        }
    }
    let mut p = Prober {
        template,
        kwargs,
        system: true,
    };
    if p.prompt(true, &[]).is_none() {
        p.system = false;
    }
    if p.prompt(true, &[]).is_none() {
        return defeated(
            "the template raises on every probe (a system and user turn, or a user turn)",
        );
    }
    let Some(found) = reasoning::analyze(&p) else {
        return defeated("the template renders no assistant turn with the probe content");
    };
    let mut notes = found.notes;
    let mut confidence: f32 = if found.unsure { 0.6 } else { 1.0 };
    let eot = found.end_of_turn.clone();
    let kw = found.kwargs.clone();
    let close = found.reasoning.markers.as_ref().map(|m| m.close.clone());
    let mut tools = tools::analyze(&p, eot.as_deref(), close.as_deref(), &kw);
    let mut cases = Vec::new();
    let plain = p.assistant(&turn(None, CONTENT), &kw);
    // Reasoning, the answer and each call as messages of their own: the calls are described
    // with the message headers taken out.
    let layout = plain
        .as_ref()
        .and_then(|pl| message_layout(&p, &pl.assistant, tools.as_ref(), eot.as_deref(), &kw));
    if let Some(ms) = &layout {
        let clean = |t: &str| messages::strip_headers(t, ms);
        tools = tools::analyze_cleaned(&p, eot.as_deref(), None, &kw, &clean);
    }
    if let Some(r) = &plain {
        cases.push(Case::new(&r.assistant, eot.as_deref(), "", CONTENT, &[]));
    }
    let reasoned = p.assistant(&turn(Some(REASONING), CONTENT), &kw);
    if let Some(r) = &reasoned {
        if r.assistant.contains(REASONING) {
            cases.push(Case::new(
                &r.assistant,
                eot.as_deref(),
                REASONING,
                CONTENT,
                &[],
            ));
        }
    }
    let channels = reasoned.as_ref().and_then(|r| channels(&r.assistant));
    let mut tool_spec = None;
    match tools {
        Some(mut t) => {
            notes.extend(t.notes);
            if t.unsure {
                confidence -= 0.2;
            }
            if let Some(r) = p.assistant(&t.turn, &kw) {
                let content = t.turn.content.as_deref().unwrap_or_default();
                // A group marker with no opening one ends the turn (`<|eom_id|>`).
                let end = match &t.spec.section {
                    Some(m) if m.open.is_empty() && !m.close.is_empty() => {
                        notes.push(format!("turns with tool calls end with {}", m.close));
                        Some(m.close.as_str())
                    }
                    _ => eot.as_deref(),
                };
                cases.push(Case::new(&r.assistant, end, "", content, &t.turn.calls));
                typing::refine(&mut t.spec, &r.assistant, &t.turn.calls, &mut notes);
            }
            let mut ts = t.spec;
            if let Some(c) = &found.content {
                strip_empty_content(&mut ts, c);
            }
            tool_spec = Some(ts);
        }
        None => {
            notes.push("no tool-call syntax: the template does not render the probe calls".into())
        }
    }
    let mut spec = FormatSpec {
        format: None,
        end_of_turn: eot,
        reasoning: found.reasoning,
        content: found.content,
        tools: tool_spec,
        channels,
        confidence: 0.0,
        notes,
        prompt_prefix: None,
        messages: None,
    };
    if spec.channels.is_some() {
        spec.reasoning = ReasoningSpec::default();
    }
    if layout.is_some() {
        // Reasoning and the answer are messages, not marked regions.
        spec.reasoning = ReasoningSpec::default();
        spec.content = None;
        spec.messages = layout;
    }
    // Harmony and message-layout turns all start with the header the prompt ends with:
    // not a prefix to skip.
    if let Some(prompt) = p
        .prompt(true, &kw)
        .filter(|_| spec.channels.is_none() && spec.messages.is_none())
    {
        spec.prompt_prefix = prefix::prompt_prefix(&prompt, &spec);
        if let Some(pp) = &spec.prompt_prefix {
            spec.notes.push(format!(
                "the generation prompt ends with {pp:?}, the start of a content or call marker"
            ));
        }
    }
    spec.format = check::name(&spec, &cases).map(str::to_string);
    if spec.tools.is_none() {
        // The template shows no calls (it drops them from the history, or has no tool
        // support in its history at all), but may still name its model's call markers, in
        // its tool instructions: the family format they name parses the model's calls.
        if let Some(f) = Format::for_template(template.source())
            .filter(|f| !crate::output::formats::NO_TOOLS.contains(&f.name()))
            .filter(|f| check::passes(f, &spec, &cases))
        {
            spec.notes.push(format!(
                "the template shows no calls, but names the markers of `{}`, whose calls it is read with",
                f.name()
            ));
            spec.format = Some(f.name().to_string());
            confidence -= 0.3;
        }
    }
    match Format::from_spec(&spec) {
        Ok(f) if check::passes(&f, &spec, &cases) => {}
        Ok(_) => {
            spec.notes.push(
                "the parser built from this description does not give back every probe".into(),
            );
            confidence -= 0.3;
        }
        Err(e) => {
            spec.notes
                .push(format!("no parser is built from this description: {e}"));
            if spec.format.is_none() {
                confidence -= 0.3;
            }
        }
    }
    if spec.format.is_none() && spec.tools.is_some() {
        spec.notes.push(
            "no hand-written format gives back every probe; the derived parser is used".into(),
        );
    }
    spec.confidence = confidence.clamp(0.0, 1.0);
    Analysis { spec, cases }
}

/// Takes out of the calls' opening marker an empty answer the probe with no content left
/// before them: the content's opening marker (a role label such as `助手：`, which a turn
/// with calls need not write) or an empty wrapper (`<|open|>response<|sep|><|close|>response<|sep|>`).
fn strip_empty_content(
    t: &mut crate::output::spec::ToolCallSpec,
    c: &crate::output::spec::Markers,
) {
    let strip = |open: &str| -> Option<String> {
        let rest = open.trim_start().strip_prefix(c.open.trim())?.trim_start();
        let rest = match c.close.trim() {
            "" => rest,
            close => rest.strip_prefix(close)?,
        };
        Some(rest.trim_start().to_string())
    };
    if c.open.trim().is_empty() {
        return;
    }
    if let Some(sec) = &mut t.section {
        if let Some(rest) = strip(&sec.open) {
            sec.open = rest;
        }
        if sec.open.is_empty() && sec.close.trim().is_empty() {
            t.section = None;
        }
    } else if let Some(call) = &mut t.call {
        if let Some(rest) = strip(&call.open) {
            call.open = rest;
        }
    }
}

/// The message layout of the template, from the answer-only turn `plain`, a turn with
/// reasoning and the calls' turn (the one tool analysis rendered).
fn message_layout(
    p: &Prober<'_>,
    plain: &str,
    tools: Option<&tools::Found>,
    eot: Option<&str>,
    kw: &[(&str, Value)],
) -> Option<crate::output::spec::MessageSpec> {
    let reasoned = p
        .assistant(&turn(Some(REASONING), CONTENT), kw)
        .map(|r| r.assistant)
        .filter(|a| a.contains(REASONING));
    let called = tools
        .and_then(|t| p.assistant(&t.turn, kw))
        .map(|r| r.assistant);
    let names: Vec<&str> = tools
        .map(|t| t.turn.calls.iter().map(|c| c.name.as_str()).collect())
        .unwrap_or_default();
    messages::layout(plain, reasoned.as_deref(), called.as_deref(), &names, eot)
}

fn turn(reasoning: Option<&str>, content: &str) -> probe::Turn {
    probe::Turn {
        reasoning: reasoning.map(str::to_string),
        content: Some(content.to_string()),
        ..probe::Turn::default()
    }
}

/// A spec for a template that could not be analysed.
fn defeated(why: &str) -> Analysis {
    Analysis {
        spec: FormatSpec {
            format: None,
            end_of_turn: None,
            reasoning: ReasoningSpec::default(),
            content: None,
            tools: None,
            channels: None,
            confidence: 0.0,
            notes: vec![why.to_string()],
            prompt_prefix: None,
            messages: None,
        },
        cases: Vec::new(),
    }
}

/// The harmony channel layout, when reasoning and content are messages on named channels.
fn channels(t: &str) -> Option<ChannelSpec> {
    const CH: &str = "<|channel|>";
    const MSG: &str = "<|message|>";
    let pr = t.find(REASONING)?;
    let pc = t.find(CONTENT)?;
    let channel_before = |pos: usize| -> Option<String> {
        let c = t[..pos].rfind(CH)? + CH.len();
        let m = t[c..pos].find(MSG)? + c;
        Some(t[c..m].trim().to_string())
    };
    let end_after = |pos: usize| -> Option<String> {
        let rest = &t[pos..];
        let s = rest.find("<|")?;
        let e = rest[s..].find("|>")? + s + 2;
        Some(rest[s..e].to_string())
    };
    let reasoning_channel = channel_before(pr)?;
    let content_channel = channel_before(pc)?;
    let mut message_ends = vec![end_after(pr + REASONING.len())?];
    if let Some(e) = end_after(pc + CONTENT.len()) {
        if !message_ends.contains(&e) {
            message_ends.push(e);
        }
    }
    Some(ChannelSpec {
        message_start: "<|start|>".into(),
        channel_marker: CH.into(),
        message_marker: MSG.into(),
        message_ends,
        reasoning_channel,
        content_channel,
        tool_channel: "commentary".into(),
        recipient_prefix: " to=functions.".into(),
    })
}

impl Format {
    /// The parser built from `spec` alone (its markers and call syntax), whatever format it
    /// names. Fails when the spec has no way to tell calls from content, or describes a layout
    /// only a hand-written format parses (harmony channels).
    pub fn from_spec(spec: &FormatSpec) -> Result<Format, Error> {
        let g = parser::grammar(spec).map_err(|e| Error::new(ErrorKind::Input, e))?;
        Format::from_derived_grammar("derived", &g, &[])
    }

    /// The parser for `spec`: the hand-written format it names, else the one built from it.
    pub fn for_spec(spec: &FormatSpec) -> Result<Format, Error> {
        match &spec.format {
            Some(name) => Format::by_name(name),
            None => Format::from_spec(spec),
        }
    }
}

/// The grammar text (after `grammar/common.peg`) of the parser built from `spec`.
pub fn spec_grammar(spec: &FormatSpec) -> Result<String, Error> {
    parser::grammar(spec).map_err(|e| Error::new(ErrorKind::Input, e))
}

/// The first literal of a `response_template` anchor (`"open": "<think>"` or a list).
fn anchor(field: &Value, key: &str) -> Option<String> {
    match field.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => a.iter().find_map(|v| v.as_str().map(str::to_string)),
        _ => None,
    }
}

/// Puts the markers of a model's own output description (tokenizer_config.json's
/// `response_template`: fields with `open`/`close` literals) over the analysed ones: the
/// reasoning field (`thinking`, `reasoning_content`, `reasoning`), `content`, and `tool_calls`
/// (per-call markers). `key` is the config key it came from; the legacy `response_schema`
/// (regular expressions, dropped by transformers) is only noted.
pub fn apply_response_template(spec: &mut FormatSpec, key: &str, template: &Value) {
    use crate::output::spec::{Markers, ReasoningMode};
    if key != "response_template" {
        spec.notes.push(format!(
            "tokenizer_config.json has a legacy {key} (transformers ignores it); not used"
        ));
        return;
    }
    let Some(fields) = template.get("fields").and_then(Value::as_object) else {
        spec.notes
            .push("tokenizer_config.json's response_template has no fields; not used".into());
        return;
    };
    let mut used = Vec::new();
    for name in ["thinking", "reasoning_content", "reasoning"] {
        let Some(f) = fields.get(name) else { continue };
        let open = anchor(f, "open");
        let close = anchor(f, "close").unwrap_or_default();
        spec.reasoning = ReasoningSpec {
            mode: if open.is_some() {
                ReasoningMode::Tag
            } else {
                ReasoningMode::ForcedOpen
            },
            markers: Some(Markers {
                open: open.unwrap_or_default(),
                close,
            }),
        };
        used.push(name);
        break;
    }
    if let Some(f) = fields.get("content") {
        if let Some(open) = anchor(f, "open") {
            spec.content = Some(Markers {
                open,
                close: anchor(f, "close").unwrap_or_default(),
            });
            used.push("content");
        }
    }
    if let (Some(f), Some(t)) = (fields.get("tool_calls"), spec.tools.as_mut()) {
        if let Some(open) = anchor(f, "open") {
            t.call = Some(Markers {
                open,
                close: anchor(f, "close").unwrap_or_default(),
            });
            used.push("tool_calls");
        }
    }
    if !used.is_empty() {
        // The model's own markers: the parser is built from them.
        spec.format = None;
    }
    spec.notes.push(format!(
        "markers of {} from tokenizer_config.json's response_template",
        if used.is_empty() {
            "no field".to_string()
        } else {
            used.join(", ")
        }
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn response_template_markers_win() {
        let src = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n\
                   {% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
        let t = ChatTemplate::new("default", src, Map::new()).unwrap();
        let mut spec = analyze(&t);
        assert_eq!(spec.end_of_turn.as_deref(), Some("<|im_end|>"));
        assert!(spec.tools.is_none());
        let rt = json!({"version": 1, "start_anchor": "<|im_start|>assistant\n",
            "fields": {"thinking": {"open": "<think>", "close": "</think>"},
                       "content": {"content": "text"}}});
        apply_response_template(&mut spec, "response_template", &rt);
        let m = spec.reasoning.markers.as_ref().unwrap();
        assert_eq!((m.open.as_str(), m.close.as_str()), ("<think>", "</think>"));
        assert!(spec.notes.iter().any(|n| n.contains("response_template")));
        let f = Format::for_spec(&spec).unwrap();
        let msg = crate::output::parse(&f, "<think>hm</think>Hi");
        assert_eq!((msg.reasoning.as_str(), msg.content.as_str()), ("hm", "Hi"));
    }

    #[test]
    fn spec_built_parsers_read_every_shape_and_typed_middle() {
        let built = |name: &str| {
            let mut spec = Format::by_name(name).unwrap().spec();
            spec.format = None;
            Format::from_spec(&spec).unwrap()
        };
        let calls = |f: &Format, text: &str| -> Vec<(String, Value)> {
            crate::output::parse(f, text)
                .tool_calls
                .iter()
                .map(|c| (c.name.clone(), serde_json::from_str(&c.arguments).unwrap()))
                .collect()
        };
        let want = vec![("f".to_string(), json!({"a": "x y", "n": 2}))];
        let ds = built("deepseek-v3.2");
        for section in ["function_calls", "tool_calls"] {
            let t = format!(
                "Hi<｜DSML｜{section}>\n<｜DSML｜invoke name=\"f\">\n\
                 <｜DSML｜parameter name=\"a\" string=\"true\">x y</｜DSML｜parameter>\n\
                 <｜DSML｜parameter name=\"n\" string=\"false\">2</｜DSML｜parameter>\n\
                 </｜DSML｜invoke>\n</｜DSML｜{section}>"
            );
            assert_eq!(calls(&ds, &t), want, "{section}");
        }
        let kimi = built("kimi-k3");
        let t = "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|>\
                 <|open|>argument key=\"a\" type=\"string\"<|sep|>x y<|close|>argument<|sep|>\
                 <|open|>argument key=\"n\" type=\"number\"<|sep|>2<|close|>argument<|sep|>\
                 <|close|>call<|sep|><|close|>tools<|sep|>";
        assert_eq!(calls(&kimi, t), want);
        let mm = built("minimax-m3");
        let t = "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">\
                 ]<]minimax[>[<a>x y]<]minimax[>[</a>]<]minimax[>[<n>2]<]minimax[>[</n>\
                 ]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>";
        let got = calls(&mm, t);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1["a"], "x y");
        let t = "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">x y</parameter>\n</invoke></minimax:tool_call>";
        assert_eq!(calls(&mm, t)[0].1["a"], "x y");
        // A shape the spec-built parser cannot read is an error, not a silent drop.
        let mut phi = Format::by_name("phi4-mini").unwrap().spec();
        phi.format = None;
        assert!(Format::from_spec(&phi).is_err());
    }

    #[test]
    fn calls_as_messages_of_their_own() {
        // Muse's layout with other markers and JSON call bodies: each call is a message
        // addressed to the function.
        let src = "{% for m in messages %}<|begin|>{{ m.role }}{% if m.role == 'assistant' %}\
            {% if m.reasoning_content %} @think<|body|>{{ m.reasoning_content }}<|done|><|begin|>assistant{% endif %}\
            {% if m.tool_calls %}{% for c in m.tool_calls %}{% if not loop.first %}<|done|><|begin|>assistant{% endif %}\
             @{{ c.function.name }}<|body|>{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}\
            {% endfor %}{% else %} @user<|body|>{{ m.content }}{% endif %}\
            {% else %}<|body|>{{ m.content }}{% endif %}<|done|>{% endfor %}\
            {% if add_generation_prompt %}<|begin|>assistant{% endif %}";
        let t = ChatTemplate::new("default", src, Map::new()).unwrap();
        let spec = analyze(&t);
        let ms = spec.messages.as_ref().expect("a message layout");
        assert_eq!(ms.message_start, "<|begin|>assistant");
        assert_eq!(ms.recipient_prefix, " @");
        assert_eq!(ms.message_marker, "<|body|>");
        assert_eq!(ms.reasoning_recipient.as_deref(), Some("think"));
        assert_eq!(ms.content_recipients, vec!["user"]);
        assert!(spec.reasoning.markers.is_none() && spec.content.is_none());
        assert!(matches!(
            spec.tools.as_ref().map(|t| &t.syntax),
            Some(crate::output::spec::CallSyntax::JsonObject { .. })
        ));
        let f = Format::from_spec(&spec).unwrap();
        let out = " @think<|body|>hm<|done|><|begin|>assistant @f<|body|>{\"name\": \"f\", \"arguments\": {\"a\": 1}}\
                   <|done|><|begin|>assistant @g<|body|>{\"name\": \"g\", \"arguments\": {}}<|done|>";
        let msg = crate::output::parse(&f, out);
        assert_eq!(msg.reasoning, "hm");
        assert_eq!(msg.content, "");
        let calls: Vec<_> = msg
            .tool_calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(calls, vec![("f", "{\"a\": 1}"), ("g", "{}")]);
        let msg = crate::output::parse(&f, " @user<|body|>Hi there.<|done|>");
        assert_eq!(msg.content, "Hi there.");
    }

    #[test]
    fn a_role_label_the_history_writes_is_read_when_the_model_writes_it() {
        // Hunyuan A13B's twist with another label: history turns start the answer with a
        // role label the generation prompt does not write (the model writes it).
        let src =
            "{% for m in messages %}<|{{ m.role }}|>{% if m.role == 'assistant' %}Bot: {% endif %}\
            {{ m.content }}{% for c in m.tool_calls or [] %}<call>{{ {'name': c.function.name, \
            'arguments': c.function.arguments} | tojson }}</call>{% endfor %}<|end|>{% endfor %}\
            {% if add_generation_prompt %}<|assistant|>{% endif %}";
        let t = ChatTemplate::new("default", src, Map::new()).unwrap();
        let spec = analyze(&t);
        assert_eq!(spec.content.as_ref().map(|m| m.open.as_str()), Some("Bot:"));
        let f = Format::for_spec(&spec).unwrap();
        for out in ["Bot: Hello.", "Hello."] {
            assert_eq!(crate::output::parse(&f, out).content, "Hello.", "{out}");
        }
        let m = crate::output::parse(
            &f,
            "Bot: On it.<call>{\"name\": \"f\", \"arguments\": {}}</call>",
        );
        assert_eq!((m.content.as_str(), m.tool_calls.len()), ("On it.", 1));
    }

    #[test]
    fn defeated_templates_say_so() {
        let t = ChatTemplate::new("default", "{{ raise_exception('no') }}", Map::new()).unwrap();
        let spec = analyze(&t);
        assert_eq!(spec.confidence, 0.0);
        assert!(!spec.notes.is_empty());
        let t = ChatTemplate::new("default", "", Map::new()).unwrap();
        let spec = analyze(&t);
        assert_eq!(spec.confidence, 0.0);
        assert!(spec.tools.is_none());
    }
}
