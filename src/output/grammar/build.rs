//! A [`FormatSpec`] plus the request's tools to grammar rules for a whole assistant turn (or,
//! lazily, for the tool calls from their trigger on).
//!
//! Layout: optional whitespace, reasoning as the format writes it (free text up to its close
//! marker), then content and calls as `tool_choice` allows. Free text is any text that does not
//! contain the call opener. Whitespace inside and around markers is optional (templates differ
//! in newlines); names, keys and values are exact.

use super::ir::{Expr, Rules};
use super::schema::{self, Member, Style};
use super::values;
use super::{GrammarOptions, Tool, ToolChoice, Trigger, TriggerKind};
use crate::output::spec::{
    CallSyntax, FormatSpec, IdSpec, Markers, ReasoningMode, ToolCallSpec, ValueTyping, ValueWriting,
};
use crate::{Error, ErrorKind};

pub(super) fn err(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Input, msg)
}

/// The open and close markers of `m` as expressions; empty when there are none.
pub(super) fn marks(r: &mut Rules, m: Option<&Markers>) -> (Expr, Expr) {
    match m {
        Some(m) => (mark(r, &m.open), mark(r, &m.close)),
        None => (Expr::Empty, Expr::Empty),
    }
}

/// A marker with its outer whitespace dropped and inner whitespace runs made optional.
pub(super) fn mark(r: &mut Rules, s: &str) -> Expr {
    let pieces: Vec<&str> = s
        .split(char::is_whitespace)
        .filter(|p| !p.is_empty())
        .collect();
    let mut v = Vec::new();
    for (i, p) in pieces.iter().enumerate() {
        if i > 0 {
            v.push(schema::ws(r));
        }
        v.push(Expr::lit(p));
    }
    Expr::seq(v)
}

/// The parts in order with optional whitespace between two non-empty parts.
pub(super) fn cat(r: &mut Rules, parts: Vec<Expr>) -> Expr {
    let w = schema::ws(r);
    let mut v = Vec::new();
    for p in parts.into_iter().filter(|p| *p != Expr::Empty) {
        if !v.is_empty() {
            v.push(w.clone());
        }
        v.push(p);
    }
    Expr::seq(v)
}

