//! The classes of failure found by running the peers' parser cases (vLLM, SGLang,
//! llama.cpp): one test per class, each over the formats the class touches, with the
//! streaming invariants (1-, 2- and 5-byte chunkings, every prefix) checked by `check_with`.

mod output_support;
use chatcodec::output::{parse_with, Format, Message, Options, Reasoning};
use output_support::{args, check, check_with, opts, opts_tools};
use serde_json::json;

fn names(m: &Message) -> Vec<&str> {
    m.tool_calls.iter().map(|c| c.name.as_str()).collect()
}

/// A tool call inside a reasoning block that is never closed ends the reasoning: the call is
/// a call, nothing is lost.
#[test]
fn a_call_inside_unclosed_reasoning() {
    let cases = [
        ("hermes", "<think>I need the weather.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>"),
        ("qwen3-coder", "<think>I need the weather.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>"),
        ("glm-4.5", "<think>I need the weather.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>"),
        ("kimi-k2", "<think>I need the weather.\n<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Oslo\"}<|tool_call_end|><|tool_calls_section_end|>"),
        ("minimax-m2", "<think>I need the weather.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Oslo</parameter>\n</invoke>\n</minimax:tool_call>"),
        ("deepseek-v3.2", "<think>I need the weather.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Oslo</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"),
    ];
    for (f, text) in cases {
        let m = check(f, false, text);
        assert_eq!(m.reasoning, "I need the weather.\n", "{f}: {m:?}");
        assert_eq!(names(&m), ["get_weather"], "{f}: {m:?}");
        assert_eq!(args(&m, 0), json!({"city": "Oslo"}), "{f}");
        assert_eq!(m.content, "", "{f}: {m:?}");
    }
}

/// Several reasoning blocks interleaved with content and calls (GLM 4.5+ thinks between
/// calls): every block is reasoning, the text between them content.
#[test]
fn interleaved_reasoning_blocks() {
    let t = "<think>first</think>Let me look.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call><think>second</think>It is sunny.";
    let m = check("glm-4.5", false, t);
    assert_eq!(m.reasoning, "firstsecond");
    assert_eq!(m.content, "Let me look.It is sunny.");
    assert_eq!(names(&m), ["get_weather"]);
    for (f, t) in [
        ("hermes", "<think>a</think>x<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call><think>b</think>y"),
        ("qwen3-coder", "<think>a</think>x<tool_call><function=f></function></tool_call><think>b</think>y"),
        ("kimi-k2", "<think>a</think>x<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|><think>b</think>y"),
        ("deepseek-v3.2", "<think>a</think>x<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜DSML｜function_calls><think>b</think>y"),
        ("minimax-m2", "<think>a</think>x<minimax:tool_call><invoke name=\"f\"></invoke></minimax:tool_call><think>b</think>y"),
    ] {
        let m = check(f, false, t);
        assert_eq!((m.reasoning.as_str(), m.content.as_str()), ("ab", "xy"), "{f}: {m:?}");
        assert_eq!(names(&m), ["f"], "{f}");
    }
}

/// A reasoning parser that assumes the prompt opened reasoning (vLLM's deepseek_r1, qwen3):
/// everything before a closing `</think>` with no opening tag is reasoning; output with no
/// closing tag at all is reasoning.
#[test]
fn closing_tag_without_opening() {
    for r in ["deepseek_r1", "qwen3", "step3", "olmo3"] {
        let c = Format::by_parsers(None, Some(r)).unwrap();
        assert_eq!(c.reasoning, Reasoning::ForcedOpen, "{r}");
        let o = Options {
            reasoning: c.reasoning,
            ..opts(false)
        };
        let m = parse_with(&c.format, "Weighing it.</think>The answer is 4.", o.clone());
        assert_eq!(m.reasoning, "Weighing it.", "{r}");
        assert_eq!(m.content, "The answer is 4.", "{r}");
        // The model writes the opening tag anyway: it is taken, not leaked.
        let m = parse_with(&c.format, "<think>Weighing it.</think>4", o);
        assert_eq!(
            (m.reasoning.as_str(), m.content.as_str()),
            ("Weighing it.", "4")
        );
    }
}

/// `--forced-open` when the output nevertheless starts with the opening tag: the tag is
/// taken, not leaked into the reasoning.
#[test]
fn forced_open_takes_a_written_opening_tag() {
    for (f, t) in [
        ("hermes", "<think>\nplan</think>done"),
        ("qwen3-coder", "<think>\nplan</think>done"),
        ("deepseek-r1", "<think>\nplan</think>done"),
        ("glm-4.5", "<think>\nplan</think>done"),
        ("kimi-k2", "<think>\nplan</think>done"),
        ("minimax-m2", "<think>\nplan</think>done"),
        ("seed-oss", "<seed:think>\nplan</seed:think>done"),
        ("mistral", "[THINK]\nplan[/THINK]done"),
        ("minimax-m3", "<mm:think>\nplan</mm:think>done"),
    ] {
        let m = check(f, true, t);
        assert_eq!(m.reasoning, "\nplan", "{f}: {m:?}");
        assert_eq!(m.content, "done", "{f}: {m:?}");
        // Without the tag, the output starts inside reasoning.
        let m = check(f, true, &t[t.find('\n').unwrap()..]);
        assert_eq!(m.reasoning, "\nplan", "{f}: {m:?}");
        // A repeated opening tag opens once, forced open or not.
        let open = &t[..t.find('\n').unwrap()];
        let twice = format!("{open}{t}");
        for forced in [true, false] {
            let m = check(f, forced, &twice);
            assert_eq!(m.reasoning, "\nplan", "{f} {forced}: {m:?}");
            assert_eq!(m.content, "done", "{f} {forced}: {m:?}");
        }
    }
}

