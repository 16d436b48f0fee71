//! Shared helpers of the output tests: parse one-shot and check the streaming invariants.
#![allow(dead_code)]

use chatcodec::output::{
    delta, parse_with, Event, Format, Message, Options, Reasoning, StreamParser,
};
use serde_json::Value;

pub mod families;

pub fn opts(forced_open: bool) -> Options {
    Options {
        reasoning: if forced_open {
            Reasoning::ForcedOpen
        } else {
            Reasoning::Auto
        },
        id_seed: 7,
        tools: None,
        keep_unknown_tools: false,
        tool_schemas: None,
    }
}

/// [`opts`] with a list of known tool names.
pub fn opts_tools(forced_open: bool, tools: &[&str]) -> Options {
    Options {
        tools: Some(tools.iter().map(|t| t.to_string()).collect()),
        ..opts(forced_open)
    }
}

/// Feeds `text` in chunks of the given byte sizes (cycled), recording the message after each
/// chunk; returns (chunk end offsets, messages after each chunk, final message, all events).
pub fn stream(
    format: &Format,
    o: &Options,
    text: &[u8],
    sizes: &[usize],
) -> (Vec<usize>, Vec<Message>, Message, Vec<Event>) {
    let mut p = StreamParser::with_options(format, o.clone());
    let (mut ends, mut msgs, mut events) = (Vec::new(), Vec::new(), Vec::new());
    let mut at = 0;
    let mut k = 0;
    while at < text.len() {
        let n = sizes[k % sizes.len()].max(1).min(text.len() - at);
        k += 1;
        events.extend(p.feed_bytes(&text[at..at + n]));
        at += n;
        ends.push(at);
        msgs.push(p.message().clone());
    }
    events.extend(p.finish());
    (ends, msgs, p.message().clone(), events)
}

/// The message a fresh parser has emitted after being fed `prefix` at once (no finish).
pub fn prefix_message(format: &Format, o: &Options, prefix: &[u8]) -> Message {
    let mut p = StreamParser::with_options(format, o.clone());
    p.feed_bytes(prefix);
    p.message().clone()
}

/// The message the events add up to (what a streaming client has: the final message before
/// broken calls are given back).
pub fn event_sum(events: &[Event]) -> Message {
    let mut m = Message::default();
    for e in events {
        m.apply(e);
    }
    m
}

/// Checks that the final message `whole` is the streamed one `sum` with some broken calls
/// given back as text: the same reasoning and malformed count, the calls of `sum` minus calls
/// whose arguments are not complete JSON, were never written (`{}`) or end with a parameter
/// whose value the output broke off (written `null`), and its content the content of `sum`
/// with text inserted (unchanged when no call was given back) that names each call given
/// back (so a dropped call is never lost: its text is in the content).
pub fn assert_gives_back(sum: &Message, whole: &Message, ctx: &str) {
    assert_eq!(whole.reasoning, sum.reasoning, "{ctx}: reasoning");
    assert_eq!(whole.malformed, sum.malformed, "{ctx}: malformed count");
    let mut kept = whole.tool_calls.iter().peekable();
    let mut given_back: Vec<&str> = Vec::new();
    for c in &sum.tool_calls {
        if kept.peek() == Some(&c) {
            kept.next();
            continue;
        }
        let json = serde_json::from_str::<Value>(&c.arguments).is_ok();
        assert!(
            !json || c.arguments == "{}" || c.arguments.ends_with(": null}"),
            "{ctx}: call {c:?} with complete arguments was dropped\n{sum:?}\n{whole:?}"
        );
        given_back.push(&c.name);
    }
    assert!(
        kept.next().is_none(),
        "{ctx}: final calls are not the streamed ones\n{sum:?}\n{whole:?}"
    );
    if given_back.is_empty() {
        assert_eq!(whole.content, sum.content, "{ctx}: content");
        return;
    }
    let mut rest = whole.content.as_str();
    for ch in sum.content.chars() {
        let Some(i) = rest.find(ch) else {
            panic!("{ctx}: streamed content is not kept in the final message\n{sum:?}\n{whole:?}")
        };
        rest = &rest[i + ch.len_utf8()..];
    }
    for name in &given_back {
        let want = given_back.iter().filter(|n| *n == name).count();
        let more = whole.content.matches(name).count() - sum.content.matches(name).count();
        assert!(
            more >= want,
            "{ctx}: call `{name}` was dropped without its text\n{sum:?}\n{whole:?}"
        );
    }
}

