//! Harmony (gpt-oss) turns: messages on channels instead of marked regions. An optional
//! analysis message (reasoning), then a final message (the answer) or a commentary message to
//! `functions.TOOL` whose body is the arguments.

use super::build::{args, err};
use super::ir::{Expr, Rules};
use super::schema::Style;
use super::{GrammarOptions, Tool, ToolChoice, Trigger, TriggerKind};
use crate::output::spec::{ChannelSpec, ToolCallSpec};
use crate::Error;

/// Harmony (gpt-oss): an optional analysis message, then a final message or a call message.
pub(super) fn channels(
    r: &mut Rules,
    ch: &ChannelSpec,
    tc: Option<&ToolCallSpec>,
    tools: &[Tool],
    o: &GrammarOptions,
) -> Result<Vec<Trigger>, Error> {
    let mut ends: Vec<&str> = ch.message_ends.iter().map(String::as_str).collect();
    ends.push(&ch.message_start);
    ends.push(&ch.channel_marker);
    let text = r.avoid(&ends);
    let first_end = ch
        .message_ends
        .first()
        .map(String::as_str)
        .unwrap_or("<|end|>");
    let analysis_body = r.through(&[first_end]);
    let analysis = Expr::seq(vec![
        Expr::lit(&format!(
            "{}{}{}",
            ch.channel_marker, ch.reasoning_channel, ch.message_marker
        )),
        analysis_body,
        Expr::lit(&format!("{}assistant", ch.message_start)),
    ]);
    let final_msg = Expr::seq(vec![
        Expr::lit(&format!(
            "{}{}{}",
            ch.channel_marker, ch.content_channel, ch.message_marker
        )),
        text,
    ]);
    let call_end = ch
        .message_ends
        .iter()
        .find(|e| e.contains("call"))
        .cloned()
        .unwrap_or_else(|| "<|call|>".into());
    let mut calls = Vec::new();
    let mut lazy_calls = Vec::new();
    let recipient = ch.recipient_prefix.trim_start().to_string();
    for (i, t) in tools.iter().enumerate() {
        let a = args(r, t, i, &Style::Json);
        let in_role = Expr::seq(vec![Expr::lit(&format!(
            "{}{}{}{}",
            ch.recipient_prefix, t.name, ch.channel_marker, ch.tool_channel
        ))]);
        let in_channel = Expr::lit(&format!(
            "{}{} {}{}",
            ch.channel_marker, ch.tool_channel, recipient, t.name
        ));
        let constrain = Expr::opt(Expr::alt(vec![
            Expr::lit(" <|constrain|>json"),
            Expr::lit(" json"),
        ]));
        let tail = Expr::seq(vec![
            constrain,
            Expr::lit(&ch.message_marker),
            a,
            Expr::opt(Expr::lit(&call_end)),
        ]);
        let tail = r.add(&format!("tool{i}-message"), tail);
        calls.push(Expr::seq(vec![
            Expr::alt(vec![in_role, in_channel]),
            tail.clone(),
        ]));
        lazy_calls.push(Expr::seq(vec![
            Expr::lit(&format!(
                "{}{}{}{}",
                ch.recipient_prefix, t.name, ch.channel_marker, ch.tool_channel
            )),
            tail,
        ]));
    }
    if tc.is_none() && o.tool_choice != ToolChoice::None {
        return Err(err("the format has no tool calls"));
    }
    let call = Expr::alt(calls);
    if o.lazy {
        r.set_root(Expr::alt(lazy_calls));
        return Ok(vec![Trigger {
            kind: TriggerKind::Word,
            value: ch.recipient_prefix.clone(),
        }]);
    }
    let last = match o.tool_choice {
        ToolChoice::None => final_msg,
        ToolChoice::Required => call,
        ToolChoice::Auto => Expr::alt(vec![final_msg, call]),
    };
    let root = Expr::seq(vec![Expr::opt(analysis), last]);
    r.set_root(root);
    Ok(Vec::new())
}