/// Output that starts in the middle of the format because the prompt wrote its start.
#[test]
fn output_starting_mid_format() {
    // Functionary v3.2: the prompt ends with `>>>`.
    let m = check(
        "functionary-v3.2",
        false,
        "all\nLet me check.>>>get_weather\n{\"city\": \"Oslo\"}",
    );
    assert_eq!(m.content, "Let me check.");
    assert_eq!(names(&m), ["get_weather"]);
    let m = check(
        "functionary-v3.2",
        false,
        "get_weather\n{\"city\": \"Oslo\"}",
    );
    assert_eq!(names(&m), ["get_weather"]);
    assert_eq!(m.content, "");
    // GPT-OSS: the prompt ends with `<|start|>assistant`.
    let m = check(
        "gpt-oss",
        false,
        " to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{\"city\": \"Oslo\"}<|call|>",
    );
    assert_eq!(names(&m), ["get_weather"]);
    assert_eq!(args(&m, 0), json!({"city": "Oslo"}));
    assert_eq!(m.content, "");
    // GPT-OSS: the prompt opened the analysis message.
    let m = check(
        "gpt-oss",
        true,
        "Need weather.<|end|><|start|>assistant<|channel|>final<|message|>Sunny.<|return|>",
    );
    assert_eq!(m.reasoning, "Need weather.");
    assert_eq!(m.content, "Sunny.");
    // GPT-OSS: a call made from the analysis channel.
    let m = check(
        "gpt-oss",
        false,
        "<|channel|>analysis<|message|>Check.<|end|><|start|>assistant<|channel|>analysis to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Oslo\"}<|call|>",
    );
    assert_eq!(m.reasoning, "Check.");
    assert_eq!(names(&m), ["get_weather"]);
}

/// A tool opener quoted or escaped inside reasoning is written about, not a call: the
/// reasoning goes on.
#[test]
fn quoted_opener_inside_reasoning() {
    let m = check(
        "seed-oss",
        false,
        "<seed:think>I could emit \"<seed:tool_call>\" but `<seed:tool_call>` is not needed.</seed:think>No call.",
    );
    assert_eq!(
        m.reasoning,
        "I could emit \"<seed:tool_call>\" but `<seed:tool_call>` is not needed."
    );
    assert_eq!(m.content, "No call.");
    assert!(m.tool_calls.is_empty());
    let m = check(
        "hermes",
        false,
        "<think>The format is \"<tool_call>\" then JSON, or \\<tool_call>.</think>Fine.",
    );
    assert_eq!(
        m.reasoning,
        "The format is \"<tool_call>\" then JSON, or \\<tool_call>."
    );
    assert_eq!(m.content, "Fine.");
    assert!(m.tool_calls.is_empty());
}

/// One invalid call does not swallow the valid calls after it: the next is a call, and the
/// invalid one's text is kept. Its deltas streamed (events are never retracted); the final
/// message gives it back as the text it was written as, since its arguments are not JSON.
#[test]
fn an_invalid_call_keeps_the_next() {
    let t = "<|tool_calls_section_begin|><|tool_call_begin|>functions.bad:0<|tool_call_argument_begin|>{\"x\": oops}<|tool_call_end|><|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{\"city\": \"Oslo\"}<|tool_call_end|><|tool_calls_section_end|>";
    let m = check("kimi-k2", false, t);
    assert_eq!(names(&m), ["get_weather"], "{m:?}");
    assert_eq!(m.tool_calls[0].id, "functions.get_weather:1");
    assert_eq!(args(&m, 0), json!({"city": "Oslo"}));
    assert_eq!(
        m.content,
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.bad:0<|tool_call_argument_begin|>{\"x\": oops}<|tool_call_end|>",
        "{m:?}"
    );
    assert!(m.malformed >= 1);
    let t = "<tool_call>{\"name\": \"bad\", \"arguments\": {\"x\": oops}}</tool_call><tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</tool_call>";
    let m = check("hermes", false, t);
    assert_eq!(names(&m), ["get_weather"]);
    assert_eq!(
        m.content,
        "<tool_call>{\"name\": \"bad\", \"arguments\": {\"x\": oops}}</tool_call>"
    );
}

/// A call the output broke after it was announced comes back in the final message as its
/// text, at its place, whatever broke it (arguments that are not JSON, the output cut off
/// inside the arguments or before them), as vLLM's and SGLang's parsers return such output;
/// a call whose arguments were complete JSON when it broke stays a call.
#[test]
fn a_broken_call_is_given_back_as_text() {
    let cases: &[(&str, &str, &str, usize)] = &[
        ("llama3", "{\"name\": \"invalidTool\", \"parameters\": {invalid json}", "{\"name\": \"invalidTool\", \"parameters\": {invalid json}", 0),
        ("llama3", "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": tru", "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": tru", 0),
        ("hermes", "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, 2", "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, 2", 0),
        ("hermes", "<tool_call>{\"name\": \"f\", \"arguments\": ", "<tool_call>{\"name\": \"f\", \"arguments\": ", 0),
        // A later broken call: the earlier complete call stays, the separator comes back too.
        ("xlam", "[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {\"x\": }}]", ", {\"name\": \"b\", \"arguments\": {\"x\": }}]", 1),
        ("mistral", "Ok. [TOOL_CALLS]get_weather[ARGS]{\"city\": Berlin}", "Ok. [TOOL_CALLS]get_weather[ARGS]{\"city\": Berlin}", 0),
        ("kimi-k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\"", "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\"", 0),
    ];
    for (f, text, content, calls) in cases {
        let m = check(f, false, text);
        assert_eq!(&m.content, content, "{f}: {text}\n{m:?}");
        assert_eq!(m.tool_calls.len(), *calls, "{f}: {text}\n{m:?}");
        assert!(m.malformed >= 1, "{f}: {text}");
        for c in &m.tool_calls {
            serde_json::from_str::<serde_json::Value>(&c.arguments).unwrap();
        }
    }
    // Reasoning before the call keeps its end marker out of the given-back text.
    let m = check(
        "deepseek-r1",
        true,
        "Plan.</think>\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": x}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    );
    assert_eq!(m.reasoning, "Plan.");
    assert!(m.tool_calls.is_empty());
    assert!(m.content.starts_with("<｜tool▁calls▁begin｜>"), "{m:?}");
    // An unknown member after complete arguments: the call stays, the rest is content.
    let m = check(
        "hermes",
        false,
        "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}, \"zz\": 2}</tool_call>",
    );
    assert_eq!(names(&m), ["f"]);
    assert_eq!(m.content, ", \"zz\": 2}</tool_call>");
}

