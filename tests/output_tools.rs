//! Unknown tool names (`Options::tools`): a call whose complete name is not one of the known
//! tools is kept as content with a malformed report, in every format, with the streaming
//! invariants (every chunking, every prefix) checked on each case.

mod output_support;
use chatcodec::output::{parse_with, Format, Options};
use output_support::{check_with, opts, opts_tools};

/// One output per format with two calls: `{A}(city=Paris)` then `{B}(path=ZQX)`, and whether
/// the second call is parsed independently of the first (per-call markers rather than one
/// section or list).
const CASES: &[(&str, bool, bool, &str)] = &[
    ("hermes", false, true, "Sure.<tool_call>\n{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}\n</tool_call>"),
    ("qwen3-coder", false, true, "<tool_call>\n<function={A}>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function={B}>\n<parameter=path>\nZQX\n</parameter>\n</function>\n</tool_call>"),
    ("seed-oss", false, true, "<seed:tool_call>\n<function={A}>\n<parameter=city>\nParis\n</parameter>\n</function>\n</seed:tool_call><seed:tool_call>\n<function={B}>\n<parameter=path>\nZQX\n</parameter>\n</function>\n</seed:tool_call>"),
    ("llama3", false, false, "{\"name\": \"{A}\", \"parameters\": {\"city\": \"Paris\"}}; {\"name\": \"{B}\", \"parameters\": {\"path\": \"ZQX\"}}"),
    ("llama4", false, false, "<|python_start|>[{A}(city='Paris'), {B}(path='ZQX')]<|python_end|>"),
    ("mistral-nemo", false, false, "[TOOL_CALLS][{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"abcdefghi\"}, {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}, \"id\": \"bcdefghij\"}]"),
    ("mistral", false, true, "[TOOL_CALLS]{A}[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]{B}[ARGS]{\"path\": \"ZQX\"}"),
    ("deepseek-r1", false, false, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{A}\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>{B}\n```json\n{\"path\": \"ZQX\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
    ("deepseek-v3.1", false, false, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{A}<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>{B}<｜tool▁sep｜>{\"path\": \"ZQX\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
    ("deepseek-v3.2", false, false, "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"{A}\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"{B}\">\n<｜DSML｜parameter name=\"path\" string=\"true\">ZQX</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"),
    ("kimi-k2", false, false, "<|tool_calls_section_begin|><|tool_call_begin|>functions.{A}:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.{B}:1<|tool_call_argument_begin|>{\"path\": \"ZQX\"}<|tool_call_end|><|tool_calls_section_end|>"),
    ("kimi-k3", true, false, "ok<|close|>think<|sep|><|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool=\"{A}\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|open|>call tool=\"{B}\" index=\"2\"<|sep|><|open|>argument key=\"path\" type=\"string\"<|sep|>ZQX<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"),
    ("glm-4.5", false, true, "<tool_call>{A}\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call><tool_call>{B}\n<arg_key>path</arg_key>\n<arg_value>ZQX</arg_value>\n</tool_call>"),
    ("minimax-m2", false, false, "<minimax:tool_call>\n<invoke name=\"{A}\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n<invoke name=\"{B}\">\n<parameter name=\"path\">ZQX</parameter>\n</invoke>\n</minimax:tool_call>"),
    ("minimax-m3", false, false, "<mm:think>ok</mm:think>]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"{A}\">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[</invoke>\n]<]minimax[>[<invoke name=\"{B}\">]<]minimax[>[<path>ZQX]<]minimax[>[</path>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>"),
    ("gpt-oss", false, true, "<|channel|>commentary to=functions.{A} <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|><|start|>assistant<|channel|>commentary to=functions.{B} <|constrain|>json<|message|>{\"path\": \"ZQX\"}<|call|>"),
    ("nemotron-v2", false, false, "<TOOLCALL>[{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}]</TOOLCALL>"),
    ("pythonic", false, false, "[{A}(city='Paris'), {B}(path='ZQX')]"),
    ("lfm2", false, false, "<|tool_call_start|>[{A}(city='Paris'), {B}(path='ZQX')]<|tool_call_end|>"),
    ("gemma4", false, true, "<|tool_call>call:{A}{city:<|\"|>Paris<|\"|>}<tool_call|><|tool_call>call:{B}{path:<|\"|>ZQX<|\"|>}<tool_call|>"),
    ("functiongemma", false, true, "<start_function_call>call:{A}{city:<escape>Paris<escape>}<end_function_call><start_function_call>call:{B}{path:<escape>ZQX<escape>}<end_function_call>"),
    ("command-r7b", false, false, "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"{A}\", \"parameters\": {\"city\": \"Paris\"}}, {\"tool_call_id\": \"1\", \"tool_name\": \"{B}\", \"parameters\": {\"path\": \"ZQX\"}}]<|END_ACTION|>"),
    ("granite", false, false, "<|tool_call|>[{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}]"),
    ("hunyuan", false, false, "<tool_calls>[{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}]</tool_calls>"),
    ("jamba", false, false, "<tool_calls>[{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}]</tool_calls>"),
    ("apertus", false, false, "<|tools_prefix|>[{\"{A}\": {\"city\": \"Paris\"}}, {\"{B}\": {\"path\": \"ZQX\"}}]<|tools_suffix|>"),
    ("functionary-v3.1", false, true, "<function={A}>{\"city\": \"Paris\"}</function><function={B}>{\"path\": \"ZQX\"}</function>"),
    ("functionary-v3.2", false, true, ">>>{A}\n{\"city\": \"Paris\"}>>>{B}\n{\"path\": \"ZQX\"}"),
    ("xlam", false, false, "[{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}]"),
    ("firefunction-v2", false, false, " functools[{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}]"),
    ("gigachat3", false, true, "Checking.<|function_call|>{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}<|message_sep|>\n\n<|function_call|>{\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}"),
    ("internlm2", false, true, "<|action_start|><|plugin|>\n{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}<|action_end|><|action_start|><|plugin|>\n{\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}<|action_end|>"),
    ("phi4-mini", false, true, "<|tool_call|>{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}<|/tool_call|><|tool_call|>{\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}<|/tool_call|>"),
    ("olmo3", false, false, "<function_calls>{A}(city='Paris')\n{B}(path='ZQX')</function_calls>"),
    ("step3", false, false, "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"{A}\"><steptml:parameter name=\"city\">Paris</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"{B}\"><steptml:parameter name=\"path\">ZQX</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"),
    ("longcat", false, true, "<longcat_tool_call>{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}</longcat_tool_call><longcat_tool_call>{\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}</longcat_tool_call>"),
    ("ernie45", false, true, "<tool_call>{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}</tool_call><tool_call>{\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}</tool_call>"),
    ("granite-20b-fc", false, true, "<function_call> {\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}\n<function_call> {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}"),
    ("minimax-m1", false, false, "<tool_calls>\n{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}\n{\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}\n</tool_calls>"),
    ("openpangu", false, false, "<|tool_call_start|>[{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}]<|tool_call_end|>"),
    ("dots", false, false, "<dots_function_call>\n<invoke name=\"{A}\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n<invoke name=\"{B}\">\n<parameter name=\"path\">ZQX</parameter>\n</invoke>\n</dots_function_call>"),
    ("minicpm5", false, true, "<function name=\"{A}\"><param name=\"city\">Paris</param></function>\n<function name=\"{B}\"><param name=\"path\">ZQX</param></function>"),
    ("poolside-v1", false, true, "<tool_call>{A}\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call><tool_call>{B}\n<arg_key>path</arg_key>\n<arg_value>ZQX</arg_value>\n</tool_call>"),
    ("hy-v3", false, false, "<tool_calls><tool_call>{A}<tool_sep><arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call><tool_call>{B}<tool_sep><arg_key>path</arg_key><arg_value>ZQX</arg_value></tool_call></tool_calls>"),
    ("k2-horizon", false, false, "<ifm|tool_calls><ifm|tool_call>{A}<ifm|arg_key>city</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call><ifm|tool_call>{B}<ifm|arg_key>path</ifm|arg_key><ifm|arg_value>ZQX</ifm|arg_value></ifm|tool_call></ifm|tool_calls>"),
    ("plamo3", false, false, "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>{A}<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{\"city\": \"Paris\"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>{B}<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{\"path\": \"ZQX\"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>"),
    ("inkling", false, true, "<|message_model|><|content_invoke_tool_json|>{\"name\": \"{A}\", \"args\": {\"city\": \"Paris\"}}<|end_message|><|message_model|><|content_invoke_tool_json|>{\"name\": \"{B}\", \"args\": {\"path\": \"ZQX\"}}<|end_message|>"),
    ("muse", false, true, "<|start|>assistant to=functions.{A}<|message|><atem:function_calls><atem:invoke name=\"{A}\"><atem:parameter name=\"city\">Paris</atem:parameter></atem:invoke></atem:function_calls><|eom|><|start|>assistant to=functions.{B}<|message|><atem:function_calls><atem:invoke name=\"{B}\"><atem:parameter name=\"path\">ZQX</atem:parameter></atem:invoke></atem:function_calls><|eom|>"),
    ("generic", false, false, "{\"tool_calls\": [{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}]}"),
    ("cwm", false, true, "<tool: function>\n{A} {\"city\": \"Paris\"}\n</tool>\n<tool: function>\n{B} {\"path\": \"ZQX\"}\n</tool>"),
    ("solar-open2", false, true, "<|tool_call:start|>{A}\n<|tool_arg:start|>city<|tool_arg:value|>Paris<|tool_arg:end|>\n<|tool_call:end|>\n<|tool_call:start|>{B}\n<|tool_arg:start|>path<|tool_arg:value|>ZQX<|tool_arg:end|>\n<|tool_call:end|>"),
    ("rwkv", false, true, "**Tool Call:**\n```json\n{\"name\": \"{A}\", \"arguments\": {\"city\": \"Paris\"}}\n```\n**Tool Call:**\n```json\n{\"name\": \"{B}\", \"arguments\": {\"path\": \"ZQX\"}}\n```"),
];

const KNOWN: &str = "get_weather";
const UNKNOWN: &str = "rm_rf";

fn output(template: &str, a: &str, b: &str) -> String {
    template.replace("{A}", a).replace("{B}", b)
}

fn names(m: &chatcodec::output::Message) -> Vec<&str> {
    m.tool_calls.iter().map(|c| c.name.as_str()).collect()
}

#[test]
fn every_format_has_a_case() {
    for (name, _) in Format::names() {
        if ["think", "kimi-vl"].contains(&name) {
            // Reasoning only: no tool calls.
            continue;
        }
        assert!(
            CASES.iter().any(|c| c.0 == name),
            "no unknown-tool case for format {name}"
        );
    }
}

#[test]
fn without_a_tool_list_any_name_is_a_call() {
    for &(format, forced, _, t) in CASES {
        let m = check_with(format, &opts(forced), &output(t, KNOWN, UNKNOWN));
        assert_eq!(names(&m), [KNOWN, UNKNOWN], "{format}: {m:?}");
        assert_eq!(m.malformed, 0, "{format}: {m:?}");
    }
}

#[test]
fn known_names_are_calls() {
    for &(format, forced, _, t) in CASES {
        let o = opts_tools(forced, &[KNOWN, UNKNOWN, "other"]);
        let m = check_with(format, &o, &output(t, KNOWN, UNKNOWN));
        assert_eq!(names(&m), [KNOWN, UNKNOWN], "{format}: {m:?}");
        assert_eq!(m.malformed, 0, "{format}: {m:?}");
    }
}

#[test]
fn an_unknown_second_call_degrades_to_content() {
    for &(format, forced, _, t) in CASES {
        let o = opts_tools(forced, &[KNOWN]);
        let m = check_with(format, &o, &output(t, KNOWN, UNKNOWN));
        assert_eq!(names(&m), [KNOWN], "{format}: {m:?}");
        assert!(m.malformed >= 1, "{format}: {m:?}");
        assert!(
            m.content.contains(UNKNOWN) && m.content.contains("ZQX"),
            "{format}: the unknown call's text is content: {m:?}"
        );
        assert!(!m.content.contains("Paris"), "{format}: {m:?}");
    }
}

#[test]
fn an_unknown_first_call_degrades_to_content() {
    for &(format, forced, independent, t) in CASES {
        let o = opts_tools(forced, &[KNOWN]);
        let m = check_with(format, &o, &output(t, UNKNOWN, KNOWN));
        assert!(!names(&m).contains(&UNKNOWN), "{format}: {m:?}");
        assert!(m.malformed >= 1, "{format}: {m:?}");
        assert!(
            m.content.contains(UNKNOWN) && m.content.contains("Paris"),
            "{format}: the unknown call's text is content: {m:?}"
        );
        if independent {
            assert_eq!(names(&m), [KNOWN], "{format}: {m:?}");
            assert!(!m.content.contains("ZQX"), "{format}: {m:?}");
        }
    }
}

#[test]
fn the_whole_call_text_is_kept() {
    // With per-call markers, the rejected call comes back byte for byte.
    let t =
        "Sure.<tool_call>\n{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/\"}}\n</tool_call>";
    let m = check_with("hermes", &opts_tools(false, &[KNOWN]), t);
    assert_eq!(m.content, t);
    assert!(m.tool_calls.is_empty());
    assert_eq!(m.malformed, 1);
    let t = "<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call> done";
    let m = check_with("qwen3-coder", &opts_tools(false, &[KNOWN]), t);
    assert_eq!(m.content, t);
    // A truncated name is not known either.
    let t = "<tool_call>\n{\"name\": \"get_wea";
    let m = check_with("hermes", &opts_tools(false, &[KNOWN]), t);
    assert_eq!((m.content.as_str(), m.malformed), (t, 1));
    // A name that only starts like a known one.
    let t = "<tool_call>\n{\"name\": \"get_weather_x\", \"arguments\": {}}\n</tool_call>";
    let m = check_with("hermes", &opts_tools(false, &[KNOWN]), t);
    assert_eq!(m.content, t);
    // An empty list accepts no call at all.
    let t = "[get_weather(city='Paris')]";
    let m = check_with("pythonic", &opts_tools(false, &[]), t);
    assert!(m.tool_calls.is_empty() && m.content == t, "{m:?}");
}

#[test]
fn the_malformed_event_names_the_tool() {
    let f = Format::by_name("hermes").unwrap();
    let mut p = chatcodec::output::StreamParser::with_options(&f, opts_tools(false, &[KNOWN]));
    let mut events = p.feed("Hi<tool_call>{\"name\": \"rm_rf\", \"arguments\": {}}</tool_call>");
    events.extend(p.finish());
    let reasons: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            chatcodec::output::Event::Malformed { at, reason } => Some(format!("{at}:{reason}")),
            _ => None,
        })
        .collect();
    assert_eq!(reasons, ["23:unknown tool `rm_rf`"]);
}

#[test]
fn tool_names_from_an_openai_tools_array() {
    let tools = serde_json::json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": {}}},
        {"name": "search"},
        {"type": "function"},
        7
    ]);
    assert_eq!(Options::tool_names(&tools), ["get_weather", "search"]);
    let f = Format::by_name("hermes").unwrap();
    let o = Options {
        tools: Some(Options::tool_names(&tools)),
        ..Options::default()
    };
    let m = parse_with(
        &f,
        "<tool_call>{\"name\": \"search\", \"arguments\": {}}</tool_call>",
        o,
    );
    assert_eq!(names(&m), ["search"]);
}
