//! Tagged (XML-style) parameters typed by the tool's JSON schema, in every format that writes
//! values as text: the request's tools (`Options::tool_schemas`) say whether `5` is a number or
//! a string, as in the peers' XML parsers. Also: the same parameter twice in one call, and
//! character entities in attribute values. Every case one-shot and streamed (1, 2, 5 bytes and
//! random chunkings), the arguments valid JSON.

mod output_support;
use chatcodec::output::{parse_with, Format, Options};
use output_support::{args, check_with, opts, stream};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A weather tool whose parameters cover every schema type; `note` has no type.
fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "temp": {"type": "number"},
            "metric": {"type": "boolean"},
            "opts": {"type": "object"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "nick": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "unit": {"enum": ["c", "f"]},
            "limit": {"type": ["integer", "null"]},
            "note": {"description": "free text"}
        }
    }}}])
}

fn typed() -> Options {
    Options {
        tool_schemas: Some(tools()),
        ..opts(false)
    }
}

/// The formats whose parameters are written as text, and whether a parameter the schema does
/// not type is a string there (vLLM's Qwen3-Coder and MiniMax parsers) or typed by its text
/// (GLM and the others).
const FORMATS: &[(&str, bool)] = &[
    ("qwen3-coder", true),
    ("seed-oss", true),
    ("minimax-m2", true),
    ("dots", true),
    ("minimax-m3", true),
    ("glm-4.5", false),
    ("poolside-v1", false),
    ("step3", false),
    ("minicpm5", false),
    ("hy-v3", false),
    ("k2-horizon", false),
    ("solar-open2", false),
    ("deepseek-v3.2", false),
    ("kimi-k3", false),
];

/// One call to `get_weather` with these parameters (raw text values) in format `f`.
fn render(f: &str, params: &[(&str, &str)]) -> String {
    let each = |p: &dyn Fn(&str, &str) -> String| -> String {
        params.iter().map(|(k, v)| p(k, v)).collect::<String>()
    };
    match f {
        "qwen3-coder" | "seed-oss" => {
            let (o, c) = if f == "seed-oss" {
                ("<seed:tool_call>", "</seed:tool_call>")
            } else {
                ("<tool_call>", "</tool_call>")
            };
            format!(
                "{o}\n<function=get_weather>\n{}</function>\n{c}",
                each(&|k, v| format!("<parameter={k}>\n{v}\n</parameter>\n"))
            )
        }
        "minimax-m2" => format!(
            "<minimax:tool_call>\n<invoke name=\"get_weather\">\n{}</invoke>\n</minimax:tool_call>",
            each(&|k, v| format!("<parameter name=\"{k}\">{v}</parameter>\n"))
        ),
        "dots" => format!(
            "<dots_function_call><invoke name=\"get_weather\">{}</invoke></dots_function_call>",
            each(&|k, v| format!("<parameter name=\"{k}\">{v}</parameter>"))
        ),
        "minimax-m3" => {
            let ns = "]<]minimax[>[";
            format!(
                "{ns}<tool_call>{ns}<invoke name=\"get_weather\">{}{ns}</invoke>{ns}</tool_call>",
                each(&|k, v| format!("{ns}<{k}>{v}{ns}</{k}>"))
            )
        }
        "glm-4.5" | "poolside-v1" => format!(
            "<tool_call>get_weather\n{}</tool_call>",
            each(&|k, v| format!("<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n"))
        ),
        "step3" => format!(
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\">{}</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
            each(&|k, v| format!("<steptml:parameter name=\"{k}\">{v}</steptml:parameter>"))
        ),
        "minicpm5" => format!(
            "<function name=\"get_weather\">{}</function>",
            each(&|k, v| format!("<param name=\"{k}\">{v}</param>"))
        ),
        "hy-v3" => format!(
            "<tool_calls><tool_call>get_weather<tool_sep>{}</tool_call></tool_calls>",
            each(&|k, v| format!("<arg_key>{k}</arg_key><arg_value>{v}</arg_value>"))
        ),
        "k2-horizon" => format!(
            "<ifm|tool_calls><ifm|tool_call>get_weather{}</ifm|tool_call></ifm|tool_calls>",
            each(&|k, v| format!(
                "<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{v}</ifm|arg_value>"
            ))
        ),
        "solar-open2" => format!(
            "<|tool_call:start|>get_weather\n{}<|tool_call:end|>",
            each(&|k, v| format!("<|tool_arg:start|>{k}<|tool_arg:value|>{v}<|tool_arg:end|>"))
        ),
        "deepseek-v3.2" => format!(
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n{}</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            each(&|k, v| format!("<｜DSML｜parameter name=\"{k}\">{v}</｜DSML｜parameter>\n"))
        ),
        "kimi-k3" => format!(
            "<|open|>tools<|sep|><|open|>call tool=\"get_weather\"<|sep|>{}<|close|>call<|sep|><|close|>tools<|sep|>",
            each(&|k, v| format!("<|open|>argument key=\"{k}\"<|sep|>{v}<|close|>argument<|sep|>"))
        ),
        other => panic!("no renderer for {other}"),
    }
}