/// Llama 3 builtin tools: the call is named after the tool.
#[test]
fn llama3_builtin_tools() {
    let m = check(
        "llama3",
        false,
        "<|python_tag|>brave_search.call(query=\"Menlo Park weather\")<|eom_id|>",
    );
    assert_eq!(names(&m), ["brave_search"]);
    assert_eq!(args(&m, 0), json!({"query": "Menlo Park weather"}));
    let m = check(
        "llama3",
        false,
        "<|python_tag|>wolfram_alpha.call(query=\"solve x^2=4\")",
    );
    assert_eq!(names(&m), ["wolfram_alpha"]);
    let m = check(
        "llama3",
        false,
        "<|python_tag|>code_interpreter.call(code=\"print(1)\")",
    );
    assert_eq!(names(&m), ["code_interpreter"]);
    assert_eq!(args(&m, 0), json!({"code": "print(1)"}));
}

/// Granite's `<tool_call>` followed by a space and a JSON list; Hermes calls without
/// closing tags.
#[test]
fn granite_list_and_hermes_without_closing_tags() {
    let m = check(
        "granite",
        false,
        "<tool_call> [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}, {\"name\": \"get_time\", \"arguments\": {}}]",
    );
    assert_eq!(names(&m), ["get_weather", "get_time"]);
    let m = check(
        "hermes",
        false,
        "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n<tool_call>\n{\"name\": \"b\", \"arguments\": {}}",
    );
    assert_eq!(names(&m), ["a", "b"]);
    assert_eq!(m.malformed, 0);
    assert_eq!(m.content, "");
}

/// Under vLLM's names, a tool parser alone parses no reasoning (the think block stays in
/// the content) and a call to a tool not offered stays a call; --strict-tools (the option
/// off) turns it into content.
#[test]
fn vllm_name_semantics() {
    let t =
        "<think>plan</think>Sure.<tool_call>{\"name\": \"other\", \"arguments\": {}}</tool_call>";
    let c = Format::by_parsers(Some("hermes"), None).unwrap();
    let o = Options {
        reasoning: c.reasoning,
        keep_unknown_tools: c.keep_unknown_tools,
        ..opts_tools(false, &["get_weather"])
    };
    let m = parse_with(&c.format, t, o.clone());
    assert_eq!(m.content, "<think>plan</think>Sure.");
    assert_eq!(m.reasoning, "");
    assert_eq!(names(&m), ["other"]);
    let m = parse_with(
        &c.format,
        t,
        Options {
            keep_unknown_tools: false,
            ..o
        },
    );
    assert!(m.tool_calls.is_empty());
    let c = Format::by_parsers(Some("hermes"), Some("qwen3")).unwrap();
    let o = Options {
        reasoning: c.reasoning,
        ..opts(false)
    };
    let m = check_with(c.format.name(), &o, t);
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("plan", "Sure.")
    );
    // A reasoning parser alone parses no calls.
    let c = Format::by_parsers(None, Some("qwen3")).unwrap();
    let m = parse_with(
        &c.format,
        t,
        Options {
            reasoning: c.reasoning,
            ..opts(false)
        },
    );
    assert_eq!(m.reasoning, "plan");
    assert!(m.tool_calls.is_empty());
    assert!(m.content.starts_with("Sure.<tool_call>"));
    // SGLang's `kimi` is Kimi-VL's ◁think▷.
    let c = Format::by_parsers(None, Some("kimi")).unwrap();
    let m = parse_with(&c.format, "◁think▷look◁/think▷A cat.", opts(false));
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("look", "A cat.")
    );
}

/// Names that other vLLM versions register are accepted, with their parsers' meaning.
#[test]
fn names_of_other_vllm_versions() {
    for n in [
        "command",
        "tng_r1t2",
        "llama3_user_defined_custom",
        "qwen2",
        "spark3",
        "nemotron_json",
        "kolibri1",
    ] {
        assert!(Format::by_parsers(Some(n), None).is_ok(), "{n}");
    }
    for n in [
        "exaone4",
        "telechat",
        "telechat4",
        "xingchen4",
        "xing4_0",
        "minimax_m1",
        "deepseek_v31",
        "nemotron",
        "openai",
        "kimi_k25",
        "glm",
        "apertus",
        "intern_s1",
        "iquest_coder_v2",
    ] {
        assert!(Format::by_parsers(None, Some(n)).is_ok(), "{n}");
    }
    // Kimi K2.5: reasoning opened by the prompt, ended by the tool section.
    let c = Format::by_parsers(None, Some("kimi_k25")).unwrap();
    let o = Options {
        reasoning: c.reasoning,
        ..opts(false)
    };
    let m = parse_with(&c.format, "plan<|tool_calls_section_begin|>x", o);
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("plan", "<|tool_calls_section_begin|>x")
    );
    assert!(
        !Format::by_parsers(Some("qwen2"), None)
            .unwrap()
            .keep_unknown_tools
    );
}

/// A call object with two arguments members (`arguments` and `parameters`, or a repeated
/// key): the first stands, the call's arguments stay one JSON value.
#[test]
fn arguments_written_once() {
    let cases = [
        ("hermes", "<tool_call>{\"name\": \"f\", \"arguments\": {\"x\": 1}, \"parameters\": {\"y\": 2}}</tool_call>", json!({"x": 1})),
        ("hermes", "<tool_call>{\"name\": \"f\", \"arguments\": {}, \"arguments\": {}}</tool_call>", json!({})),
        ("hermes", "<tool_call>{\"name\": \"f\", \"arguments\": {\"x\": 1}, \"arguments\": \"{\\\"y\\\": 2}\"}</tool_call>", json!({"x": 1})),
        ("llama3", "{\"name\": \"f\", \"parameters\": {\"x\": 1}, \"arguments\": {\"y\": 2}}", json!({"x": 1})),
    ];
    for (f, text, want) in cases {
        let m = check(f, false, text);
        assert_eq!(names(&m), ["f"], "{f}: {text}\n{m:?}");
        assert_eq!(args(&m, 0), want, "{f}: {text}");
    }
}

