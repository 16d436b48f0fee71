//! Incremental rendering against full renders, over the real corpus:
//!
//! - `corpus_incremental_equals_full`: every template of ../shared/corpus/templates and
//!   every scenario of ../shared/corpus/scenarios, with `add_generation_prompt` as given and
//!   flipped, as `render_request` renders and as `ChatTemplate::apply` renders (with
//!   `bos_token`/`eos_token`): a session pushed message by message gives, after every
//!   message, exactly the full render of the conversation so far (the same text, or the same
//!   error). Templates found stable must continue their renders (no fallback behind the
//!   scenes), and the number of stable templates is printed by reason;
//! - `random_conversations`: proptest, random conversations (roles in any order, string or
//!   typed content, tool calls, tool results, reasoning) on random corpus templates, same
//!   comparison after every message.
//!
//! Without the corpus the tests say SKIPPED and pass, except in CI (`CI=true`).

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use chatcodec::chat::incremental::{Incremental, Stability};
use chatcodec::chat::{render_request, ChatTemplate};
use chatcodec::{Clock, DateTime, Template};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Map, Value};

fn shared(dir: &str) -> Option<Vec<(String, String)>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(dir);
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let entries = match std::fs::read_dir(&path) {
        Ok(e) => e,
        Err(e) => {
            assert!(!in_ci, "CI=true but {} is missing: {e}", path.display());
            eprintln!("SKIPPED: {} not found ({e})", path.display());
            return None;
        }
    };
    let mut files: Vec<(String, String)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jinja" || x == "json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    Some(files)
}

fn fixed_clock() -> Clock {
    Clock::Fixed(DateTime::parse(common::NOW).unwrap())
}

fn special_tokens() -> Map<String, Value> {
    let Value::Object(m) = json!({"bos_token": "<s>", "eos_token": "</s>"}) else {
        unreachable!()
    };
    m
}

/// Pushes the messages of `request` one by one through a session of `inc`; after each,
/// the prompt must equal `full(request with the messages so far)`. Returns a description
/// of the first difference.
fn check_conversation(
    inc: &Incremental<'_>,
    request: &Value,
    full: &dyn Fn(&Value) -> Result<String, chatcodec::Error>,
) -> Result<(), String> {
    let obj = request.as_object().unwrap();
    let messages = obj["messages"].as_array().unwrap().clone();
    let mut base = obj.clone();
    base.remove("messages");
    let mut session = inc
        .session(&Value::Object(base.clone()))
        .map_err(|e| format!("session: {e}"))?;
    for (i, m) in messages.iter().enumerate() {
        let pushed = session.push(m.clone()).map(str::to_string);
        let mut whole = base.clone();
        whole.insert("messages".into(), Value::Array(messages[..=i].to_vec()));
        let expected = full(&Value::Object(whole));
        let got = session.prompt();
        if got != expected {
            return Err(match (&got, &expected) {
                (Ok(g), Ok(e)) => format!("after message {i}: {}", common::brief_difference(e, g)),
                _ => format!(
                    "after message {i}: got {:?}, full render {:?}",
                    got.map(|s| common::first_line(&s, 80)),
                    expected.map(|s| common::first_line(&s, 80))
                ),
            });
        }
        if let (Ok(p), Ok(new)) = (&got, &pushed) {
            if !p.starts_with(session.text()) || !session.text().ends_with(new.as_str()) {
                return Err(format!(
                    "after message {i}: text() is not the prompt's start"
                ));
            }
        }
        if inc.stability().is_stable() && !session.is_incremental() {
            return Err(format!("after message {i}: a stable session fell back"));
        }
    }
    Ok(())
}