/// The rules of a whole turn (or of the calls from their trigger, when lazy) and the triggers.
pub(crate) fn build(
    spec: &FormatSpec,
    tools: &[Tool],
    o: &GrammarOptions,
) -> Result<(Rules, Vec<Trigger>), Error> {
    let mut r = Rules::default();
    if o.tool_choice == ToolChoice::Required && tools.is_empty() {
        return Err(err(
            "tool_choice required needs tools: the request has none",
        ));
    }
    // Without tools there is nothing to call: auto means text only.
    let none = GrammarOptions {
        tool_choice: ToolChoice::None,
        ..*o
    };
    let o = if tools.is_empty() { &none } else { o };
    if o.lazy && o.tool_choice == ToolChoice::None {
        return Err(err(
            "a lazy grammar constrains tool calls; tool_choice none has none",
        ));
    }
    if let Some(ch) = &spec.channels {
        let tc = spec.tools.as_ref();
        return super::harmony::channels(&mut r, ch, tc, tools, o).map(|t| (r, t));
    }
    if let Some(ms) = &spec.messages {
        let tc = spec.tools.as_ref();
        return super::messages::messages(&mut r, ms, tc, tools, o).map(|t| (r, t));
    }
    let w = schema::ws(&mut r);
    let reasoning = reasoning(&mut r, spec, o);
    let Some(tc) = &spec.tools else {
        if o.tool_choice == ToolChoice::Required {
            return Err(err("the format has no tool calls"));
        }
        if o.lazy {
            return Err(err("the format has no tool calls to trigger on"));
        }
        let text = r.avoid(&[]);
        let root = Expr::seq(vec![w, reasoning, text]);
        r.set_root(root);
        return Ok((r, Vec::new()));
    };
    // The main shape of the calls and the other shapes the format also reads.
    let mut shapes = Vec::new();
    for t in std::iter::once(tc).chain(tc.alternatives.iter()) {
        shapes.push(Calls::new(&mut r, t, tools, o)?);
    }
    if o.lazy {
        let mut roots = Vec::new();
        let mut triggers: Vec<Trigger> = Vec::new();
        for calls in &shapes {
            let (root, trigger) = match &calls.opener {
                Some(op) => (
                    Expr::seq(vec![Expr::lit(op), calls.rest.clone()]),
                    Trigger {
                        kind: TriggerKind::Word,
                        value: op.clone(),
                    },
                ),
                None => (
                    calls.whole.clone(),
                    Trigger {
                        kind: TriggerKind::Pattern,
                        value: calls.pattern.clone(),
                    },
                ),
            };
            roots.push(root);
            if !triggers.contains(&trigger) {
                triggers.push(trigger);
            }
        }
        r.set_root(Expr::alt(roots));
        return Ok((r, triggers));
    }
    let openers: Vec<String> = shapes.iter().filter_map(|c| c.opener.clone()).collect();
    let stops: Vec<&str> = openers.iter().map(String::as_str).collect();
    let all_whole = Expr::alt(shapes.iter().map(|c| c.whole.clone()).collect());
    if o.after_prompt_prefix {
        if let Some(p) = spec.prompt_prefix.as_deref().map(str::trim) {
            let body = after_prefix(&mut r, spec, &shapes, &stops, &all_whole, p, o)?;
            let body = r.add("body", body);
            r.set_root(body);
            return Ok((r, Vec::new()));
        }
    }
    let body = match &spec.content {
        Some(cm) => {
            let text = if cm.close.trim().is_empty() {
                r.avoid(&stops)
            } else {
                r.through(&[cm.close.trim()])
            };
            let open = mark(&mut r, &cm.open);
            let wrapped = Expr::opt(cat(&mut r, vec![open, text]));
            match o.tool_choice {
                ToolChoice::None => wrapped,
                ToolChoice::Required => cat(&mut r, vec![wrapped, all_whole]),
                ToolChoice::Auto => {
                    let c = Expr::opt(all_whole);
                    cat(&mut r, vec![wrapped, c])
                }
            }
        }
        None if shapes.len() == 1 => match &shapes[0].opener {
            Some(op) => {
                let calls = &shapes[0];
                let free = r.avoid(&[op]);
                let before = r.through(&[op]);
                let with_calls = Expr::seq(vec![before, calls.rest.clone()]);
                match o.tool_choice {
                    ToolChoice::None => free,
                    ToolChoice::Required => with_calls,
                    ToolChoice::Auto => Expr::alt(vec![free, with_calls]),
                }
            }
            None => {
                let calls = &shapes[0];
                // Calls only at the start; other text must not begin like one.
                let text = bare_text(&mut r, &[calls.first_char], &[]);
                match o.tool_choice {
                    ToolChoice::None => text,
                    ToolChoice::Required => calls.whole.clone(),
                    ToolChoice::Auto => Expr::alt(vec![text, calls.whole.clone()]),
                }
            }
        },
        None => {
            // Several shapes: free text stops at every opener; a shape without one starts
            // the turn, so text must not begin like it.
            let firsts: Vec<char> = shapes
                .iter()
                .filter(|c| c.opener.is_none())
                .map(|c| c.first_char)
                .collect();
            let free = if firsts.is_empty() {
                r.avoid(&stops)
            } else {
                bare_text(&mut r, &firsts, &stops)
            };
            let before = r.avoid(&stops);
            let mut with_calls = Vec::new();
            for calls in &shapes {
                match &calls.opener {
                    Some(op) => with_calls.push(Expr::seq(vec![
                        before.clone(),
                        Expr::lit(op),
                        calls.rest.clone(),
                    ])),
                    None => with_calls.push(calls.whole.clone()),
                }
            }
            let with_calls = Expr::alt(with_calls);
            match o.tool_choice {
                ToolChoice::None => free,
                ToolChoice::Required => with_calls,
                ToolChoice::Auto => Expr::alt(vec![free, with_calls]),
            }
        }
    };
    let body = r.add("body", body);
    let root = Expr::seq(vec![w.clone(), reasoning, w, body]);
    r.set_root(root);
    Ok((r, Vec::new()))
}