/// Every schema type read from its text; strings kept as written even when they look like
/// JSON; parameters the schema does not type follow the format's peers.
#[test]
fn values_take_the_schema_type() {
    let params = [
        ("city", "5"),
        ("days", "7"),
        ("temp", "21.50"),
        ("metric", "True"),
        ("opts", "{\"units\": [\"c\", \"日本\"], \"n\": 2}"),
        ("tags", "[\"a\", \"b\"]"),
        ("nick", "None"),
        ("unit", "c"),
        ("limit", "null"),
        ("note", "12"),
        ("extra", "true"),
    ];
    for &(f, untyped_is_string) in FORMATS {
        let text = render(f, &params);
        let m = check_with(f, &typed(), &text);
        assert_eq!(m.tool_calls.len(), 1, "{f}: {text:?} -> {m:?}");
        assert_eq!(m.tool_calls[0].name, "get_weather", "{f}");
        let (note, extra) = if untyped_is_string {
            (json!("12"), json!("true"))
        } else {
            (json!(12), json!(true))
        };
        assert_eq!(
            args(&m, 0),
            json!({"city": "5", "days": 7, "temp": 21.5, "metric": true,
                   "opts": {"units": ["c", "日本"], "n": 2}, "tags": ["a", "b"],
                   "nick": null, "unit": "c", "limit": null, "note": note, "extra": extra}),
            "{f}: {text:?}"
        );
        assert_eq!(m.content, "", "{f}");
    }
}

/// Without schemas, values are typed by their text (`5` is a number) in every format.
#[test]
fn without_schemas_values_are_typed_by_their_text() {
    let params = [("city", "Paris"), ("days", "5"), ("tags", "[1, 2]")];
    for &(f, _) in FORMATS {
        let text = render(f, &params);
        let m = check_with(f, &opts(false), &text);
        assert_eq!(
            args(&m, 0),
            json!({"city": "Paris", "days": 5, "tags": [1, 2]}),
            "{f}"
        );
    }
}

/// A value that does not read as its schema type stays a string: nothing is lost and the
/// arguments stay valid JSON. A nullable string that only starts like `null` is a string.
#[test]
fn values_that_do_not_fit_their_type_stay_strings() {
    let params = [
        ("days", "a week"),
        ("temp", "warm"),
        ("metric", "maybe"),
        ("opts", "{broken"),
        ("nick", "Nullarbor"),
        ("limit", "12"),
    ];
    for &(f, _) in FORMATS {
        let text = render(f, &params);
        let m = check_with(f, &typed(), &text);
        assert_eq!(
            args(&m, 0),
            json!({"days": "a week", "temp": "warm", "metric": "maybe", "opts": "{broken",
                   "nick": "Nullarbor", "limit": 12}),
            "{f}"
        );
    }
}

/// Python-style values in object and array parameters (templates that print `str(dict)`).
#[test]
fn python_literals_in_containers() {
    let params = [("opts", "{'a': True, 'b': None}"), ("tags", "('x', 'y')")];
    for f in ["qwen3-coder", "minimax-m2", "glm-4.5"] {
        let m = check_with(f, &typed(), &render(f, &params));
        assert_eq!(
            args(&m, 0),
            json!({"opts": {"a": true, "b": null}, "tags": ["x", "y"]}),
            "{f}"
        );
    }
}

/// A tool the request did not offer (kept as a call, as under vLLM's names): its parameters
/// have no schema, so they are untyped.
#[test]
fn a_tool_without_schema_has_untyped_parameters() {
    let o = Options {
        tools: Some(vec!["get_weather".into()]),
        keep_unknown_tools: true,
        ..typed()
    };
    let text =
        "<tool_call>\n<function=other>\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>";
    let m = check_with("qwen3-coder", &o, text);
    assert_eq!(m.tool_calls[0].name, "other");
    assert_eq!(args(&m, 0), json!({"n": "5"}));
    let text = "<tool_call>other\n<arg_key>n</arg_key>\n<arg_value>5</arg_value>\n</tool_call>";
    let m = check_with("glm-4.5", &o, text);
    assert_eq!(args(&m, 0), json!({"n": 5}));
}