/// Reasoning parsers that follow the request's thinking switch, as vLLM's do: `deepseek_v3`
/// parses no reasoning unless thinking is on (then it is DeepSeek-R1's, opened by the
/// prompt), `holo2` the same with thinking on by default. With thinking off the whole output
/// is content, think markers included.
#[test]
fn reasoning_parsers_that_follow_thinking() {
    let out = "<think>plan</think>Hi.";
    let run = |name: &str, thinking: Option<bool>, text: &str| {
        let c = Format::by_parsers_thinking(None, Some(name), thinking).unwrap();
        let o = Options {
            reasoning: c.reasoning,
            ..opts(false)
        };
        let m = parse_with(&c.format, text, o);
        (m.reasoning, m.content)
    };
    let own = |r: &str, c: &str| (r.to_string(), c.to_string());
    assert_eq!(run("deepseek_v3", None, out), own("", out));
    assert_eq!(run("deepseek_v3", Some(false), out), own("", out));
    assert_eq!(run("deepseek_v3", Some(true), out), own("plan", "Hi."));
    assert_eq!(
        run("deepseek_v3", Some(true), "plan</think>Hi."),
        own("plan", "Hi.")
    );
    assert_eq!(run("holo2", None, "plan</think>Hi."), own("plan", "Hi."));
    assert_eq!(
        run("holo2", Some(false), "plan</think>Hi."),
        own("", "plan</think>Hi.")
    );
    // `by_parsers` knows no switch: each parser's default.
    let c = Format::by_parsers(None, Some("deepseek_v3")).unwrap();
    assert_eq!(parse_with(&c.format, out, opts(false)).content, out);
    // With a tool parser, thinking off leaves the think block in the content and still
    // reads the calls.
    let c = Format::by_parsers_thinking(Some("hermes"), Some("deepseek_v3"), Some(false)).unwrap();
    let t = "<think>x</think><tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
    let m = parse_with(&c.format, t, opts(false));
    assert_eq!(
        (m.content.as_str(), m.tool_calls.len()),
        ("<think>x</think>", 1)
    );
}

/// Calls to tools the request did not offer: vLLM's parsers keep them, except `internlm`;
/// SGLang's parsers (the names only SGLang uses) drop them.
#[test]
fn unknown_tools_by_parser_name() {
    let t = "<tool_call>{\"name\": \"delete_everything\", \"arguments\": {}}</tool_call>";
    for (name, kept) in [("hermes", true), ("qwen25", false)] {
        let c = Format::by_parsers(Some(name), None).unwrap();
        let o = Options {
            keep_unknown_tools: c.keep_unknown_tools,
            ..opts_tools(false, &["get_weather"])
        };
        let m = parse_with(&c.format, t, o);
        assert_eq!(m.tool_calls.len(), usize::from(kept), "{name}: {m:?}");
    }
    let t = "<|action_start|><|plugin|>{\"name\": \"delete_everything\", \"parameters\": {\"city\": \"Tokyo\"}}<|action_end|>";
    let c = Format::by_parsers(Some("internlm"), None).unwrap();
    assert!(!c.keep_unknown_tools);
    let o = Options {
        keep_unknown_tools: c.keep_unknown_tools,
        ..opts_tools(false, &["get_weather"])
    };
    let m = parse_with(&c.format, t, o);
    assert!(m.tool_calls.is_empty(), "{m:?}");
    assert!(m.content.contains("delete_everything"));
}

/// A reasoning parser given alone, read as its peers read it: vLLM's `mistral`, `seed_oss`
/// and `ernie45` start inside reasoning (text before the closing marker is reasoning, output
/// with no marker is all reasoning), and `qwen3`, `glm45`, `kimi_k2` end unclosed reasoning at
/// the family's tool-call opener, which stays content with what follows.
#[test]
fn reasoning_parser_alone() {
    let run = |r: &str, t: &str| {
        let c = Format::by_parsers(None, Some(r)).unwrap();
        let o = Options {
            reasoning: c.reasoning,
            ..opts(false)
        };
        check_with(c.format.name(), &o, t);
        let m = parse_with(&c.format, t, o);
        (m.reasoning, m.content)
    };
    let own = |a: &str, b: &str| (a.to_string(), b.to_string());
    for (r, close) in [
        ("mistral", "[/THINK]"),
        ("seed_oss", "</seed:think>"),
        ("ernie45", "</think>"),
    ] {
        assert_eq!(
            run(r, &format!("abc\nABC{close}def\nDEF")),
            own("abc\nABC", "def\nDEF"),
            "{r}"
        );
        assert_eq!(run(r, &format!("abc{close}")), own("abc", ""), "{r}");
        assert_eq!(run(r, "abc"), own("abc", ""), "{r}");
    }
    assert_eq!(
        run("mistral", "[THINK]plan[/THINK]answer"),
        own("plan", "answer")
    );
    let call = "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>";
    for t in [
        format!("I need to read the file.\n\n{call}"),
        format!("<think>I need to read the file.\n\n{call}"),
    ] {
        assert_eq!(run("qwen3", &t), own("I need to read the file.\n\n", call));
    }
    assert_eq!(
        run("glm45", "<think>I need to think<tool_call>tool call data"),
        own("I need to think", "<tool_call>tool call data")
    );
    assert_eq!(
        run(
            "kimi_k2",
            "<think>thinking<|tool_calls_section_begin|><|tool_call_begin|>"
        ),
        own(
            "thinking",
            "<|tool_calls_section_begin|><|tool_call_begin|>"
        )
    );
    // vLLM's kimi_k2 starts inside reasoning (Kimi-K2.5's prompt opens it).
    assert_eq!(
        run(
            "kimi_k2",
            "some reasoning<|tool_calls_section_begin|>tool call data"
        ),
        own(
            "some reasoning",
            "<|tool_calls_section_begin|>tool call data"
        )
    );
    assert_eq!(run("kimi_k2", "implicit"), own("implicit", ""));
    // SGLang-only names mean what they mean in SGLang: untagged output is content.
    for r in ["deepseek-v3", "nemotron_3"] {
        assert_eq!(run(r, "Direct answer."), own("", "Direct answer."), "{r}");
        assert_eq!(run(r, "<think>a</think>b"), own("a", "b"), "{r}");
    }
    // A repeated opener is one opening.
    assert_eq!(
        run("qwen3", "<think><think>Let me think</think>42."),
        own("Let me think", "42.")
    );
    // A closed block is not cut at an opener after it, nor at one that is text in content.
    assert_eq!(
        run("qwen3", "plan</think>Use <tool_call> tags."),
        own("plan", "Use <tool_call> tags.")
    );
}

