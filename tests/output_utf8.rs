//! Multi-byte text in string arguments under every chunking: a chunk boundary inside a UTF-8
//! sequence (right after an opening quote, inside a value, before a closing quote) must not
//! change the arguments, which stay valid JSON equal to what the model wrote.

mod output_support;
use chatcodec::output::{parse_with, Format, StreamParser};
use output_support::opts;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Pieces of text: multi-byte characters of every length, ASCII, and characters JSON escapes.
const PIECES: &[&str] = &[
    "é", "日本", "🙂", "ß", "Ω", "a", " ", "\\", "\"", "\n", "ü", "中", "𝄞", "é",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..12).prop_map(|v| v.concat())
}

/// The output of format `f` with one call `f(s=…, t=…)` whose string arguments are `s`, `t`.
fn render(f: &str, s: &str, t: &str) -> Option<String> {
    let js = |v: &str| serde_json::to_string(v).unwrap_or_default();
    let args = format!("{{\"s\": {}, \"t\": {}}}", js(s), js(t));
    Some(match f {
        "hermes" => format!("<tool_call>\n{{\"name\": \"f\", \"arguments\": {args}}}\n</tool_call>"),
        "kimi-k2" => format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"),
        "mistral" => format!("[TOOL_CALLS]f[ARGS]{args}"),
        "gpt-oss" => format!("<|channel|>commentary to=functions.f <|constrain|>json<|message|>{args}<|call|>"),
        "generic" => format!("{{\"tool_call\": {{\"name\": \"f\", \"arguments\": {args}}}}}"),
        // A JSON string is a valid Python string literal here (no \u escapes are written).
        "pythonic" => format!("[f(s={}, t={})]", js(s), js(t)),
        "llama3" => format!("<|python_tag|>brave_search.call(s={}, t={})", js(s), js(t)),
        "gemma4" => format!("<|tool_call>call:f{{s:<|\"|>{s}<|\"|>,t:<|\"|>{t}<|\"|>}}<tool_call|>"),
        // Raw-text values: the text must not itself hold the closing markers or look like
        // JSON (a value is typed by its text).
        _ if s.contains('<') || t.contains('<') => return None,
        "deepseek-v3.2" => format!("<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"s\" string=\"true\">{s}</｜DSML｜parameter>\n<｜DSML｜parameter name=\"t\" string=\"true\">{t}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"),
        "kimi-k3" => format!("<|open|>tools<|sep|><|open|>call tool=\"f\"<|sep|><|open|>argument key=\"s\" type=\"string\"<|sep|>{s}<|close|>argument<|sep|><|open|>argument key=\"t\" type=\"string\"<|sep|>{t}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"),
        "k2-horizon" => format!("<ifm|tool_calls><ifm|tool_call>f<ifm|arg_key>s</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>{s}</ifm|arg_value><ifm|arg_key>t</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>{t}</ifm|arg_value></ifm|tool_call></ifm|tool_calls>"),
        _ => return None,
    })
}

const FORMATS: &[&str] = &[
    "hermes",
    "pythonic",
    "llama3",
    "gemma4",
    "kimi-k2",
    "mistral",
    "gpt-oss",
    "generic",
    "deepseek-v3.2",
    "kimi-k3",
    "k2-horizon",
];

fn stream(f: &Format, text: &[u8], sizes: &[usize]) -> chatcodec::output::Message {
    let mut p = StreamParser::with_options(f, opts(false));
    let (mut at, mut k) = (0, 0);
    while at < text.len() {
        let n = sizes[k % sizes.len()].max(1).min(text.len() - at);
        p.feed_bytes(&text[at..at + n]);
        at += n;
        k += 1;
    }
    p.finish();
    p.message().clone()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arguments_survive_every_chunking(
        s in text(),
        t in text(),
        fi in 0..FORMATS.len(),
        sizes in prop::collection::vec(1usize..7, 1..6),
    ) {
        let name = FORMATS[fi];
        let Some(out) = render(name, &s, &t) else { return Ok(()); };
        let f = Format::by_name(name).unwrap();
        let whole = parse_with(&f, &out, opts(false));
        prop_assert_eq!(whole.tool_calls.len(), 1, "{}: {:?} -> {:?}", name, out, whole);
        let got: Value = serde_json::from_str(&whole.tool_calls[0].arguments)
            .map_err(|e| TestCaseError::fail(format!("{name}: {e}: {whole:?}")))?;
        prop_assert_eq!(&got, &json!({"s": s, "t": t}), "{}", name);
        for chunks in [vec![1usize], sizes.clone()] {
            let m = stream(&f, out.as_bytes(), &chunks);
            prop_assert_eq!(&m, &whole, "{} chunks {:?}", name, chunks);
        }
    }
}

/// The boundary case by itself: a chunk ends right after an opening quote and the next starts
/// with the lead byte of a multi-byte character, or splits it.
#[test]
fn a_cut_right_after_an_opening_quote() {
    for name in ["hermes", "kimi-k2", "mistral", "gpt-oss", "generic"] {
        let out = render(name, "é日🙂", "x").unwrap();
        let f = Format::by_name(name).unwrap();
        let whole = parse_with(&f, &out, opts(false));
        let q = out.find("\"é").unwrap() + 1;
        for cut in [q, q + 1, q + 3, q + 5] {
            let mut p = StreamParser::with_options(&f, opts(false));
            p.feed_bytes(&out.as_bytes()[..cut]);
            for b in out.as_bytes()[cut..].chunks(1) {
                p.feed_bytes(b);
            }
            p.finish();
            assert_eq!(p.message(), &whole, "{name} cut at {cut}");
            let v: Value = serde_json::from_str(&whole.tool_calls[0].arguments).unwrap();
            assert_eq!(v, json!({"s": "é日🙂", "t": "x"}), "{name}");
        }
    }
}