#[test]
fn corpus_incremental_equals_full() {
    let (Some(templates), Some(scenarios)) = (shared("templates"), shared("scenarios")) else {
        return;
    };
    let scenarios: Vec<(String, Value)> = scenarios
        .into_iter()
        .map(|(n, s)| (n, serde_json::from_str(&s).unwrap()))
        .collect();
    let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    let (mut compiled, mut conversations, mut stable) = (0, 0, 0);
    for (name, source) in &templates {
        let Ok(mut t) = Template::new(source) else {
            continue;
        };
        compiled += 1;
        t.options_mut().clock = fixed_clock();
        let inc = Incremental::new(&t);
        match inc.stability() {
            Stability::Stable => {
                stable += 1;
                reasons
                    .entry("stable".into())
                    .or_default()
                    .push(name.clone());
            }
            Stability::Unstable { reason, .. } => {
                let key = format!("{reason}");
                reasons.entry(key).or_default().push(name.clone());
            }
        }
        let mut ct = ChatTemplate::new(name, source, special_tokens()).unwrap();
        ct.template_mut().options_mut().clock = fixed_clock();
        let inc_ct = Incremental::for_chat_template(&ct);
        assert_eq!(
            inc.stability(),
            inc_ct.stability(),
            "{name}: stability depends on the entry point"
        );
        for (sname, scenario) in &scenarios {
            for flip in [false, true] {
                let mut req = scenario.clone();
                let obj = req.as_object_mut().unwrap();
                obj.remove("description");
                if flip {
                    let agp = obj
                        .get("add_generation_prompt")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    obj.insert("add_generation_prompt".into(), Value::Bool(!agp));
                }
                conversations += 2;
                if let Err(e) = check_conversation(&inc, &req, &|r| render_request(&t, r)) {
                    failures.push(format!(
                        "{name} × {sname} (flip {flip}, render_request): {e}"
                    ));
                }
                if let Err(e) = check_conversation(&inc_ct, &req, &|r| ct.apply(r)) {
                    failures.push(format!("{name} × {sname} (flip {flip}, apply): {e}"));
                }
            }
        }
    }
    println!("{compiled} templates compiled, {stable} stable, {conversations} conversations");
    for (reason, names) in reasons.iter().filter(|(r, _)| *r != "stable") {
        println!("{:4} {reason}", names.len());
    }
    if std::env::var("CHATCODEC_INCREMENTAL_LIST").is_ok() {
        for (reason, names) in &reasons {
            println!("{reason}: {}", names.join(", "));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {conversations} conversations differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(stable > 0, "no corpus template is stable");
}

// ---------------------------------------------------------------------------------------------
// Random conversations.

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a-z ]{1,12}",
        "[a-zA-Z0-9 .,!?<>{}\\n]{0,24}",
        "\\PC{0,8}",
    ]
}

fn content() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => text().prop_map(Value::String),
        1 => Just(Value::Null),
        1 => prop::collection::vec(text(), 1..3).prop_map(|parts| {
            Value::Array(parts.into_iter().map(|t| json!({"type": "text", "text": t})).collect())
        }),
    ]
}

fn message() -> impl Strategy<Value = Value> {
    let role = prop_oneof![
        Just("system"),
        Just("user"),
        Just("user"),
        Just("assistant"),
        Just("assistant"),
        Just("tool"),
    ];
    (
        role,
        content(),
        prop::option::of(text()),
        prop::option::of(("[a-z_]{1,8}", "[a-zA-Z0-9]{9}", text(), any::<bool>())),
    )
        .prop_map(|(role, content, reasoning, call)| {
            let mut m = json!({"role": role, "content": content});
            if role == "assistant" {
                if let Some(r) = reasoning {
                    m["reasoning_content"] = Value::String(r);
                }
                if let Some((name, id, arg, as_string)) = call {
                    let args = json!({"x": arg});
                    let args = if as_string {
                        Value::String(args.to_string())
                    } else {
                        args
                    };
                    m["tool_calls"] = json!([{"id": id, "type": "function",
                        "function": {"name": name, "arguments": args}}]);
                }
            }
            if role == "tool" {
                m["tool_call_id"] = json!("abcdefghi");
            }
            m
        })
}

fn conversation() -> impl Strategy<Value = (Vec<Value>, bool, bool)> {
    (
        prop::collection::vec(message(), 1..7),
        any::<bool>(),
        any::<bool>(),
    )
}

