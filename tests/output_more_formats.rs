//! Tests of the remaining formats on realistic outputs, with the streaming invariants.

mod output_support;
use output_support::{args, check};
use serde_json::json;

#[test]
fn seed_oss() {
    let out = "<seed:think>Need the weather.</seed:think>Checking.<seed:tool_call>\n<function=get_weather>\n<parameter=location>Berlin</parameter>\n<parameter=days>2</parameter>\n</function>\n</seed:tool_call>";
    let m = check("seed-oss", false, out);
    assert_eq!(m.reasoning, "Need the weather.");
    assert_eq!(m.content, "Checking.");
    assert_eq!(args(&m, 0), json!({"location": "Berlin", "days": 2}));
}

#[test]
fn pythonic_and_lfm2() {
    let m = check("pythonic", false, "[get_weather(location=\"Vancouver\"), calculate_route(start='Boston', end=\"New York\", avoid=[\"tolls\"], fast=True)]");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(args(&m, 0), json!({"location": "Vancouver"}));
    assert_eq!(
        args(&m, 1),
        json!({"start": "Boston", "end": "New York", "avoid": ["tolls"], "fast": true})
    );
    let m = check("pythonic", false, "Arrays look like [1, 2] in Python.");
    assert_eq!(m.content, "Arrays look like [1, 2] in Python.");
    let m = check("lfm2", false, "<think>call it</think><|tool_call_start|>[get_candidate_status(candidate_id=\"12345\"), noop()]<|tool_call_end|>Checking.");
    assert_eq!(m.reasoning, "call it");
    assert_eq!(args(&m, 0), json!({"candidate_id": "12345"}));
    assert_eq!(m.tool_calls[1].arguments, "{}");
    assert_eq!(m.content, "Checking.");
}

#[test]
fn deepseek_v32_dsml() {
    let out = "<think>plan</think>I'll search.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"query\" string=\"true\">rust \"peg\" 日本</｜DSML｜parameter>\n<｜DSML｜parameter name=\"limit\" string=\"false\">5</｜DSML｜parameter>\n<｜DSML｜parameter name=\"filters\" string=\"false\">{\"lang\": \"en\"}</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"now\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let m = check("deepseek-v3.2", false, out);
    assert_eq!(m.reasoning, "plan");
    assert_eq!(m.content, "I'll search.\n\n");
    assert_eq!(
        args(&m, 0),
        json!({"query": "rust \"peg\" 日本", "limit": 5, "filters": {"lang": "en"}})
    );
    assert_eq!(m.tool_calls[1].name, "now");
}

#[test]
fn gemma4_and_functiongemma() {
    let out = "<|channel>thought\nThe user wants weather.<channel|>Let me check.<|tool_call>call:get_weather{location:<|\"|>Paris, FR<|\"|>,days:3,units:[<|\"|>c<|\"|>]}<tool_call|>";
    let m = check("gemma4", false, out);
    assert_eq!(m.reasoning, "\nThe user wants weather.");
    assert_eq!(m.content, "Let me check.");
    assert_eq!(
        args(&m, 0),
        json!({"location": "Paris, FR", "days": 3, "units": ["c"]})
    );
    let m = check("functiongemma", false, "<start_function_call>call:set_alarm{time:<escape>07:30<escape>,repeat:false}<end_function_call>");
    assert_eq!(m.tool_calls[0].name, "set_alarm");
    assert_eq!(args(&m, 0), json!({"time": "07:30", "repeat": false}));
}

#[test]
fn command_r7b() {
    let out = "<|START_THINKING|>I will search.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"web_search\", \"parameters\": {\"query\": \"cohere\"}},\n    {\"tool_call_id\": \"1\", \"tool_name\": \"calc\", \"parameters\": {}}\n]<|END_ACTION|>";
    let m = check("command-r7b", false, out);
    assert_eq!(m.reasoning, "I will search.");
    assert_eq!(m.tool_calls[0].id, "0");
    assert_eq!(m.tool_calls[0].name, "web_search");
    assert_eq!(args(&m, 0), json!({"query": "cohere"}));
    let m = check(
        "command-r7b",
        false,
        "<|START_THINKING|>easy<|END_THINKING|><|START_RESPONSE|>Hello there.<|END_RESPONSE|>",
    );
    assert_eq!(m.content, "Hello there.");
}

#[test]
fn granite_hunyuan_jamba_nemotron() {
    let m = check(
        "granite",
        false,
        "<think>hmm</think><response>Answer.</response>",
    );
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("hmm", "Answer.")
    );
    let m = check(
        "granite",
        false,
        "<|tool_call|>[{\"name\": \"get_stock\", \"arguments\": {\"ticker\": \"IBM\"}}]",
    );
    assert_eq!(args(&m, 0), json!({"ticker": "IBM"}));
    let m = check("hunyuan", false, "<think>\n思考\n</think>\n<answer>\n<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"深圳\"}}]</tool_calls>\n</answer>");
    assert_eq!(m.reasoning, "\n思考\n");
    assert_eq!(args(&m, 0), json!({"city": "深圳"}));
    let m = check("jamba", false, "<tool_calls>[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {\"x\": 1}}]</tool_calls>");
    assert_eq!(m.tool_calls.len(), 2);
    let m = check(
        "nemotron-v2",
        false,
        "<think>ok</think><TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"q\": \"z\"}}]</TOOLCALL>",
    );
    assert_eq!(args(&m, 0), json!({"q": "z"}));
}

#[test]
fn apertus_functionary_xlam_firefunction() {
    let m = check("apertus", false, "<|inner_prefix|>thinking<|inner_suffix|>Sure.<|tools_prefix|>[{\"get_weather\": {\"city\": \"Bern\"}}, {\"now\": {}}]<|tools_suffix|>");
    assert_eq!(m.reasoning, "thinking");
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(args(&m, 0), json!({"city": "Bern"}));
    assert_eq!(m.tool_calls[1].arguments, "{}");
    let m = check(
        "functionary-v3.1",
        false,
        "Checking.<function=get_weather>{\"location\": \"SF\"}</function>",
    );
    assert_eq!(
        (m.content.as_str(), m.tool_calls[0].name.as_str()),
        ("Checking.", "get_weather")
    );
    let m = check(
        "functionary-v3.2",
        false,
        ">>>all\nLet me look.>>>get_weather\n{\"location\": \"SF\"}>>>get_time\n{}",
    );
    assert_eq!(m.content, "Let me look.");
    assert_eq!(m.tool_calls.len(), 2);
    let m = check(
        "xlam",
        false,
        "```json\n[{\"name\": \"search\", \"arguments\": {\"q\": \"x\"}}]\n```",
    );
    assert_eq!(args(&m, 0), json!({"q": "x"}));
    let m = check(
        "xlam",
        false,
        "Lists: [1, 2]. [{\"name\": \"f\", \"arguments\": {}}]",
    );
    assert_eq!(m.content, "Lists: [1, 2]. ");
    let m = check(
        "firefunction-v2",
        false,
        " functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}]",
    );
    assert_eq!(args(&m, 0), json!({"city": "Rome"}));
}