/// Text that does not begin with whitespace or one of `firsts` (possibly empty), and
/// contains none of `stops`.
fn bare_text(r: &mut Rules, firsts: &[char], stops: &[&str]) -> Expr {
    let mut ranges = vec![(' ', ' '), ('\t', '\t'), ('\n', '\n'), ('\r', '\r')];
    ranges.extend(firsts.iter().map(|c| (*c, *c)));
    // A text starting like a stop: the stop scan must see that first character too, so such
    // a text takes its own branch that also avoids each stop's rest.
    let mut stop_firsts: Vec<char> = Vec::new();
    for c in stops.iter().filter_map(|s| s.chars().next()) {
        if !ranges.iter().any(|(a, _)| *a == c) && !stop_firsts.contains(&c) {
            stop_firsts.push(c);
        }
    }
    ranges.extend(stop_firsts.iter().map(|c| (*c, *c)));
    let first = Expr::Class {
        negated: true,
        ranges,
    };
    let any = r.avoid(stops);
    let plain = Expr::seq(vec![first, any]);
    if stop_firsts.is_empty() {
        return Expr::opt(plain);
    }
    let mut more: Vec<&str> = stops.to_vec();
    more.extend(stops.iter().map(|s| {
        let mut c = s.chars();
        c.next();
        c.as_str()
    }));
    let after = r.avoid(&more);
    let starts: Vec<(char, char)> = stop_firsts.iter().map(|c| (*c, *c)).collect();
    let like = Expr::seq(vec![Expr::class(&starts), after]);
    Expr::opt(Expr::alt(vec![plain, like]))
}

/// The body when the generation prompt ended with `prefix`: content whose open marker starts
/// with it, or calls whose opener is it, continued from after it.
fn after_prefix(
    r: &mut Rules,
    spec: &FormatSpec,
    shapes: &[Calls],
    stops: &[&str],
    all_whole: &Expr,
    prefix: &str,
    o: &GrammarOptions,
) -> Result<Expr, Error> {
    let mut alts = Vec::new();
    if let Some(rest) = spec
        .content
        .as_ref()
        .and_then(|cm| cm.open.trim_start().strip_prefix(prefix).map(|s| (cm, s)))
    {
        let (cm, open_rest) = rest;
        let text = if cm.close.trim().is_empty() {
            r.avoid(stops)
        } else {
            r.through(&[cm.close.trim()])
        };
        let open = mark(r, open_rest);
        let content = cat(r, vec![open, text]);
        alts.push(match o.tool_choice {
            ToolChoice::None => content,
            ToolChoice::Required => cat(r, vec![content, all_whole.clone()]),
            ToolChoice::Auto => {
                let c = Expr::opt(all_whole.clone());
                cat(r, vec![content, c])
            }
        });
    }
    if o.tool_choice != ToolChoice::None {
        for calls in shapes {
            if calls.opener.as_deref() == Some(prefix) {
                alts.push(calls.rest.clone());
            }
        }
    }
    if alts.is_empty() {
        return Err(err(format!(
            "the prompt prefix {prefix:?} starts neither the content nor a call the request allows"
        )));
    }
    Ok(Expr::alt(alts))
}

fn reasoning(r: &mut Rules, spec: &FormatSpec, o: &GrammarOptions) -> Expr {
    let Some(m) = &spec.reasoning.markers else {
        return Expr::Empty;
    };
    let close = m.close.trim();
    if close.is_empty() {
        return Expr::Empty;
    }
    let mode = if o.forced_open {
        ReasoningMode::ForcedOpen
    } else {
        spec.reasoning.mode
    };
    let e = match mode {
        ReasoningMode::None | ReasoningMode::ForcedClosed => return Expr::Empty,
        ReasoningMode::ForcedOpen => r.through(&[close]),
        ReasoningMode::Tag => {
            let open = mark(r, &m.open);
            let body = r.through(&[close]);
            Expr::opt(Expr::seq(vec![open, body]))
        }
    };
    r.add("reasoning", e)
}

/// The tool-call region of a turn.
struct Calls {
    /// The literal the region starts with, when it has one (free text stops there).
    opener: Option<String>,
    /// The region after its opener.
    rest: Expr,
    /// The whole region.
    whole: Expr,
    /// For a region without opener: its first character (`{` or `[`) and a trigger pattern.
    first_char: char,
    pattern: String,
}

