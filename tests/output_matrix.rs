//! The output-parser test matrix (issue 3, "Tests"): for every format, realistic outputs of
//! each case kind — parallel calls, empty arguments, unicode, nested JSON arguments, text
//! before and after calls, reasoning then tools — and malformed outputs (unclosed tags,
//! invalid JSON, stray markers in prose, truncated mid-call), each with its expected final
//! message. Every case goes through `check_with`, which also checks the streaming invariants
//! (chunkings of 1, 2 and 5 bytes, every prefix).
//!
//! The well-formed cases are scenarios (reasoning, text before, calls, text after) written out
//! in each format's own markers by `render` (markers from grammar/*.peg, src/output/formats/
//! table.rs, docs/formats.md and the corpus template of the format); the expected message is
//! the scenario itself. The malformed cases are written by hand per format, with the message
//! the format's definition gives them (docs/formats.md, "Malformed output"; docs/peg.md,
//! "Recovery").

mod output_support;
use output_support::{check_with, opts};
use serde_json::{json, Value};

// ---------------------------------------------------------------- argument writers

/// JSON as Python's json.dumps writes it (`", "` and `": "`), as models trained on it do.
fn js(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), js(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(js).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// A Python literal (pythonic call arguments).
fn py(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        Value::Array(a) => format!("[{}]", a.iter().map(py).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            let items: Vec<String> = m.iter().map(|(k, v)| format!("'{k}': {}", py(v))).collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// `f(k=v, …)`.
fn pycall(name: &str, args: &Value) -> String {
    let kw: Vec<String> = obj(args)
        .iter()
        .map(|(k, v)| format!("{k}={}", py(v)))
        .collect();
    format!("{name}({})", kw.join(", "))
}

/// Gemma 4's argument syntax (the template's `format_argument` with unescaped keys).
fn gem(v: &Value) -> String {
    match v {
        Value::String(s) => format!("<|\"|>{s}<|\"|>"),
        Value::Array(a) => format!("[{}]", a.iter().map(gem).collect::<Vec<_>>().join(",")),
        Value::Object(m) => {
            let items: Vec<String> = m.iter().map(|(k, v)| format!("{k}:{}", gem(v))).collect();
            format!("{{{}}}", items.join(","))
        }
        other => other.to_string(),
    }
}

/// FunctionGemma's: strings in `<escape>`, anything else `tojson`.
fn fgem(args: &Value) -> String {
    let items: Vec<String> = obj(args)
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}:<escape>{s}<escape>"),
            other => format!("{k}:{}", js(other)),
        })
        .collect();
    format!("{{{}}}", items.join(","))
}

/// A tagged parameter's text: strings raw, anything else JSON.
fn raw(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => js(other),
    }
}

/// MiniMax-M3's nested elements (the template's `to_xml`).
fn m3xml(v: &Value) -> String {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{NS}<{k}>{}{NS}</{k}>", m3xml(v)))
            .collect(),
        Value::Array(a) => a
            .iter()
            .map(|v| format!("{NS}<item>{}{NS}</item>", m3xml(v)))
            .collect(),
        other => raw(other),
    }
}

const NS: &str = "]<]minimax[>[";

fn obj(v: &Value) -> Vec<(String, Value)> {
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Kimi K3's argument type attribute.
fn k3type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

// ---------------------------------------------------------------- scenarios

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Parallel,
    Empty,
    Unicode,
    Nested,
    Text,
    Reasoning,
}

const KINDS: [Kind; 6] = [
    Kind::Parallel,
    Kind::Empty,
    Kind::Unicode,
    Kind::Nested,
    Kind::Text,
    Kind::Reasoning,
];

