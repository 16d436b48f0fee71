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
    assert_eq!(m.reasoning, "The user wants weather.");
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
    // The newlines next to Hunyuan's tags are the tags'.
    assert_eq!(m.reasoning, "思考");
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

#[test]
fn llama4_wrapped_pythonic_and_template_json() {
    let m = check(
        "llama4",
        false,
        "<|python_start|>[get_weather(city='東京', days=3), search(q=\"a \\\"b\\\"\", opts={'deep': True, 'n': [1, 2]})]<|python_end|><|eot|>",
    );
    assert_eq!(m.content, "");
    assert_eq!(args(&m, 0), json!({"city": "東京", "days": 3}));
    assert_eq!(
        args(&m, 1),
        json!({"q": "a \"b\"", "opts": {"deep": true, "n": [1, 2]}})
    );
    // Llama 4's template: wrapped text, then JSON calls.
    let m = check("llama4", false, "<|python_start|>Checking.<|python_end|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}{\"name\": \"now\", \"parameters\": {}}<|eot|>");
    assert_eq!(m.content, "Checking.");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(m.tool_calls[1].arguments, "{}");
    // vLLM's llama4_json template: content, then JSON calls (its parser reads a call
    // object anywhere); a JSON object without a "name" key stays text.
    let m = check("llama4", false, "Let me check.{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}{\"name\": \"now\", \"parameters\": {}}<|eot|>");
    assert_eq!(m.content, "Let me check.");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(m.tool_calls[0].arguments, "{\"city\": \"Paris\"}");
    let m = check("llama4", false, "Use {\"a\": 1} or {} here.");
    assert_eq!(m.content, "Use {\"a\": 1} or {} here.");
    assert!(m.tool_calls.is_empty());
    // Bare list, plain text, and a broken list.
    let m = check("llama4", false, "[f()] ok");
    assert_eq!(
        (m.tool_calls[0].name.as_str(), m.content.as_str()),
        ("f", "ok")
    );
    let m = check("llama4", false, "Lists look like [1, 2] in prose.");
    assert_eq!(m.content, "Lists look like [1, 2] in prose.");
    let m = check(
        "llama4",
        false,
        "<|python_start|>[f(a=1), g(b=)]<|python_end|>",
    );
    assert_eq!(m.malformed, 1);
    assert!(m.content.contains("g(b=)"), "{m:?}");
}

#[test]
fn kimi_k3_channels_and_typed_arguments() {
    let out = "Need weather.<|close|>think<|sep|><|open|>response<|sep|>Let me check.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>São Paulo, \"BR\"<|close|>argument<|sep|><|open|>argument key=\"days\" type=\"number\"<|sep|>3<|close|>argument<|sep|><|open|>argument key=\"opts\" type=\"object\"<|sep|>{\"units\": [\"c\"]}<|close|>argument<|sep|><|close|>call<|sep|><|open|>call tool=\"now\" index=\"2\"<|sep|><|close|>call<|sep|><|open|>call tool=\"search\" index=\"3\"<|sep|><|open|>json type=\"object\"<|sep|>{\"q\": \"x\"}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>";
    let m = check("kimi-k3", true, out);
    assert_eq!(m.reasoning, "Need weather.");
    assert_eq!(m.content, "Let me check.");
    assert_eq!(
        args(&m, 0),
        json!({"city": "São Paulo, \"BR\"", "days": 3, "opts": {"units": ["c"]}})
    );
    assert_eq!(m.tool_calls[1].arguments, "{}");
    assert_eq!(args(&m, 2), json!({"q": "x"}));
    assert_eq!(m.malformed, 0);
    // Thinking off: the prompt opened the response.
    let m = check(
        "kimi-k3",
        false,
        "Hello there.<|close|>response<|sep|><|close|>message<|sep|>",
    );
    assert_eq!(
        (m.content.as_str(), m.reasoning.as_str()),
        ("Hello there.", "")
    );
    // Truncated in an argument: the call is closed with what streamed.
    let m = check("kimi-k3", false, "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"string\"<|sep|>par");
    assert_eq!(args(&m, 0), json!({"a": "par"}));
    // Garbage in the tools block degrades to content.
    let m = check(
        "kimi-k3",
        false,
        "<|open|>tools<|sep|><|open|>call tool=\"f\"<|sep|>junk<|close|>call<|sep|>",
    );
    assert!(m.malformed >= 1 && m.content.contains("junk"), "{m:?}");
}

#[test]
fn minimax_m3_namespaced_and_m2_forms() {
    let ns = "]<]minimax[>[";
    let out = format!("<mm:think>Two calls.</mm:think>Sure.{ns}<tool_call>\n{ns}<invoke name=\"get_weather\">{ns}<city>東京{ns}</city>{ns}<days>3{ns}</days>{ns}<opts>{ns}<units>c{ns}</units>{ns}<flags>{ns}<item>true{ns}</item>{ns}<item>x{ns}</item>{ns}</flags>{ns}</opts>{ns}</invoke>\n{ns}<invoke name=\"now\">{ns}</invoke>\n{ns}</tool_call>");
    let m = check("minimax-m3", false, &out);
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("Two calls.", "Sure.")
    );
    assert_eq!(
        args(&m, 0),
        json!({"city": "東京", "days": 3, "opts": {"units": "c", "flags": [true, "x"]}})
    );
    assert_eq!(m.tool_calls[1].arguments, "{}");
    // The template variant that keeps M2's markers.
    let m = check("minimax-m3", true, "thinking\n</mm:think>\n\n<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"q\">rust</parameter>\n</invoke>\n</minimax:tool_call>");
    assert_eq!(m.reasoning, "thinking\n");
    assert_eq!(args(&m, 0), json!({"q": "rust"}));
    // Unbalanced elements: the value is kept as a string; a stray namespace token is text.
    let m = check("minimax-m3", false, &format!("{ns}<tool_call>{ns}<invoke name=\"f\">{ns}<a>{ns}<b>1{ns}</a>{ns}</invoke>{ns}</tool_call>"));
    assert_eq!(m.tool_calls.len(), 1);
    let m = check("minimax-m3", false, &format!("a {ns} b"));
    assert_eq!(m.content, format!("a {ns} b"));
}