impl Calls {
    fn new(
        r: &mut Rules,
        tc: &ToolCallSpec,
        tools: &[Tool],
        o: &GrammarOptions,
    ) -> Result<Calls, Error> {
        let parallel = o.parallel && tc.parallel;
        let section_open = tc
            .section
            .as_ref()
            .map(|m| m.open.trim().to_string())
            .filter(|s| !s.is_empty());
        let call_open = tc
            .call
            .as_ref()
            .map(|m| m.open.trim().to_string())
            .filter(|s| !s.is_empty());
        let prefix = syntax_prefix(&tc.syntax).filter(|s| !s.is_empty());
        // Which literal opens the region.
        let level = if section_open.is_some() {
            0
        } else if call_open.is_some() {
            1
        } else if prefix.is_some() {
            2
        } else {
            3
        };
        let opener = section_open
            .clone()
            .or(call_open.clone())
            .or(prefix.clone());
        let list = tc.syntax.is_list();
        let body_full = call_bodies(r, tc, tools, true)?;
        let body_full = r.add("call-body", body_full);
        let body_rest = if level == 2 {
            let b = call_bodies(r, tc, tools, false)?;
            r.add("call-body-rest", b)
        } else {
            body_full.clone()
        };
        let (co, cc) = marks(r, tc.call.as_ref());
        let call = cat(r, vec![co, body_full.clone(), cc.clone()]);
        let call = r.add("call", call);
        let first_call_rest = match level {
            1 => cat(r, vec![body_full, cc]),
            2 => cat(r, vec![body_rest, cc]),
            _ => call.clone(),
        };
        let sep = if list {
            let w = schema::ws(r);
            Expr::seq(vec![w.clone(), Expr::lit(","), w])
        } else {
            let s = mark(r, &tc.separator);
            let w = schema::ws(r);
            if s == Expr::Empty {
                w
            } else {
                Expr::seq(vec![w.clone(), s, w])
            }
        };
        let more = if parallel {
            Expr::star(Expr::seq(vec![sep.clone(), call.clone()]))
        } else {
            Expr::Empty
        };
        let seq_whole = Expr::seq(vec![call.clone(), more.clone()]);
        let seq_rest = Expr::seq(vec![first_call_rest, more]);
        let w = schema::ws(r);
        let (calls_whole, calls_rest) = if list {
            let l = cat(r, vec![Expr::lit("["), seq_whole, Expr::lit("]")]);
            (l.clone(), l)
        } else {
            (seq_whole, seq_rest)
        };
        let (sopen, sclose) = marks(r, tc.section.as_ref());
        let whole = cat(r, vec![sopen, calls_whole.clone(), sclose.clone()]);
        let rest = match level {
            0 => Expr::seq(vec![w, cat(r, vec![calls_whole, sclose])]),
            1 | 2 => Expr::seq(vec![w, cat(r, vec![calls_rest, sclose])]),
            _ => whole.clone(),
        };
        let whole = r.add("calls", whole);
        let rest = r.add("calls-rest", rest);
        let first_char = if list { '[' } else { '{' };
        let pattern = if list {
            "^\\s*\\[".to_string()
        } else {
            "^\\s*\\{".to_string()
        };
        if level == 3
            && !matches!(
                tc.syntax,
                CallSyntax::JsonObject { .. }
                    | CallSyntax::NameAsKey { .. }
                    | CallSyntax::OpenAiObject { .. }
                    | CallSyntax::Pythonic { list: true }
            )
        {
            return Err(err(
                "the call syntax has no opening marker to start calls at",
            ));
        }
        Ok(Calls {
            opener,
            rest,
            whole,
            first_char,
            pattern,
        })
    }
}

/// The literal a call of this syntax starts with before its name.
fn syntax_prefix(s: &CallSyntax) -> Option<String> {
    match s {
        CallSyntax::NameThenJson { name_prefix, .. }
        | CallSyntax::XmlParams { name_prefix, .. }
        | CallSyntax::KeyValue { name_prefix, .. } => {
            name_prefix.split_whitespace().next().map(String::from)
        }
        _ => None,
    }
}