/// Every name of vLLM 0.33's registries (vllm/tool_parsers/__init__.py,
/// vllm/reasoning/__init__.py), the extra names and SGLang's names are accepted, alone and
/// together.
#[test]
fn every_vllm_name_is_accepted() {
    const VLLM_TOOL: [&str; 58] = [
        "dots",
        "deepseek_v3",
        "deepseek_v31",
        "deepseek_v32",
        "deepseek_v4",
        "deepseek_v41",
        "cohere_command3",
        "cohere_command4",
        "ernie45",
        "glm45",
        "glm47",
        "ling3",
        "granite-20b-fc",
        "granite",
        "granite4",
        "hermes",
        "hf",
        "beam",
        "poolside_v1",
        "hunyuan_a13b",
        "hy_v3",
        "hy_v4",
        "internlm",
        "jamba",
        "lfm2",
        "kimi_k2",
        "kimi_k3",
        "k2_horizon",
        "llama3_json",
        "llama4_json",
        "llama4_pythonic",
        "longcat",
        "mimo",
        "minimax_m2",
        "minimax_m3",
        "minicpm5",
        "mistral",
        "olmo3",
        "plamo3",
        "muse",
        "muse_glimmer",
        "musespark1x",
        "openai",
        "phi4_mini_json",
        "pythonic",
        "qwen3_coder",
        "qwen3_json",
        "qwen3_xml",
        "seed_oss",
        "step3",
        "step3p5",
        "step5",
        "inkling",
        "xlam",
        "gigachat3",
        "functiongemma",
        "gemma4",
        "apertus",
    ];
    const VLLM_REASONING: [&str; 42] = [
        "deepseek_r1",
        "deepseek_v3",
        "deepseek_v4",
        "deepseek_v41",
        "poolside_v1",
        "cohere_command3",
        "cohere_command4",
        "ernie45",
        "gemma4",
        "glm45",
        "glm47",
        "ling3",
        "openai_gptoss",
        "granite",
        "granite_thinking_parser",
        "hf",
        "beam",
        "holo2",
        "hunyuan_a13b",
        "hy_v3",
        "hy_v4",
        "kimi_k2",
        "kimi_k3",
        "k2_horizon",
        "mimo",
        "minicpmv",
        "minimax_m2",
        "minimax_m2_append_think",
        "minimax_m3",
        "mistral",
        "nemotron_v3",
        "olmo3",
        "plamo3",
        "muse",
        "muse_glimmer",
        "musespark1x",
        "qwen3",
        "seed_oss",
        "step3",
        "step3p5",
        "step5",
        "inkling",
    ];
    const EXTRA: [&str; 9] = [
        "minimax",
        "cwm",
        "hyperclovax_seed_think",
        "iquest_coder",
        "pangu",
        "openpangu_v2",
        "rwkv",
        "solar_open2",
        "tng",
    ];
    const SGLANG_TOOL: [&str; 44] = [
        "apertus2509",
        "beam",
        "cohere_command4",
        "deepseekv3",
        "deepseekv31",
        "deepseekv32",
        "deepseekv4",
        "deepseekv41",
        "dots",
        "glm",
        "glm45",
        "glm47",
        "gpt-oss",
        "k2_horizon",
        "kimi_k2",
        "kimi_k3",
        "lfm2",
        "ling3",
        "llama3",
        "mimo",
        "minicpm5",
        "mistral",
        "muse",
        "poolside_v1",
        "pythonic",
        "qwen",
        "qwen25",
        "qwen3_coder",
        "spark25",
        "step3",
        "step3p5",
        "minimax-m2",
        "minimax-m3",
        "nanbeige",
        "trinity",
        "interns1",
        "hermes",
        "hunyuan",
        "gigachat3",
        "gigachat35",
        "gemma4",
        "inkling",
        "iquest_q1",
        "response_template",
    ];
    const SGLANG_REASONING: [&str; 36] = [
        "apertus2509",
        "beam",
        "deepseek-r1",
        "deepseek-v3",
        "deepseek-v4",
        "deepseek-v41",
        "dots",
        "glm45",
        "ling3",
        "hunyuan",
        "gpt-oss",
        "k2_horizon",
        "kimi",
        "kimi_k2",
        "kimi_k3",
        "mimo",
        "muse",
        "poolside_v1",
        "qwen3",
        "qwen3-thinking",
        "minimax",
        "minimax-append-think",
        "minimax-m3",
        "nanbeige",
        "step3",
        "step3p5",
        "mistral",
        "nemotron_3",
        "granite_thinking_parser",
        "interns1",
        "gemma4",
        "inkling",
        "iquest_q1",
        "cohere_command4",
        "gigachat35",
        "response_template",
    ];
    for t in VLLM_TOOL.iter().chain(&EXTRA).chain(&SGLANG_TOOL) {
        Format::by_parsers(Some(t), None).unwrap_or_else(|e| panic!("tool parser {t}: {e}"));
    }
    for r in VLLM_REASONING.iter().chain(&EXTRA).chain(&SGLANG_REASONING) {
        Format::by_parsers(None, Some(r)).unwrap_or_else(|e| panic!("reasoning parser {r}: {e}"));
    }
    for (t, r) in VLLM_TOOL.iter().zip(VLLM_REASONING.iter().cycle()) {
        Format::by_parsers(Some(t), Some(r)).unwrap_or_else(|e| panic!("{t} + {r}: {e}"));
    }
}

