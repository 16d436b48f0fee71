//! Output the peers' parsers read that chatcodec read differently: a broken line of a
//! MiniMax-M1 call section, and more. Each case one-shot and streamed (1, 2, 5 bytes), with
//! the prefix invariants of `output_support::check`.

mod output_support;
use chatcodec::output::{Message, Options};
use output_support::{args, check, check_with, opts, stream};
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

/// LFM2 may write a call as one JSON object (or several, comma-separated) between its
/// markers, with no list around it, as SGLang's LFM2 parser reads it.
#[test]
fn lfm2_bare_json_call_object() {
    let m = check(
        "lfm2",
        false,
        "Checking the forecast. <|tool_call_start|>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\", \"days\": 2}}<|tool_call_end|>",
    );
    assert_eq!(m.content, "Checking the forecast. ");
    assert_eq!(
        calls(&m),
        [call("get_weather", json!({"city": "Rome", "days": 2}))]
    );
    let m = check(
        "lfm2",
        false,
        "<|tool_call_start|>{\"name\": \"search\", \"parameters\": {\"q\": \"lfm2\"}}, {\"name\": \"now\", \"arguments\": {}}<|tool_call_end|>",
    );
    assert_eq!(
        calls(&m),
        [call("search", json!({"q": "lfm2"})), call("now", json!({}))]
    );
    // The list forms are read as before.
    let m = check(
        "lfm2",
        false,
        "<|tool_call_start|>[get_weather(city=\"Oslo\")]<|tool_call_end|>",
    );
    assert_eq!(calls(&m), [call("get_weather", json!({"city": "Oslo"}))]);
    // A JSON object in prose is not a call: only the marker opens one, and the bare
    // pythonic format (no marker) does not read objects.
    let m = check("lfm2", false, "Write {\"name\": \"x\"} to call.");
    assert!(m.tool_calls.is_empty());
    let m = check("pythonic", false, "{\"name\": \"x\", \"arguments\": {}}");
    assert_eq!(m.content, "{\"name\": \"x\", \"arguments\": {}}");
    assert!(m.tool_calls.is_empty());
}