/// One alternative per tool: the call without its call markers. Without `with_prefix`, the
/// syntax's name prefix is left out (the free text before consumed it).
fn call_bodies(
    r: &mut Rules,
    tc: &ToolCallSpec,
    tools: &[Tool],
    with_prefix: bool,
) -> Result<Expr, Error> {
    let mut alts = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let b = call_body(r, tc, t, i, with_prefix)?;
        alts.push(r.add(
            &format!("tool{i}{}", if with_prefix { "" } else { "-rest" }),
            b,
        ));
    }
    Ok(Expr::alt(alts))
}

pub(super) fn args(r: &mut Rules, t: &Tool, i: usize, style: &Style) -> Expr {
    let base = format!("tool{i}-args");
    let e = match &t.parameters {
        serde_json::Value::Object(_) => schema::value(r, &t.parameters, style, &base),
        _ => schema::any(r, style),
    };
    if *style != Style::Json {
        return e;
    }
    let s = match &t.parameters {
        serde_json::Value::Object(_) => t.parameters.clone(),
        _ => serde_json::json!({}),
    };
    r.add_json(&format!("{base}-json"), &s, e)
}

fn props(t: &Tool) -> (Vec<(String, serde_json::Value)>, Vec<String>) {
    let obj = t.parameters.as_object();
    let props = obj
        .and_then(|o| o.get("properties"))
        .and_then(|p| p.as_object())
        .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let req = obj.map(schema::required_of).unwrap_or_default();
    (props, req)
}

fn prefixed(r: &mut Rules, prefix: &str, with_prefix: bool) -> Expr {
    if with_prefix {
        return mark(r, prefix);
    }
    // The first piece was consumed as the opener.
    let rest: Vec<&str> = prefix.split_whitespace().skip(1).collect();
    mark(r, &rest.join(" "))
}