struct Scen {
    reasoning: &'static str,
    before: &'static str,
    calls: Vec<(&'static str, Value)>,
    after: &'static str,
}

fn scenario(k: Kind) -> Scen {
    let s = |reasoning, before, calls, after| Scen {
        reasoning,
        before,
        calls,
        after,
    };
    match k {
        Kind::Parallel => s(
            "",
            "",
            vec![
                ("get_weather", json!({"city": "Paris", "unit": "celsius"})),
                ("get_time", json!({"timezone": "Europe/Paris"})),
                (
                    "search_events",
                    json!({"query": "concerts in Paris", "limit": 5}),
                ),
            ],
            "",
        ),
        Kind::Empty => s(
            "",
            "",
            vec![
                ("get_current_time", json!({})),
                ("list_open_tabs", json!({})),
            ],
            "",
        ),
        Kind::Unicode => s(
            "",
            "東京の天気を調べます 🌦️ — cafe\u{301}.\n",
            vec![(
                "get_weather",
                json!({"city": "東京都", "note": "naïve cafe\u{301} 👍🏽 ünïcödé"}),
            )],
            "",
        ),
        Kind::Nested => s(
            "",
            "",
            vec![(
                "create_event",
                json!({
                    "event": {
                        "title": "Standup",
                        "attendees": [
                            {"name": "Ann", "roles": ["host", "note-taker"]},
                            {"name": "Bo", "prefs": {"remote": true, "tz": "UTC+2, CET"}}
                        ],
                        "repeat": {"days": [1, 3, 5]}
                    },
                    "notify": false
                }),
            )],
            "",
        ),
        Kind::Text => s(
            "",
            "Let me check the forecast for you.\n",
            vec![("get_weather", json!({"city": "Berlin", "days": 3}))],
            "I'll summarize it once the tool returns.",
        ),
        Kind::Reasoning => s(
            "\nThe user asks about Oslo, so I'll call get_weather with metric units.\n",
            "",
            vec![("get_weather", json!({"city": "Oslo", "unit": "metric"}))],
            "",
        ),
    }
}

/// Formats whose models do not reason (docs/formats.md: no reasoning markers, or markers the
/// model never writes): "reasoning then tools" cannot be expressed.
const NO_REASONING: &[&str] = &[
    "llama3",
    "functiongemma",
    "jamba",
    "functionary-v3.1",
    "functionary-v3.2",
    "firefunction-v2",
    "llama4",
    "gigachat3",
    "phi4-mini",
];

/// Formats that cannot express a kind: GigaChat 3 writes one call per message (no parallel
/// calls) and ends the message after it (no text after); Llama 3.x ends the turn after its
/// calls (`<|eom_id|>`), so only text before calls.
fn expressible(f: &str, k: Kind) -> bool {
    match k {
        Kind::Reasoning => !NO_REASONING.contains(&f),
        Kind::Parallel => f != "gigachat3",
        _ => true,
    }
}

/// Formats where text after the calls cannot be written (see [`expressible`]).
const NO_TEXT_AFTER: &[&str] = &["llama3", "gigachat3"];

/// Prompts that open reasoning themselves (R1, V3.1 and Kimi K3 generation prompts): the
/// reasoning case runs with `Reasoning::ForcedOpen` and no opening marker.
const FORCED: &[&str] = &["deepseek-r1", "deepseek-v3.1", "kimi-k3"];

/// The id a format's model writes for call `i`, where the model writes ids.
fn model_id(f: &str, i: usize, name: &str) -> Option<String> {
    match f {
        "kimi-k2" => Some(format!("functions.{name}:{i}")),
        "mistral" | "mistral-nemo" => Some(format!("a{i}B2c3D4e")),
        "command-r7b" => Some(i.to_string()),
        _ => None,
    }
}

// ---------------------------------------------------------------- rendering

/// `s` written out as format `f` writes it (`forced`: the prompt opened reasoning).
fn render(f: &str, s: &Scen, forced: bool) -> String {
    let (r, b, a) = (s.reasoning, s.before, s.after);
    let calls = &s.calls;
    // Reasoning with the given markers ("" when there is none; no opener when forced).
    let think = |open: &str, close: &str| -> String {
        match (r.is_empty(), forced) {
            (true, _) => String::new(),
            (false, true) => format!("{r}{close}"),
            (false, false) => format!("{open}{r}{close}"),
        }
    };
    let hjson = |key: &str| -> Vec<String> {
        calls
            .iter()
            .map(|(n, v)| format!("{{\"name\": \"{n}\", \"{key}\": {}}}", js(v)))
            .collect()
    };
    // Qwen3-Coder / Seed-OSS XML functions.
    let qfuncs = || -> String {
        calls
            .iter()
            .map(|(n, v)| {
                let ps: String = obj(v)
                    .iter()
                    .map(|(k, v)| format!("<parameter={k}>\n{}\n</parameter>\n", raw(v)))
                    .collect();
                format!("<function={n}>\n{ps}</function>\n")
            })
            .collect()
    };
    match f {
        "hermes" | "internlm2" | "phi4-mini" => {
            let (o, c) = match f {
                "hermes" => ("<tool_call>\n", "\n</tool_call>\n"),
                "internlm2" => ("<|action_start|><|plugin|>\n", "<|action_end|>\n"),
                _ => ("<|tool_call|>", "<|/tool_call|>"),
            };
            let cs: String = hjson("arguments")
                .iter()
                .map(|j| format!("{o}{j}{c}"))
                .collect();
            format!("{}{b}{cs}{a}", think("<think>", "</think>\n\n"))
        }
        "qwen3-coder" => format!(
            "{}{b}<tool_call>\n{}</tool_call>\n{a}",
            think("<think>", "</think>\n\n"),
            qfuncs()
        ),
        "seed-oss" => format!(
            "{}{b}<seed:tool_call>\n{}</seed:tool_call>\n{a}",
            think("<seed:think>", "</seed:think>\n"),
            qfuncs()
        ),
        "llama3" => {
            let cs = hjson("parameters").join("; ");
            if b.is_empty() {
                format!("{cs}")
            } else {
                format!("{b}<|python_tag|>{cs}<|eom_id|>")
            }
        }
        "mistral-nemo" => {
            let objs: Vec<String> = calls
                .iter()
                .enumerate()
                .map(|(i, (n, v))| {
                    format!(
                        "{{\"name\": \"{n}\", \"arguments\": {}, \"id\": \"{}\"}}",
                        js(v),
                        model_id(f, i, n).unwrap()
                    )
                })
                .collect();
            format!(
                "{}{b}[TOOL_CALLS][{}]{a}",
                think("[THINK]", "[/THINK]"),
                objs.join(", ")
            )
        }
        "mistral" => {
            let cs: String = calls
                .iter()
                .enumerate()
                .map(|(i, (n, v))| {
                    format!(
                        "[TOOL_CALLS]{n}[CALL_ID]{}[ARGS]{}",
                        model_id(f, i, n).unwrap(),
                        js(v)
                    )
                })
                .collect();
            format!("{}{b}{cs}{a}", think("[THINK]", "[/THINK]"))
        }
        "deepseek-r1" | "deepseek-v3.1" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    if f == "deepseek-r1" {
                        format!("<｜tool▁call▁begin｜>function<｜tool▁sep｜>{n}\n```json\n{}\n```<｜tool▁call▁end｜>", js(v))
                    } else {
                        format!("<｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{}<｜tool▁call▁end｜>", js(v))
                    }
                })
                .collect();
            format!(
                "{}{b}<｜tool▁calls▁begin｜>{cs}<｜tool▁calls▁end｜>{a}",
                think("<think>", "</think>\n\n")
            )
        }
        "deepseek-v3.2" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    let ps: String = obj(v)
                        .iter()
                        .map(|(k, v)| {
                            format!(
                                "<｜DSML｜parameter name=\"{k}\" string=\"{}\">{}</｜DSML｜parameter>\n",
                                v.is_string(),
                                raw(v)
                            )
                        })
                        .collect();
                    format!("<｜DSML｜invoke name=\"{n}\">\n{ps}</｜DSML｜invoke>\n")
                })
                .collect();
            format!(
                "{}{b}<｜DSML｜function_calls>\n{cs}</｜DSML｜function_calls>\n{a}",
                think("<think>", "</think>")
            )
        }
        "kimi-k2" => {
            let cs: String = calls
                .iter()
                .enumerate()
                .map(|(i, (n, v))| {
                    format!(
                        "<|tool_call_begin|>{}<|tool_call_argument_begin|>{}<|tool_call_end|>",
                        model_id(f, i, n).unwrap(),
                        js(v)
                    )
                })
                .collect();
            format!(
                "{}{b}<|tool_calls_section_begin|>{cs}<|tool_calls_section_end|>{a}",
                think("<think>", "</think>")
            )
        }
        "glm-4.5" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    let ps: String = obj(v)
                        .iter()
                        .map(|(k, v)| {
                            format!(
                                "<arg_key>{k}</arg_key>\n<arg_value>{}</arg_value>\n",
                                raw(v)
                            )
                        })
                        .collect();
                    format!("<tool_call>{n}\n{ps}</tool_call>\n")
                })
                .collect();
            format!("{}{b}{cs}{a}", think("<think>", "</think>\n"))
        }
        "minimax-m2" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    let ps: String = obj(v)
                        .iter()
                        .map(|(k, v)| format!("<parameter name=\"{k}\">{}</parameter>\n", raw(v)))
                        .collect();
                    format!("<invoke name=\"{n}\">\n{ps}</invoke>\n")
                })
                .collect();
            format!(
                "{}{b}<minimax:tool_call>\n{cs}</minimax:tool_call>\n{a}",
                think("<think>", "</think>\n\n")
            )
        }
        "minimax-m3" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| format!("{NS}<invoke name=\"{n}\">{}{NS}</invoke>\n", m3xml(v)))
                .collect();
            format!(
                "{}{b}{NS}<tool_call>\n{cs}{NS}</tool_call>{a}",
                think("<mm:think>", "</mm:think>\n\n")
            )
        }
        "gpt-oss" => {
            let mut out = String::new();
            if !r.is_empty() {
                out += &format!("<|channel|>analysis<|message|>{r}<|end|><|start|>assistant");
            }
            if !b.is_empty() {
                out += &format!("<|channel|>commentary<|message|>{b}<|end|><|start|>assistant");
            }
            let cs: Vec<String> = calls
                .iter()
                .map(|(n, v)| {
                    format!(
                        "<|channel|>commentary to=functions.{n} <|constrain|>json<|message|>{}<|call|>",
                        js(v)
                    )
                })
                .collect();
            out += &cs.join("<|start|>assistant");
            if !a.is_empty() {
                out += &format!("<|start|>assistant<|channel|>final<|message|>{a}<|return|>");
            }
            out
        }
        "nemotron-v2" | "jamba" | "granite" | "hunyuan" => {
            let (o, c) = match f {
                "nemotron-v2" => ("<TOOLCALL>", "</TOOLCALL>"),
                "granite" => ("<|tool_call|>", ""),
                _ => ("<tool_calls>", "</tool_calls>\n"),
            };
            let body = format!("{b}{o}[{}]{c}{a}", hjson("arguments").join(", "));
            let th = think("<think>", "</think>\n");
            if f == "hunyuan" {
                format!("{th}<answer>\n{body}</answer>")
            } else {
                format!("{th}{body}")
            }
        }
        "command-r7b" => {
            let objs: Vec<String> = calls
                .iter()
                .enumerate()
                .map(|(i, (n, v))| {
                    format!(
                        "    {{\"tool_call_id\": \"{}\", \"tool_name\": \"{n}\", \"parameters\": {}}}",
                        model_id(f, i, n).unwrap(),
                        js(v)
                    )
                })
                .collect();
            let wrap = |t: &str| {
                if t.is_empty() {
                    String::new()
                } else {
                    format!("<|START_RESPONSE|>{t}<|END_RESPONSE|>")
                }
            };
            format!(
                "{}{}<|START_ACTION|>[\n{}\n]<|END_ACTION|>{}",
                think("<|START_THINKING|>", "<|END_THINKING|>"),
                wrap(b),
                objs.join(",\n"),
                wrap(a)
            )
        }
        "pythonic" | "lfm2" | "llama4" => {
            let list: Vec<String> = calls.iter().map(|(n, v)| pycall(n, v)).collect();
            let (o, c) = match f {
                "pythonic" => ("", "\n"),
                "lfm2" => ("<|tool_call_start|>", "<|tool_call_end|>"),
                _ => ("<|python_start|>", "<|python_end|>"),
            };
            format!(
                "{}{b}{o}[{}]{c}{a}",
                think("<think>", "</think>\n\n"),
                list.join(", ")
            )
        }
        "gemma4" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| format!("<|tool_call>call:{n}{}<tool_call|>", gem(v)))
                .collect();
            format!("{}{b}{cs}{a}", think("<|channel>thought", "<channel|>"))
        }
        "functiongemma" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    format!(
                        "<start_function_call>call:{n}{}<end_function_call>",
                        fgem(v)
                    )
                })
                .collect();
            format!("{b}{cs}{a}")
        }
        "apertus" => {
            let objs: Vec<String> = calls
                .iter()
                .map(|(n, v)| format!("{{\"{n}\": {}}}", js(v)))
                .collect();
            format!(
                "{}{b}<|tools_prefix|>[{}]<|tools_suffix|>{a}",
                think("<|inner_prefix|>", "<|inner_suffix|>"),
                objs.join(", ")
            )
        }
        "functionary-v3.1" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| format!("<function={n}>{}</function>", js(v)))
                .collect();
            format!("{b}{cs}{a}")
        }
        "functionary-v3.2" => {
            let mut out = String::new();
            if !b.is_empty() {
                out += &format!(">>>all\n{b}");
            }
            for (n, v) in calls {
                out += &format!(">>>{n}\n{}\n", js(v));
            }
            if !a.is_empty() {
                out += &format!(">>>all\n{a}");
            }
            out
        }
        "xlam" | "firefunction-v2" => {
            let list = hjson("arguments").join(", ");
            let o = match (f, b.is_empty()) {
                ("xlam", _) => "[",
                (_, true) => " functools[",
                (_, false) => "functools[",
            };
            format!("{}{b}{o}{list}]\n{a}", think("<think>", "</think>\n\n"))
        }
        "kimi-k3" => {
            let cs: String = calls
                .iter()
                .enumerate()
                .map(|(i, (n, v))| {
                    let args: String = obj(v)
                        .iter()
                        .map(|(k, v)| {
                            format!(
                                "<|open|>argument key=\"{k}\" type=\"{}\"<|sep|>{}<|close|>argument<|sep|>",
                                k3type(v),
                                raw(v)
                            )
                        })
                        .collect();
                    format!(
                        "<|open|>call tool=\"{n}\" index=\"{}\"<|sep|>{args}<|close|>call<|sep|>",
                        i + 1
                    )
                })
                .collect();
            // Thinking on (forced): the prompt opened think; off: it opened the response.
            let mut out = String::new();
            if !r.is_empty() {
                out += &format!("{r}<|close|>think<|sep|><|open|>response<|sep|>");
            }
            out += &format!(
                "{b}<|close|>response<|sep|><|open|>tools<|sep|>{cs}<|close|>tools<|sep|>"
            );
            if !a.is_empty() {
                out += &format!("<|open|>response<|sep|>{a}<|close|>response<|sep|>");
            }
            out + "<|close|>message<|sep|><|end_of_msg|>"
        }
        "gigachat3" => {
            let (n, v) = &calls[0];
            let j = format!("{{\"name\": \"{n}\", \"arguments\": {}}}", js(v));
            if b.is_empty() {
                format!("<|function_call|>{j}")
            } else {
                format!("{b}<|message_sep|>\n\nfunction call<|role_sep|>\n{j}<|message_sep|>\n\n")
            }
        }
        other => panic!("no renderer for {other}"),
    }
}

