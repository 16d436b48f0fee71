//! Output classes found by running the peers' parser tests (vLLM, SGLang) against chatcodec,
//! one test per class, with our own inputs. Each case is checked one-shot and streamed (1, 2,
//! 5 bytes; every prefix's message a prefix of the final one) by `output_support::check`,
//! which also checks that the deltas add up to the final message.

mod output_support;
use chatcodec::output::{parse_with, Event, Format, Message, StreamParser};
use output_support::{args, check, opts, stream};
use proptest::prelude::*;
use serde_json::{json, Value};

fn calls(m: &Message) -> Vec<(String, Value)> {
    (0..m.tool_calls.len())
        .map(|i| (m.tool_calls[i].name.clone(), args(m, i)))
        .collect()
}

/// Step-3 calls with the `function<｜tool_sep｜>` head, without it, and with the function name
/// written again before the invoke: all three are calls, with values typed by their text and
/// string values kept with their whitespace.
#[test]
fn step3_call_heads() {
    let invoke = "<steptml:invoke name=\"write_file\"><steptml:parameter name=\"path\">src/lib.rs</steptml:parameter><steptml:parameter name=\"body\">    let n = 2;\n</steptml:parameter><steptml:parameter name=\"mode\"> 644 </steptml:parameter><steptml:parameter name=\"force\"> false </steptml:parameter></steptml:invoke>";
    let want =
        json!({"path": "src/lib.rs", "body": "    let n = 2;\n", "mode": 644, "force": false});
    for head in [
        "function<｜tool_sep｜>",
        "",
        "function<｜tool_sep｜>write_file\n",
        "function<｜tool_sep｜> write_file ",
    ] {
        let text = format!(
            "Saving it.<｜tool_calls_begin｜><｜tool_call_begin｜>{head}{invoke}<｜tool_call_end｜><｜tool_calls_end｜>Saved."
        );
        let m = check("step3", false, &text);
        assert_eq!(calls(&m), [("write_file".into(), want.clone())], "{head:?}");
        assert_eq!(m.content, "Saving it.Saved.", "{head:?}");
    }
    // Two calls, the second without a head, after reasoning.
    let m = check(
        "step3",
        false,
        "<think>List, then read.</think><｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"list_dir\"></steptml:invoke><｜tool_call_end｜><｜tool_call_begin｜>function<｜tool_sep｜>read_file\n<steptml:invoke name=\"read_file\"><steptml:parameter name=\"path\">a.txt</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    );
    assert_eq!(m.reasoning, "List, then read.");
    assert_eq!(
        calls(&m),
        [
            ("list_dir".into(), json!({})),
            ("read_file".into(), json!({"path": "a.txt"}))
        ]
    );
    // Text between the head and the invoke that is not a name is not skipped: the block is
    // malformed and comes back as content.
    let text = "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>I will call it now <steptml:invoke name=\"list_dir\"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>";
    let m = check("step3", false, text);
    assert!(m.tool_calls.is_empty(), "{m:?}");
    assert!(m.content.contains("I will call it now"), "{m:?}");
    assert!(m.malformed > 0);
}

/// Granite 3.2 reasons in plain text: `Here is my thought process:` opens the reasoning at the
/// start of the output and `Here is my response:` ends it. Granite 3.3's tags still work, the
/// phrases elsewhere are prose, and a tool parser alone keeps them as content.
#[test]
fn granite_plain_text_reasoning() {
    let m = check(
        "granite",
        false,
        "Here is my thought process:\nThe user wants a haiku about rain.\nFive, seven, five.\n\nHere is my response:\nSoft rain on the roof",
    );
    assert_eq!(
        m.reasoning,
        "\nThe user wants a haiku about rain.\nFive, seven, five.\n\n"
    );
    assert_eq!(m.content, "Soft rain on the roof");
    let m = check(
        "granite",
        false,
        "Here's my thought process: sum them. Here's my response: 12",
    );
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        (" sum them. ", "12")
    );
    // Output cut before the response: all reasoning.
    let m = check(
        "granite",
        false,
        "Here is my thought process: still weighing",
    );
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        (" still weighing", "")
    );
    // A call ends the reasoning.
    let m = check(
        "granite",
        false,
        "Here is my thought process: look it up.<|tool_call|>[{\"name\": \"search\", \"arguments\": {\"q\": \"rain\"}}]",
    );
    assert_eq!(m.reasoning, " look it up.");
    assert_eq!(calls(&m), [("search".into(), json!({"q": "rain"}))]);
    // Granite 3.3 tags.
    let m = check(
        "granite",
        false,
        "<think>short</think><response>Done.</response>",
    );
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("short", "Done.")
    );
    // Not at the start: prose.
    let text = "The template asks for Here is my thought process: x Here is my response: y";
    let m = check("granite", false, text);
    assert_eq!((m.reasoning.as_str(), m.content.as_str()), ("", text));
    // A tool parser alone reads no reasoning.
    let f = Format::by_name("granite").unwrap().without_reasoning();
    let text = "Here is my thought process: a Here is my response: b";
    let m = parse_with(&f, text, opts(false));
    assert_eq!((m.reasoning.as_str(), m.content.as_str()), ("", text));
}

