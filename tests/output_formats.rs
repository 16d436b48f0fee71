//! Per-format tests on realistic model outputs (well-formed and malformed). Every case also
//! runs the streaming invariants (chunkings of 1, 2 and 5 bytes, every prefix).

mod output_support;
use output_support::{args, check};
use serde_json::json;

// ---------- Hermes / Qwen2.5 / Qwen3 ----------

#[test]
fn hermes_reasoning_text_and_parallel_calls() {
    let out = "<think>\nThe user wants weather in two cities. I'll call the tool twice.\n</think>\n\nLet me check both cities.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris, France\", \"unit\": \"celsius\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"東京\", \"unit\": \"celsius\"}}\n</tool_call>";
    let m = check("hermes", false, out);
    assert_eq!(
        m.reasoning,
        "\nThe user wants weather in two cities. I'll call the tool twice.\n"
    );
    assert_eq!(m.content, "Let me check both cities.\n");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(args(&m, 1), json!({"location": "東京", "unit": "celsius"}));
    assert_ne!(m.tool_calls[0].id, m.tool_calls[1].id);
    assert!(m.tool_calls[0].id.starts_with("call_"));
    assert_eq!(m.malformed, 0);
}

#[test]
fn hermes_forced_open_empty_and_nested_arguments() {
    let out = "I should list files.\n</think>\n\n<tool_call>\n{\"name\": \"list_files\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"write\", \"arguments\": {\"path\": \"a \\\"b\\\".json\", \"data\": {\"k\": [1, 2.5e3, true, null, {\"x\": \"}\"}]}}}\n</tool_call>";
    let m = check("hermes", true, out);
    assert_eq!(m.reasoning, "I should list files.\n");
    assert_eq!(m.content, "");
    assert_eq!(m.tool_calls[0].arguments, "{}");
    assert_eq!(
        args(&m, 1),
        json!({"path": "a \"b\".json", "data": {"k": [1, 2.5e3, true, null, {"x": "}"}]}})
    );
}

#[test]
fn hermes_text_after_call_and_plain_answer() {
    let m = check("hermes", false, "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"rust\"}}\n</tool_call>\nI searched for it.");
    assert_eq!(m.tool_calls.len(), 1);
    assert_eq!(m.content, "I searched for it.");
    let m = check(
        "hermes",
        false,
        "The capital of France is Paris. Use <b>bold</b> and 1 < 2.",
    );
    assert_eq!(
        m.content,
        "The capital of France is Paris. Use <b>bold</b> and 1 < 2."
    );
    assert!(m.tool_calls.is_empty());
}

#[test]
fn hermes_malformed_degrades_to_content() {
    // Invalid JSON inside the tag: kept as content, with a malformed report.
    let out = "Calling.<tool_call>\n{\"name\": get_weather}\n</tool_call> done";
    let m = check("hermes", false, out);
    assert!(m.tool_calls.is_empty());
    assert!(m.malformed >= 1);
    assert!(
        m.content.starts_with("Calling.<tool_call>\n{\"name\": "),
        "{:?}",
        m.content
    );
    assert!(m.content.contains("get_weather}"));
    assert!(m.content.ends_with(" done"));
    // Unclosed tag at the end of output.
    let m = check(
        "hermes",
        false,
        "Sure <tool_call>\n{\"name\": \"f\", \"argu",
    );
    assert_eq!(m.content, "Sure <tool_call>\n{\"name\": \"f\", \"argu");
    assert_eq!(m.malformed, 1);
    // Unclosed think: everything is reasoning.
    let m = check("hermes", false, "<think>still thinking <tool");
    assert_eq!(m.reasoning, "still thinking <tool");
    // A stray marker in prose.
    let m = check(
        "hermes",
        false,
        "Write <tool_call> tags like this: <tool_call>name</tool_call>.",
    );
    assert!(m.tool_calls.is_empty());
    assert!(
        m.content.contains("like this: <tool_call>name"),
        "{:?}",
        m.content
    );
}

#[test]
fn hermes_call_inside_reasoning_and_call_after_args_error() {
    let m = check("hermes", false, "<think>I will call it <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>");
    assert_eq!(m.reasoning, "I will call it ");
    assert_eq!(m.tool_calls.len(), 1);
    // Truncated arguments after the header was sent: the call streamed, and the final
    // message gives it back as text.
    let t = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": [1, 2";
    let m = check("hermes", false, t);
    assert!(m.tool_calls.is_empty());
    assert_eq!(m.content, t);
    assert_eq!(m.malformed, 1);
}

// ---------- Qwen3-Coder / Qwen3.5 XML ----------

