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
    "generic",
];

/// Formats that parse reasoning only (no tool calls): tested on their own.
const REASONING_ONLY: &[&str] = &["think", "kimi-vl"];

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
                cs
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
            // The label `thought` and its newline open the channel.
            format!("{}{b}{cs}{a}", think("<|channel>thought\n", "<channel|>"))
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
        "olmo3" => {
            let cs: Vec<String> = calls.iter().map(|(n, v)| pycall(n, v)).collect();
            format!(
                "{}{b}<function_calls>{}</function_calls>\n{a}",
                think("<think>", "</think>\n\n"),
                cs.join("\n")
            )
        }
        "step3" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    let ps: String = obj(v)
                        .iter()
                        .map(|(k, v)| {
                            format!("<steptml:parameter name=\"{k}\">{}</steptml:parameter>", raw(v))
                        })
                        .collect();
                    format!("<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"{n}\">{ps}</steptml:invoke><｜tool_call_end｜>")
                })
                .collect();
            format!(
                "{}{b}<｜tool_calls_begin｜>{cs}<｜tool_calls_end｜>{a}",
                think("<think>", "</think>\n\n")
            )
        }
        "longcat" | "ernie45" | "minimax-m1" | "granite-20b-fc" | "openpangu" | "cwm" => {
            let js_calls = hjson("arguments");
            let cs = match f {
                "longcat" => js_calls
                    .iter()
                    .map(|j| format!("<longcat_tool_call>\n{j}\n</longcat_tool_call>\n"))
                    .collect(),
                "ernie45" => js_calls
                    .iter()
                    .map(|j| format!("<tool_call>\n{j}\n</tool_call>\n"))
                    .collect(),
                "minimax-m1" => format!("<tool_calls>\n{}\n</tool_calls>\n", js_calls.join("\n")),
                "granite-20b-fc" => js_calls
                    .iter()
                    .map(|j| format!("<function_call> {j}\n"))
                    .collect(),
                "openpangu" => format!(
                    "<|tool_call_start|>[{}]<|tool_call_end|>",
                    js_calls.join(", ")
                ),
                _ => calls
                    .iter()
                    .map(|(n, v)| format!("<tool: function>\n{n} {}\n</tool>\n", js(v)))
                    .collect::<String>(),
            };
            format!("{}{b}{cs}{a}", think("<think>", "</think>\n\n"))
        }
        "dots" | "minicpm5" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    let ps: String = obj(v)
                        .iter()
                        .map(|(k, v)| match f {
                            "dots" => format!("<parameter name=\"{k}\">{}</parameter>\n", raw(v)),
                            _ => format!("<param name=\"{k}\">{}</param>\n", raw(v)),
                        })
                        .collect();
                    match f {
                        "dots" => format!("<invoke name=\"{n}\">\n{ps}</invoke>\n"),
                        _ => format!("<function name=\"{n}\">\n{ps}</function>\n"),
                    }
                })
                .collect();
            let cs = match f {
                "dots" => format!("<dots_function_call>\n{cs}</dots_function_call>\n"),
                _ => cs,
            };
            format!("{}{b}{cs}{a}", think("<think>", "</think>\n\n"))
        }
        "poolside-v1" | "hy-v3" | "k2-horizon" => {
            let (o, c, p) = match f {
                "k2-horizon" => ("<ifm|", "</ifm|", "ifm|"),
                _ => ("<", "</", ""),
            };
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    let ps: String = obj(v)
                        .iter()
                        .map(|(k, v)| {
                            let ty = match f {
                                "k2-horizon" => format!("{o}arg_type>{}{c}arg_type>", k3type(v)),
                                _ => String::new(),
                            };
                            format!(
                                "{o}arg_key>{k}{c}arg_key>{ty}{o}arg_value>{}{c}arg_value>",
                                raw(v)
                            )
                        })
                        .collect();
                    let sep = if f == "hy-v3" { "<tool_sep>" } else { "\n" };
                    format!("{o}tool_call>{n}{sep}{ps}{c}tool_call>")
                })
                .collect();
            let cs = match f {
                "poolside-v1" => cs,
                _ => format!("{o}tool_calls>{cs}{c}tool_calls>"),
            };
            format!(
                "{}{b}{cs}{a}",
                think(&format!("<{p}think>"), &format!("</{p}think>\n"))
            )
        }
        "plamo3" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    format!("<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>{n}<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>", js(v))
                })
                .collect();
            format!(
                "{}{b}<|plamo:begin_tool_requests:plamo|>{cs}<|plamo:end_tool_requests:plamo|>{a}",
                think("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>")
            )
        }
        "inkling" => {
            let block = |kind: &str, t: &str| {
                format!("<|message_model|><|content_{kind}|>{t}<|end_message|>")
            };
            let mut out = String::new();
            if !r.is_empty() {
                out += &block("thinking", r);
            }
            if !b.is_empty() {
                out += &block("text", b);
            }
            for (n, v) in calls {
                out += &block(
                    "invoke_tool_json",
                    &format!("{{\"name\": \"{n}\", \"args\": {}}}", js(v)),
                );
            }
            if !a.is_empty() {
                out += &block("text", a);
            }
            out
        }
        "muse" => {
            let mut out = String::new();
            if !r.is_empty() {
                out += &format!("<|start|>assistant to=self<|message|>{r}<|eom|>");
            }
            if !b.is_empty() {
                out += &format!("<|start|>assistant to=commentary<|message|>{b}<|eom|>");
            }
            for (n, v) in calls {
                let ps: String = obj(v)
                    .iter()
                    .map(|(k, v)| {
                        format!("<atem:parameter name=\"{k}\">{}</atem:parameter>\n", raw(v))
                    })
                    .collect();
                out += &format!("<|start|>assistant to=functions.{n}<|message|><atem:function_calls>\n<atem:invoke name=\"{n}\">\n{ps}</atem:invoke>\n</atem:function_calls><|eom|>");
            }
            if !a.is_empty() {
                out += &format!("<|start|>assistant to=user<|message|>{a}<|eot|>");
            }
            out
        }
        "solar-open2" => {
            let cs: String = calls
                .iter()
                .map(|(n, v)| {
                    let ps: String = obj(v)
                        .iter()
                        .map(|(k, v)| {
                            format!(
                                "<|tool_arg:start|>{k}<|tool_arg:value|>{}<|tool_arg:end|>\n",
                                raw(v)
                            )
                        })
                        .collect();
                    format!("<|tool_call:start|>{n}\n{ps}<|tool_call:end|>\n")
                })
                .collect();
            format!("{}{b}{cs}{a}", think("<|think:start|>", "<|think:end|>"))
        }
        "rwkv" => {
            let cs: String = hjson("arguments")
                .iter()
                .map(|j| format!("**Tool Call:**\n```json\n{j}\n```\n"))
                .collect();
            format!("{}{b}{cs}{a}", think("<think>", "</think>\n\n"))
        }
        "generic" => {
            let cs = hjson("arguments").join(", ");
            format!("{b}{{\"tool_calls\": [{cs}]}}{a}")
        }
        other => panic!("no renderer for {other}"),
    }
}