/// Whether `a` is a prefix-state of `b` (everything in `a` is a prefix of the same in `b`).
pub fn is_prefix(a: &Message, b: &Message) -> bool {
    b.content.starts_with(&a.content)
        && b.reasoning.starts_with(&a.reasoning)
        && a.tool_calls.len() <= b.tool_calls.len()
        && a.tool_calls
            .iter()
            .zip(&b.tool_calls)
            .all(|(x, y)| x.id == y.id && x.name == y.name && y.arguments.starts_with(&x.arguments))
}

/// Accumulates OpenAI deltas the way a client does.
pub fn apply_deltas(events: &[Event]) -> Value {
    let mut content = String::new();
    let mut reasoning = String::new();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    for e in events {
        let Some(d) = delta(e) else { continue };
        if let Some(s) = d["content"].as_str() {
            content.push_str(s);
        }
        if let Some(s) = d["reasoning_content"].as_str() {
            reasoning.push_str(s);
        }
        if let Some(tc) = d["tool_calls"].as_array() {
            for t in tc {
                let i = t["index"].as_u64().unwrap() as usize;
                if i == calls.len() {
                    calls.push((
                        t["id"].as_str().unwrap().into(),
                        t["function"]["name"].as_str().unwrap().into(),
                        String::new(),
                    ));
                }
                calls[i]
                    .2
                    .push_str(t["function"]["arguments"].as_str().unwrap());
            }
        }
    }
    let mut m = Message {
        content,
        reasoning,
        ..Message::default()
    };
    for (id, name, arguments) in calls {
        m.tool_calls.push(chatcodec::output::ToolCall {
            id,
            name,
            arguments,
        });
    }
    m.to_json()
}

/// Parses `text` one-shot and checks, for chunkings of 1, 2, 5 bytes: the streamed final
/// message equals the one-shot one, the OpenAI deltas add up to it, and after every chunk the
/// message so far equals what a fresh parser fed that prefix at once has emitted and is a
/// prefix of the final message.
pub fn check(name: &str, forced_open: bool, text: &str) -> Message {
    check_with(name, &opts(forced_open), text)
}

/// [`check`] with the given options.
pub fn check_with(name: &str, o: &Options, text: &str) -> Message {
    let f = Format::by_name(name).unwrap();
    let whole = parse_with(&f, text, o.clone());
    for sizes in [&[1usize][..], &[2], &[5]] {
        let (ends, msgs, fin, events) = stream(&f, o, text.as_bytes(), sizes);
        assert_eq!(
            fin, whole,
            "{name} chunking {sizes:?}: final message differs"
        );
        let sum = event_sum(&events);
        assert_eq!(
            apply_deltas(&events),
            sum.to_json(),
            "{name} chunking {sizes:?}: deltas"
        );
        assert_gives_back(&sum, &whole, &format!("{name} chunking {sizes:?}"));
        for (end, m) in ends.iter().zip(&msgs) {
            let one = prefix_message(&f, o, &text.as_bytes()[..*end]);
            assert_eq!(m, &one, "{name} chunking {sizes:?}: prefix of {end} bytes");
            assert!(is_prefix(m, &sum), "{name}: state after {end} bytes is not a prefix of the streamed message\n{m:?}\n{sum:?}");
        }
    }
    whole
}

/// A tool call's arguments, parsed.
pub fn args(m: &Message, i: usize) -> Value {
    serde_json::from_str(&m.tool_calls[i].arguments)
        .unwrap_or_else(|e| panic!("arguments {:?}: {e}", m.tool_calls[i].arguments))
}
