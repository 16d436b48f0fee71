//! Requests given as `Data` (what a language binding builds from its own objects): they render
//! exactly like the same request as JSON over the whole corpus, and carry what JSON cannot
//! (tuples, non-string keys, big ints). And the assistant mask never reaches past the end of
//! a prompt cut by `continue_final_message`. Requests built directly with a `Builder` render
//! the same, several in one arena.

use std::path::Path;

use chatcodec::chat::{
    render_data_spans, render_request_spans, with_builder, BuiltRequest, Data, DataRequest, Val,
};
use chatcodec::Template;
use serde_json::{json, Value};

fn corpus() -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("../shared/corpus is missing in CI");
    } else {
        None
    }
}

fn to_data(v: &Value) -> Data<'_> {
    match v {
        Value::Null => Data::None,
        Value::Bool(b) => Data::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Data::Int(i),
            None => Data::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Data::Str(s.as_str().into()),
        Value::Array(a) => Data::List(a.iter().map(to_data).collect()),
        Value::Object(o) => Data::Dict(
            o.iter()
                .map(|(k, v)| (Data::Str(k.as_str().into()), to_data(v)))
                .collect(),
        ),
    }
}

/// The request as transformers' arguments: messages, tools, documents, flags, other kwargs.
fn to_request(req: &Value) -> DataRequest<'_> {
    let mut r = DataRequest::default();
    let Some(obj) = req.as_object() else {
        return r;
    };
    for (k, v) in obj {
        match k.as_str() {
            "messages" => r.messages = v.as_array().into_iter().flatten().map(to_data).collect(),
            "tools" => r.tools = to_data(v),
            "documents" => r.documents = to_data(v),
            "add_generation_prompt" => r.add_generation_prompt = to_data(v),
            "continue_final_message" => {
                r.continue_final_message = match v {
                    Value::Bool(true) => Some("content".into()),
                    Value::String(s) => Some(s.clone()),
                    _ => None,
                }
            }
            "description" => {}
            _ => r.kwargs.push((k.as_str().into(), to_data(v))),
        }
    }
    r
}

#[test]
fn data_renders_like_json_over_the_corpus() {
    let Some(corpus) = corpus() else {
        return;
    };
    let mut scenarios = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(corpus.join("scenarios"))
        .expect("scenarios")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("scenario");
        let mut v: Value = serde_json::from_str(&text).expect("scenario json");
        if let Some(o) = v.as_object_mut() {
            o.remove("description");
        }
        scenarios.push(v);
    }
    let mut templates: Vec<_> = std::fs::read_dir(corpus.join("templates"))
        .expect("templates")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jinja"))
        .collect();
    templates.sort();
    let (mut same_ok, mut same_err) = (0, 0);
    for path in &templates {
        let source = std::fs::read_to_string(path).expect("template");
        let Ok(t) = Template::new(&source) else {
            continue;
        };
        for s in &scenarios {
            let mut json_out = String::new();
            let json = render_request_spans(&t, s, &mut json_out).map(|sp| (json_out, sp));
            let mut data_out = String::new();
            let data =
                render_data_spans(&t, &to_request(s), &mut data_out).map(|sp| (data_out, sp));
            match (&json, &data) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{}", path.display());
                    same_ok += 1;
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string(), "{}", path.display());
                    same_err += 1;
                }
                _ => panic!("{}: json {json:?} vs data {data:?}", path.display()),
            }
        }
    }
    assert!(same_ok > 1000, "only {same_ok} renders ({same_err} errors)");
}

#[test]
fn data_has_tuples_non_string_keys_and_big_ints() {
    let t = Template::new("{{ a }} {{ b }} {{ c }} {{ c + 1 }} {{ d }} {{ b[1] }}").expect("ok");
    let big = 1u128 << 70;
    let req = DataRequest {
        kwargs: vec![
            (
                "a".into(),
                Data::Tuple(vec![Data::Int(1), Data::Str("x".into())]),
            ),
            (
                "b".into(),
                Data::Dict(vec![(Data::Int(1), Data::Str("one".into()))]),
            ),
            (
                "c".into(),
                Data::BigInt {
                    negative: true,
                    magnitude_le: big.to_le_bytes().to_vec(),
                },
            ),
            ("d".into(), Data::Tuple(vec![Data::Int(7)])),
        ],
        ..DataRequest::default()
    };
    let mut out = String::new();
    render_data_spans(&t, &req, &mut out).expect("renders");
    assert_eq!(
        out,
        "(1, 'x') {1: 'one'} -1180591620717411303424 -1180591620717411303423 (7,) one"
    );
}