/// While a phrase is incomplete, nothing of it is emitted: a prefix of `Here is my thought
/// process:` at the start is held, and so is a prefix of `Here is my response:` in reasoning.
#[test]
fn granite_phrases_are_held_back_while_partial() {
    let f = Format::by_name("granite").unwrap();
    let mut p = StreamParser::with_options(&f, opts(false));
    p.feed("Here is my thou");
    assert_eq!(p.message().content, "");
    p.feed("ght process: rhyme it\nHere is my resp");
    assert_eq!(p.message().reasoning, " rhyme it\n");
    assert_eq!(p.message().content, "");
    p.feed("onse: Done");
    p.finish();
    assert_eq!(p.message().content, "Done");
    // A prefix that turns out to be prose is content in full.
    let mut p = StreamParser::with_options(&f, opts(false));
    p.feed("Here is my thou");
    p.feed("sand-word essay.");
    p.finish();
    assert_eq!(p.message().content, "Here is my thousand-word essay.");
    assert_eq!(p.message().reasoning, "");
}

/// The pythonic format reads Llama 4's `<|python_start|>…<|python_end|>` wrapper as the llama4
/// format does: the markers are consumed and the text around them is content.
#[test]
fn pythonic_reads_the_llama4_wrapper() {
    for text in [
        "Let me check. <|python_start|>[get_weather(city='Oslo', days=[1, 2])]<|python_end|>",
        "Checking both. <|python_start|>[get_weather(city='Oslo'), get_time(tz='CET')]<|python_end|> Back soon.",
        "<|python_start|>[get_time(tz='UTC')]<|python_end|>",
        "<|python_start|>Plain words in the wrapper.<|python_end|> More.",
    ] {
        let m = check("pythonic", false, text);
        let l = check("llama4", false, text);
        assert_eq!(m.content, l.content, "{text}");
        assert_eq!(calls(&m), calls(&l), "{text}");
        assert!(!m.content.contains("<|python_"), "{m:?}");
    }
    let m = check(
        "pythonic",
        false,
        "Checking both. <|python_start|>[get_weather(city='Oslo'), get_time(tz='CET')]<|python_end|> Back soon.",
    );
    assert_eq!(m.content, "Checking both.  Back soon.");
    assert_eq!(
        calls(&m),
        [
            ("get_weather".into(), json!({"city": "Oslo"})),
            ("get_time".into(), json!({"tz": "CET"}))
        ]
    );
    // LFM2 (the same grammar) has no such wrapper: the markers are text there.
    let text = "<|python_start|>hi<|python_end|>";
    assert_eq!(check("lfm2", false, text).content, text);
}

