//! The streaming and lossless invariants of tests/output_invariants.rs, on parsers built from
//! format specs (one per call syntax) rather than hand-written grammars: every prefix of the
//! output gives a prefix of the final message, chunking does not matter, and no byte is lost.

mod output_support;
use chatcodec::output::parse_with;
use chatcodec::output::{
    CallSyntax, Format, FormatSpec, IdSpec, Markers, Message, ReasoningMode, ReasoningSpec,
    ToolCallSpec, ValueTyping,
};
use output_support::{opts, prefix_message, stream};
use proptest::prelude::*;

fn m(open: &str, close: &str) -> Option<Markers> {
    Some(Markers {
        open: open.into(),
        close: close.into(),
    })
}

fn spec(tools: ToolCallSpec, think: bool, content: Option<Markers>) -> FormatSpec {
    FormatSpec {
        format: None,
        end_of_turn: None,
        reasoning: ReasoningSpec {
            mode: if think {
                ReasoningMode::Tag
            } else {
                ReasoningMode::None
            },
            markers: if think {
                m("<think>", "</think>")
            } else {
                None
            },
        },
        content,
        tools: Some(tools),
        channels: None,
        confidence: 1.0,
        notes: vec![],
        prompt_prefix: None,
        messages: None,
    }
}

/// One spec per call syntax, with markers of several shapes.
fn specs() -> Vec<FormatSpec> {
    let json = CallSyntax::JsonObject {
        name_key: "name".into(),
        args_key: "arguments".into(),
        id_key: None,
        list: false,
    };
    vec![
        spec(
            ToolCallSpec {
                section: None,
                call: m("<call>", "</call>"),
                separator: "\n".into(),
                syntax: json,
                id: IdSpec::None,
                parallel: true,
                values: Default::default(),
                alternatives: Vec::new(),
            },
            true,
            None,
        ),
        spec(
            ToolCallSpec {
                section: m("[CALLS]", ""),
                call: None,
                separator: String::new(),
                syntax: CallSyntax::JsonObject {
                    name_key: "tool".into(),
                    args_key: "params".into(),
                    id_key: Some("id".into()),
                    list: true,
                },
                id: IdSpec::InObject,
                parallel: true,
                values: Default::default(),
                alternatives: Vec::new(),
            },
            false,
            None,
        ),
        spec(
            ToolCallSpec {
                section: None,
                call: m("[TOOL]", ""),
                separator: String::new(),
                syntax: CallSyntax::NameThenJson {
                    name_prefix: String::new(),
                    name_suffix: String::new(),
                    args_prefix: String::new(),
                    args_suffix: String::new(),
                },
                id: IdSpec::Marked {
                    prefix: "[ID]".into(),
                    suffix: "[ARGS]".into(),
                    shape: None,
                },
                parallel: true,
                values: Default::default(),
                alternatives: Vec::new(),
            },
            true,
            None,
        ),
        spec(
            ToolCallSpec {
                section: m("<calls>", "</calls>"),
                call: None,
                separator: String::new(),
                syntax: CallSyntax::XmlParams {
                    name_prefix: "<fn name=\"".into(),
                    name_suffix: "\">".into(),
                    param_prefix: "<arg name=\"".into(),
                    param_middle: "\">".into(),
                    param_suffix: "</arg>".into(),
                    call_suffix: "</fn>".into(),
                    values: ValueTyping::RawStrings,
                    typed_middles: Vec::new(),
                    param_close_after_key: String::new(),
                },
                id: IdSpec::None,
                parallel: true,
                values: Default::default(),
                alternatives: Vec::new(),
            },
            true,
            m("<answer>", "</answer>"),
        ),
        spec(
            ToolCallSpec {
                section: m("<py>", "</py>"),
                call: None,
                separator: String::new(),
                syntax: CallSyntax::Pythonic { list: true },
                id: IdSpec::None,
                parallel: true,
                values: Default::default(),
                alternatives: Vec::new(),
            },
            false,
            None,
        ),
        spec(
            ToolCallSpec {
                section: None,
                call: None,
                separator: String::new(),
                syntax: CallSyntax::NameAsKey { list: true },
                id: IdSpec::None,
                parallel: true,
                values: Default::default(),
                alternatives: Vec::new(),
            },
            false,
            None,
        ),
    ]
}