#[test]
fn non_dict_messages_and_documents_are_type_errors() {
    let t = Template::new("{{ messages }}").expect("ok");
    let req = DataRequest {
        messages: vec![Data::Str("hi".into())],
        ..DataRequest::default()
    };
    let e = render_data_spans(&t, &req, &mut String::new()).expect_err("not a dict");
    assert_eq!(e.kind(), chatcodec::ErrorKind::Type);
    let req = DataRequest {
        documents: Data::List(vec![Data::Int(1)]),
        ..DataRequest::default()
    };
    let e = render_data_spans(&t, &req, &mut String::new()).expect_err("not a dict");
    assert!(e
        .to_string()
        .contains("Documents should be a list of dicts"));
}

/// A generation block whose text jinja2 holds in a buffer (a `set` block, a macro, an
/// enclosing block) is counted as transformers counts it: from the end of the output handed
/// out so far, for the block's own length; in bytes here, in code points for the mask of a
/// request built with `assistant_mask` (as the Python binding returns it).
#[test]
fn generation_spans_in_buffers_count_as_transformers_does() {
    let req = json!({"messages": [{"role": "user", "content": "é"}, {"role": "assistant", "content": "ü!"}]});
    let cases = [
        // The block's text lands after `<role>`, but the set block was being captured.
        ("{% for m in messages %}{% set b %}{% generation %}{{ m.content }}{% endgeneration %}{% endset %}<{{ m.role }}>{{ b }}{% endfor %}",
         vec![(0, 2), (8, 11)], vec![(0, 1), (7, 9)]),
        // Nested: the inner block starts where the outer one does.
        ("{% for m in messages %}{% generation %}[{% generation %}{{ m.content }}{% endgeneration %}]{% endgeneration %}{% endfor %}",
         vec![(0, 2), (0, 4), (4, 7), (4, 9)], vec![(0, 1), (0, 3), (3, 5), (3, 7)]),
        // Outside any buffer: where the text is.
        ("{% for m in messages %}<{% generation %}{{ m.content }}{% endgeneration %}>{% endfor %}",
         vec![(1, 3), (5, 8)], vec![(1, 2), (4, 6)]),
    ];
    for (source, bytes, chars) in cases {
        let t = Template::new(source).expect("compiles");
        let mut out = String::new();
        assert_eq!(
            render_request_spans(&t, &req, &mut out).expect("renders"),
            bytes,
            "{source}"
        );
        let got = with_builder(|b| {
            let request = BuiltRequest {
                messages: build(b, &req["messages"], true),
                assistant_mask: true,
                ..BuiltRequest::default()
            };
            let mut out = String::new();
            b.render(&t, &request, &mut out).expect("renders")
        });
        assert_eq!(got, chars, "{source}");
    }
}

/// SmolLM3 wraps assistant turns in `{% generation %}`; continuing the final assistant
/// message cuts the prompt inside that block, and the mask must stop at the cut.
#[test]
fn continue_final_message_mask_stays_inside_the_prompt() {
    let Some(corpus) = corpus() else {
        return;
    };
    let source =
        std::fs::read_to_string(corpus.join("templates/HuggingFaceTB-SmolLM3-3B__v2.jinja"))
            .expect("SmolLM3 template");
    let t = Template::new(&source).expect("compiles");
    let req = json!({
        "messages": [
            {"role": "user", "content": "Name a colour."},
            {"role": "assistant", "content": "Blue"},
            {"role": "user", "content": "Another one?"},
            {"role": "assistant", "content": "Green, or"}
        ],
        "continue_final_message": true
    });
    let mut out = String::new();
    let spans = render_request_spans(&t, &req, &mut out).expect("renders");
    assert!(out.ends_with("Green, or"), "{out:?}");
    assert_eq!(spans.len(), 2, "{spans:?}");
    for &(s, e) in &spans {
        assert!(s <= e && e <= out.len(), "{spans:?} past {}", out.len());
    }
    // The block of the continued turn is cut with the prompt; the earlier one is whole.
    assert_eq!(spans[1].1, out.len());
    assert!(out[spans[1].0..spans[1].1].ends_with("assistant\nGreen, or"));
    assert!(out[spans[0].0..spans[0].1].contains("Blue<|im_end|>"));
    let mut data_out = String::new();
    let data_spans = render_data_spans(&t, &to_request(&req), &mut data_out).expect("renders");
    assert_eq!((data_out, data_spans), (out, spans));
}

