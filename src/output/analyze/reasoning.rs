//! Reasoning markers and mode, content markers and the end-of-turn marker, from renders of a
//! turn with and without reasoning.

use super::probe::{Prober, Turn, CONTENT, REASONING};
use super::text::{closing_of, first_marker, last_marker};
use crate::output::spec::{Markers, ReasoningMode, ReasoningSpec};
use serde_json::Value;

/// What the content and reasoning probes found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub reasoning: ReasoningSpec,
    pub content: Option<Markers>,
    pub end_of_turn: Option<String>,
    pub notes: Vec<String>,
    /// Whether a probe could not confirm a finding.
    pub unsure: bool,
    /// The keyword arguments under which reasoning renders (`enable_thinking`).
    pub kwargs: Vec<(&'static str, Value)>,
}

fn turn(reasoning: Option<&str>, content: &str) -> Turn {
    Turn {
        reasoning: reasoning.map(str::to_string),
        content: Some(content.to_string()),
        ..Turn::default()
    }
}

/// Runs the probes. `None` when the template renders no assistant content at all.
pub(crate) fn analyze(p: &Prober<'_>) -> Option<Found> {
    let mut f = Found::default();
    let plain = p.assistant(&turn(None, CONTENT), &[])?;
    let a = &plain.assistant;
    let pos_c = a.find(CONTENT)?;

    // Reasoning rendered from the message (under enable_thinking if that is what it takes).
    let mut with = p.assistant(&turn(Some(REASONING), CONTENT), &[]);
    if !with
        .as_ref()
        .is_some_and(|r| r.assistant.contains(REASONING))
    {
        let kw = [("enable_thinking", Value::Bool(true))];
        let alt = p.assistant(&turn(Some(REASONING), CONTENT), &kw);
        if alt
            .as_ref()
            .is_some_and(|r| r.assistant.contains(REASONING))
        {
            with = alt;
            f.kwargs = kw.to_vec();
            f.notes
                .push("reasoning renders only with enable_thinking=true".into());
        }
    }
    // Reasoning shown only in turns with tool calls.
    let mut tools_only = false;
    if !with
        .as_ref()
        .is_some_and(|r| r.assistant.contains(REASONING))
    {
        let t = Turn {
            reasoning: Some(REASONING.to_string()),
            content: Some(String::new()),
            calls: vec![super::tools::probe_calls().remove(0)],
            ..Turn::default()
        };
        for kw in [
            vec![],
            f.kwargs.clone(),
            vec![("enable_thinking", Value::Bool(true))],
        ] {
            let alt = p.assistant(&t, &kw);
            if alt
                .as_ref()
                .is_some_and(|r| r.assistant.contains(REASONING))
            {
                with = alt;
                tools_only = true;
                f.notes
                    .push("reasoning is rendered only in turns with tool calls".into());
                if !kw.is_empty() {
                    f.kwargs = kw;
                }
                break;
            }
        }
    }
    let mut content_open = String::new();
    let mut close_marker = None;
    if let Some(r) = with.as_ref().filter(|r| r.assistant.contains(REASONING)) {
        let t = &r.assistant;
        let pr = t.find(REASONING).unwrap_or(0);
        let after = pr + REASONING.len();
        let pc = t[after..]
            .find(CONTENT)
            .or_else(|| t[after..].find("get_weather"))
            .map(|i| i + after);
        let mid = &t[after..pc.unwrap_or(t.len())];
        if let Some((s, e)) = first_marker(mid).filter(|_| !mid.trim().is_empty()) {
            let close = mid[s..e].to_string();
            if !tools_only {
                content_open = mid[e..].trim().to_string();
            }
            let before = t[..pr].trim();
            let prompt_open = prompt_marker(&r.prompt);
            let (mode, open) = if !before.is_empty() {
                (ReasoningMode::Tag, before.to_string())
            } else if let Some(open) = prompt_open.clone().filter(|o| *o != close) {
                (ReasoningMode::ForcedOpen, open)
            } else if let Some(open) = prompt_open.and_then(|_| {
                // The prompt ends with an empty block: the marker before the close opens it.
                let t = r.prompt.trim_end();
                last_marker(&t[..t.len() - close.len()]).map(str::to_string)
            }) {
                (ReasoningMode::ForcedClosed, open)
            } else {
                f.notes.push(
                    "reasoning has a closing marker but no opening marker (delimiter style)".into(),
                );
                f.unsure = true;
                (ReasoningMode::ForcedOpen, String::new())
            };
            close_marker = Some(close.clone());
            f.reasoning = ReasoningSpec {
                mode,
                markers: Some(Markers { open, close }),
            };
        } else {
            f.notes
                .push("reasoning is rendered with no marker between it and the content".into());
            f.unsure = true;
        }
    } else if let Some((open, close)) = prompt_block(p, &plain.prompt) {
        // The history drops reasoning, but the generation prompt opens (or opens and closes)
        // a block: check the guessed closing marker by rendering content that holds it
        // (templates that cut the reasoning off at the marker show only the text after it).
        let probe = format!("{REASONING}{close}{CONTENT}");
        let cut = p
            .assistant(&turn(None, &probe), &[])
            .is_some_and(|r| r.assistant.contains(CONTENT) && !r.assistant.contains(REASONING));
        let named = open.to_lowercase().contains("think");
        if !cut && named {
            f.notes.push(format!(
                "the generation prompt ends with {open}; {close} is a guess the template does not confirm"
            ));
            f.unsure = true;
        }
        if cut || named {
            let t = plain.prompt.trim_end();
            let mode = if t.ends_with(open.as_str()) {
                ReasoningMode::ForcedOpen
            } else if t.ends_with(close.as_str()) {
                ReasoningMode::ForcedClosed
            } else {
                ReasoningMode::Tag
            };
            close_marker = Some(close.clone());
            f.reasoning = ReasoningSpec {
                mode,
                markers: Some(Markers { open, close }),
            };
        }
    }
    // A generation prompt that writes an empty, closed block.
    if let (Some(m), Some(close)) = (&f.reasoning.markers, &close_marker) {
        let t = plain.prompt.trim_end();
        if !m.open.is_empty() && t.ends_with(close.as_str()) {
            let before = t[..t.len() - close.len()].trim_end();
            if before.ends_with(m.open.as_str()) {
                f.reasoning.mode = ReasoningMode::ForcedClosed;
            }
        }
        thinking_notes(p, m, &mut f.notes);
    }

    // Content wrapper and end of turn, from the turn without reasoning.
    let mut pre = &a[..pos_c];
    if let Some(close) = &close_marker {
        if let Some(i) = pre.rfind(close.as_str()) {
            pre = &pre[i + close.len()..];
        }
    }
    if content_open.is_empty() {
        content_open = pre.trim().to_string();
    }
    if close_marker.is_none() {
        // An empty reasoning block before the answer: `<think></think>`.
        if let Some((s, e)) = first_marker(&content_open) {
            let (open, rest) = (&content_open[s..e], content_open[e..].trim());
            if closing_of(open).is_some_and(|c| c == rest) {
                f.reasoning = ReasoningSpec {
                    mode: ReasoningMode::Tag,
                    markers: Some(Markers {
                        open: open.to_string(),
                        close: rest.to_string(),
                    }),
                };
                content_open = String::new();
            }
        }
    }
    let post = &a[pos_c + CONTENT.len()..];
    // The end of turn is the first marker after the answer (a template may write more after
    // it, such as the next turn's header).
    let first = |t: &'_ str| -> String {
        first_marker(t).map_or(String::new(), |(s, e)| t[s..e].to_string())
    };
    let mut eot = first(post);
    if !content_open.is_empty() {
        match first_marker(post) {
            // The last marker of the turn ends the turn, not the content.
            Some((s, e)) if !post[e..].trim().is_empty() => {
                f.content = Some(Markers {
                    open: content_open,
                    close: post[s..e].to_string(),
                });
                eot = first(&post[e..]);
            }
            _ => {
                f.content = Some(Markers {
                    open: content_open,
                    close: String::new(),
                });
            }
        }
    }
    if !eot.trim().is_empty() {
        f.end_of_turn = Some(eot);
    }
    Some(f)
}

