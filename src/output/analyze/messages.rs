//! Message layouts (Muse): the assistant turn is a series of messages addressed in their
//! headers (`<|start|>assistant to=self<|message|>…<|eom|>`), reasoning to one recipient, the
//! answer to another, each call to its function. Found from where the probe texts land: the
//! answer right after a `PREFIX RECIPIENT MARKER` header, reasoning after one with another
//! recipient, and a call's name as a recipient.

use super::probe::{CONTENT, REASONING};
use super::text::{common_suffix, first_marker, last_marker};
use crate::output::spec::MessageSpec;

/// A header before `pos` in `t`: (the text from the start of the header's line of markers to
/// the recipient prefix's end, the recipient, the message marker). The header is the text
/// after the previous marker end (or the start) up to the marker that ends right before `pos`.
fn header(t: &str, pos: usize) -> Option<(usize, String, String)> {
    let before = &t[..pos];
    let mm = last_marker(before)?;
    if before.trim_end().len() != before.len() {
        return None;
    }
    let h_end = before.len() - mm.len();
    let h = &before[..h_end];
    // The header text: after the last marker before it.
    let from = h.rfind(['>', ']']).map_or(0, |i| i + 1);
    let text = &h[from..];
    if text.trim().is_empty() || text.contains('\n') {
        return None;
    }
    Some((from, text.to_string(), mm.to_string()))
}

/// A header's text split into the part before the recipient and the recipient (the trailing
/// name: letters, digits, `_`, `.`, `-`).
fn split_recipient(h: &str) -> (&str, &str) {
    let i = h
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_alphanumeric() || "_.-".contains(*c)))
        .map_or(0, |(i, c)| i + c.len_utf8());
    h.split_at(i)
}

/// The header of the message whose body holds the text at `pos`, split: (where the header
/// text starts in `t`, the text before the recipient, the recipient, the message marker).
fn addressed(t: &str, pos: usize) -> Option<(usize, String, String, String)> {
    let (from, h, mm) = header(t, pos)?;
    let (p, r) = split_recipient(&h);
    (!p.trim().is_empty() && !r.is_empty()).then(|| (from, p.to_string(), r.to_string(), mm))
}

/// The message layout shown by the answer-only turn `plain`, the turn with reasoning
/// `reasoned` and the turn with calls `called` (`names`: the calls' names, in order).
pub(crate) fn layout(
    plain: &str,
    reasoned: Option<&str>,
    called: Option<&str>,
    names: &[&str],
    eot: Option<&str>,
) -> Option<MessageSpec> {
    let pc = plain.find(CONTENT)?;
    let (_, _, content_recipient, mm) = addressed(plain, pc)?;
    let mut reasoning_recipient = None;
    let mut message_start = None;
    let mut ends = Vec::new();
    let mut prefix: Option<String> = None;
    // Two headers in a row: the first message's end, then the start of the second header
    // (the markers and text before its recipient prefix).
    let mut second = |t: &str, first_end: usize, at: usize, p1: &str| -> Option<()> {
        let (from, p2, _, m2) = addressed(t, at)?;
        if m2 != mm {
            return None;
        }
        let k = common_suffix(p1, &p2);
        let p = &p1[p1.len() - k..];
        if p.trim().is_empty() {
            return None;
        }
        let between = &t[first_end..from + p2.len() - k];
        let (s, e) = first_marker(between)?;
        ends.push(between[s..e].to_string());
        let start = between[e..].trim();
        if start.is_empty() {
            return None;
        }
        message_start = Some(start.to_string());
        prefix = Some(p.to_string());
        Some(())
    };
    if let Some(r) = reasoned {
        if let (Some(pr), Some(pc)) = (r.find(REASONING), r.find(CONTENT)) {
            let (_, rp, rr, rmm) = addressed(r, pr)?;
            if rmm != mm || pr > pc {
                return None;
            }
            second(r, pr + REASONING.len(), pc, &rp)?;
            reasoning_recipient = Some(rr);
        }
    }
    // Calls addressed to their functions confirm the layout (and give it without reasoning).
    if let (Some(c), Some(first)) = (called, names.first()) {
        let after_header = |name: &str, from: usize| -> Option<usize> {
            let n = c[from..].find(name)? + from;
            Some(c[n..].find(mm.as_str())? + n + mm.len())
        };
        let a1 = after_header(first, 0)?;
        let (_, p1, r1, m1) = addressed(c, a1)?;
        if m1 != mm || r1 != *first {
            return None;
        }
        if prefix.is_none() {
            let a2 = names.get(1).and_then(|n| after_header(n, a1));
            match a2 {
                Some(a2) => {
                    // The end of the first message is the first marker after its body that
                    // leads, with the next start, to the second header: found backwards.
                    let (from, p2, _, _) = addressed(c, a2)?;
                    let k = common_suffix(&p1, &p2);
                    let head_start = from + p2.len() - k;
                    // The header's markers before its text start the message; the marker
                    // before them ends the first one.
                    let hs = c[..from].trim_end();
                    let start_marker = last_marker(hs)?;
                    let s0 = hs.len() - start_marker.len();
                    let end_marker = last_marker(&c[..s0])?;
                    ends.push(end_marker.to_string());
                    message_start = Some(c[s0..head_start].trim().to_string());
                    prefix = Some(p1[p1.len() - k..].to_string());
                }
                None => prefix = Some(p1.clone()),
            }
        } else if prefix.as_deref().is_some_and(|p| !p1.ends_with(p)) {
            return None;
        }
    } else if reasoning_recipient.is_none() {
        return None;
    }
    let prefix = prefix?;
    if let Some(e) = eot.filter(|e| !e.trim().is_empty()) {
        if !ends.iter().any(|x| x == e) {
            ends.push(e.to_string());
        }
    }
    Some(MessageSpec {
        message_start: message_start?,
        recipient_prefix: prefix,
        message_marker: mm,
        message_ends: ends,
        reasoning_recipient,
        content_recipients: vec![content_recipient],
    })
}

