//! Output the peers' parsers read that chatcodec read differently: a broken line of a
//! MiniMax-M1 call section, and more. Each case one-shot and streamed (1, 2, 5 bytes), with
//! the prefix invariants of `output_support::check`.

mod output_support;
use chatcodec::output::Message;
use output_support::{args, check};
use serde_json::{json, Value};

fn calls(m: &Message) -> Vec<(String, Value)> {
    (0..m.tool_calls.len())
        .map(|i| (m.tool_calls[i].name.clone(), args(m, i)))
        .collect()
}

fn call(name: &str, args: Value) -> (String, Value) {
    (name.to_string(), args)
}

/// MiniMax-M1 writes one call object a line; a line that is not a call does not end the
/// section: it is content, later calls still parse and `</tool_calls>` is consumed.
#[test]
fn minimax_m1_broken_line_does_not_end_the_section() {
    let m = check(
        "minimax-m1",
        false,
        "Let me look both up.\n<tool_calls>\n{\"name\": \"lookup\", \"arguments\": {\"q\": \"rust\"}}\n{lookup q=go}\n{\"name\": \"lookup\", \"arguments\": {\"q\": \"zig\"}}\n</tool_calls>\n",
    );
    assert_eq!(m.content, "Let me look both up.\n{lookup q=go}\n");
    assert_eq!(
        calls(&m),
        [
            call("lookup", json!({"q": "rust"})),
            call("lookup", json!({"q": "zig"}))
        ]
    );
    assert_eq!(m.malformed, 1);

    // An object without a name is content; one with a name and no arguments is a call
    // without arguments; a line of prose is content too.
    let m = check(
        "minimax-m1",
        false,
        "<tool_calls>\n{\"name\": \"now\"}\n{\"arguments\": {\"tz\": \"UTC\"}}\nand then\n{\"name\": \"sleep\", \"arguments\": {\"s\": 2}}\n</tool_calls>Done.",
    );
    assert_eq!(
        m.content,
        "{\"arguments\": {\"tz\": \"UTC\"}}\nand then\nDone."
    );
    assert_eq!(
        calls(&m),
        [call("now", json!({})), call("sleep", json!({"s": 2}))]
    );
    assert_eq!(m.malformed, 1);

    // A call whose arguments break is given back as its text; the next line still parses.
    let m = check(
        "minimax-m1",
        false,
        "<tool_calls>\n{\"name\": \"a\", \"arguments\": {\"x\": oops}}\n{\"name\": \"b\", \"arguments\": {}}\n</tool_calls>",
    );
    assert_eq!(
        m.content,
        "<tool_calls>\n{\"name\": \"a\", \"arguments\": {\"x\": oops}}\n"
    );
    assert_eq!(calls(&m), [call("b", json!({}))]);

    // A missing closing brace: the call read so far is complete and kept (the newline read
    // inside it is content), the next line is still a call.
    let m = check(
        "minimax-m1",
        false,
        "<tool_calls>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}\n{\"name\": \"b\", \"arguments\": {}}\n</tool_calls>",
    );
    assert_eq!(m.content, "\n");
    assert_eq!(
        calls(&m),
        [call("a", json!({"x": 1})), call("b", json!({}))]
    );

    // Prose after an opening tag is not a section: all of it stays content.
    let m = check(
        "minimax-m1",
        false,
        "I put calls in <tool_calls> tags.\nLike {\"name\": \"x\"} here.",
    );
    assert_eq!(
        m.content,
        "I put calls in <tool_calls> tags.\nLike {\"name\": \"x\"} here."
    );
    assert!(m.tool_calls.is_empty());
}

/// A JSON call object's closing brace belongs to the call: text that breaks the format after
/// it comes back as content without the brace.
#[test]
fn json_call_keeps_its_closing_brace() {
    let m = check(
        "hermes",
        false,
        "<tool_call>\n{\"name\": \"f\", \"arguments\": {}} (done)</tool_call>\nOk.",
    );
    assert_eq!(m.content, " (done)</tool_call>\nOk.");
    assert_eq!(calls(&m), [call("f", json!({}))]);
    assert_eq!(m.malformed, 1);
}

/// Gemma 4 opens reasoning with the channel's label and a newline, `<|channel>thought\n`:
/// both are markup, as vLLM's and SGLang's Gemma 4 parsers strip them.
#[test]
fn gemma4_thought_label_newline_is_markup() {
    let m = check(
        "gemma4",
        false,
        "<|channel>thought\nThe user wants 12 * 7.\nThat is 84.<channel|>12 × 7 = 84.",
    );
    assert_eq!(m.reasoning, "The user wants 12 * 7.\nThat is 84.");
    assert_eq!(m.content, "12 × 7 = 84.");
    // Only one newline belongs to the label; a blank line after it is reasoning.
    let m = check(
        "gemma4",
        false,
        "<|channel>thought\n\nStep 1: read the file.",
    );
    assert_eq!(m.reasoning, "\nStep 1: read the file.");
    // A label written without its newline.
    let m = check("gemma4", false, "<|channel>thoughtShort.<channel|>Done.");
    assert_eq!(m.reasoning, "Short.");
    // With a call after the reasoning.
    let m = check(
        "gemma4",
        false,
        "<|channel>thought\nI need the weather.<channel|><|tool_call>call:get_weather{city:<|\"|>Oslo<|\"|>}<tool_call|>",
    );
    assert_eq!(m.reasoning, "I need the weather.");
    assert_eq!(calls(&m), [call("get_weather", json!({"city": "Oslo"}))]);
    // The prompt opened the channel and the model wrote the label again.
    let m = check("gemma4", true, "<|channel>thought\nPlan.<channel|>Answer.");
    assert_eq!(m.reasoning, "Plan.");
    assert_eq!(m.content, "Answer.");
}