const MARKERS: &[&str] = &[
    "<think>",
    "</think>",
    "<call>",
    "</call>",
    "[CALLS]",
    "[TOOL]",
    "[ID]",
    "[ARGS]",
    "<calls>",
    "</calls>",
    "<fn name=\"f\">",
    "<arg name=\"k\">",
    "</arg>",
    "</fn>",
    "<answer>",
    "</answer>",
    "<py>",
    "</py>",
    "[f(a=1)",
    ")]",
    "{\"name\": \"f\", \"arguments\": {",
    "[{\"tool\": \"f\", \"params\": {",
    "[{\"f\": {",
    "}}",
    "}",
    "{",
    "\"",
    "[",
    "]",
    ",",
    ":",
    "\n",
    "<",
    "\\",
];
const TEXT: &[&str] = &["é", "日", "🙂", "ß", "Ω", "  ", "x"];

fn output() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => prop::sample::select(TEXT).prop_map(str::to_string),
        2 => prop::sample::select(MARKERS).prop_map(str::to_string),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
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
        s.push_str(&c.arguments);
    }
    s
}

#[test]
fn every_spec_builds() {
    for s in specs() {
        if let Err(e) = Format::from_spec(&s) {
            panic!("{e}: {s:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_prefix_and_chunking(text in output(), sizes in prop::collection::vec(1usize..9, 1..6),
                                 si in 0..64usize, forced in any::<bool>()) {
        let all = specs();
        let f = Format::from_spec(&all[si % all.len()]).unwrap();
        let o = opts(forced);
        let whole = parse_with(&f, &text, o.clone());
        for sizes in [&[1usize][..], &[3], &sizes] {
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
    fn lossless(text in output(), si in 0..64usize, forced in any::<bool>()) {
        let all = specs();
        let f = Format::from_spec(&all[si % all.len()]).unwrap();
        let m = parse_with(&f, &text, opts(forced));
        prop_assert_eq!(counted(&message_text(&m)), counted(&text), "{:?}", m);
    }
}

#[test]
fn each_spec_parses_its_syntax() {
    let samples = [
        "<think>hm</think>Hi<call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</call>\n<call>{\"name\": \"g\", \"arguments\": {}}</call>",
        "Hi[CALLS][{\"tool\": \"f\", \"params\": {\"a\": 1}, \"id\": \"x1\"}, {\"tool\": \"g\", \"params\": {}}]",
        "<think>hm</think>Hi[TOOL]f[ID]abc123def[ARGS]{\"a\": 1}[TOOL]g{}",
        "<think>hm</think><answer>Hi</answer><calls><fn name=\"f\"><arg name=\"a\">1</arg></fn><fn name=\"g\"></fn></calls>",
        "Hi<py>[f(a=1), g()]</py>",
        "Hi[{\"f\": {\"a\": 1}}, {\"g\": {}}]",
    ];
    for (s, text) in specs().iter().zip(samples) {
        let f = Format::from_spec(s).unwrap();
        let m = parse_with(&f, text, opts(false));
        let names: Vec<&str> = m.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["f", "g"], "{text}: {m:?}");
        assert_eq!(m.content, "Hi", "{text}: {m:?}");
        let args: serde_json::Value = serde_json::from_str(&m.tool_calls[0].arguments).unwrap();
        assert_eq!(args, serde_json::json!({"a": 1}), "{text}");
        assert_eq!(m.malformed, 0, "{text}: {m:?}");
    }
}