/// Call bodies whose name is empty or blank, per format: none of them is a call, and the text
/// comes back as content.
const BLANK_NAMED: &[(&str, &str)] = &[
    ("glm-4.5", "<tool_call>   "),
    ("glm-4.5", "<tool_call>\n"),
    (
        "glm-4.5",
        "<tool_call> \n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>",
    ),
    (
        "hermes",
        "<tool_call>\n{\"name\": \"\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>",
    ),
    (
        "hermes",
        "<tool_call>\n{\"name\": \"  \", \"arguments\": {}}\n</tool_call>",
    ),
    (
        "qwen3-coder",
        "<tool_call>\n<function= >\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>",
    ),
    (
        "minimax-m2",
        "<minimax:tool_call>\n<invoke name=\"\">\n<parameter name=\"city\">Oslo</parameter>\n</invoke>\n</minimax:tool_call>",
    ),
    ("mistral-nemo", "[TOOL_CALLS][{\"name\": \" \", \"arguments\": {}}]"),
    (
        "step3",
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\" \"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    ),
    (
        "deepseek-v3.2",
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    ),
    ("llama3", "{\"name\": \"\", \"parameters\": {\"city\": \"Oslo\"}}"),
];

#[test]
fn blank_names_are_no_calls() {
    for (f, text) in BLANK_NAMED {
        let m = check(f, false, text);
        assert!(m.tool_calls.is_empty(), "{f}: {text:?} gave {m:?}");
        if text.contains("Oslo") {
            assert!(m.content.contains("Oslo"), "{f}: {text:?} lost text: {m:?}");
        }
    }
    // GLM's bare opener comes back whole, whitespace included.
    assert_eq!(
        check("glm-4.5", false, "<tool_call>   ").content,
        "<tool_call>   "
    );
    // A named call after a blank-named one is still a call.
    let m = check(
        "hermes",
        false,
        "<tool_call>{\"name\": \"\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"ping\", \"arguments\": {}}</tool_call>",
    );
    assert_eq!(calls(&m), [("ping".into(), json!({}))]);
}

/// Openers followed by a blank name, for the property below.
const BLANK_PIECES: &[&str] = &[
    "<tool_call>",
    "<tool_call> ",
    "<tool_call>\n",
    "<arg_key>k</arg_key><arg_value>1</arg_value>",
    "</tool_call>",
    "{\"name\": \"\", \"arguments\": {",
    "{\"name\": \" \", \"parameters\": {",
    "\"a\": 1}}",
    "<function= >",
    "<function=>",
    "</function>",
    "<invoke name=\"\">",
    "<invoke name=\" \">",
    "</invoke>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "{}",
    "<steptml:invoke name=\" \">",
    "<｜tool_calls_begin｜><｜tool_call_begin｜>",
    "<｜DSML｜invoke name=\"\">",
    "<|tool_call_begin|>functions.:0<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "[",
    "]",
    "(",
    ")",
    "x",
    " ",
    "é",
];

fn blank_output() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(BLANK_PIECES), 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// No format announces or returns a call whose name is empty or blank, streamed or not.
    #[test]
    fn no_call_has_a_blank_name(text in blank_output(), fi in 0..64usize) {
        let names: Vec<&str> = Format::names().map(|(n, _)| n).collect();
        let f = Format::by_name(names[fi % names.len()]).unwrap();
        let m = parse_with(&f, &text, opts(false));
        prop_assert!(m.tool_calls.iter().all(|c| !c.name.trim().is_empty()), "{:?}", m);
        let (_, _, _, events) = stream(&f, &opts(false), text.as_bytes(), &[1]);
        for e in &events {
            if let Event::ToolCallStart { name, .. } = e {
                prop_assert!(!name.trim().is_empty(), "{:?}", events);
            }
        }
    }
}

/// Pythonic values: a closing bracket does not end up inside an unquoted value, bytes and
/// f-string literals (no JSON value) make the call malformed, `u'…'` and `r'…'` are strings,
/// and a number JSON cannot hold is kept as its text with a malformed report.
#[test]
fn pythonic_values_without_a_json_form() {
    for f in ["pythonic", "llama4"] {
        let m = check(f, false, "[resize(width=640])]");
        assert!(m.tool_calls.is_empty(), "{f}: {m:?}");
        assert_eq!(m.content, "[resize(width=640])]", "{f}");
        // The call before the broken one stays; the rest is content.
        let m = check(f, false, "[ping(host='a'), resize(width=640])]");
        assert_eq!(calls(&m), [("ping".into(), json!({"host": "a"}))], "{f}");
        assert_eq!(m.content, ", resize(width=640])]", "{f}");
        for bad in ["data=b'\\x00'", "data=rb'raw'", "label=f'{name}'"] {
            let text = format!("[upload({bad})]");
            let m = check(f, false, &text);
            assert!(m.tool_calls.is_empty(), "{f}: {text} gave {m:?}");
            assert_eq!(m.content, text, "{f}");
        }
        let m = check(
            f,
            false,
            "[open_file(path=r'C:\\temp\\notes.txt', title=u'Notes', tags=[r'a\\b'])]",
        );
        assert_eq!(
            calls(&m),
            [(
                "open_file".into(),
                json!({"path": "C:\\temp\\notes.txt", "title": "Notes", "tags": ["a\\b"]})
            )],
            "{f}"
        );
        let m = check(f, false, "[scale(factor=1e999), ping(host='a')]");
        assert_eq!(
            calls(&m),
            [
                ("scale".into(), json!({"factor": "1e999"})),
                ("ping".into(), json!({"host": "a"}))
            ],
            "{f}"
        );
        assert_eq!(m.malformed, 1, "{f}");
        // Unquoted values (templates with bugs) are still strings.
        let m = check(
            f,
            false,
            "[book(city=Lyon, France, guests=2, note=Anna's room)]",
        );
        assert_eq!(
            calls(&m),
            [(
                "book".into(),
                json!({"city": "Lyon, France", "guests": 2, "note": "Anna's room"})
            )],
            "{f}"
        );
    }
    let m = check(
        "olmo3",
        false,
        "<function_calls>resize(width=640])\nping(host='a')</function_calls>",
    );
    assert!(m.tool_calls.is_empty(), "{m:?}");
    assert!(
        m.content.starts_with("<function_calls>resize(width=640])"),
        "{m:?}"
    );
}

/// Mistral v11 names are function names and the arguments an object: prose after
/// `[TOOL_CALLS]` names no call and comes back as content.
#[test]
fn mistral_names_are_function_names() {
    for text in [
        "[TOOL_CALLS]  junk [{\"name\": \"add\", \"arguments\": {\"a\": 1}}] trail",
        "[TOOL_CALLS]Sure, here you go {\"a\": 1}",
        "[TOOL_CALLS]add[ARGS][1, 2]",
        "[TOOL_CALLS]{\"a\": 1}",
    ] {
        for f in ["mistral", "mistral-nemo"] {
            let m = check(f, false, text);
            assert!(m.tool_calls.is_empty(), "{f}: {text} gave {m:?}");
            assert_eq!(m.content, text, "{f}");
        }
    }
    let m = check(
        "mistral",
        false,
        "[TOOL_CALLS]get_weather {\"city\": \"Oslo\"}[TOOL_CALLS]geo.lookup[CALL_ID]a1B2c3D4e[ARGS]{\"q\": \"Oslo\"}",
    );
    assert_eq!(
        calls(&m),
        [
            ("get_weather".into(), json!({"city": "Oslo"})),
            ("geo.lookup".into(), json!({"q": "Oslo"}))
        ]
    );
    assert_eq!(m.tool_calls[1].id, "a1B2c3D4e");
}