#[test]
fn qwen3_coder_xml_parameters() {
    let out = "I'll run the tests and read the file.\n<tool_call>\n<function=run_shell>\n<parameter=command>\ncargo test --lib \"output::\"\n</parameter>\n<parameter=timeout>\n120\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/日本.rs\n</parameter>\n<parameter=range>\n[1, 40]\n</parameter>\n<parameter=options>\n{\"follow\": true}\n</parameter>\n</function>\n</tool_call>";
    let m = check("qwen3-coder", false, out);
    assert_eq!(m.content, "I'll run the tests and read the file.\n");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(m.tool_calls[0].name, "run_shell");
    assert_eq!(
        args(&m, 0),
        json!({"command": "cargo test --lib \"output::\"", "timeout": 120})
    );
    assert_eq!(
        args(&m, 1),
        json!({"path": "src/日本.rs", "range": [1, 40], "options": {"follow": true}})
    );
}

#[test]
fn qwen3_coder_multiline_value_no_params_and_omitted_wrapper() {
    let out = "<think>\nplan\n</think>\n\n<function=write_file>\n<parameter=content>\nline 1\n  line \"2\"\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=list>\n</function>\n</tool_call>";
    let m = check("qwen3-coder", false, out);
    assert_eq!(m.reasoning, "\nplan\n");
    assert_eq!(args(&m, 0), json!({"content": "line 1\n  line \"2\""}));
    assert_eq!(m.tool_calls[1].arguments, "{}");
}

#[test]
fn qwen3_coder_malformed() {
    // Duplicate </parameter> (seen with Qwen3.6) is absorbed.
    let m = check("qwen3-coder", false, "<tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n</parameter>\n</function>\n</tool_call>");
    assert_eq!(args(&m, 0), json!({"a": "x"}));
    // Truncated mid-value: the call is closed with what was read.
    let m = check(
        "qwen3-coder",
        false,
        "<tool_call>\n<function=f>\n<parameter=a>\nhello wor",
    );
    assert_eq!(args(&m, 0), json!({"a": "hello wor"}));
    // A stray tag in prose.
    let m = check("qwen3-coder", false, "Use <function=name> syntax.");
    assert_eq!(m.content, "Use <function=name> syntax.");
}

// ---------- Llama 3.x ----------

#[test]
fn llama3_json_and_python_tag() {
    let m = check(
        "llama3",
        false,
        "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"San Francisco\", \"days\": 3}}",
    );
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(args(&m, 0), json!({"city": "San Francisco", "days": 3}));
    assert_eq!(m.content, "");
    let m = check("llama3", false, "<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": {\"x\": \"é\"}}<|eom_id|>");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(args(&m, 1), json!({"x": "é"}));
    let m = check(
        "llama3",
        false,
        "<|python_tag|>brave_search.call(query=\"weather in Menlo Park\")",
    );
    // The call is named after the builtin tool, as the peers report it.
    assert_eq!(m.tool_calls[0].name, "brave_search");
    assert_eq!(args(&m, 0), json!({"query": "weather in Menlo Park"}));
    let m = check("llama3", false, "The answer is {\"name\": 1}.");
    assert_eq!(m.content, "The answer is {\"name\": 1}.");
}

// ---------- Mistral ----------

#[test]
fn mistral_nemo_array_with_ids() {
    let out = "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"a1B2c3D4e\"}, {\"name\": \"get_time\", \"arguments\": {}, \"id\": \"Z9y8X7w6v\"}]";
    let m = check("mistral-nemo", false, out);
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(m.tool_calls[0].id, "a1B2c3D4e");
    assert_eq!(m.tool_calls[1].id, "Z9y8X7w6v");
    assert_eq!(args(&m, 0), json!({"city": "Paris"}));
}

#[test]
fn mistral_v11_named_calls_call_id_and_think() {
    let out = "[THINK]The user asks for two things.[/THINK]Sure.[TOOL_CALLS]get_weather[CALL_ID]abc123XYZ[ARGS]{\"city\": \"Lyon\"}[TOOL_CALLS]get_time[ARGS]{}";
    let m = check("mistral", false, out);
    assert_eq!(m.reasoning, "The user asks for two things.");
    assert_eq!(m.content, "Sure.");
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(m.tool_calls[0].id, "abc123XYZ");
    assert_eq!(args(&m, 0), json!({"city": "Lyon"}));
    assert_eq!(m.tool_calls[1].name, "get_time");
    assert!(m.tool_calls[1].id.starts_with("call_"));
    let m = check("mistral", false, "[TOOL_CALLS]f[ARGS]{\"a\": oops}");
    assert!(m.malformed >= 1);
}

// ---------- DeepSeek ----------

#[test]
fn deepseek_r1_forced_open_and_fenced_json() {
    let out = "Okay, the user wants the weather.\n</think>\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"location\": \"Hangzhou\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let m = check("deepseek-r1", true, out);
    assert_eq!(m.reasoning, "Okay, the user wants the weather.\n");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(args(&m, 0), json!({"location": "Hangzhou"}));
    assert_eq!(m.tool_calls[1].arguments, "{}");
}

#[test]
fn deepseek_v31_calls() {
    let out = "Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"location\": \"北京\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"q\": \"x\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let m = check("deepseek-v3.1", false, out);
    assert_eq!(m.content, "Checking.");
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(args(&m, 0), json!({"location": "北京"}));
    assert_eq!(m.tool_calls[1].name, "search");
    let m = check("deepseek-v3.1", true, "thinking</think>answer");
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("thinking", "answer")
    );
}