#[test]
fn random_conversations() {
    let Some(templates) = shared("templates") else {
        return;
    };
    let compiled: Vec<(String, Template)> = templates
        .into_iter()
        .filter_map(|(n, s)| {
            let mut t = Template::new(&s).ok()?;
            t.options_mut().clock = fixed_clock();
            Some((n, t))
        })
        .collect();
    let prepared: Vec<(&str, &Template, Incremental<'_>)> = compiled
        .iter()
        .map(|(n, t)| (n.as_str(), t, Incremental::new(t)))
        .collect();
    let cases = std::env::var("CHATCODEC_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..prepared.len(), conversation());
    runner
        .run(&strategy, |(i, (messages, agp, tools))| {
            let (name, t, inc) = &prepared[i];
            let mut req = json!({"messages": messages, "add_generation_prompt": agp});
            if tools {
                req["tools"] = json!([{"type": "function", "function": {"name": "f",
                    "description": "A tool.", "parameters": {"type": "object",
                    "properties": {"x": {"type": "string"}}}}}]);
            }
            check_conversation(inc, &req, &|r| render_request(t, r))
                .map_err(|e| TestCaseError::fail(format!("{name}: {e}\nrequest: {req}")))
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// The decision on small templates, one rule each.

fn stability_of(source: &str) -> Stability {
    let t = Template::new(source).unwrap();
    Incremental::new(&t).stability().clone()
}

fn reason_of(source: &str) -> String {
    match stability_of(source) {
        Stability::Stable => "stable".to_string(),
        Stability::Unstable { reason, .. } => reason.to_string(),
    }
}

#[test]
fn decisions_on_small_templates() {
    let body = "<|{{ m.role }}|>{{ m.content }}\n";
    let cases: Vec<(String, &str)> = vec![
        (format!("{{% for m in messages %}}{body}{{% endfor %}}"), "stable"),
        // messages[0] and truth tests are fixed once the conversation has begun.
        (
            format!("{{% if messages and messages[0].role == 'system' %}}{{% set ms = messages[1:] %}}{{% else %}}{{% set ms = messages %}}{{% endif %}}{{% for m in ms %}}{body}{{% endfor %}}"),
            "stable",
        ),
        (
            format!("{{% set messages = messages[1:] if messages[0].role == 'system' else messages %}}{{% for m in messages %}}{body}{{% endfor %}}"),
            "stable",
        ),
        // A look-back behind loop.first is an earlier message; without the guard, index -1
        // is the last message.
        (
            "{% for m in messages %}{% if loop.first or messages[loop.index0 - 1].role != m.role %}[{{ m.role }}]{% endif %}{{ m.content }}{% endfor %}".into(),
            "stable",
        ),
        (
            "{% for m in messages %}{% if messages[loop.index0 - 1].role != m.role %}[{{ m.role }}]{% endif %}{{ m.content }}{% endfor %}".into(),
            "reads a message by the loop's index (a look-ahead, or a look-back without a loop.first guard)",
        ),
        (
            format!("{{% for m in messages %}}{body}{{% if loop.last %}}END{{% endif %}}{{% endfor %}}"),
            "reads loop.last of the message loop",
        ),
        (
            format!("{{% for m in messages %}}{body}{{{{ loop.nextitem }}}}{{% endfor %}}"),
            "reads loop.nextitem of the message loop",
        ),
        (
            format!("{{{{ messages[-1].content }}}}{{% for m in messages %}}{body}{{% endfor %}}"),
            "reads a message counted from the end",
        ),
        (
            format!("{{{{ messages|length }}}}{{% for m in messages %}}{body}{{% endfor %}}"),
            "reads a filter of the messages (length, last, map, ...)",
        ),
        (
            format!("{{% for m in messages[::-1] %}}{body}{{% endfor %}}"),
            "reads a slice of the messages with a stop or a step (reversal)",
        ),
        (
            format!("{{% set ns = namespace(u=0) %}}{{% for m in messages %}}{{% if m.role == 'user' %}}{{% set ns.u = loop.index0 %}}{{% endif %}}{{% endfor %}}{{% for m in messages %}}{body}{{% endfor %}}"),
            "several loops read the messages",
        ),
        // A filter whose loop body never reads `loop` is asked item by item, like an `if`.
        (
            format!("{{% for m in messages if m.role != 'system' %}}{body}{{% endfor %}}"),
            "stable",
        ),
        (
            format!("{{% for m in messages if m.role != 'system' %}}{{{{ loop.index }}}}{body}{{% endfor %}}"),
            "the message loop is filtered",
        ),
        (
            format!("{{% for x in [1] %}}{{% for m in messages %}}{body}{{% endfor %}}{{% endfor %}}"),
            "the message loop is inside a loop or macro",
        ),
        ("{{ 'no loop' }}".into(), "no top-level loop over messages"),
    ];
    for (source, want) in cases {
        assert_eq!(reason_of(&source), want, "{source}");
    }
    // A refusal says where.
    let Stability::Unstable { at, .. } = stability_of(
        "{% for m in messages %}\n{{ m.content }}{% if loop.last %}!{% endif %}{% endfor %}",
    ) else {
        panic!("stable")
    };
    assert_eq!(at.map(|(line, _)| line), Some(2));
}

#[test]
fn lazily_filtered_loops_resume_as_they_render() {
    // The filter is asked for each message when its turn comes: a namespace the body changes
    // reaches the filter of the messages after it, in a full render and when resuming.
    let sources = [
        "{% for m in messages if m.role != 'system' %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}",
        "{% set ns = namespace(seen=0) %}{% for m in messages if ns.seen < 2 or m.role == 'user' %}\
         [{{ m.role }}:{{ m.content }}]{% set ns.seen = ns.seen + 1 %}{% endfor %}{{ ns.seen }}",
        "{% for m in messages if m.content %}{{ m.content }}|{% else %}none{% endfor %}",
    ];
    let conversation = json!({"messages": [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "u2"},
        {"role": "assistant", "content": "a2"},
    ], "add_generation_prompt": false});
    for src in sources {
        let t = Template::new(src).unwrap();
        let inc = Incremental::new(&t);
        check_conversation(&inc, &conversation, &|r| render_request(&t, r))
            .unwrap_or_else(|e| panic!("{src}: {e}"));
    }
}

#[test]
fn a_push_renders_only_the_new_message() {
    let t = Template::new(
        "{{ bos_token }}{% if messages[0].role == 'system' %}[SYS {{ messages[0].content }}]{% set ms = messages[1:] %}{% else %}{% set ms = messages %}{% endif %}\
         {% set ns = namespace(turns=0) %}\
         {% for m in ms %}{% if m.role == 'user' %}{% set ns.turns = ns.turns + 1 %}{% endif %}<{{ loop.index }}:{{ m.role }}>{{ m.content }}{% endfor %}\
         {% if add_generation_prompt %}<assistant turn {{ ns.turns }}>{% endif %}",
    )
    .unwrap();
    let inc = Incremental::new(&t);
    assert_eq!(inc.stability(), &Stability::Stable);
    let mut s = inc
        .session(&json!({"bos_token": "<s>", "add_generation_prompt": true,
            "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "a"}]}))
        .unwrap();
    assert_eq!(s.prompt().unwrap(), "<s>[SYS S]<1:user>a<assistant turn 1>");
    assert_eq!(s.text(), "<s>[SYS S]<1:user>a");
    assert_eq!(
        s.push(json!({"role": "assistant", "content": "b"}))
            .unwrap(),
        "<2:assistant>b"
    );
    assert_eq!(
        s.push(json!({"role": "user", "content": "c"})).unwrap(),
        "<3:user>c"
    );
    assert_eq!(s.tail().unwrap(), "<assistant turn 2>");
    assert!(s.is_incremental());
    assert_eq!(s.len(), 4);
    // A fork goes its own way.
    let mut fork = s.clone();
    fork.push(json!({"role": "assistant", "content": "d"}))
        .unwrap();
    assert_eq!(s.len(), 4);
    assert_eq!(
        fork.text(),
        "<s>[SYS S]<1:user>a<2:assistant>b<3:user>c<4:assistant>d"
    );
}

#[test]
fn errors_match_the_full_render_and_name_the_message() {
    let source = "{% for m in messages %}{% if m.role == 'tool' %}{{ raise_exception('no tools here') }}{% endif %}{{ m.content }}{% endfor %}{% if messages[0].role != 'user' %}{{ raise_exception('start with a user') }}{% endif %}";
    let t = Template::new(source).unwrap();
    let inc = Incremental::new(&t);
    assert!(inc.stability().is_stable());
    let mut s = inc.session(&json!({})).unwrap();
    // An error after the loop: the message stays, the prompt is the error.
    let e = s
        .push(json!({"role": "assistant", "content": "x"}))
        .unwrap_err();
    assert!(e.to_string().contains("start with a user"), "{e}");
    assert_eq!(
        s.prompt().unwrap_err(),
        render_request(
            &t,
            &json!({"messages": [{"role": "assistant", "content": "x"}]})
        )
        .unwrap_err()
    );
    // An error in the loop body, on the message pushed.
    let mut s = inc
        .session(&json!({"messages": [{"role": "user", "content": "u"}]}))
        .unwrap();
    let e = s.push(json!({"role": "tool", "content": "r"})).unwrap_err();
    assert!(e.to_string().contains("no tools here"), "{e}");
    assert!(s.push(json!({"role": "user", "content": "again"})).is_err());
    // Bad input is refused with the message's index, and the session is unchanged.
    let mut s = inc
        .session(&json!({"messages": [{"role": "user", "content": "u"}]}))
        .unwrap();
    let e = s.push(json!("not an object")).unwrap_err();
    assert!(e.to_string().contains("message 1"), "{e}");
    assert_eq!(s.len(), 1);
    assert!(inc
        .session(&json!({"continue_final_message": true}))
        .unwrap_err()
        .to_string()
        .contains("continue_final_message"));
}

/// A generator whose body failed, held in a variable across messages: the session's saved
/// state keeps it, so its repr prints after every message and iterating it raises, as in the
/// full render.
#[test]
fn failed_generator_survives_the_saved_state() {
    let source = "{%- set g = 5|map('upper') -%}\
        {%- for m in messages -%}{{ m.content }} {{ g }};\
        {%- if m.content == 'boom' %}{{ g|list }}{% endif -%}{%- endfor -%}";
    let t = Template::new(source).unwrap();
    let inc = Incremental::new(&t);
    assert!(inc.stability().is_stable(), "{:?}", inc.stability());
    let req = json!({"messages": [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "boom"},
    ]});
    check_conversation(&inc, &req, &|r| render_request(&t, r)).unwrap();
    let full = render_request(&t, &req);
    assert!(full.is_err(), "{full:?}");
    let two = json!({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]});
    let text = render_request(&t, &two).unwrap();
    assert!(text.contains("<generator object sync_do_map at "), "{text}");
}
