//! Prompt templates: the system.* clock context, namespaces, args at the root, defaults below
//! runtime arguments, and errors that are errors.

use chatcodec::chat::prompt::{system_context, PromptTemplate};
use chatcodec::{Clock, DateTime};
use serde_json::{json, Map, Value};

fn map(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn clock() -> Clock {
    Clock::Fixed(DateTime::parse("2026-01-15T10:30:05").expect("time"))
}

#[test]
fn system_context_is_utc_from_the_clock() {
    let s = system_context(DateTime::parse("2026-01-15T10:30:05").expect("time"));
    assert_eq!(
        Value::Object(s),
        json!({
            "current_date": "2026-01-15",
            "current_time": "10:30:05",
            "current_datetime": "2026-01-15T10:30:05Z",
            "day_of_week": "Thursday",
            "date_rfc1123": "Thu, 15 Jan 2026 10:30:05 UTC",
            "date_unix": 1768473005,
            "date_unix_ms": 1768473005000i64,
        })
    );
}

#[test]
fn namespaces_args_and_defaults() {
    let t = PromptTemplate::new(
        "{{ assistant.name }} on {{ system.current_date }} ({{ system.day_of_week }}): \
         hello {{ name }}/{{ args.name }}, tone {{ tone }}, conv {{ conversation.id }}",
        map(json!({"name": "default-user", "tone": "formal"})),
    )
    .expect("compiles");
    let ns = map(json!({"assistant": {"name": "Ada"}, "conversation": {"id": 7}}));
    let out = t
        .render(clock(), &ns, &map(json!({"name": "Bob"})))
        .expect("renders");
    assert_eq!(
        out,
        "Ada on 2026-01-15 (Thursday): hello Bob/Bob, tone formal, conv 7"
    );
    // Without runtime args, the template's defaults apply.
    let out = t.render(clock(), &ns, &Map::new()).expect("renders");
    assert!(out.contains("hello default-user/default-user"), "{out}");
}

#[test]
fn root_args_never_replace_namespaces() {
    let t = PromptTemplate::new("{{ system.current_date }}", Map::new()).expect("compiles");
    let out = t
        .render(clock(), &Map::new(), &map(json!({"system": "spoof"})))
        .expect("renders");
    assert_eq!(out, "2026-01-15");
}

#[test]
fn template_errors_are_errors_not_the_raw_text() {
    assert!(PromptTemplate::new("{% if %}", Map::new()).is_err());
    let t = PromptTemplate::new("{{ raise_exception('no') }}", Map::new()).expect("compiles");
    let e = t.render(clock(), &Map::new(), &Map::new()).unwrap_err();
    assert_eq!(e.message(), "no");
}