/// Whitespace next to a marker is kept where it is content (Llama 4: after
/// `<|python_end|>`, and at the start of the output).
#[test]
fn whitespace_next_to_markers() {
    let m = check(
        "llama4",
        false,
        "Text <|python_start|>print(1)<|python_end|> after",
    );
    assert_eq!(m.content, "Text print(1) after");
    let m = check("llama4", false, "  Indented text.");
    assert_eq!(m.content, "  Indented text.");
    let m = check(
        "llama4",
        false,
        "[get_weather(city=\"SF\")]<|python_end|> Done.",
    );
    assert_eq!(names(&m), ["get_weather"]);
    assert_eq!(m.content, " Done.");
}

/// Schema-free XML parameters: XML entities in attribute values are unescaped (Kimi K3's
/// template escapes `&` and `"` in them).
#[test]
fn entities_in_attribute_values() {
    let t = "<|open|>tools<|sep|><|open|>call tool=\"get_weather\"<|sep|><|open|>argument key=\"a&amp;b &quot;c&quot;\" type=\"string\"<|sep|>x &amp; y<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>";
    let m = check("kimi-k3", false, t);
    assert_eq!(names(&m), ["get_weather"]);
    // The value is text as written; the attribute is unescaped.
    assert_eq!(args(&m, 0), json!({"a&b \"c\"": "x &amp; y"}));
}

/// llama.cpp's generic JSON format: calls with their ids (after the arguments), or a JSON
/// response whose text is unescaped.
#[test]
fn generic_json() {
    let m = check(
        "generic",
        false,
        "{\"tool_calls\": [{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}, \"id\": \"123456789\"}]}",
    );
    assert_eq!(names(&m), ["special_function"]);
    assert_eq!(m.tool_calls[0].id, "123456789");
    assert_eq!(args(&m, 0), json!({"arg1": 1}));
    let m = check(
        "generic",
        false,
        "{\"tool_call\": {\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}}",
    );
    assert_eq!(names(&m), ["special_function"]);
    let m = check(
        "generic",
        false,
        "{\"response\": \"Hello, world!\\nWhat's \\\"up\\\"? 日本\"}",
    );
    assert_eq!(m.content, "Hello, world!\nWhat's \"up\"? 日本");
    assert!(m.tool_calls.is_empty());
}

/// The invalid-call class in the XML section formats: a call after an invalid one in the same
/// section is still a call.
#[test]
fn an_invalid_invoke_keeps_the_next() {
    let t = "<minimax:tool_call>\n<invoke name=\"bad\" x>\n</invoke>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Oslo</parameter>\n</invoke>\n</minimax:tool_call>";
    for f in ["minimax-m2", "dots"] {
        let t = if f == "dots" {
            t.replace("minimax:tool_call", "dots_function_call")
        } else {
            t.to_string()
        };
        let m = check(f, false, &t);
        assert_eq!(names(&m), ["get_weather"], "{f}: {m:?}");
        assert_eq!(args(&m, 0), json!({"city": "Oslo"}));
        assert!(m.content.contains("bad"), "{f}: {m:?}");
    }
}

/// xLAM's array of calls may follow a `[TOOL_CALLS]` tag (as vLLM's xlam tests write it):
/// the tag belongs to the call, not to the content; a tag with no calls after it is content.
#[test]
fn xlam_calls_after_a_tool_calls_tag() {
    let m = check(
        "xlam",
        false,
        "I'll check the weather for you.[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Dallas\"}}]",
    );
    assert_eq!(m.content, "I'll check the weather for you.", "{m:?}");
    assert_eq!(names(&m), ["get_weather"]);
    assert_eq!(args(&m, 0), json!({"city": "Dallas"}));
    let m = check("xlam", false, "a [1, 2] b [TOOL_CALLS] c");
    assert_eq!(m.content, "a [1, 2] b [TOOL_CALLS] c");
    assert!(m.tool_calls.is_empty());
}

/// GigaChat 3: the end-of-sequence token a server leaves after the call is the call's, not
/// content.
#[test]
fn gigachat_end_of_sequence_after_the_call() {
    let m = check(
        "gigachat3",
        false,
        "I'll remember that.<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"manage_user_memory\", \"arguments\": {\"action\": \"create\"}}</s>",
    );
    assert_eq!(m.content, "I'll remember that.");
    assert_eq!(names(&m), ["manage_user_memory"]);
    assert_eq!(args(&m, 0), json!({"action": "create"}));
}

/// Command R7B / Command A: citations (`<co>TEXT</co: 0:[1]>`) are markup in the reasoning and
/// the answer, and vLLM's Cohere tool parsers read the reasoning too when given alone.
#[test]
fn cohere_citations_and_tool_parser_reasoning() {
    let t = "<|START_THINKING|>This is a rainbow <co>emoji: 🌈</co: 0:[1]><|END_THINKING|>\n<|START_RESPONSE|>foo <co>bar</co: 0:[1,2],1:[3,4]><|END_RESPONSE|>";
    let m = check("command-r7b", false, t);
    assert_eq!(m.reasoning, "This is a rainbow emoji: 🌈");
    assert_eq!(m.content, "foo bar");
    for name in ["cohere_command3", "cohere_command4"] {
        let c = Format::by_parsers(Some(name), None).unwrap();
        let m = parse_with(&c.format, t, opts(false));
        assert_eq!(m.reasoning, "This is a rainbow emoji: 🌈", "{name}");
        assert_eq!(m.content, "foo bar", "{name}");
    }
    // A broken reference is text.
    let m = check("command-r7b", false, "<|START_RESPONSE|>a <co>b</co: x>");
    assert_eq!(m.content, "a b</co: x>");
}

