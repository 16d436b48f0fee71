//! What both bench binaries (`render.rs`, `sweep.rs`) share: the corpus on disk, minijinja set
//! up the way Rust inference servers set it up, and each engine's request-to-prompt path.

#![allow(dead_code)] // each bench binary uses a different subset

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chatcodec::{Clock, DateTime, Options, Template};
use minijinja::value::Serde;
use minijinja::{Environment, Error as MjError, ErrorKind as MjErrorKind, Value as MjValue};

/// The time both engines' `strftime_now` report, so that outputs can be compared.
pub const NOW: &str = "2026-01-15T10:30:00";

/// `../shared/corpus`, next to the repository (never copied into it).
pub fn shared_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// The corpus templates directory.
pub fn templates_dir() -> PathBuf {
    shared_corpus().join("templates")
}

/// Reads a corpus template, or explains where it was expected.
pub fn read_template(name: &str) -> String {
    let path = templates_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e} (the benches need ../shared/corpus next to the repository)",
            path.display()
        )
    })
}

/// The first of `names` that exists in the corpus.
pub fn first_existing(names: &[&str]) -> String {
    names
        .iter()
        .find(|n| templates_dir().join(n).is_file())
        .unwrap_or_else(|| panic!("none of {names:?} in {}", templates_dir().display()))
        .to_string()
}

/// Every `*.jinja` in the corpus, sorted by file name: (name, source).
pub fn all_templates() -> Vec<(String, String)> {
    let dir = templates_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jinja"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let src = read_template(&n);
            (n, src)
        })
        .collect()
}

/// The two requests of the benchmark: (short name, request).
pub fn requests() -> Vec<(&'static str, serde_json::Value)> {
    let load = |path: PathBuf| -> serde_json::Value {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    vec![
        (
            "tools",
            load(shared_corpus().join("scenarios/03_tools_call_result.json")),
        ),
        (
            "chat50",
            load(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("corpus/requests/11_long_conversation_50_messages.json"),
            ),
        ),
    ]
}

/// chatcodec's options for the benches: default limits, clock fixed at [`NOW`].
pub fn chatcodec_options() -> Options {
    Options {
        clock: Clock::Fixed(DateTime::parse(NOW).expect("NOW parses")),
        ..Options::default()
    }
}

/// Compiles with chatcodec (the clock fixed at [`NOW`]). The options are made once, as
/// minijinja's environment is: setting up the clock is not part of compiling.
pub fn chatcodec_compile(src: &str) -> Result<Template, chatcodec::Error> {
    static OPTIONS: std::sync::OnceLock<Options> = std::sync::OnceLock::new();
    Template::with_options(src, *OPTIONS.get_or_init(chatcodec_options))
}

/// chatcodec's request-to-prompt: the request is read in place; `out` is reused.
pub fn chatcodec_render(
    t: &Template,
    request: &serde_json::Value,
    out: &mut String,
) -> Result<(), chatcodec::Error> {
    out.clear();
    chatcodec::chat::render_request_to(t, request, out)
}

/// A minijinja environment configured as Rust servers configure it (TGI, mistral.rs):
/// trim_blocks, lstrip_blocks, no trailing newline, loop controls (cargo feature),
/// `raise_exception`, `strftime_now`, and the pycompat unknown-method callback.
/// `tojson` is minijinja's builtin.
pub fn minijinja_env() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(false)
            .build()
            .expect("syntax config"),
    );
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    env.add_function(
        "raise_exception",
        |msg: String| -> Result<String, MjError> {
            Err(MjError::new(MjErrorKind::InvalidOperation, msg))
        },
    );
    env.add_function("strftime_now", |fmt: String| -> String {
        strftime_fixed(&fmt)
    });
    env
}

/// Request keys that are `render_jinja_template` arguments, not template variables.
const CONSUMED: [&str; 5] = [
    "messages",
    "continue_final_message",
    "return_assistant_tokens_mask",
    "chat_template",
    "conversations",
];

/// The conversion a minijinja server does per request: every template variable from the
/// serde_json request converted with `Value::from(Serde(..))` (minijinja 3's spelling of
/// `from_serialize`), `tools`/`documents` None when absent, `add_generation_prompt` false.
pub fn minijinja_context(request: &serde_json::Value) -> MjValue {
    let req = request.as_object().expect("request is an object");
    let mut ctx: BTreeMap<&str, MjValue> = BTreeMap::new();
    for (k, v) in req {
        if k != "messages" && CONSUMED.contains(&k.as_str()) {
            continue;
        }
        ctx.insert(k.as_str(), MjValue::from(Serde(v)));
    }
    for k in ["tools", "documents"] {
        ctx.entry(k).or_insert(MjValue::from(()));
    }
    ctx.entry("add_generation_prompt")
        .or_insert(MjValue::from(false));
    MjValue::from_pairs(ctx)
}

/// minijinja's request-to-prompt: conversion plus render.
pub fn minijinja_render(
    t: &minijinja::Template<'_, '_>,
    request: &serde_json::Value,
) -> Result<String, MjError> {
    t.render(minijinja_context(request))
}

/// The subset of Python's `strftime` that chat templates use, at [`NOW`] (a Thursday).
fn strftime_fixed(fmt: &str) -> String {
    let now = chatcodec::DateTime::from_unix(1_768_473_000, 0);
    let (month, wday) = (now.month_name(), now.day_name());
    let (y, m, d, hh, mm, ss) = (2026, 1usize, 15, 10, 30, 0);
    let mut out = String::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = chars.next();
        let no_pad = spec == Some('-');
        if no_pad {
            spec = chars.next();
        }
        let num = |n: u32| {
            if no_pad {
                n.to_string()
            } else {
                format!("{n:02}")
            }
        };
        match spec {
            Some('Y') => out.push_str(&y.to_string()),
            Some('y') => out.push_str(&format!("{:02}", y % 100)),
            Some('m') => out.push_str(&num(m as u32)),
            Some('d') => out.push_str(&num(d)),
            Some('H') => out.push_str(&num(hh)),
            Some('I') => out.push_str(&num(if hh % 12 == 0 { 12 } else { hh % 12 })),
            Some('p') => out.push_str(if hh < 12 { "AM" } else { "PM" }),
            Some('M') => out.push_str(&num(mm)),
            Some('S') => out.push_str(&num(ss)),
            Some('B') => out.push_str(month),
            Some('b') | Some('h') => out.push_str(&month[..3]),
            Some('A') => out.push_str(wday),
            Some('a') => out.push_str(&wday[..3]),
            Some('j') => out.push_str(&format!("{d:03}")),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}