/// A JSON value built directly with a `Builder`: strings borrowed or copied into the arena.
fn build<'a, 's>(b: &chatcodec::chat::Builder<'a, 's>, v: &'s Value, copy: bool) -> Val<'a> {
    match v {
        Value::Null => Val::none(),
        Value::Bool(x) => Val::bool(*x),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Val::int(i),
            None => Val::float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) if copy => b.str_copy(s),
        Value::String(s) => b.str(s),
        Value::Array(a) => {
            let mut items = b.items(a.len());
            for x in a {
                items.push(build(b, x, copy));
            }
            items.list()
        }
        Value::Object(o) => {
            let mut pairs = b.pairs(o.len());
            for (k, x) in o {
                let key = if copy { b.str_copy(k) } else { b.str(k) };
                pairs.push(key, build(b, x, copy));
            }
            pairs.dict()
        }
    }
}

/// What a binding does with a batch: the shared arguments built once, every conversation's
/// messages built in the same arena, each rendered there in turn, all prompts appended to one
/// buffer. Each prompt equals the JSON render of its request.
#[test]
fn built_batches_render_like_json() {
    let Some(corpus) = corpus() else {
        return;
    };
    let mut scenarios = Vec::new();
    for e in std::fs::read_dir(corpus.join("scenarios")).expect("scenarios") {
        let p = e.expect("entry").path();
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json");
        scenarios.push(v);
    }
    scenarios.sort_by_key(|s| s.to_string());
    let tools = scenarios
        .iter()
        .find_map(|s| s.get("tools").cloned())
        .expect("a scenario with tools");
    let mut compared = 0;
    for name in [
        "Qwen-Qwen3-0.6B.jinja",
        "HuggingFaceTB-SmolLM3-3B__v2.jinja",
    ] {
        let source =
            std::fs::read_to_string(corpus.join("templates").join(name)).expect("template");
        let t = Template::new(&source).expect("compiles");
        let expected: Vec<_> = scenarios
            .iter()
            .map(|s| {
                let req = json!({"messages": s["messages"], "tools": tools, "add_generation_prompt": true});
                chatcodec::chat::render_request(&t, &req).map_err(|e| e.to_string())
            })
            .collect();
        let mut buf = String::new();
        let got: Vec<_> = with_builder(|b| {
            let mut req = BuiltRequest {
                tools: build(b, &tools, false),
                add_generation_prompt: Val::bool(true),
                ..BuiltRequest::default()
            };
            let messages: Vec<_> = scenarios
                .iter()
                .map(|s| build(b, &s["messages"], true))
                .collect();
            messages
                .into_iter()
                .map(|m| {
                    req.messages = m;
                    let start = buf.len();
                    b.render(&t, &req, &mut buf)
                        .map(|_| buf[start..].to_string())
                        .map_err(|e| e.to_string())
                })
                .collect()
        });
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!(g, e, "{name}");
            compared += 1;
        }
    }
    assert_eq!(compared, 2 * scenarios.len());
}

/// A built request's render reads the clock only for `strftime_now`, and then it does.
#[test]
fn strftime_now_reads_the_clock_in_a_built_render() {
    let t = Template::new("{{ strftime_now('%Y') }}").expect("ok");
    let mut out = String::new();
    render_data_spans(&t, &DataRequest::default(), &mut out).expect("renders");
    let year: i32 = out.parse().expect("a year");
    assert!(year >= 2024, "{out}");
}