// ---------------------------------------------------------------- checking

fn all_formats() -> Vec<&'static str> {
    chatcodec::output::Format::names().map(|(n, _)| n).collect()
}

/// Runs `text` through `check_with` and compares the final message with the expected one.
fn expect(
    f: &str,
    what: &str,
    forced: bool,
    text: &str,
    content: &str,
    reasoning: &str,
    calls: &[(&str, Value)],
    malformed: usize,
) {
    let m = check_with(f, &opts(forced), text);
    let ctx = format!("{f} {what}\noutput: {text:?}\nmessage: {m:?}");
    assert_eq!(m.content, content, "content: {ctx}");
    assert_eq!(m.reasoning, reasoning, "reasoning: {ctx}");
    assert_eq!(m.malformed, malformed, "malformed: {ctx}");
    assert_eq!(m.tool_calls.len(), calls.len(), "calls: {ctx}");
    for (i, ((name, want), got)) in calls.iter().zip(&m.tool_calls).enumerate() {
        assert_eq!(got.name, *name, "call {i} name: {ctx}");
        let parsed: Value = serde_json::from_str(&got.arguments)
            .unwrap_or_else(|e| panic!("call {i} arguments {:?}: {e}: {ctx}", got.arguments));
        assert_eq!(&parsed, want, "call {i} arguments: {ctx}");
        if want.as_object().is_some_and(|o| o.is_empty()) {
            assert_eq!(got.arguments, "{}", "call {i} empty arguments: {ctx}");
        }
        match model_id(f, i, name) {
            Some(id) => assert_eq!(got.id, id, "call {i} id: {ctx}"),
            None => assert!(got.id.starts_with("call_"), "call {i} id: {ctx}"),
        }
    }
    let mut ids: Vec<&str> = m.tool_calls.iter().map(|c| c.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), m.tool_calls.len(), "ids not distinct: {ctx}");
}

#[test]
fn well_formed_matrix() {
    let formats = all_formats();
    assert_eq!(formats.len(), 33);
    let mut covered = 0;
    let mut failures = Vec::new();
    for f in &formats {
        for k in KINDS {
            if !expressible(f, k) {
                continue;
            }
            let mut s = scenario(k);
            if NO_TEXT_AFTER.contains(f) {
                s.after = "";
            }
            if *f == "gigachat3" {
                // One call per message.
                s.calls.truncate(1);
            }
            let forced = k == Kind::Reasoning && FORCED.contains(f);
            let text = render(f, &s, forced);
            let content = format!("{}{}", s.before, s.after);
            let r = std::panic::catch_unwind(|| {
                expect(
                    f,
                    &format!("{k:?}"),
                    forced,
                    &text,
                    &content,
                    s.reasoning,
                    &s.calls,
                    0,
                )
            });
            if let Err(e) = r {
                failures.push(panic_text(e));
            }
            covered += 1;
        }
    }
    // 33 formats x 6 kinds, less what cannot be expressed.
    assert_eq!(covered, 33 * 6 - NO_REASONING.len() - 1);
    assert!(
        failures.is_empty(),
        "{} failing cases:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn panic_text(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}