/// A DSML invoke may hold its arguments as a JSON object instead of parameter tags.
#[test]
fn dsml_invoke_with_json_arguments() {
    let m = check(
        "deepseek-v3.2",
        false,
        "Looking both up.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n{\n  \"city\": \"Hangzhou\",\n  \"days\": 3\n}\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"query\" string=\"true\">West Lake</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    );
    assert_eq!(m.content, "Looking both up.\n\n");
    assert_eq!(
        calls(&m),
        [
            call("get_weather", json!({"city": "Hangzhou", "days": 3})),
            call("search", json!({"query": "West Lake"}))
        ]
    );
    // Broken JSON arguments: the call is given back as its text.
    let m = check(
        "deepseek-v3.2",
        false,
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n{\"city\": Hangzhou}\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    );
    assert!(m.tool_calls.is_empty());
    assert!(m.content.contains("{\"city\": Hangzhou}"), "{m:?}");
}

/// GLM values written escaped, as output that went through a JSON string once more: the
/// newlines between the tags as the two characters `\n`, an array's quotes as `\"`. The
/// separators are read as such and the escaped JSON decodes to the array (with the schema
/// typing it, or typed by its text without one); arguments are JSON in every case.
#[test]
fn glm_escaped_values_and_separators() {
    let o = Options {
        tool_schemas: Some(json!([{"type": "function", "function": {"name": "plan",
            "parameters": {"type": "object", "properties": {
                "steps": {"type": "array"}, "title": {"type": "string"}}}}}])),
        ..opts(false)
    };
    let text = r#"<tool_call>plan\n<arg_key>title</arg_key>\n<arg_value>Fix C:\tmp</arg_value>\n<arg_key>steps</arg_key>\n<arg_value>[{\"id\": 1, \"do\": \"read C:\\\\tmp\\\\a.txt\"}, {\"id\": 2, \"do\": \"print \\\\n\"}]</arg_value>\n</tool_call>"#;
    let want = json!({"title": "Fix C:\\tmp", "steps": [
        {"id": 1, "do": "read C:\\tmp\\a.txt"}, {"id": 2, "do": "print \\n"}]});
    for o in [&o, &opts(false)] {
        let m = check_with("glm-4.5", o, text);
        assert_eq!(m.content, "");
        assert_eq!(calls(&m), [call("plan", want.clone())]);
    }
    // GLM-4.7 writes no separators; real newlines are read as before.
    let m = check_with(
        "glm-4.5",
        &o,
        r#"<tool_call>plan<arg_key>steps</arg_key><arg_value>[\"a\", \"b\"]</arg_value></tool_call>"#,
    );
    assert_eq!(calls(&m), [call("plan", json!({"steps": ["a", "b"]}))]);
    // A string parameter keeps the text as written, backslashes included.
    let m = check_with(
        "glm-4.5",
        &o,
        "<tool_call>plan\n<arg_key>title</arg_key>\n<arg_value>[\\\"x\\\"]</arg_value>\n</tool_call>",
    );
    assert_eq!(calls(&m), [call("plan", json!({"title": "[\\\"x\\\"]"}))]);
    // Text that only looks escaped stays a string.
    let m = check(
        "glm-4.5",
        false,
        "<tool_call>plan\n<arg_key>steps</arg_key>\n<arg_value>[\\\"a\\\", b]</arg_value>\n</tool_call>",
    );
    assert_eq!(
        calls(&m),
        [call("plan", json!({"steps": "[\\\"a\\\", b]"}))]
    );
}

/// A GLM call needs a name, and a call broken between a key and its value streams JSON
/// arguments (the key's value is `null`) and is given back as text in the final message.
#[test]
fn glm_call_without_name_or_value() {
    let m = check("glm-4.5", false, "<tool_call>\n");
    assert_eq!(m.content, "<tool_call>\n");
    assert!(m.tool_calls.is_empty());
    let m = check("glm-4.5", false, "<tool_call> now</tool_call>");
    assert_eq!(calls(&m), [call("now", json!({}))]);

    let text = "<tool_call>search\n<arg_key>q</arg_key>\n<arg_value>glm</arg_value>\n<arg_key>limit</arg_key>\nten</tool_call>";
    let m = check("glm-4.5", false, text);
    assert!(m.tool_calls.is_empty());
    assert!(m.content.starts_with("<tool_call>search\n"), "{m:?}");
    let f = chatcodec::output::Format::by_name("glm-4.5").unwrap();
    let (_, _, _, events) = stream(&f, &opts(false), text.as_bytes(), &[3]);
    let streamed: String = events
        .iter()
        .filter_map(|e| match e {
            chatcodec::output::Event::ToolCallArgs { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&streamed).ok(),
        Some(json!({"q": "glm", "limit": null}))
    );
}

/// Text on the line a call block ends keeps its leading space, so the words around an inline
/// block are not glued; whitespace up to a line break after a block stays layout.
#[test]
fn space_after_an_inline_call_block_is_kept() {
    let block = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>lookup<｜tool▁sep｜>{\"q\": \"tides\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let m = check(
        "deepseek-v3.1",
        false,
        &format!("</think>Checking the tides{block} before we sail."),
    );
    assert_eq!(m.content, "Checking the tides before we sail.");
    assert_eq!(calls(&m), [call("lookup", json!({"q": "tides"}))]);
    let m = check(
        "deepseek-v3.1",
        false,
        &format!("</think>Checking.{block}\n\nDone."),
    );
    assert_eq!(m.content, "Checking.Done.");
    let m = check(
        "deepseek-v3.1",
        false,
        &format!("</think>Checking.{block}  \n"),
    );
    assert_eq!(m.content, "Checking.");
    // The same rule in the other block formats.
    let m = check(
        "hermes",
        false,
        "Let me<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call> check.",
    );
    assert_eq!(m.content, "Let me check.");
    let m = check(
        "minimax-m2",
        false,
        "One<minimax:tool_call>\n<invoke name=\"f\">\n</invoke>\n</minimax:tool_call> two.",
    );
    assert_eq!(m.content, "One two.");
    let m = check(
        "qwen3-coder",
        false,
        "Step<tool_call>\n<function=f>\n</function>\n</tool_call> two.\n<tool_call>\n<function=g>\n</function>\n</tool_call>\n",
    );
    assert_eq!(m.content, "Step two.\n");
    assert_eq!(m.tool_calls.len(), 2);
}

/// A MiniMax-M2 value may contain `</parameter>`: only a closing tag followed by the next
/// parameter, `</invoke>`, the section's end or the end of the output closes it.
#[test]
fn minimax_m2_value_containing_the_closing_tag() {
    let m = check(
        "minimax-m2",
        false,
        "<minimax:tool_call>\n<invoke name=\"write_doc\">\n<parameter name=\"path\">notes.md</parameter>\n<parameter name=\"text\">Close XML params with </parameter> tags.</parameter>\n</invoke>\n</minimax:tool_call>",
    );
    assert_eq!(m.content, "");
    assert_eq!(
        calls(&m),
        [call(
            "write_doc",
            json!({"path": "notes.md", "text": "Close XML params with </parameter> tags."})
        )]
    );
    // On its own line too; the value's last newline is still not part of it.
    let m = check(
        "minimax-m2",
        false,
        "<minimax:tool_call>\n<invoke name=\"w\">\n<parameter name=\"t\">\na\n</parameter>\nb\n</parameter>\n</invoke>\n</minimax:tool_call>",
    );
    assert_eq!(calls(&m), [call("w", json!({"t": "a\n</parameter>\nb"}))]);
    // Output cut off right after a closing tag: it closed the value.
    let m = check(
        "minimax-m2",
        false,
        "<minimax:tool_call>\n<invoke name=\"w\">\n<parameter name=\"t\">x</parameter>",
    );
    assert_eq!(calls(&m), [call("w", json!({"t": "x"}))]);
}