// ---------- Kimi K2 ----------

#[test]
fn kimi_k2_ids_from_the_model() {
    let out = "<think>Need both.</think>I'll look these up.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Beijing\"}<|tool_call_end|><|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>{\"query\": \"Kimi\"}<|tool_call_end|><|tool_calls_section_end|>";
    let m = check("kimi-k2", false, out);
    assert_eq!(m.reasoning, "Need both.");
    assert_eq!(m.content, "I'll look these up.");
    assert_eq!(m.tool_calls[0].id, "functions.get_weather:0");
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(m.tool_calls[1].id, "functions.search:1");
    assert_eq!(args(&m, 1), json!({"query": "Kimi"}));
}

#[test]
fn kimi_k2_call_before_think_close() {
    let out = "<think>let me call<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
    let m = check("kimi-k2", false, out);
    assert_eq!(m.reasoning, "let me call");
    assert_eq!(m.tool_calls[0].name, "f");
}

// ---------- GLM ----------

#[test]
fn glm45_and_glm47() {
    let out = "<think>User wants weather.</think>\nSure.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>";
    let m = check("glm-4.5", false, out);
    assert_eq!(m.reasoning, "User wants weather.");
    assert_eq!(m.content, "Sure.");
    assert_eq!(args(&m, 0), json!({"city": "北京", "days": 3}));
    let out47 = "<tool_call>search<arg_key>query</arg_key><arg_value>rust \"peg\"</arg_value><arg_key>filters</arg_key><arg_value>{\"lang\": [\"en\"]}</arg_value></tool_call><tool_call>now</tool_call>";
    let m = check("glm-4.5", false, out47);
    assert_eq!(m.tool_calls[0].name, "search");
    assert_eq!(
        args(&m, 0),
        json!({"query": "rust \"peg\"", "filters": {"lang": ["en"]}})
    );
    assert_eq!(m.tool_calls[1].arguments, "{}");
}

// ---------- MiniMax-M2 ----------

#[test]
fn minimax_m2_invokes() {
    let out = "<think>\nuser asks\n</think>\n\n<minimax:tool_call>\n<invoke name=\"search_web\">\n<parameter name=\"query_tag\">[\"technology\", \"events\"]</parameter>\n<parameter name=\"query_list\">OpenAI latest news</parameter>\n</invoke>\n<invoke name='get_time'>\n</invoke>\n</minimax:tool_call>";
    let m = check("minimax-m2", false, out);
    assert_eq!(m.reasoning, "\nuser asks\n");
    assert_eq!(m.tool_calls[0].name, "search_web");
    assert_eq!(
        args(&m, 0),
        json!({"query_tag": ["technology", "events"], "query_list": "OpenAI latest news"})
    );
    assert_eq!(m.tool_calls[1].name, "get_time");
}

// ---------- GPT-OSS harmony ----------

#[test]
fn gpt_oss_channels() {
    let out = "<|channel|>analysis<|message|>User asks weather; call tool.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\":\"San Francisco\"}<|call|>";
    let m = check("gpt-oss", false, out);
    assert_eq!(m.reasoning, "User asks weather; call tool.");
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(args(&m, 0), json!({"location": "San Francisco"}));
    let out = "<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final<|message|>Hello! 👋<|return|>";
    let m = check("gpt-oss", false, out);
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("Simple.", "Hello! 👋")
    );
    // The recipient in the role header.
    let out = "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=functions.lookup<|channel|>commentary json<|message|>{\"id\": 7}<|call|>";
    let m = check("gpt-oss", false, out);
    assert_eq!(m.tool_calls[0].name, "lookup");
    assert_eq!(args(&m, 0), json!({"id": 7}));
    // Missing channel header (seen with gpt-oss-20b): text is content, never an error.
    let m = check("gpt-oss", false, "Just text<|end|>");
    assert_eq!(m.content, "Just text");
}