/// `t` with the message headers of a message layout taken out, so that what remains is the
/// calls' text: the leading ` to=NAME<|message|>` and every `END START to=NAME<|message|>`.
pub(crate) fn strip_headers(t: &str, ms: &MessageSpec) -> String {
    let mm = ms.message_marker.as_str();
    let rp = ms.recipient_prefix.trim();
    let start = ms.message_start.trim();
    let mut out = String::new();
    let mut rest = t;
    let lead = rest.trim_start();
    if lead.starts_with(rp) {
        if let Some(i) = lead.find(mm) {
            rest = &lead[i + mm.len()..];
        }
    }
    loop {
        let hit = ms
            .message_ends
            .iter()
            .filter_map(|e| {
                let i = rest.find(e.as_str())?;
                let after = rest[i + e.len()..].trim_start();
                let after = after.strip_prefix(start)?.trim_start();
                let after = after.strip_prefix(rp)?;
                let j = after.find(mm)?;
                Some((i, rest.len() - after.len() + j + mm.len()))
            })
            .min();
        match hit {
            Some((i, j)) => {
                out.push_str(&rest[..i]);
                rest = &rest[j..];
            }
            None => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn muse_layout() {
        let plain = format!(" to=user<|message|>{CONTENT}");
        let reasoned = format!(
            " to=self<|message|>{REASONING}<|eom|><|start|>assistant to=user<|message|>{CONTENT}"
        );
        let called = " to=get_weather<|message|><c>get_weather</c><|eom|><|start|>assistant to=search_web<|message|><c>search_web</c>";
        let names = ["get_weather", "search_web"];
        let ms = layout(
            &plain,
            Some(&reasoned),
            Some(called),
            &names,
            Some("<|eot|>"),
        )
        .expect("a layout");
        assert_eq!(ms.message_start, "<|start|>assistant");
        assert_eq!(ms.recipient_prefix, " to=");
        assert_eq!(ms.message_marker, "<|message|>");
        assert_eq!(ms.message_ends, vec!["<|eom|>", "<|eot|>"]);
        assert_eq!(ms.reasoning_recipient.as_deref(), Some("self"));
        assert_eq!(ms.content_recipients, vec!["user"]);
        assert_eq!(
            strip_headers(called, &ms),
            "<c>get_weather</c><c>search_web</c>"
        );
        // Without reasoning, the calls give the layout.
        let ms = layout(&plain, None, Some(called), &names, None).expect("a layout");
        assert_eq!(ms.message_start, "<|start|>assistant");
        assert_eq!(ms.message_ends, vec!["<|eom|>"]);
        // Marked regions are no layout.
        let plain = format!("<think></think>{CONTENT}");
        assert!(layout(&plain, None, None, &names, None).is_none());
        let plain = format!("<|im_start|>assistant\n{CONTENT}");
        let called = "<tool_call>get_weather</tool_call>";
        assert!(layout(&plain, None, Some(called), &names, None).is_none());
    }
}