// ---------------------------------------------------------------- checking

fn all_formats() -> Vec<&'static str> {
    chatcodec::output::Format::names().map(|(n, _)| n).collect()
}

/// Runs `text` through `check_with` and compares the final message with the expected one.
#[allow(clippy::too_many_arguments)]
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
    let formats: Vec<&str> = all_formats()
        .into_iter()
        .filter(|f| !REASONING_ONLY.contains(f))
        .collect();
    assert_eq!(formats.len(), 52);
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
            // Hunyuan's tags stand on lines of their own: the newlines next to them are the
            // tags'.
            let reasoning = match *f {
                "hunyuan" => {
                    let r = s.reasoning.strip_prefix('\n').unwrap_or(s.reasoning);
                    r.strip_suffix('\n').unwrap_or(r)
                }
                _ => s.reasoning,
            };
            let r = std::panic::catch_unwind(|| {
                expect(
                    f,
                    &format!("{k:?}"),
                    forced,
                    &text,
                    &content,
                    reasoning,
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
    // 52 formats x 6 kinds, less what cannot be expressed.
    assert_eq!(covered, 52 * 6 - NO_REASONING.len() - 1);
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

// ---------------------------------------------------------------- malformed outputs

/// A malformed output and the message its format's definition gives it: arguments are
/// compared as the exact JSON text. A call the output broke after it was announced (invalid
/// or truncated JSON arguments) comes back as its text in the final message; its streamed
/// deltas are checked by `check_with`.
struct Bad {
    f: &'static str,
    forced: bool,
    text: &'static str,
    /// `None`: the whole text comes back as content.
    content: Option<&'static str>,
    reasoning: &'static str,
    calls: &'static [(&'static str, &'static str)],
    malformed: usize,
}

const fn bad(
    f: &'static str,
    text: &'static str,
    content: Option<&'static str>,
    calls: &'static [(&'static str, &'static str)],
    malformed: usize,
) -> Bad {
    Bad {
        f,
        forced: false,
        text,
        content,
        reasoning: "",
        calls,
        malformed,
    }
}

/// Unclosed reasoning (or forced-open reasoning cut off): everything is reasoning.
const fn unclosed(f: &'static str, forced: bool, text: &'static str, r: &'static str) -> Bad {
    Bad {
        f,
        forced,
        text,
        content: Some(""),
        reasoning: r,
        calls: &[],
        malformed: 0,
    }
}

const BER: &[(&str, &str)] = &[("get_weather", "{\"city\": \"Ber")];
const BER_CLOSED: &[(&str, &str)] = &[("get_weather", "{\"city\": \"Ber\"}")];

const BAD: &[Bad] = &[
    // hermes
    bad("hermes", "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("hermes", "<tool_call>\n{\"name\": get_weather, \"arguments\": {}}\n</tool_call>", None, &[], 1),
    bad("hermes", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": Berlin}}\n</tool_call>\nDone.", None, &[], 1),
    unclosed("hermes", false, "<think>Let me think about 東京", "Let me think about 東京"),
    bad("hermes", "Wrap calls in <tool_call> tags.", None, &[], 1),
    // qwen3-coder
    bad("qwen3-coder", "<tool_call>\n<function=get_weather>\n<parameter=city>\nBer", Some(""), BER_CLOSED, 0),
    bad("qwen3-coder", "<tool_call>\n<function=get_time>\n", Some(""), &[("get_time", "{}")], 0),
    unclosed("qwen3-coder", false, "<think>\nplan", "\nplan"),
    bad("qwen3-coder", "Use <function=name> syntax.", None, &[], 1),
    // seed-oss
    bad("seed-oss", "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Ber", Some(""), BER_CLOSED, 0),
    unclosed("seed-oss", false, "<seed:think>still planning 計画", "still planning 計画"),
    bad("seed-oss", "Seed wraps calls in <seed:tool_call> tags.", None, &[], 1),
    // llama3
    bad("llama3", "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Ber", None, &[], 1),
    bad("llama3", "<|python_tag|>{\"name\": get_weather}", None, &[], 1),
    bad("llama3", "The answer is {\"name\": 1}.", None, &[], 0),
    // mistral-nemo: an object is announced only once complete (its id follows the arguments)
    bad("mistral-nemo", "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("mistral-nemo", "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": Berlin}}]", None, &[], 1),
    bad("mistral-nemo", "Mistral models emit [TOOL_CALLS] first.", None, &[], 1),
    // mistral
    bad("mistral", "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Ber", None, &[], 1),
    bad("mistral", "[TOOL_CALLS]get_weather[ARGS]{\"city\": Berlin}", None, &[], 1),
    unclosed("mistral", false, "[THINK]Checking the units", "Checking the units"),
    // deepseek-r1
    Bad { f: "deepseek-r1", forced: true, text: "Plan.\n</think>\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Ber", content: Some("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Ber"), reasoning: "Plan.\n", calls: &[], malformed: 1 },
    bad("deepseek-r1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": Berlin}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", None, &[], 1),
    unclosed("deepseek-r1", true, "Still reasoning about 東京", "Still reasoning about 東京"),
    bad("deepseek-r1", "The <｜tool▁call▁begin｜> token starts a call.", None, &[], 1),
    // deepseek-v3.1
    Bad { f: "deepseek-v3.1", forced: true, text: "Plan.</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Ber", content: Some("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Ber"), reasoning: "Plan.", calls: &[], malformed: 1 },
    unclosed("deepseek-v3.1", true, "Still reasoning about 東京", "Still reasoning about 東京"),
    bad("deepseek-v3.1", "The <｜tool▁call▁begin｜> token starts a call.", None, &[], 1),
    // deepseek-v3.2
    bad("deepseek-v3.2", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Ber", Some(""), BER_CLOSED, 0),
    // string="false" with a value that is not JSON: kept as a string.
    bad("deepseek-v3.2", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"days\" string=\"false\">three</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", Some(""), &[("get_weather", "{\"days\": \"three\"}")], 0),
    unclosed("deepseek-v3.2", false, "<think>weighing options", "weighing options"),
    bad("deepseek-v3.2", "In DSML, <｜DSML｜ prefixes every tag.", None, &[], 0),
    // kimi-k2
    bad("kimi-k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Ber", None, &[], 1),
    unclosed("kimi-k2", false, "<think>Need the weather in 東京", "Need the weather in 東京"),
    bad("kimi-k2", "Kimi opens sections with <|tool_calls_section_begin|> markers.", None, &[], 1),
    // glm-4.5
    bad("glm-4.5", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Ber", Some(""), BER_CLOSED, 0),
    // A value that looks like JSON but is not: kept as a string.
    bad("glm-4.5", "<tool_call>get_weather\n<arg_key>days</arg_key>\n<arg_value>{\"n\": 3</arg_value>\n</tool_call>", Some(""), &[("get_weather", "{\"days\": \"{\\\"n\\\": 3\"}")], 0),
    unclosed("glm-4.5", false, "<think>hmm", "hmm"),
    bad("glm-4.5", "GLM writes <arg_key> tags inside calls.", None, &[], 0),
    // minimax-m2
    bad("minimax-m2", "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Ber", Some(""), BER_CLOSED, 0),
    bad("minimax-m2", "<minimax:tool_call>\n<invoke name=\"get_time\">\n", Some(""), &[("get_time", "{}")], 0),
    unclosed("minimax-m2", false, "<think>\nuser asks", "\nuser asks"),
    bad("minimax-m2", "MiniMax wraps calls in <minimax:tool_call> blocks.", None, &[], 1),
    // minimax-m3
    bad("minimax-m3", "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"get_weather\">]<]minimax[>[<city>Ber", Some(""), BER_CLOSED, 0),
    unclosed("minimax-m3", false, "<mm:think>thinking about 東京", "thinking about 東京"),
    bad("minimax-m3", "a ]<]minimax[>[ b", None, &[], 0),
    // gpt-oss: arguments are the raw message text (as vLLM reads them, JSON or not); cut off
    // before the call's end marker, the call is closed with the text so far, malformed.
    bad("gpt-oss", "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Ber", Some(""), BER, 1),
    Bad { f: "gpt-oss", forced: false, text: "<|channel|>analysis<|message|>Thinking about 東京", content: Some(""), reasoning: "Thinking about 東京", calls: &[], malformed: 0 },
    bad("gpt-oss", "Harmony messages start with <|channel|> headers.", None, &[], 1),
    // pythonic
    bad("pythonic", "[get_weather(city='Ber", None, &[], 1),
    bad("pythonic", "Arrays look like [1, 2] in Python.", None, &[], 0),
    // lfm2
    bad("lfm2", "<|tool_call_start|>[get_weather(city='Ber", None, &[], 1),
    unclosed("lfm2", false, "<think>pondering 東京", "pondering 東京"),
    bad("lfm2", "LFM2 wraps lists in <|tool_call_start|> tokens.", None, &[], 0),
    // llama4
    // The first call is complete and kept; the list's `, ` (a trailing comma is allowed) is
    // consumed before `]` fails: what was read after the last event comes back as content,
    // from the separator on (docs/peg.md, Recovery).
    bad("llama4", "<|python_start|>[get_weather(city='Berlin'), get_time(tz=)]<|python_end|>", Some(", get_time(tz=)]"), &[("get_weather", "{\"city\": \"Berlin\"}")], 1),
    bad("llama4", "Lists look like [1, 2] in prose.", None, &[], 0),
    // gemma4: arguments are converted at the end of the call, so a call cut off before its end
    // marker was never announced: it comes back as content, malformed (docs/peg.md, Truncation).
    bad("gemma4", "<|tool_call>call:get_weather{city:<|\"|>Ber", None, &[], 1),
    bad("gemma4", "Sure. <|tool_call>call:get_time{}<tool_call|><|tool_call>call:get_weather{city:<|\"|>Ber", Some("Sure. <|tool_call>call:get_weather{city:<|\"|>Ber"), &[("get_time", "{}")], 1),
    // The newline after the channel's label is markup (vLLM and SGLang strip `thought\n`).
    unclosed("gemma4", false, "<|channel>thought\nthinking about 東京", "thinking about 東京"),
    bad("gemma4", "Gemma marks calls with <|tool_call> tokens.", None, &[], 1),
    // functiongemma
    bad("functiongemma", "<start_function_call>call:get_weather{city:<escape>Ber", None, &[], 1),
    bad("functiongemma", "FunctionGemma writes <start_function_call> first.", None, &[], 1),
    // command-r7b
    Bad { f: "command-r7b", forced: false, text: "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Ber", content: None, reasoning: "", calls: &[], malformed: 1 },
    bad("command-r7b", "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": get_weather}]<|END_ACTION|>", None, &[], 1),
    unclosed("command-r7b", false, "<|START_THINKING|>I will search", "I will search"),
    bad("command-r7b", "Command models open actions with <|START_ACTION|> tokens.", None, &[], 1),
    // granite
    bad("granite", "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("granite", "<|tool_call|>[{\"name\": get_weather}]", None, &[], 1),
    bad("granite", "Granite emits <|tool_call|> tokens.", None, &[], 1),
    // hunyuan
    bad("hunyuan", "<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    // The newlines next to Hunyuan's tags are the tags'.
    bad("hunyuan", "<answer>\n<tool_calls>[{\"name\": get_weather}]</tool_calls>\n</answer>", Some("<tool_calls>[{\"name\": get_weather}]</tool_calls>"), &[], 1),
    unclosed("hunyuan", false, "<think>\n思考中", "思考中"),
    bad("hunyuan", "Hunyuan's <tool_calls> block lists calls.", None, &[], 1),
    // jamba
    bad("jamba", "<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    // A missing `}`: the call read so far is complete and kept; the rest is content.
    bad("jamba", "Sure.\n<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Berlin\"}]</tool_calls>", Some("Sure.\n]</tool_calls>"), &[("get_weather", "{\"city\": \"Berlin\"}")], 1),
    bad("jamba", "Jamba wraps calls in <tool_calls> tags.", None, &[], 1),
    // nemotron-v2
    bad("nemotron-v2", "<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("nemotron-v2", "<TOOLCALL>[{\"name\": get_weather, \"arguments\": {}}]</TOOLCALL>", None, &[], 1),
    unclosed("nemotron-v2", false, "<think>ok so", "ok so"),
    bad("nemotron-v2", "Nemotron emits <TOOLCALL> blocks.", None, &[], 1),
    // apertus
    bad("apertus", "<|tools_prefix|>[{\"get_weather\": {\"city\": \"Ber", None, &[], 1),
    bad("apertus", "<|tools_prefix|>[{get_weather: {}}]<|tools_suffix|>", None, &[], 1),
    unclosed("apertus", false, "<|inner_prefix|>thinking", "thinking"),
    bad("apertus", "Apertus lists calls after <|tools_prefix|> markers.", None, &[], 1),
    // functionary-v3.1
    bad("functionary-v3.1", "<function=get_weather>{\"city\": \"Ber", None, &[], 1),
    bad("functionary-v3.1", "<function=get_weather>{city: Berlin}</function>", None, &[], 1),
    bad("functionary-v3.1", "Functionary uses <function=name> tags.", None, &[], 1),
    // functionary-v3.2
    bad("functionary-v3.2", ">>>get_weather\n{\"city\": \"Ber", None, &[], 1),
    bad("functionary-v3.2", ">>>get_weather\n{\"city\": Berlin}", None, &[], 1),
    bad("functionary-v3.2", ">>>all\nPython prompts look like >>> here.", Some("Python prompts look like >>> here."), &[], 1),
    // xlam
    bad("xlam", "[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("xlam", "[{\"name\": \"get_weather\", \"arguments\": {\"city\": Berlin}}]", None, &[], 1),
    bad("xlam", "Lists: [1, 2].", None, &[], 0),
    // firefunction-v2
    // A broken call comes back from its block's start: the leading space is read before it.
    bad("firefunction-v2", " functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", Some("functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber"), &[], 1),
    bad("firefunction-v2", " functools[{\"name\": get_weather}]", Some("functools[{\"name\": get_weather}]"), &[], 1),
    bad("firefunction-v2", "Use [brackets] for lists.", None, &[], 0),
    // llama4 / gigachat3 / internlm2 / phi4-mini / kimi-k3
    bad("gigachat3", "<|function_call|>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("gigachat3", "Сейчас.<|function_call|>{\"name\": get_weather}", None, &[], 1),
    bad("gigachat3", "The <|function_call|> token starts a call.", None, &[], 1),
    bad("internlm2", "<|action_start|><|plugin|>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("internlm2", "Sure.<|action_start|><|plugin|>\n{\"name\": get_weather}<|action_end|>", None, &[], 1),
    unclosed("internlm2", false, "<think>plan", "plan"),
    bad("internlm2", "The <|action_start|><|plugin|> tokens open a call.", None, &[], 1),
    bad("phi4-mini", "<|tool_call|>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("phi4-mini", "functools[{\"name\": get_weather}]", None, &[], 1),
    bad("phi4-mini", "Phi writes <|tool_call|> before a call.", None, &[], 1),
    bad("kimi-k3", "<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>Ber", Some(""), BER_CLOSED, 0),
    // A typed argument that is not JSON: kept as a string.
    bad("kimi-k3", "<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"days\" type=\"number\"<|sep|>three<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>", Some(""), &[("get_weather", "{\"days\": \"three\"}")], 0),
    unclosed("kimi-k3", true, "Still thinking about 東京", "Still thinking about 東京"),
    bad("kimi-k3", "XTML tags look like <|open|>name<|sep|>.", None, &[], 0),
    bad("olmo3", "<function_calls>get_weather(city='Ber", None, &[], 1),
    bad("olmo3", "Olmo wraps calls in <function_calls> tags.", None, &[], 1),
    unclosed("olmo3", false, "<think>plan", "plan"),
    bad("step3", "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\"><steptml:parameter name=\"city\">Ber", Some(""), BER_CLOSED, 0),
    bad("step3", "Step writes <｜tool_calls_begin｜> before calls.", None, &[], 1),
    unclosed("step3", false, "<think>plan", "plan"),
    bad("longcat", "<longcat_tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("longcat", "LongCat opens calls with <longcat_tool_call> tags.", None, &[], 1),
    bad("ernie45", "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    unclosed("ernie45", false, "<think>plan", "plan"),
    bad("granite-20b-fc", "<function_call> {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("granite-20b-fc", "Granite writes <function_call> before a call.", None, &[], 1),
    bad("minimax-m1", "<tool_calls>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    // The tag starts a section only before a call object, the closing tag or the end.
    bad("minimax-m1", "MiniMax writes <tool_calls> around calls.", None, &[], 0),
    bad("openpangu", "<|tool_call_start|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("openpangu", "Pangu's <|tool_call_start|> token opens calls.", None, &[], 1),
    bad("dots", "<dots_function_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Ber", Some(""), BER_CLOSED, 0),
    bad("dots", "Dots writes <dots_function_call> tags.", None, &[], 1),
    bad("minicpm5", "<function name=\"get_weather\"><param name=\"city\">Ber", Some(""), BER_CLOSED, 0),
    bad("minicpm5", "MiniCPM writes <function name= tags.", None, &[], 1),
    bad("poolside-v1", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Ber", Some(""), BER_CLOSED, 0),
    unclosed("poolside-v1", false, "<think>plan", "plan"),
    bad("hy-v3", "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Ber", Some(""), BER_CLOSED, 0),
    bad("hy-v3", "Hunyuan writes <tool_calls> tags.", None, &[], 1),
    bad("k2-horizon", "<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>Ber", Some(""), BER_CLOSED, 0),
    unclosed("k2-horizon", false, "<ifm|think>plan", "plan"),
    bad("plamo3", "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{\"city\": \"Ber", None, &[], 1),
    bad("plamo3", "PLaMo's <|plamo:begin_tool_requests:plamo|> opens calls.", None, &[], 1),
    // The message header is not part of the call's block.
    bad("inkling", "<|message_model|><|content_invoke_tool_json|>{\"name\": \"get_weather\", \"args\": {\"city\": \"Ber", Some("<|content_invoke_tool_json|>{\"name\": \"get_weather\", \"args\": {\"city\": \"Ber"), &[], 1),
    bad("muse", "<|start|>assistant to=functions.get_weather<|message|><atem:function_calls><atem:invoke name=\"get_weather\"><atem:parameter name=\"city\">Ber", Some(""), BER_CLOSED, 0),
    // A call is announced once complete (its id may follow the arguments): cut off, it is text.
    bad("generic", "{\"tool_call\": {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("generic", "A {\"response\": text} object.", None, &[], 1),
    // A body without a name; a label that is not a word.
    bad("cwm", "<tool: function>\n</tool>", None, &[], 1),
    bad("cwm", "<tool: a|b>\nterminal ls\n</tool>", None, &[], 1),
    // Truncated JSON is not JSON: the body is a command line (vLLM's reading of a body).
    bad("cwm", "<tool: function>\nget_weather {\"city\": \"Ber", Some(""), &[("get_weather", "{\"command\": \"{\\\"city\\\": \\\"Ber\"}")], 0),
    unclosed("think", false, "<think>plan", "plan"),
    bad("think", "No reasoning; <tool_call>{\"name\": \"x\"}</tool_call> stays text.", None, &[], 0),
    unclosed("kimi-vl", false, "◁think▷plan", "plan"),
    bad("kimi-vl", "Plain answer.", None, &[], 0),
    bad("solar-open2", "<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Ber", Some(""), BER_CLOSED, 0),
    unclosed("solar-open2", false, "<|think:start|>plan", "plan"),
    bad("rwkv", "**Tool Call:**\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Ber", None, &[], 1),
    bad("rwkv", "Run it:\n```json\n[1, 2]\n```\n", None, &[], 0),
];

#[test]
fn malformed_matrix() {
    let mut failures = Vec::new();
    for b in BAD {
        let r = std::panic::catch_unwind(|| {
            let m = check_with(b.f, &opts(b.forced), b.text);
            let ctx = format!("{} malformed\noutput: {:?}\nmessage: {m:?}", b.f, b.text);
            assert_eq!(m.content, b.content.unwrap_or(b.text), "content: {ctx}");
            assert_eq!(m.reasoning, b.reasoning, "reasoning: {ctx}");
            assert_eq!(m.malformed, b.malformed, "malformed: {ctx}");
            let got: Vec<(&str, &str)> = m
                .tool_calls
                .iter()
                .map(|c| (c.name.as_str(), c.arguments.as_str()))
                .collect();
            assert_eq!(got, b.calls, "calls: {ctx}");
        });
        if let Err(e) = r {
            failures.push(panic_text(e));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing cases:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // Every format has malformed cases.
    for f in all_formats() {
        assert!(BAD.iter().any(|b| b.f == f), "no malformed case for {f}");
    }
}

// ---------------------------------------------------------------- byte accounting

/// Characters counted by the accounting check (as in output_invariants.rs' lossless property):
/// none occurs in any marker or generated id, so every one written must reappear in the
/// content, the reasoning or a tool call's id, name or arguments.
const COUNTED: [&str; 5] = ["é", "日", "🙂", "ß", "Ω"];

fn counted(s: &str) -> Vec<usize> {
    COUNTED.iter().map(|c| s.matches(c).count()).collect()
}

fn accounted(m: &chatcodec::output::Message) -> String {
    let mut s = m.content.clone() + &m.reasoning;
    for c in &m.tool_calls {
        s.push_str(&c.id);
        s.push_str(&c.name);
        s.push_str(&c.arguments);
    }
    s
}

/// Where a character is inserted: the start and the end of the output, and the boundaries of
/// structures (before `[`, `{`, `(`, after `]`, `}`, `)`, `,`, a newline), which covers
/// separators between calls and arguments, the point of failure of the malformed cases and
/// the cut-off end. Positions inside marker headers (attributes, channel headers, members of a
/// call object) are covered by `malformed_accounting_everywhere`.
fn boundaries(text: &str) -> Vec<usize> {
    let mut at = vec![0, text.len()];
    for (i, c) in text.char_indices() {
        if "[{(".contains(c) {
            at.push(i);
        }
        if "]}),\n".contains(c) {
            at.push(i + c.len_utf8());
        }
    }
    at.sort_unstable();
    at.dedup();
    at
}

/// Byte accounting on malformed output, for every format: each malformed case of the matrix,
/// as written and with a counted character inserted at each of its [`boundaries`], loses no
/// character, with and without a list of known tool names (calls to other tools are then
/// malformed too).
#[test]
fn malformed_accounting() {
    accounting(boundaries);
}

/// [`malformed_accounting`] at every character boundary, inside marker headers too (gpt-oss
/// channel headers, DSML and Kimi K3 attributes, Kimi K2's `functions.NAME:IDX` id, members
/// of a JSON call object): text that is not a header field the format defines is malformed
/// and comes back as content, never skipped.
#[test]
fn malformed_accounting_everywhere() {
    accounting(|t| t.char_indices().map(|(i, _)| i).chain([t.len()]).collect());
}

fn accounting(positions: fn(&str) -> Vec<usize>) {
    let mut failures = Vec::new();
    for (n, b) in BAD.iter().enumerate() {
        let f = chatcodec::output::Format::by_name(b.f).unwrap();
        let ins = COUNTED[n % COUNTED.len()];
        for at in positions(b.text) {
            let text = format!("{}{ins}{}", &b.text[..at], &b.text[at..]);
            for o in [
                opts(b.forced),
                output_support::opts_tools(b.forced, &["get_weather"]),
            ] {
                let m = chatcodec::output::parse_with(&f, &text, o);
                if counted(&accounted(&m)) != counted(&text) {
                    failures.push(format!("{}: {text:?}\n  {m:?}", b.f));
                }
            }
        }
        // The case as written accounts for the characters it has.
        let m = chatcodec::output::parse_with(&f, b.text, opts(b.forced));
        if counted(&accounted(&m)) != counted(b.text) {
            failures.push(format!("{}: {:?}\n  {m:?}", b.f, b.text));
        }
    }
    assert!(
        failures.is_empty(),
        "{} inputs lose characters:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------- multi-byte text, every chunking

/// Pieces of argument text: multi-byte characters of every length (a chunk boundary may fall
/// right after an opening quote, inside a sequence or before a closing quote), characters JSON
/// escapes, and text that looks like JSON.
const PIECES: &[&str] = &[
    "é", "日本", "🙂", "𝄞", "ß", "a", " ", "\\", "\"", "\n", "{", "]", "5", "null", "'",
];

fn piece_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop::collection::vec(prop::sample::select(PIECES), 1..10).prop_map(|v| {
        let s = v.concat();
        match s.trim() {
            "" => "é".to_string(),
            t => t.to_string(),
        }
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// Every format with a call whose string arguments hold multi-byte text: the arguments
    /// are valid JSON equal to what was written, one-shot, byte by byte and in random chunks
    /// (the tool's schema says the values are strings, for the formats that write values as
    /// text).
    #[test]
    fn multibyte_arguments_in_every_format(
        city in piece_text(),
        note in piece_text(),
        fi in 0usize..64,
        sizes in proptest::collection::vec(1usize..9, 1..6),
    ) {
        let formats: Vec<&str> = all_formats()
            .into_iter()
            .filter(|f| !REASONING_ONLY.contains(f))
            .collect();
        let f = formats[fi % formats.len()];
        let args = json!({"city": city, "note": note});
        let s = Scen { reasoning: "", before: "", calls: vec![("get_weather", args.clone())], after: "" };
        let text = render(f, &s, false);
        let o = chatcodec::output::Options {
            tool_schemas: Some(json!([{"type": "function", "function": {"name": "get_weather",
                "parameters": {"type": "object", "properties": {
                    "city": {"type": "string"}, "note": {"type": "string"}}}}}])),
            ..opts(false)
        };
        let format = chatcodec::output::Format::by_name(f).unwrap();
        let whole = chatcodec::output::parse_with(&format, &text, o.clone());
        proptest::prop_assert_eq!(whole.tool_calls.len(), 1, "{}: {:?} -> {:?}", f, text, whole);
        let got: Value = serde_json::from_str(&whole.tool_calls[0].arguments)
            .map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{f}: {e}: {whole:?}")))?;
        proptest::prop_assert_eq!(&got, &args, "{}: {:?}", f, text);
        for chunks in [vec![1usize], sizes.clone()] {
            let (_, _, m, _) = output_support::stream(&format, &o, text.as_bytes(), &chunks);
            proptest::prop_assert_eq!(&m, &whole, "{} chunks {:?}: {:?}", f, chunks, text);
        }
        // Without the schema, text values are typed by their text (`5` is a number): the
        // arguments are still valid JSON, the same under every chunking.
        let o = opts(false);
        let whole = chatcodec::output::parse_with(&format, &text, o.clone());
        proptest::prop_assert_eq!(whole.tool_calls.len(), 1, "{}: {:?} -> {:?}", f, text, whole);
        let got: Result<Value, _> = serde_json::from_str(&whole.tool_calls[0].arguments);
        proptest::prop_assert!(got.is_ok(), "{}: {:?} -> {:?}", f, text, whole);
        for chunks in [vec![1usize], sizes] {
            let (_, _, m, _) = output_support::stream(&format, &o, text.as_bytes(), &chunks);
            proptest::prop_assert_eq!(&m, &whole, "{} chunks {:?}: {:?}", f, chunks, text);
        }
    }
}
