//! Message layouts (Muse): the turn is a series of messages, each addressed in its header
//! (`<|start|>assistant to=R<|message|>…<|eom|>`). An optional reasoning message, then answer
//! messages and call messages as `tool_choice` allows; a call message is addressed to the
//! function and its body is one call as the spec's tool syntax writes it. The generation
//! prompt wrote the first header's start, so the turn begins with the recipient.

use super::build::{call_body, cat, err, mark, marks};
use super::ir::{Expr, Rules};
use super::schema;
use super::{GrammarOptions, Tool, ToolChoice, Trigger, TriggerKind};
use crate::output::spec::{MessageSpec, ToolCallSpec};
use crate::Error;

/// The rules of a whole turn (or, lazily, of the call messages from their header on).
pub(super) fn messages(
    r: &mut Rules,
    ms: &MessageSpec,
    tc: Option<&ToolCallSpec>,
    tools: &[Tool],
    o: &GrammarOptions,
) -> Result<Vec<Trigger>, Error> {
    if tc.is_none() && o.tool_choice != ToolChoice::None {
        return Err(err("the format has no tool calls"));
    }
    let recipient = ms.recipient_prefix.trim();
    let marker = ms.message_marker.trim();
    let header = |r: &mut Rules, to: &str| {
        let w = schema::ws(r);
        Expr::seq(vec![
            mark(r, &ms.recipient_prefix),
            Expr::lit(to),
            w,
            mark(r, &ms.message_marker),
        ])
    };
    let ends: Vec<Expr> = ms.message_ends.iter().map(|e| mark(r, e)).collect();
    let end = Expr::alt(ends);
    // Between two messages: the end of one and the start of the next header.
    let start = mark(r, &ms.message_start);
    let next = cat(r, vec![end.clone(), start]);
    let w = schema::ws(r);
    let next = Expr::seq(vec![w.clone(), next, w.clone()]);
    let next = r.add("next-message", next);
    let mut stops: Vec<&str> = ms.message_ends.iter().map(|e| e.trim()).collect();
    stops.push(ms.message_start.trim());
    let text = r.avoid(&stops);
    let reasoning = match &ms.reasoning_recipient {
        Some(to) => {
            let h = header(r, to);
            let m = Expr::seq(vec![h, text.clone(), next.clone()]);
            Expr::opt(r.add("reasoning-message", m))
        }
        None => Expr::Empty,
    };
    let content_headers: Vec<Expr> = ms
        .content_recipients
        .iter()
        .map(|to| header(r, to))
        .collect();
    let content = Expr::seq(vec![Expr::alt(content_headers), text]);
    let content = r.add("content-message", content);
    let tail = Expr::opt(Expr::seq(vec![w.clone(), end]));
    let Some(tc) = tc.filter(|_| o.tool_choice != ToolChoice::None && !tools.is_empty()) else {
        if o.lazy {
            return Err(err("the format has no tool calls to trigger on"));
        }
        r.set_root(Expr::seq(vec![reasoning, content, tail]));
        return Ok(Vec::new());
    };
    // One call message per tool: addressed to it, its body the call with its markers.
    let mut calls = Vec::new();
    let mut triggers = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let body = call_body(r, tc, t, i, true)?;
        let (co, cc) = marks(r, tc.call.as_ref());
        let (so, sc) = marks(r, tc.section.as_ref());
        let call = cat(r, vec![so, co, body, cc, sc]);
        let h = header(r, &t.name);
        let m = Expr::seq(vec![h, w.clone(), call]);
        calls.push(r.add(&format!("tool{i}-message"), m));
        triggers.push(Trigger {
            kind: TriggerKind::Word,
            value: format!("{recipient}{}{marker}", t.name),
        });
    }
    let call = r.add("call-message", Expr::alt(calls));
    let parallel = o.parallel && tc.parallel;
    let more = if parallel {
        Expr::star(Expr::seq(vec![next.clone(), call.clone()]))
    } else {
        Expr::Empty
    };
    let calls = Expr::seq(vec![call, more]);
    if o.lazy {
        r.set_root(Expr::seq(vec![calls, tail]));
        return Ok(triggers);
    }
    let content_then_calls = Expr::seq(vec![
        content.clone(),
        Expr::opt(Expr::seq(vec![next.clone(), calls.clone()])),
    ]);
    let body = match o.tool_choice {
        ToolChoice::Required => Expr::seq(vec![Expr::opt(Expr::seq(vec![content, next])), calls]),
        _ => Expr::alt(vec![content_then_calls, calls]),
    };
    let body = r.add("body", body);
    r.set_root(Expr::seq(vec![w, reasoning, body, tail]));
    Ok(Vec::new())
}