/// The same parameter twice in one call: both are written in order, so a JSON reader takes
/// the later one, as the peers' parsers do (vLLM's one-shot dict keeps the last value, and its
/// streamed arguments repeat the key). Streamed and one-shot agree.
#[test]
fn the_same_parameter_twice_keeps_the_last() {
    let params = [("city", "Paris"), ("days", "1"), ("city", "Berlin")];
    for &(f, _) in FORMATS {
        let text = render(f, &params);
        let m = check_with(f, &typed(), &text);
        assert_eq!(m.tool_calls.len(), 1, "{f}");
        let raw = &m.tool_calls[0].arguments;
        assert_eq!(raw.matches("\"city\"").count(), 2, "{f}: {raw}");
        assert_eq!(
            args(&m, 0),
            json!({"city": "Berlin", "days": 1}),
            "{f}: {raw}"
        );
    }
}

/// Character entities in attribute values (tool and parameter names) are unescaped: Kimi K3's
/// template escapes `&`, `<`, `>` and `"` there, and MiniMax and DSML names are attributes too.
#[test]
fn entities_in_attribute_values() {
    let cases = [
        ("kimi-k3", "<|open|>tools<|sep|><|open|>call tool=\"a&amp;b\" index=\"0\"<|sep|><|open|>argument key=\"x&lt;y&quot;\" type=\"string\"<|sep|>1 &amp; 2<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"),
        ("minimax-m2", "<minimax:tool_call>\n<invoke name=\"a&amp;b\">\n<parameter name=\"x&lt;y&quot;\">1 &amp; 2</parameter>\n</invoke>\n</minimax:tool_call>"),
        ("deepseek-v3.2", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"a&amp;b\">\n<｜DSML｜parameter name=\"x&lt;y&quot;\" string=\"true\">1 &amp; 2</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"),
    ];
    for (f, text) in cases {
        let m = check_with(f, &opts(false), text);
        assert_eq!(m.tool_calls.len(), 1, "{f}: {m:?}");
        assert_eq!(m.tool_calls[0].name, "a&b", "{f}");
        // Values are text, not attributes: kept as written.
        assert_eq!(args(&m, 0), json!({"x<y\"": "1 &amp; 2"}), "{f}");
    }
}

/// Pieces of value text: multi-byte characters of every length, JSON-looking text, escapes.
const PIECES: &[&str] = &[
    "é", "日本", "🙂", "𝄞", "a", " ", "\\", "\"", "\n", "{", "}", "[", "]", "5", "-", "n", "u",
    "l", ",", ":", "'", "&amp;",
];

fn value_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 1..10).prop_map(|v| {
        let s = v.concat();
        let t = s.trim();
        if t.is_empty() {
            "x".into()
        } else {
            t.to_string()
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// String-typed and nullable values hold any text (multi-byte, JSON-looking): one-shot they
    /// come back exactly, and every chunking (1 byte, random sizes) gives the same message.
    #[test]
    fn string_values_under_every_chunking(
        city in value_text(),
        nick in value_text(),
        days in -99i64..99,
        fi in 0..FORMATS.len(),
        sizes in prop::collection::vec(1usize..8, 1..6),
    ) {
        let (f, _) = FORMATS[fi];
        let d = days.to_string();
        let text = render(f, &[("city", &city), ("nick", &nick), ("days", &d)]);
        let format = Format::by_name(f).unwrap();
        let o = typed();
        let whole = parse_with(&format, &text, o.clone());
        prop_assert_eq!(whole.tool_calls.len(), 1, "{}: {:?} -> {:?}", f, text, whole);
        let got: Value = serde_json::from_str(&whole.tool_calls[0].arguments)
            .map_err(|e| TestCaseError::fail(format!("{f}: {e}: {whole:?}")))?;
        let nick_v = if nick.eq_ignore_ascii_case("null") || nick.eq_ignore_ascii_case("none") {
            Value::Null
        } else {
            json!(nick)
        };
        prop_assert_eq!(&got, &json!({"city": city, "nick": nick_v, "days": days}), "{}: {:?}", f, text);
        for chunks in [vec![1usize], sizes.clone()] {
            let (_, _, m, _) = stream(&format, &o, text.as_bytes(), &chunks);
            prop_assert_eq!(&m, &whole, "{} chunks {:?}", f, chunks);
        }
    }
}