pub(super) fn call_body(
    r: &mut Rules,
    tc: &ToolCallSpec,
    t: &Tool,
    i: usize,
    with_prefix: bool,
) -> Result<Expr, Error> {
    let name = Expr::lit(&t.name);
    let w = schema::ws(r);
    // JSON arguments, or Python literals where the spec says so.
    let json_style = if tc.values == ValueWriting::Python {
        Style::Python
    } else {
        Style::Json
    };
    // The call's position after its name, where the format writes one.
    let position = |r: &mut Rules| match &tc.id {
        IdSpec::Index => Expr::seq(vec![Expr::lit(":"), Expr::plus(Expr::class(&[('0', '9')]))]),
        IdSpec::Position { prefix, suffix } => {
            let p = mark(r, prefix);
            let s = mark(r, suffix);
            Expr::seq(vec![p, Expr::plus(Expr::class(&[('0', '9')])), s])
        }
        _ => Expr::Empty,
    };
    Ok(match &tc.syntax {
        CallSyntax::JsonObject {
            name_key,
            args_key,
            id_key,
            ..
        } => {
            let a = args(r, t, i, &json_style);
            json_call(r, t, name_key, args_key, id_key.as_deref(), a)
        }
        CallSyntax::OpenAiObject { .. } => {
            let a = args(r, t, i, &json_style);
            let function = json_call(r, t, "name", "arguments", None, a);
            let key = |k: &str| Expr::lit(&format!("\"{k}\""));
            let colon = Expr::seq(vec![w.clone(), Expr::lit(":"), w.clone()]);
            let comma = Expr::seq(vec![w.clone(), Expr::lit(","), w.clone()]);
            let id = schema::value(
                r,
                &serde_json::json!({"type": "string"}),
                &Style::Json,
                "id",
            );
            let id = Expr::opt(Expr::seq(vec![key("id"), colon.clone(), id, comma.clone()]));
            let ty = Expr::opt(Expr::seq(vec![
                key("type"),
                colon.clone(),
                Expr::lit("\"function\""),
                comma,
            ]));
            Expr::seq(vec![
                Expr::lit("{"),
                w.clone(),
                id,
                ty,
                key("function"),
                colon,
                function,
                w,
                Expr::lit("}"),
            ])
        }
        CallSyntax::NameAsKey { .. } => {
            let a = args(r, t, i, &json_style);
            let k = Expr::lit(&serde_json::to_string(&t.name).unwrap_or_default());
            Expr::seq(vec![
                Expr::lit("{"),
                w.clone(),
                k,
                w.clone(),
                Expr::lit(":"),
                w.clone(),
                a,
                w,
                Expr::lit("}"),
            ])
        }
        CallSyntax::NameThenJson {
            name_prefix,
            name_suffix,
            args_prefix,
            args_suffix,
        } => {
            let p = prefixed(r, name_prefix, with_prefix);
            let id = position(r);
            let marked = match &tc.id {
                IdSpec::Marked { prefix, suffix, .. } => {
                    // Optional: some templates of a family write it, others do not.
                    let idp = mark(r, prefix);
                    let text = Expr::plus(Expr::class(&[
                        ('a', 'z'),
                        ('A', 'Z'),
                        ('0', '9'),
                        ('_', '_'),
                        ('-', '-'),
                    ]));
                    let ids = mark(r, suffix);
                    Expr::opt(cat(r, vec![idp, text, ids]))
                }
                _ => Expr::Empty,
            };
            let ns = mark(r, name_suffix);
            let ap = mark(r, args_prefix);
            let a = args(r, t, i, &json_style);
            let s = mark(r, args_suffix);
            let head = Expr::seq(vec![p, name, id]);
            cat(r, vec![head, ns, marked, ap, a, s])
        }
        CallSyntax::XmlParams {
            name_prefix,
            name_suffix,
            param_prefix,
            param_middle,
            param_suffix,
            call_suffix,
            values,
            typed_middles,
            param_close_after_key,
        } => {
            let p = prefixed(r, name_prefix, with_prefix);
            let id = position(r);
            let ns = mark(r, name_suffix);
            let (ps, req) = props(t);
            let suffix = param_suffix.trim().to_string();
            let mut members = Vec::new();
            for (j, (k, s)) in ps.iter().enumerate() {
                let pp = mark(r, param_prefix);
                // (middle, value schema) pairs: one per JSON type when the middle names it.
                let typed: Vec<(String, serde_json::Value)> = if typed_middles.is_empty() {
                    vec![(param_middle.clone(), s.clone())]
                } else {
                    values::types_of(s)
                        .iter()
                        .filter_map(|ty| {
                            values::middle_for(typed_middles, ty)
                                .map(|m| (m.to_string(), values::with_type(s, ty)))
                        })
                        .collect()
                };
                let mut alts = Vec::new();
                for (n, (middle, s)) in typed.iter().enumerate() {
                    let pm = mark(r, middle);
                    let raw = *values == ValueTyping::RawStrings
                        && schema::is_string_only(s)
                        && s.get("enum").is_none();
                    let value = if raw {
                        r.through(&[&suffix])
                    } else {
                        let v = if *values == ValueTyping::RawStrings && schema::is_string_only(s) {
                            // A string enum written raw.
                            let e: Vec<Expr> = s
                                .get("enum")
                                .and_then(|e| e.as_array())
                                .map(|a| {
                                    a.iter().filter_map(|x| x.as_str()).map(Expr::lit).collect()
                                })
                                .unwrap_or_default();
                            Expr::alt(e)
                        } else {
                            let base = format!("tool{i}-p{j}-{n}");
                            let v = schema::value(r, s, &Style::Json, &base);
                            r.add_json(&format!("{base}-json"), s, v)
                        };
                        let sm = mark(r, &suffix);
                        cat(r, vec![v, sm])
                    };
                    let close = if param_close_after_key.is_empty() {
                        Expr::Empty
                    } else {
                        let after = mark(r, param_close_after_key);
                        Expr::seq(vec![Expr::lit(k), after])
                    };
                    alts.push(Expr::seq(vec![pm, schema::ws(r), value, close]));
                }
                let e = Expr::seq(vec![pp, Expr::lit(k), Expr::alt(alts)]);
                let e = r.add(&format!("tool{i}-param{j}"), e);
                members.push(Member {
                    required: req.contains(k),
                    expr: e,
                });
            }
            let params = schema::members_rule(r, &format!("tool{i}-params"), &members, &w);
            let cs = mark(r, call_suffix);
            let head = Expr::seq(vec![p, name, id]);
            cat(r, vec![head, ns, params, cs])
        }
        CallSyntax::Pythonic { .. } => {
            let (ps, req) = props(t);
            let mut members = Vec::new();
            let stops = [
                ('=', '='),
                ('(', ')'),
                ('[', '['),
                (']', ']'),
                ('\n', '\n'),
                ('\r', '\r'),
            ];
            for (j, (k, s)) in ps.iter().enumerate() {
                let v = values::param_value(
                    r,
                    s,
                    &Style::Python,
                    tc.values,
                    &format!("tool{i}-p{j}"),
                    &stops,
                );
                let e = Expr::seq(vec![Expr::lit(k), w.clone(), Expr::lit("="), w.clone(), v]);
                members.push(Member {
                    required: req.contains(k),
                    expr: e,
                });
            }
            let sep = Expr::seq(vec![w.clone(), Expr::lit(","), w.clone()]);
            let kw = schema::members_rule(r, &format!("tool{i}-kwargs"), &members, &sep);
            Expr::seq(vec![
                name,
                w.clone(),
                Expr::lit("("),
                w.clone(),
                kw,
                w,
                Expr::lit(")"),
            ])
        }
        CallSyntax::KeyValue {
            name_prefix,
            open,
            close,
            key_value_separator,
            pair_separator,
            string_quote,
        } => {
            let p = prefixed(r, name_prefix, with_prefix);
            let (ps, req) = props(t);
            let style = Style::KeyValue {
                quote: string_quote.clone(),
            };
            let mut members = Vec::new();
            let stops = [(',', ','), ('{', '{'), ('}', '}'), ('\n', '\n')];
            for (j, (k, s)) in ps.iter().enumerate() {
                let v =
                    values::param_value(r, s, &style, tc.values, &format!("tool{i}-p{j}"), &stops);
                let e = Expr::seq(vec![Expr::lit(k), mark(r, key_value_separator), v]);
                members.push(Member {
                    required: req.contains(k),
                    expr: e,
                });
            }
            let sep = mark(r, pair_separator);
            let kv = schema::members_rule(r, &format!("tool{i}-pairs"), &members, &sep);
            Expr::seq(vec![p, name, mark(r, open), kv, mark(r, close)])
        }
    })
}

