//! Property tests: every-prefix streaming invariant under random chunkings, and losslessness
//! (random text with random markers never panics and loses no byte).

mod output_support;
use chatcodec::output::{parse_with, Format, Message};
use output_support::{opts, opts_tools, prefix_message, stream};
use proptest::prelude::*;

/// Fragments that models write: markers of every family (some truncated) and JSON pieces.
const MARKERS: &[&str] = &[
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": ",
    "}}\n</tool_call>",
    "<function=f>\n",
    "<parameter=k>\n",
    "\n</parameter>\n",
    "</function>",
    "<|python_tag|>",
    "{\"name\": \"g\", \"parameters\": {",
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "[THINK]",
    "[/THINK]",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "```json\n",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>functions.f:0",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<minimax:tool_call>",
    "<invoke name=\"f\">",
    "<parameter name=\"k\">",
    "</parameter>",
    "</invoke>",
    "<|channel|>",
    "analysis",
    "final",
    "commentary to=functions.f",
    "<|message|>",
    "<|end|>",
    "<|start|>assistant",
    "<|call|>",
    "{",
    "}",
    "\"",
    "[",
    "]",
    ",",
    ":",
    "\\",
    "<",
    "<tool",
    "<|",
    "\n",
    "[f(a=1)",
    "g(b='",
    ")]",
    "<|tool_call_start|>",
    "<｜DSML｜function_calls>",
    "<｜DSML｜invoke name=\"f\">",
    "<｜DSML｜parameter name=\"k\" string=\"true\">",
    "<|tool_call>call:f{",
    "k:<|\"|>",
    "<|\"|>",
    "<tool_call|>",
    "<|channel>thought",
    "<channel|>",
    "<|START_ACTION|>",
    "<|START_RESPONSE|>",
    "<|tools_prefix|>[{\"f\": ",
    ">>>all\n",
    ">>>f\n",
    "<|python_start|>",
    "<|python_end|>",
    "<|open|>tools<|sep|><|open|>call tool=\"f\"<|sep|>",
    "<|open|>argument key=\"k\" type=\"string\"<|sep|>",
    "<|close|>argument<|sep|>",
    "<|close|>think<|sep|>",
    "]<]minimax[>[<tool_call>",
    "]<]minimax[>[<invoke name=\"f\">",
    "]<]minimax[>[<k>",
    "]<]minimax[>[</k>",
    "<mm:think>",
    "<|function_call|>",
    "<|message_sep|>",
    "<|action_start|><|plugin|>",
    "<|tool_call|>",
    "{\"name\": \"h\", \"arguments\": {",
    "<function=f>{",
    "functools[",
    "{\"k\": ",
    "{\"arguments\": {",
];

/// The known tool names the properties run with, when they run with a list: calls to `g`,
/// `h` or a name made of random text are then unknown.
fn tools_opt(forced: bool, tools: bool) -> chatcodec::output::Options {
    if tools {
        opts_tools(forced, &["f"])
    } else {
        opts(forced)
    }
}

/// Characters counted by the lossless check: none of them occurs in any marker or in
/// generated ids, so every occurrence in the input must reappear in the output.
const TEXT: &[&str] = &["é", "日", "🙂", "ß", "Ω", "  ", "x"];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(TEXT).prop_map(str::to_string),
        2 => prop::sample::select(MARKERS).prop_map(str::to_string),
    ]
}

fn output() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..40).prop_map(|v| v.concat())
}

fn counted(s: &str) -> Vec<usize> {
    ["é", "日", "🙂", "ß", "Ω"]
        .iter()
        .map(|c| s.matches(c).count())
        .collect()
}

fn message_text(m: &Message) -> String {
    let mut s = m.content.clone() + &m.reasoning;
    for c in &m.tool_calls {
        s.push_str(&c.id);
        s.push_str(&c.name);
        // Arguments are JSON: decode escapes so the characters count as written.
        s.push_str(&c.arguments);
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_prefix_and_chunking(text in output(), sizes in prop::collection::vec(1usize..9, 1..6),
                                 fi in 0..64usize, forced in any::<bool>(), tools in any::<bool>()) {
        let names: Vec<&str> = Format::names().map(|(n, _)| n).collect();
        let f = Format::by_name(names[fi % names.len()]).unwrap();
        let o = tools_opt(forced, tools);
        let whole = parse_with(&f, &text, o.clone());
        for sizes in [&[1usize][..], &[2], &[5], &sizes] {
            let (ends, msgs, fin, events) = stream(&f, &o, text.as_bytes(), sizes);
            prop_assert_eq!(&fin, &whole);
            let sum = output_support::event_sum(&events);
            output_support::assert_gives_back(&sum, &whole, &text);
            for (end, m) in ends.iter().zip(&msgs) {
                prop_assert_eq!(m, &prefix_message(&f, &o, &text.as_bytes()[..*end]));
                prop_assert!(output_support::is_prefix(m, &sum), "not a prefix at {}", end);
            }
        }
    }

    #[test]
    fn lossless(text in output(), fi in 0..64usize, forced in any::<bool>(), tools in any::<bool>()) {
        let names: Vec<&str> = Format::names().map(|(n, _)| n).collect();
        let f = Format::by_name(names[fi % names.len()]).unwrap();
        let m = parse_with(&f, &text, tools_opt(forced, tools));
        prop_assert_eq!(counted(&message_text(&m)), counted(&text), "{:?}", m);
        if tools {
            prop_assert!(m.tool_calls.iter().all(|c| c.name == "f"), "{:?}", m);
        }
    }
}

/// Openers after which a model may write a call: every family's call marker, and none.
const OPENERS: &[&str] = &[
    "",
    "<tool_call>",
    "<tool_call>\n",
    "[TOOL_CALLS]",
    "[TOOL_CALLS][",
    "<|python_tag|>",
    "<|tool_call|>",
    "<|tool_call|>[",
    "functools[",
    "<|function_call|>",
    "<|action_start|><|plugin|>\n",
    "```json\n",
    "<|tool_call_start|>",
    "<|tools_prefix|>[",
];

/// Call bodies with no name in them: a call cannot be reported without one, so each must come
/// back as content, whatever the format, with no character lost.
const NAMELESS: &[&str] = &[
    "{\"a\": \"é\"}",
    "{\"a\":7}",
    "{\"arguments\": {\"k\": \"日\"}}",
    "{\"parameters\": {\"k\": \"Ω\"}}",
    "{\"aé\u{1c}\":7}",
    "{\"k\": \"ß\"",
    "[{\"arguments\": {\"k\": \"🙂\"}}]",
];

#[test]
fn nameless_calls_stay_content() {
    for (name, _) in Format::names() {
        let f = Format::by_name(name).unwrap();
        for opener in OPENERS {
            for body in NAMELESS {
                for tail in ["", " é", "\n</tool_call>é"] {
                    let text = format!("{opener}{body}{tail}");
                    for tools in [false, true] {
                        let o = tools_opt(false, tools);
                        let m = parse_with(&f, &text, o.clone());
                        assert_eq!(
                            counted(&message_text(&m)),
                            counted(&text),
                            "{name}: {text:?} lost text: {m:?}"
                        );
                        let (_, _, fin, _) = stream(&f, &o, text.as_bytes(), &[1]);
                        assert_eq!(fin, m, "{name}: {text:?} streamed differs");
                    }
                }
            }
        }
    }
}