/// Notes on how `enable_thinking` changes the generation prompt.
fn thinking_notes(p: &Prober<'_>, m: &Markers, notes: &mut Vec<String>) {
    let on = p.prompt(true, &[("enable_thinking", Value::Bool(true))]);
    let off = p.prompt(true, &[("enable_thinking", Value::Bool(false))]);
    if let (Some(on), Some(off)) = (on, off) {
        if on != off {
            let opened = |s: &str| s.trim_end().ends_with(m.open.as_str()) && !m.open.is_empty();
            let closed = |s: &str| s.trim_end().ends_with(m.close.as_str());
            let say = |s: &str| {
                if opened(s) {
                    "opens the reasoning block in the prompt"
                } else if closed(s) {
                    "closes an empty reasoning block in the prompt"
                } else {
                    "leaves reasoning to the model"
                }
            };
            notes.push(format!(
                "enable_thinking=true {}; enable_thinking=false {}",
                say(&on),
                say(&off)
            ));
        }
    }
}

/// The marker the prompt ends with: a `<…>` or `[…]` token, or a short text after the last
/// marker start (`<|channel>thought`).
fn prompt_marker(prompt: &str) -> Option<String> {
    if let Some(m) = last_marker(prompt) {
        return Some(m.to_string());
    }
    let t = prompt.trim_end();
    let i = t.rfind(['<', '['])?;
    let m = &t[i..];
    (m.len() <= 40 && !m.contains('\n')).then(|| m.to_string())
}

/// The reasoning markers a generation prompt writes, with thinking at its default or
/// enabled: an opening marker it ends with (`<think>`), or an empty block (`<think></think>`).
fn prompt_block(p: &Prober<'_>, prompt: &str) -> Option<(String, String)> {
    let on = p.prompt(true, &[("enable_thinking", Value::Bool(true))]);
    for t in [Some(prompt), on.as_deref()].into_iter().flatten() {
        let Some(m) = last_marker(t) else { continue };
        if let Some(close) = closing_of(m) {
            return Some((m.to_string(), close));
        }
        // A closing marker right after its opening one.
        let open = m.replacen("</", "<", 1).replacen("[/", "[", 1);
        let before = t.trim_end();
        let before = before[..before.len() - m.len()].trim_end();
        if open != m && before.ends_with(open.as_str()) {
            return Some((open, m.to_string()));
        }
    }
    None
}