/// `{"NAME_KEY": "NAME", "ARGS_KEY": ARGS}` (either order), with an optional id member first
/// or last.
fn json_call(
    r: &mut Rules,
    t: &Tool,
    name_key: &str,
    args_key: &str,
    id_key: Option<&str>,
    a: Expr,
) -> Expr {
    let w = schema::ws(r);
    let key = |k: &str| Expr::lit(&serde_json::to_string(k).unwrap_or_default());
    let colon = Expr::seq(vec![w.clone(), Expr::lit(":"), w.clone()]);
    let comma = Expr::seq(vec![w.clone(), Expr::lit(","), w.clone()]);
    let nm = Expr::seq(vec![
        key(name_key),
        colon.clone(),
        Expr::lit(&serde_json::to_string(&t.name).unwrap_or_default()),
    ]);
    let ar = Expr::seq(vec![key(args_key), colon.clone(), a]);
    let core = Expr::alt(vec![
        Expr::seq(vec![nm.clone(), comma.clone(), ar.clone()]),
        Expr::seq(vec![ar, comma.clone(), nm]),
    ]);
    let (before, after) = match id_key {
        Some(k) => {
            let s = schema::value(
                r,
                &serde_json::json!({"type": "string"}),
                &Style::Json,
                "id",
            );
            let idm = Expr::seq(vec![key(k), colon, s]);
            (
                Expr::opt(Expr::seq(vec![idm.clone(), comma.clone()])),
                Expr::opt(Expr::seq(vec![comma, idm])),
            )
        }
        None => (Expr::Empty, Expr::Empty),
    };
    Expr::seq(vec![
        Expr::lit("{"),
        w.clone(),
        before,
        core,
        after,
        w,
        Expr::lit("}"),
    ])
}