#[test]
fn gigachat3_function_call_turns() {
    let m = check("gigachat3", false, "Сейчас узнаю.<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Москва\", \"opts\": {\"d\": [1]}}}<|message_sep|>\n\n");
    assert_eq!(m.content, "Сейчас узнаю.");
    assert_eq!(args(&m, 0), json!({"city": "Москва", "opts": {"d": [1]}}));
    let m = check(
        "gigachat3",
        false,
        "<|function_call|>{\"name\": \"now\", \"arguments\": {}}",
    );
    assert_eq!(m.tool_calls[0].arguments, "{}");
    let m = check("gigachat3", false, "Just text.<|message_sep|>\n\n");
    assert_eq!((m.content.as_str(), m.tool_calls.len()), ("Just text.", 0));
    let m = check("gigachat3", false, "x<|function_call|>{\"name\": oops}");
    assert!(m.malformed == 1 && m.content.contains("oops"), "{m:?}");
}

#[test]
fn internlm2_and_phi4_mini() {
    let m = check("internlm2", false, "<think>plan</think>I'll look.<|action_start|><|plugin|>\n{\"name\": \"search\", \"arguments\": {\"q\": \"日本\"}}<|action_end|><|action_start|><|plugin|>\n{\"name\": \"now\", \"arguments\": {}}<|action_end|>");
    assert_eq!(
        (m.reasoning.as_str(), m.content.as_str()),
        ("plan", "I'll look.")
    );
    assert_eq!(args(&m, 0), json!({"q": "日本"}));
    assert_eq!(m.tool_calls.len(), 2);
    let m = check(
        "internlm2",
        false,
        "<|action_start|><|plugin|>\n{\"name\": \"f\", \"argu",
    );
    assert_eq!(m.malformed, 1);
    let m = check("phi4-mini", false, "<|tool_call|>{\"name\": \"search\", \"arguments\": {\"q\": \"x\"}}<|/tool_call|><|tool_call|>{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"now\", \"arguments\": {}}}<|/tool_call|>");
    assert_eq!(args(&m, 0), json!({"q": "x"}));
    assert_eq!(
        (m.tool_calls[1].id.as_str(), m.tool_calls[1].name.as_str()),
        ("c1", "now")
    );
    let m = check("phi4-mini", false, "Sure. functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}, {\"name\": \"now\", \"arguments\": {}}]");
    assert_eq!((m.content.as_str(), m.tool_calls.len()), ("Sure. ", 2));
    let m = check("phi4-mini", false, "{\"name\": \"get_weather\", \"arguments\": {'city': 'Oslo', 'n': None}},{\"name\": \"now\", \"arguments\": {}}<|end|>");
    assert_eq!(args(&m, 0), json!({"city": "Oslo", "n": null}));
    assert_eq!(m.content, "");
    let m = check("phi4-mini", false, "functools[{\"name\": 1}]");
    assert!(m.malformed >= 1 && m.tool_calls.is_empty(), "{m:?}");
}

#[test]
fn hunyuan_role_label_starts_the_answer() {
    // Hunyuan A13B's template tells the model to begin a text answer with 助手： (its
    // history turns show it, the generation prompt does not write it).
    let m = check("hunyuan", false, "助手：Here is the answer.");
    assert_eq!(m.content, "Here is the answer.");
    let m = check(
        "hunyuan",
        false,
        "<think>hm</think>\n<answer>\n助手：好的</answer>",
    );
    assert_eq!((m.reasoning.as_str(), m.content.trim()), ("hm", "好的"));
    // Elsewhere the label is text.
    let m = check("hunyuan", false, "I said 助手：hi.");
    assert_eq!(m.content, "I said 助手：hi.");
    let m = check(
        "hunyuan",
        false,
        "Checking.<tool_calls>[{\"name\": \"now\", \"arguments\": {}}]</tool_calls>",
    );
    assert_eq!((m.content.as_str(), m.tool_calls.len()), ("Checking.", 1));
}

#[test]
fn template_bugs_in_call_arguments_are_recovered() {
    // Unquoted string values (vLLM's llama3.2_pythonic and toolace templates): a bare value
    // runs to the next `, KEY=` or the closing parenthesis.
    let m = check(
        "pythonic",
        false,
        "[get_weather(city=Lyon, France, days=3, hourly=True), now()]",
    );
    assert_eq!(
        args(&m, 0),
        json!({"city": "Lyon, France", "days": 3, "hourly": true})
    );
    assert_eq!(m.tool_calls[1].name, "now");
    // No comma between keyword arguments (vLLM's gemma3_pythonic template).
    let m = check("pythonic", false, "[search(q=\"a, b\"limit=5score=0.5)]");
    assert_eq!(args(&m, 0), json!({"q": "a, b", "limit": 5, "score": 0.5}));
    // An argument still missing its value is malformed.
    let m = check("pythonic", false, "[f(a=1, b=)]");
    assert_eq!(m.malformed, 1);
    // Arguments written as a Python dict inside JSON call objects (Apriel's template).
    let m = check("jamba", false, "<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {'city': 'Lyon', 'hourly': True, 'n': None}}]</tool_calls>");
    assert_eq!(
        args(&m, 0),
        json!({"city": "Lyon", "hourly": true, "n": null})
    );
}