/// A call quoted in the reasoning (a whole call block followed on its line by more text, or a
/// Mistral call that a [/THINK] follows) is written about, not made: it stays reasoning, and
/// the real call after the block is the only call. A call that ends the reasoning is still
/// one, and a bracket in the reasoning of a bare pythonic list is text.
#[test]
fn calls_quoted_in_reasoning() {
    let cases: &[(&str, bool, &str, &str)] = &[
        ("hermes", true, "Let me think about <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 2}}</tool_call> hmm\n</think>\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>", "Let me think about <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 2}}</tool_call> hmm\n"),
        ("seed-oss", false, "<seed:think>The format is <seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>\n</seed:tool_call>. Ok.</seed:think><seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>\n</seed:tool_call>", "The format is <seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>\n</seed:tool_call>. Ok."),
        ("mistral", false, "[THINK]Let me think about [TOOL_CALLS]f[ARGS]{\"a\":1} and more[/THINK][TOOL_CALLS]f[ARGS]{\"a\": 1}", "Let me think about [TOOL_CALLS]f[ARGS]{\"a\":1} and more"),
    ];
    for (f, forced, text, reasoning) in cases {
        let m = check(f, *forced, text);
        assert_eq!(&m.reasoning, reasoning, "{f}");
        assert_eq!(names(&m), ["f"], "{f}: {m:?}");
        assert_eq!(args(&m, 0), json!({"a": 1}), "{f}");
    }
    // The call that ends the reasoning is a call.
    let m = check(
        "hermes",
        false,
        "<think>I will call.<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
    );
    assert_eq!(
        (m.reasoning.as_str(), names(&m)),
        ("I will call.", vec!["f"])
    );
    let m = check(
        "mistral",
        false,
        "[THINK]Calling.[TOOL_CALLS]f[ARGS]{\"a\": 1}",
    );
    assert_eq!((m.reasoning.as_str(), names(&m)), ("Calling.", vec!["f"]));
    let m = check(
        "pythonic",
        false,
        "<think>lists like [1, 2] are fine</think>answer",
    );
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("lists like [1, 2] are fine", "answer")
    );
    let m = check("pythonic", false, "<think>so: [get_weather(city='Oslo')]");
    assert_eq!(
        (m.reasoning.as_str(), names(&m)),
        ("so: ", vec!["get_weather"])
    );
}

/// Gemma 4: a stray channel close (after the answer, or doubled) and a channel opener written
/// twice are markup, not content.
#[test]
fn gemma4_stray_channel_markers() {
    for t in [
        "<|channel>thought\n<channel|>Hello, world!\nWhat's up?<channel|>",
        "<|channel>thought\n<channel|>Hello, world!\nWhat's up?<|channel>thought\n<channel|><channel|>",
        "<|channel><|channel>thought\n<channel|>Hello, world!\nWhat's up?",
    ] {
        let m = check("gemma4", false, t);
        assert_eq!(m.content, "Hello, world!\nWhat's up?", "{t:?}");
        assert_eq!(m.reasoning, "", "{t:?}");
    }
}

/// Kimi-K2-Thinking may write calls inside its reasoning with no section and no end markers:
/// reasoning ends at the first call, and each call ends where the next begins.
#[test]
fn kimi_calls_without_section_or_end_markers() {
    let m = check(
        "kimi-k2",
        false,
        "<think>I need to call two functions<|tool_call_begin|>functions.special_function:0<|tool_call_argument_begin|>{\"arg1\": 1}<|tool_call_begin|>functions.python:1<|tool_call_argument_begin|>{\"code\": \"print('hey')\"}",
    );
    assert_eq!(m.reasoning, "I need to call two functions");
    assert_eq!(names(&m), ["special_function", "python"]);
    assert_eq!(args(&m, 1), json!({"code": "print('hey')"}));
    // A section whose call is no call (the id names no function) is text, its end marker
    // included; after a call read on its own the end marker closes its section.
    let t = "<|tool_calls_section_begin|><|tool_call_begin|>functions.weather.lookup:3<|tool_call_argument_begin|>{\"city\":\"Paris\"}<|tool_call_end|><|tool_calls_section_end|>";
    let m = check("kimi-k2", false, t);
    assert_eq!((m.content.as_str(), m.tool_calls.len()), (t, 0));
    let m = check(
        "kimi-k2",
        false,
        "<|tool_call_begin|>functions.b:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
    );
    assert_eq!((m.content.as_str(), names(&m)), ("", vec!["b"]));
}

/// JSON call objects whose arguments are a JSON string holding the JSON (Granite 4, and
/// OpenAI's own message shape) give the decoded arguments; a string that holds no JSON stays
/// that string.
#[test]
fn string_encoded_arguments_are_decoded() {
    let m = check(
        "hermes",
        false,
        "Here goes the call: \n<tool_call> {\"name\": \"find_bbox\", \"arguments\": \"{\\\"coordinates\\\": [[23.54, 43.1]], \\\"coordinate_type\\\": \\\"latlong\\\"}\"} </tool_call>",
    );
    assert_eq!(
        args(&m, 0),
        json!({"coordinates": [[23.54, 43.1]], "coordinate_type": "latlong"})
    );
    let m = check(
        "hermes",
        false,
        "<tool_call>{\"name\": \"f\", \"arguments\": \"plain\"}</tool_call>",
    );
    assert_eq!(m.tool_calls[0].arguments, "\"plain\"");
}

/// The request's schema types a value over the format's own string mark: DSML's
/// `string="true"` on an integer parameter gives the integer (a value that is no integer
/// stays its text), and a string parameter stays a string.
#[test]
fn schema_types_over_string_marks() {
    let o = Options {
        tool_schemas: Some(json!([{"type": "function", "function": {"name": "score",
            "parameters": {"type": "object", "properties": {
                "value": {"type": "integer"}, "label": {"type": "string"}}}}}])),
        ..opts(false)
    };
    let p = |k: &str, v: &str| {
        format!("<｜DSML｜parameter name=\"{k}\" string=\"true\">{v}</｜DSML｜parameter>\n")
    };
    let t = format!(
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"score\">\n{}{}</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        p("value", "42"),
        p("label", "7")
    );
    let m = check_with("deepseek-v3.2", &o, &t);
    assert_eq!(args(&m, 0), json!({"value": 42, "label": "7"}));
    let t = t.replace(">42<", ">many<");
    let m = check_with("deepseek-v3.2", &o, &t);
    assert_eq!(args(&m, 0), json!({"value": "many", "label": "7"}));
}

