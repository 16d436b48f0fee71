//! Formats read as the peers' parsers read them: CWM's command-line calls, RWKV's Markdown
//! calls, llama.cpp's generic JSON. Each case one-shot and streamed (1, 2, 5 bytes), with the
//! prefix invariants of `output_support::check_with`.

mod output_support;
use chatcodec::output::{parse_with, Format, Options};
use output_support::{args, check, check_with, opts};
use serde_json::json;

fn calls(m: &chatcodec::output::Message) -> Vec<(String, serde_json::Value)> {
    (0..m.tool_calls.len())
        .map(|i| (m.tool_calls[i].name.clone(), args(m, i)))
        .collect()
}

/// CWM: the body's first word is the tool; the rest is JSON when it is a JSON object or
/// array, else a command line wrapped as `{"command": …}` (trimmed, blank lines dropped).
#[test]
fn cwm_command_lines_and_json_bodies() {
    let m = check(
        "cwm",
        false,
        "<think>Find the tests first.</think>\n<tool: function>\nshell grep -rn \"fn main\" src | head -3\n</tool>\n",
    );
    assert_eq!(m.reasoning, "Find the tests first.");
    assert_eq!(
        calls(&m),
        [(
            "shell".into(),
            json!({"command": "grep -rn \"fn main\" src | head -3"})
        )]
    );
    let m = check(
        "cwm",
        false,
        "Two steps.\n<tool: function>\nshell cargo build\n</tool>\n<tool: function>\nshell cargo test\n</tool>\n",
    );
    assert_eq!(m.content, "Two steps.\n");
    assert_eq!(
        calls(&m),
        [
            ("shell".into(), json!({"command": "cargo build"})),
            ("shell".into(), json!({"command": "cargo test"}))
        ]
    );
    // A JSON object (on the name's line or the next) is the arguments.
    let m = check(
        "cwm",
        false,
        "<tool: search>\nlookup\n{\"q\": \"rust\", \"n\": [1, 2]}\n</tool>",
    );
    assert_eq!(
        calls(&m),
        [("lookup".into(), json!({"q": "rust", "n": [1, 2]}))]
    );
    // Text that only starts like JSON is a command; blank lines inside are dropped.
    let m = check(
        "cwm",
        false,
        "<tool: function>\nrun {not json\n\n  next line\n</tool>",
    );
    assert_eq!(
        calls(&m),
        [("run".into(), json!({"command": "{not json\n  next line"}))]
    );
    // A name with no text after it has an empty command.
    let m = check("cwm", false, "<tool: function>\nls\n</tool>");
    assert_eq!(calls(&m), [("ls".into(), json!({"command": ""}))]);
    assert_eq!(m.malformed, 0);
    // Under the tool-parser name alone, the think block stays in the content.
    let c = Format::by_parsers(Some("cwm"), None).unwrap();
    let m = parse_with(
        &c.format,
        "<think>x</think>\n<tool: function>\nls -la\n</tool>",
        opts(false),
    );
    assert_eq!(m.content, "<think>x</think>\n");
    assert_eq!(calls(&m), [("ls".into(), json!({"command": "-la"}))]);
}

/// RWKV: a `**Tool Call:**` heading then a ```json fence, or the fence alone; arguments
/// written as a JSON string holding the JSON are decoded; other fences are content.
#[test]
fn rwkv_markdown_calls() {
    let pretty = "**Tool Call:**\n```json\n{\n  \"name\": \"lookup\",\n  \"arguments\": {\n    \"q\": \"日本\"\n  }\n}\n```";
    let m = check("rwkv", false, pretty);
    assert_eq!(calls(&m), [("lookup".into(), json!({"q": "日本"}))]);
    assert_eq!(m.content, "");
    let two = format!("Checking both.\n{pretty}\n{pretty}");
    let m = check("rwkv", false, &two);
    assert_eq!(m.content, "Checking both.\n");
    assert_eq!(m.tool_calls.len(), 2);
    let m = check(
        "rwkv",
        false,
        "Plan.\n```json\n{\"name\": \"lookup\", \"arguments\": \"{\\\"q\\\": \\\"x\\\", \\\"n\\\": 2}\", \"id\": \"call_9\"}\n```\n",
    );
    assert_eq!(m.content, "Plan.\n");
    assert_eq!(calls(&m), [("lookup".into(), json!({"q": "x", "n": 2}))]);
    // A string that holds no JSON stays the string (valid JSON, nothing lost).
    let m = check(
        "rwkv",
        false,
        "```json\n{\"name\": \"lookup\", \"arguments\": \"just words\"}\n```",
    );
    assert_eq!(calls(&m), [("lookup".into(), json!("just words"))]);
    let bash = "Run this yourself:\n```bash\nsed -i 's/a/b/' f.txt\n```\n";
    let m = check("rwkv", false, bash);
    assert_eq!(m.content, bash);
    assert!(m.tool_calls.is_empty());
}

/// llama.cpp's generic JSON: the whole output is one object with `tool_calls`, `tool_call`
/// or `response`; any other output is content.
#[test]
fn generic_json_objects() {
    let m = check(
        "generic",
        false,
        "{\n  \"tool_calls\": [\n    {\n      \"name\": \"lookup\",\n      \"arguments\": {\n        \"n\": 1\n      },\n      \"id\": \"abc123\"\n    },\n    {\"name\": \"other\", \"arguments\": {}}\n  ]\n}",
    );
    assert_eq!(
        calls(&m),
        [
            ("lookup".into(), json!({"n": 1})),
            ("other".into(), json!({}))
        ]
    );
    assert_eq!(m.tool_calls[0].id, "abc123");
    let m = check(
        "generic",
        false,
        "{\"tool_call\": {\"name\": \"lookup\", \"arguments\": {\"q\": \"é\"}}}",
    );
    assert_eq!(calls(&m), [("lookup".into(), json!({"q": "é"}))]);
    let m = check(
        "generic",
        false,
        "{\"response\": \"Line one\\nLine \\\"two\\\" \\u00e9\"}",
    );
    assert_eq!(m.content, "Line one\nLine \"two\" é");
    assert!(m.tool_calls.is_empty());
    // A response that is not a string is printed as llama.cpp prints the value.
    let m = check(
        "generic",
        false,
        "{\"response\": {\"b\": [1, \"x\"], \"a\": {}, \"c\": true}}",
    );
    assert_eq!(
        m.content,
        "{\n  \"a\": {},\n  \"b\": [\n    1,\n    \"x\"\n  ],\n  \"c\": true\n}"
    );
    let m = check("generic", false, "{\"response\": 42}");
    assert_eq!(m.content, "42");
    let m = check("generic", false, "Just text, no JSON.");
    assert_eq!(m.content, "Just text, no JSON.");
    let m = check("generic", false, "{\"tool_calls\": []}");
    assert_eq!((m.content.as_str(), m.tool_calls.len()), ("", 0));
}

/// With tools given, CWM and RWKV calls to offered tools are typed as written (JSON), and
/// the command form needs no schema.
#[test]
fn peer_formats_with_tools() {
    let o = Options {
        tools: Some(vec!["shell".into()]),
        tool_schemas: Some(json!([{"type": "function", "function": {"name": "shell",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}}])),
        ..opts(false)
    };
    let m = check_with("cwm", &o, "<tool: function>\nshell echo 5\n</tool>");
    assert_eq!(calls(&m), [("shell".into(), json!({"command": "echo 5"}))]);
}