/// Gemma 4: a channel opened without its `thought` label is reasoning too (the close marker
/// is not dropped while its opener stays in the content).
#[test]
fn gemma4_channel_without_label() {
    for (t, r, c) in [
        ("<|channel>r<channel|>c", "r", "c"),
        ("<|channel>thought\nr<channel|>c", "r", "c"),
        ("a<|channel>r<channel|>c", "r", "ac"),
    ] {
        let m = check("gemma4", false, t);
        assert_eq!((m.reasoning.as_str(), m.content.as_str()), (r, c), "{t:?}");
    }
}

/// GLM: a value may hold its own closing tag (code), which closes it only before the next
/// key, the end of the call or of the output; a value left open ends with its call, and the
/// next call is read.
#[test]
fn glm_values_holding_markers() {
    let m = check(
        "glm-4.5",
        false,
        "<tool_call>run<arg_key>code</arg_key><arg_value>let s = \"</arg_value>\"; run(s)</arg_value><arg_key>timeout</arg_key><arg_value>5</arg_value></tool_call>",
    );
    assert_eq!(
        args(&m, 0),
        json!({"code": "let s = \"</arg_value>\"; run(s)", "timeout": 5})
    );
    let m = check(
        "glm-4.5",
        false,
        "<tool_call>f<arg_key>a</arg_key><arg_value>x</tool_call><tool_call>g<arg_key>b</arg_key><arg_value>y</arg_value></tool_call>",
    );
    assert_eq!(names(&m), ["f", "g"]);
    assert_eq!(
        (args(&m, 0), args(&m, 1)),
        (json!({"a": "x"}), json!({"b": "y"}))
    );
    let m = check(
        "glm-4.5",
        false,
        "<tool_call>f<arg_key>a</arg_key><arg_value>print(\"</tool_call>\")</arg_value></tool_call>",
    );
    assert_eq!(args(&m, 0), json!({"a": "print(\"</tool_call>\")"}));
}

/// Kimi-K3: a call after text (or reasoning) inside its tools section is still a call.
#[test]
fn kimi_k3_call_after_text_in_a_section() {
    let m = check(
        "kimi-k3",
        false,
        "<|open|>tools<|sep|><|open|>call tool=\"a\" index=\"1\"<|sep|><|close|>call<|sep|>x<|open|>call tool=\"b\" index=\"2\"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
    );
    assert_eq!(names(&m), ["a", "b"]);
    assert_eq!(m.content, "x");
    // A value holding its own closing tag (a command that greps for it) keeps it.
    let m = check(
        "kimi-k3",
        false,
        "<|open|>tools<|sep|><|open|>call tool=\"exec\" index=\"1\"<|sep|><|open|>argument key=\"input\" type=\"string\"<|sep|>grep -n '<|close|>argument<|sep|>' parser.py<|close|>argument<|sep|><|open|>argument key=\"n\" type=\"integer\"<|sep|>2<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
    );
    assert_eq!(
        args(&m, 0),
        json!({"input": "grep -n '<|close|>argument<|sep|>' parser.py", "n": 2})
    );
    assert_eq!(m.content, "");
}

/// Inkling: a tool block's header may name the tool; the name is markup, not content.
#[test]
fn inkling_tool_name_in_the_header() {
    let m = check(
        "inkling",
        false,
        "<|content_text|>Let me look it up.<|end_message|><|message_model|>get_weather<|content_invoke_tool_json|>{\"name\":\"get_weather\",\"args\":{\"city\": \"NYC\"}}<|end_message|>",
    );
    assert_eq!(m.content, "Let me look it up.");
    assert_eq!(names(&m), ["get_weather"]);
    assert_eq!(args(&m, 0), json!({"city": "NYC"}));
}

/// GLM: a call name never holds markup. A call whose name is followed by a repeated opener or
/// by tags out of order is no call: its text is content, and the calls around it are read.
#[test]
fn glm_names_without_markup() {
    let m = check(
        "glm-4.5",
        false,
        "<tool_call>exec<tool_call>exec\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>",
    );
    assert_eq!(
        (m.content.as_str(), names(&m)),
        ("<tool_call>exec", vec!["exec"])
    );
    assert_eq!(args(&m, 0), json!({"k": "v"}));
    let bad = "<tool_call>exec<arg_value>input</arg_key><arg_value>const s = require(\"fs\")</arg_value></tool_call>";
    let t = format!("<tool_call>exec<arg_key>cmd</arg_key><arg_value>pytest -q</arg_value></tool_call>{bad}<tool_call>wait<arg_key>seconds</arg_key><arg_value>2</arg_value></tool_call>");
    let m = check("glm-4.5", false, &t);
    assert_eq!((m.content.as_str(), names(&m)), (bad, vec!["exec", "wait"]));
    for c in &m.tool_calls {
        assert!(!c.name.contains('<'), "{m:?}");
    }
}

/// Qwen3-Coder (and Seed-OSS): a parameter value may hold the closing tag (code that writes
/// XML), which closes it only before the next parameter, the function's end or a repeated
/// closing tag.
#[test]
fn qwen3_coder_values_holding_the_closing_tag() {
    let t = "<tool_call>\n<function=write>\n<parameter=content>\n<a></parameter></a>\n</parameter>\n<parameter=n>\n2\n</parameter>\n</function>\n</tool_call>";
    let m = check("qwen3-coder", false, t);
    assert_eq!(
        args(&m, 0),
        json!({"content": "<a></parameter></a>", "n": 2})
    );
    let t = "<seed:tool_call>\n<function=write>\n<parameter=content>\nx</parameter> y\n</parameter>\n</function>\n</seed:tool_call>";
    let m = check("seed-oss", false, t);
    assert_eq!(args(&m, 0), json!({"content": "x</parameter> y"}));
}
