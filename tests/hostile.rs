//! Hostile templates and inputs: every one must end fast in a clear error (or a harmless
//! render where transformers also renders), and never panic, abort or hang the process.
//!
//! Each case runs in a child process (this test binary re-run with `child_entry` and the case
//! name in an environment variable), and inside the child on its own thread under
//! `catch_unwind`. The child prints one result line; the parent kills it after a generous
//! wall-clock guard. A child process is needed because some failures (an allocation the
//! allocator refuses, a stack overflow) abort the whole process: in-process they would take
//! every other test down with them and nothing would say which case did it.
//!
//! The guard is a hang detector, not a timing assertion: real cases finish in milliseconds.
//!
//! Expected renders of the cases that render come from the reference (transformers 5.23.0's
//! `_compile_jinja_template(src).render(messages=...)` with the `VARS` below).
//!
//! Known engine bugs each have a test function named `engine_bug_*`, which fails until the
//! engine is fixed; everything else passes.

use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chatcodec::{ErrorKind, Limit, Limits, Options, Template};
use serde_json::{json, Value};

/// Environment variable naming the case a child process runs.
const CHILD_ENV: &str = "CHATCODEC_HOSTILE_CHILD";
/// Marks the child's result line in its stdout.
const MARK: &str = "HOSTILE-RESULT ";
/// Wall-clock guard per case: a case still running after this is a hang.
const GUARD: Duration = Duration::from_secs(20);
/// Depth of the generated deeply nested templates and inputs.
const DEEP: usize = 100_000;

/// The variables every corpus/hostile template renders with.
fn vars() -> Value {
    json!({"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yo"}
    ]})
}

fn hostile_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/hostile")
}

// ---------------------------------------------------------------------------------------------
// Cases: a name resolves to what to compile and render.

/// What one case does.
enum Job {
    /// Compile `source` with `options`, render `vars`.
    Render {
        source: String,
        vars: Value,
        options: Options,
    },
    /// Compile `source`, render the chat request `request` with `chat::render_request`.
    Request { source: String, request: Value },
}

fn render_job(source: String) -> Job {
    Job::Render {
        source,
        vars: vars(),
        options: Options::default(),
    }
}

/// `n` copies of `open`, `middle`, `n` copies of `close`.
fn nest(open: &str, middle: &str, close: &str, n: usize) -> String {
    let mut s = String::with_capacity((open.len() + close.len()) * n + middle.len());
    for _ in 0..n {
        s.push_str(open);
    }
    s.push_str(middle);
    for _ in 0..n {
        s.push_str(close);
    }
    s
}

/// `first` then `n` copies of `sep item`, inside `{{ }}`.
fn chain(first: &str, sep_item: &str, n: usize) -> String {
    let mut s = format!("{{{{ {first}");
    for _ in 0..n {
        s.push_str(sep_item);
    }
    s.push_str(" }}");
    s
}

/// A JSON value nested `n` arrays deep around `leaf`, built without recursion.
fn deep_json_array(n: usize, leaf: Value) -> Value {
    let mut v = leaf;
    for _ in 0..n {
        v = Value::Array(vec![v]);
    }
    v
}

/// A JSON value nested `n` objects deep (`{"a": {"a": ...}}`).
fn deep_json_object(n: usize, leaf: Value) -> Value {
    let mut v = leaf;
    for _ in 0..n {
        let mut m = serde_json::Map::new();
        m.insert("a".to_string(), v);
        v = Value::Object(m);
    }
    v
}

/// The generated cases: (name, what it attacks).
const GENERATED: &[(&str, &str)] = &[
    ("gen:list_brackets", "`{{ [[[...]]] }}` 100k deep"),
    ("gen:parens", "`{{ ((((1)))) }}` 100k deep"),
    ("gen:dict_literal", "`{{ {'a': {'a': ...}} }}` 100k deep"),
    ("gen:tuple_brackets", "`{{ (((1,),),) }}` 100k deep"),
    ("gen:nested_if", "100k nested `{% if %}`"),
    ("gen:nested_for", "100k nested `{% for %}`"),
    (
        "gen:nested_macro_defs",
        "100k nested `{% macro %}` definitions",
    ),
    ("gen:nested_set_blocks", "100k nested `{% set x %}` blocks"),
    (
        "gen:nested_filter_blocks",
        "100k nested `{% filter upper %}` blocks",
    ),
    (
        "gen:not_chain",
        "`not not not ... x`, 100k prefix operators",
    ),
    ("gen:minus_chain", "`- - - ... 1`, 100k unary minus"),
    (
        "gen:plus_chain",
        "`1 + 1 + ... + 1`, a 100k deep left-leaning tree",
    ),
    ("gen:concat_chain", "`'a' ~ 'a' ~ ...`, 100k concatenations"),
    ("gen:and_chain", "`x and x and ...`, 100k short-circuits"),
    (
        "gen:compare_chain",
        "`1 < 2 < 3 < ...`, a 100k chained comparison",
    ),
    (
        "gen:ternary_chain",
        "`1 if x else 1 if x else ...`, 100k right-nested",
    ),
    (
        "gen:filter_chain",
        "`x | lower | lower | ...`, 100k filters",
    ),
    ("gen:attr_chain", "`x.a.a.a...`, 100k attribute lookups"),
    ("gen:subscript_chain", "`x[0][0][0]...`, 100k subscripts"),
    ("gen:call_chain", "`range(1)()()()...`, 100k calls"),
    (
        "gen:many_tags",
        "100k `{{ 1 }}` tags side by side (must render)",
    ),
    (
        "gen:long_string_literal",
        "a 10 MB string literal (must render)",
    ),
    (
        "gen:deep_json_print",
        "100k deep nested arrays as input, printed",
    ),
    (
        "gen:deep_json_tojson",
        "100k deep nested arrays as input, through tojson",
    ),
    (
        "gen:deep_json_object",
        "100k deep nested objects as input, printed",
    ),
    (
        "gen:deep_json_compare",
        "100k deep nested arrays compared with ==",
    ),
    (
        "gen:deep_json_length",
        "100k deep input, only its length read (must render)",
    ),
    (
        "gen:deep_json_request",
        "a chat request whose message content nests 100k deep",
    ),
    (
        "gen:nul_request",
        "a chat request with NUL bytes in role and content",
    ),
];

/// Builds the job for case `name`: `file:NAME.jinja` or one of [`GENERATED`].
fn job(name: &str) -> Job {
    if let Some(file) = name.strip_prefix("file:") {
        let path = hostile_dir().join(file);
        let source =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return render_job(source);
    }
    let n = DEEP;
    // Built by hand: indexing assignment is fine, but `json!` would serialise deep values
    // recursively.
    let deep_vars = |x: Value| {
        let mut v = vars();
        v["x"] = x;
        v
    };
    let (source, input) = match name {
        "gen:list_brackets" => (format!("{{{{ {} }}}}", nest("[", "1", "]", n)), vars()),
        "gen:parens" => (format!("{{{{ {} }}}}", nest("(", "1", ")", n)), vars()),
        "gen:dict_literal" => (format!("{{{{ {} }}}}", nest("{'a': ", "1", "}", n)), vars()),
        "gen:tuple_brackets" => (format!("{{{{ {} }}}}", nest("(", "1", ",)", n)), vars()),
        "gen:nested_if" => (nest("{% if true %}", "x", "{% endif %}", n), vars()),
        "gen:nested_for" => (nest("{% for i in [1] %}", "x", "{% endfor %}", n), vars()),
        "gen:nested_macro_defs" => (nest("{% macro m() %}", "x", "{% endmacro %}", n), vars()),
        "gen:nested_set_blocks" => (nest("{% set x %}", "x", "{% endset %}", n), vars()),
        "gen:nested_filter_blocks" => (
            nest("{% filter upper %}", "x", "{% endfilter %}", n),
            vars(),
        ),
        "gen:not_chain" => (format!("{{{{ {}1 }}}}", "not ".repeat(n)), vars()),
        "gen:minus_chain" => (format!("{{{{ {}1 }}}}", "- ".repeat(n)), vars()),
        "gen:plus_chain" => (chain("1", " + 1", n), vars()),
        "gen:concat_chain" => (chain("'a'", " ~ 'a'", n), vars()),
        "gen:and_chain" => (chain("messages", " and messages", n), vars()),
        "gen:compare_chain" => (chain("0", " < 1", n), vars()),
        "gen:ternary_chain" => (chain("1", " if messages else 1", n), vars()),
        "gen:filter_chain" => (chain("'A'", " | lower", n), vars()),
        "gen:attr_chain" => (chain("messages", ".a", n), vars()),
        "gen:subscript_chain" => (chain("messages", "[0]", n), vars()),
        "gen:call_chain" => (chain("range(1)", "()", n), vars()),
        "gen:many_tags" => ("{{ 1 }}".repeat(n), vars()),
        "gen:long_string_literal" => (
            format!("{{{{ '{}' | length }}}}", "a".repeat(10 << 20)),
            vars(),
        ),
        "gen:deep_json_print" => ("{{ x }}".into(), deep_vars(deep_json_array(n, json!(1)))),
        "gen:deep_json_tojson" => (
            "{{ x | tojson }}".into(),
            deep_vars(deep_json_array(n, json!(1))),
        ),
        "gen:deep_json_object" => ("{{ x }}".into(), deep_vars(deep_json_object(n, json!(1)))),
        "gen:deep_json_compare" => ("{{ x == y }}".into(), {
            let mut v = deep_vars(deep_json_array(n, json!(1)));
            v["y"] = deep_json_array(n, json!(2));
            v
        }),
        "gen:deep_json_length" => (
            "{{ x | length }}".into(),
            deep_vars(deep_json_array(n, json!(1))),
        ),
        "gen:deep_json_request" => {
            // Built by hand: `json!` would serialise the deep value recursively.
            let mut message = serde_json::Map::new();
            message.insert("role".into(), json!("user"));
            message.insert("content".into(), deep_json_array(n, json!("hi")));
            let mut request = serde_json::Map::new();
            request.insert(
                "messages".into(),
                Value::Array(vec![Value::Object(message)]),
            );
            request.insert("add_generation_prompt".into(), json!(true));
            let source = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}";
            return Job::Request {
                source: source.into(),
                request: Value::Object(request),
            };
        }
        "gen:nul_request" => {
            let request = json!({
                "messages": [{"role": "us\u{0}er", "content": "a\u{0}b"}],
            });
            let source = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}";
            return Job::Request {
                source: source.into(),
                request,
            };
        }
        other => panic!("unknown case {other}"),
    };
    Job::Render {
        source,
        vars: input,
        options: Options::default(),
    }
}

// ---------------------------------------------------------------------------------------------
// Running a case: in the child, and from the parent.

/// The outcome of one case, as the child reports it.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// Rendered this text.
    Text(String),
    /// Failed: the kind as `{:?}`, the message, and the `{:#}` display.
    Error {
        kind: String,
        message: String,
        display: String,
    },
    /// The library panicked.
    Panic(String),
    /// The child died without reporting (an abort: allocation failure, stack overflow).
    Crash(String),
    /// Still running after [`GUARD`].
    Hang,
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(non-string panic payload)".to_string())
}

/// Runs `job` on its own thread (the default spawned-thread stack, as a server would give
/// it), under `catch_unwind`.
fn run_job(job: Job) -> Outcome {
    let handle = std::thread::spawn(move || {
        let result = catch_unwind(AssertUnwindSafe(|| {
            let (res, leftovers) = match job {
                Job::Render {
                    source,
                    vars,
                    options,
                } => {
                    let res =
                        Template::with_options(&source, options).and_then(|t| t.render(&vars));
                    (res, vars)
                }
                Job::Request { source, request } => {
                    let res = Template::new(&source)
                        .and_then(|t| chatcodec::chat::render_request(&t, &request));
                    (res, request)
                }
            };
            // serde_json drops values recursively; a 100k-deep input would overflow the
            // stack in serde_json's destructor, which is not the engine's doing.
            std::mem::forget(leftovers);
            res
        }));
        match result {
            Ok(Ok(text)) => Outcome::Text(text),
            Ok(Err(e)) => Outcome::Error {
                kind: format!("{:?}", e.kind()),
                message: e.message().to_string(),
                display: format!("{e:#}"),
            },
            Err(payload) => Outcome::Panic(panic_text(&*payload)),
        }
    });
    match handle.join() {
        Ok(outcome) => outcome,
        Err(payload) => Outcome::Panic(panic_text(&*payload)),
    }
}

/// The child side: runs the case named in [`CHILD_ENV`] and prints its outcome.
/// Without the variable (a normal test run) it does nothing.
#[test]
fn child_entry() {
    let Ok(name) = std::env::var(CHILD_ENV) else {
        return;
    };
    std::panic::set_hook(Box::new(|_| {}));
    let job = job(&name);
    let outcome = run_job(job);
    let line = match outcome {
        Outcome::Text(t) => json!({"status": "text", "text": t}),
        Outcome::Error {
            kind,
            message,
            display,
        } => json!({"status": "error", "kind": kind, "message": message, "display": display}),
        Outcome::Panic(p) => json!({"status": "panic", "message": p}),
        Outcome::Crash(_) | Outcome::Hang => unreachable!(),
    };
    println!("\n{MARK}{line}");
}

/// The parent side: runs case `name` in a child process under the wall-clock guard.
fn run_case(name: &str) -> Outcome {
    let exe = std::env::current_exe().expect("current test binary");
    let mut child = Command::new(exe)
        .args(["child_entry", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, name)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the test binary as a child");
    // Drain the pipes on threads so a chatty child cannot block on a full pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for child") {
            break Some(status);
        }
        if start.elapsed() > GUARD {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = String::from_utf8_lossy(&out_thread.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_thread.join().unwrap()).into_owned();
    let Some(status) = status else {
        return Outcome::Hang;
    };
    let Some(line) = stdout
        .lines()
        .find_map(|l| l.find(MARK).map(|i| &l[i + MARK.len()..]))
    else {
        let first: String = stderr.chars().take(300).collect();
        return Outcome::Crash(format!("{status}; stderr: {}", first.trim()));
    };
    let v: Value = serde_json::from_str(line).expect("child result line is JSON");
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    match v["status"].as_str() {
        Some("text") => Outcome::Text(s("text")),
        Some("error") => Outcome::Error {
            kind: s("kind"),
            message: s("message"),
            display: s("display"),
        },
        Some("panic") => Outcome::Panic(s("message")),
        _ => Outcome::Crash(format!("unreadable child result {line}")),
    }
}

// ---------------------------------------------------------------------------------------------
// Expectations.

/// What a case must end in.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// An error of this kind (`ErrorKind` as `{:?}`).
    Err(&'static str),
    /// Exactly this text (the reference's render).
    Text(&'static str),
    /// This text, or an error naming a resource limit (either is a fine, fast outcome).
    TextOrLimit(&'static str),
}

fn short(s: &str) -> String {
    if s.len() <= 300 {
        return s.to_string();
    }
    let mut end = 300;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &s[..end], s.len())
}

/// Checks one outcome; `Err(reason)` if it is not what `expect` says.
fn check(expect: Expect, outcome: &Outcome) -> Result<(), String> {
    match (expect, outcome) {
        (Expect::Err(kind), Outcome::Error { kind: got, .. }) if got == kind => Ok(()),
        (Expect::Text(t) | Expect::TextOrLimit(t), Outcome::Text(got)) if got == t => Ok(()),
        (Expect::TextOrLimit(_), Outcome::Error { kind, .. }) if kind.starts_with("Limit(") => {
            Ok(())
        }
        (_, Outcome::Text(t)) => Err(format!("expected {expect:?}, rendered {:?}", short(t))),
        (_, Outcome::Error { display, .. }) => {
            Err(format!("expected {expect:?}, got {}", short(display)))
        }
        (_, Outcome::Panic(p)) => Err(format!("PANIC: {p}")),
        (_, Outcome::Crash(c)) => Err(format!("CRASH (process aborted): {c}")),
        (_, Outcome::Hang) => Err(format!("HANG: still running after {GUARD:?}")),
    }
}

/// Every error must also say something: a non-empty message.
fn check_message(outcome: &Outcome) -> Result<(), String> {
    match outcome {
        Outcome::Error { message, .. } if message.trim().is_empty() => {
            Err("error with an empty message".to_string())
        }
        _ => Ok(()),
    }
}

/// Runs each case and fails listing every case that did not end as expected.
fn run_all(cases: &[(String, Expect)]) {
    let mut failures = Vec::new();
    for (name, expect) in cases {
        let outcome = run_case(name);
        if let Err(why) = check(*expect, &outcome).and_then(|()| check_message(&outcome)) {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// corpus/hostile files that must pass now, with what each must end in.
const FILES: &[(&str, Expect)] = &[
    // Sandbox escapes: an unsafe attribute is undefined (prints empty), using it further is a
    // SecurityError, exactly as in the reference.
    ("attr_filter_dunder", Expect::Text("")),
    ("dunder_class", Expect::Text("")),
    ("dunder_globals", Expect::Text("")),
    ("getitem_dunder", Expect::Text("")),
    ("format_attr_leak", Expect::Text("")),
    ("format_globals", Expect::Err("Security")),
    ("dunder_class_mro", Expect::Err("Security")),
    ("dunder_init_globals", Expect::Err("Security")),
    ("joiner_globals", Expect::Err("Security")),
    ("lipsum_globals", Expect::Err("Security")),
    ("namespace_class", Expect::Err("Security")),
    ("mutator_append", Expect::Err("Security")),
    ("mutator_update", Expect::Err("Security")),
    // CPU: fuel.
    ("nested_for_loops", Expect::Err("Limit(Fuel)")),
    ("nested_for_silent", Expect::Err("Limit(Fuel)")),
    // Recursion: depth (the reference raises RecursionError). A macro that wraps itself in
    // a call block without reading `caller` is refused at the first call, as in jinja2.
    ("recursive_macro", Expect::Err("Limit(Depth)")),
    ("recursive_macro_silent", Expect::Err("Limit(Depth)")),
    ("mutual_recursion", Expect::Err("Limit(Depth)")),
    ("recursive_caller", Expect::Err("Type")),
    // Memory: output and value size.
    ("doubling_namespace", Expect::Err("Limit(Output)")),
    ("doubling_output", Expect::Err("Limit(Output)")),
    ("string_times_huge", Expect::Err("Limit(Output)")),
    ("string_times_huge_silent", Expect::Err("Limit(Output)")),
    ("list_times_huge", Expect::Err("Limit(Output)")),
    ("join_blowup", Expect::Err("Limit(Output)")),
    ("set_self_loop", Expect::Err("Limit(Output)")),
    // The reference renders these 1 GB strings; our default output limit (64 MiB) stops them.
    ("center_huge", Expect::Err("Limit(Output)")),
    ("ljust_huge", Expect::Err("Limit(Output)")),
    ("zfill_huge", Expect::Err("Limit(Output)")),
    ("format_width_huge", Expect::Err("Limit(Output)")),
    ("format_width_huge_fstyle", Expect::Err("Limit(Output)")),
    ("indent_huge", Expect::Err("Limit(Output)")),
    // Numbers and ranges. Integers have any size up to 100k decimal digits, as the
    // reference's (`10 ** 10 ** 10` is `(10**10)**10`); beyond, an Overflow error (the
    // reference computes `10 ** 100000`, then fails to print it past 4300 digits).
    ("range_huge", Expect::Err("Overflow")),
    ("range_huge_list", Expect::Err("Overflow")),
    ("range_negative_step", Expect::Err("Overflow")),
    ("range_step_zero", Expect::Err("Value")),
    (
        "huge_power",
        Expect::Text(
            "10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        ),
    ),
    ("bigint_power", Expect::Err("Overflow")),
    (
        "bigint_shift",
        Expect::Text("6277101735386680763835789423207666416102355444464034512896"),
    ),
    (
        "int_overflow_arith",
        Expect::Text("170141183460469231731687303715884105728"),
    ),
    ("float_inf", Expect::Err("Overflow")),
    ("div_zero", Expect::Err("ZeroDivision")),
    ("tojson_huge_indent", Expect::Err("Overflow")),
    ("slice_huge_step", Expect::Text("a")),
    // Bad arguments.
    ("format_percent", Expect::Err("Type")),
    ("truncate_negative", Expect::Err("Value")),
    // Harmless: renders exactly as the reference.
    (
        "deep_while_like",
        Expect::Text(concat!(
            "{'role': 'user', 'content': 'hi'}{'role': 'assistant', 'content': 'yo'}",
            "{'role': 'user', 'content': 'hi'}{'role': 'assistant', 'content': 'yo'}",
            "{'role': 'user', 'content': 'hi'}{'role': 'assistant', 'content': 'yo'}",
            "{'role': 'user', 'content': 'hi'}{'role': 'assistant', 'content': 'yo'}"
        )),
    ),
    ("nul_bytes", Expect::Text("a\0bc\0d\0")),
    // Broken syntax.
    ("unterminated_tag", Expect::Err("Syntax")),
    ("unterminated_block", Expect::Err("Syntax")),
    ("unterminated_string", Expect::Err("Syntax")),
    ("unterminated_comment", Expect::Err("Syntax")),
    ("lone_block_open", Expect::Err("Syntax")),
    ("lone_var_open", Expect::Err("Syntax")),
    ("stray_endfor", Expect::Err("Syntax")),
    ("unknown_tag", Expect::Err("Syntax")),
    // `recursive` loops are not supported by the engine: a clear syntax error.
    ("recursive_loop", Expect::Err("Limit(Depth)")),
];

/// corpus/hostile files that expose engine bugs, with what each must end in once fixed.
const BUG_FILES: &[(&str, Expect)] = &[
    // Allocation aborts: the width is allocated before any limit is checked.
    ("center_alloc_abort", Expect::Err("Limit(Output)")),
    ("center_filter_alloc_abort", Expect::Err("Limit(Output)")),
    ("ljust_alloc_abort", Expect::Err("Limit(Output)")),
    ("zfill_alloc_abort", Expect::Err("Limit(Output)")),
    ("format_width_alloc_abort", Expect::Err("Limit(Output)")),
    ("percent_width_alloc_abort", Expect::Err("Limit(Output)")),
    ("indent_alloc_abort", Expect::Err("Limit(Output)")),
    // Unbounded growth that no limit stops.
    ("replace_blowup", Expect::Err("Limit(Output)")),
    ("format_doubling", Expect::Err("Limit(Output)")),
    ("shared_list_print", Expect::Err("Limit(Output)")),
    ("shared_list_pprint", Expect::Err("Limit(Output)")),
    ("shared_list_tojson", Expect::Err("Limit(Output)")),
    ("shared_list_compare", Expect::TextOrLimit("True")),
    // Quadratic copying that fuel does not charge for: ~11 s in release, over the guard in
    // debug, before the value limit stops it.
    ("dict_blowup", Expect::Err("Limit(Output)")),
    // Divergences from the reference.
    ("call_block_self_recursion", Expect::Err("Limit(Depth)")),
    ("self_reference", Expect::Text("<TemplateReference None>")),
    ("self_module", Expect::Err("Security")),
    ("wordwrap_zero", Expect::Err("Value")),
];

fn file_cases(list: &[(&str, Expect)]) -> Vec<(String, Expect)> {
    list.iter()
        .map(|(f, e)| (format!("file:{f}.jinja"), *e))
        .collect()
}

fn file_case(f: &str) -> Vec<(String, Expect)> {
    let (_, e) = BUG_FILES
        .iter()
        .find(|(n, _)| *n == f)
        .unwrap_or_else(|| panic!("{f} not in BUG_FILES"));
    vec![(format!("file:{f}.jinja"), *e)]
}

// ---------------------------------------------------------------------------------------------
// Tests.

/// Every .jinja file in corpus/hostile has an expectation here and a line in the README.
#[test]
fn corpus_is_fully_covered() {
    let readme = std::fs::read_to_string(hostile_dir().join("README.md")).expect("README.md");
    let mut missing = Vec::new();
    let mut names = Vec::new();
    for entry in std::fs::read_dir(hostile_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jinja") {
            names.push(path.file_stem().unwrap().to_string_lossy().into_owned());
        }
    }
    names.sort();
    for name in &names {
        let known = FILES.iter().chain(BUG_FILES).any(|(n, _)| n == name);
        if !known {
            missing.push(format!(
                "{name}.jinja has no expectation in tests/hostile.rs"
            ));
        }
        if !readme.contains(&format!("`{name}.jinja`")) {
            missing.push(format!(
                "{name}.jinja has no line in corpus/hostile/README.md"
            ));
        }
    }
    for (n, _) in FILES.iter().chain(BUG_FILES) {
        if !names.iter().any(|m| m == n) {
            missing.push(format!("{n}.jinja is expected but missing"));
        }
    }
    for (n, _) in GENERATED {
        if !readme.contains(&format!("`{n}`")) {
            missing.push(format!("generated case {n} has no line in README.md"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert!(names.len() >= 60, "only {} hostile templates", names.len());
}

#[test]
fn hostile_corpus_files() {
    run_all(&file_cases(FILES));
}

#[test]
fn hostile_generated_nesting() {
    // Deep source nesting must stop at the parser's nesting limit, not the stack.
    let nesting = [
        "gen:list_brackets",
        "gen:parens",
        "gen:dict_literal",
        "gen:tuple_brackets",
        "gen:nested_if",
        "gen:nested_for",
        "gen:nested_macro_defs",
        "gen:nested_set_blocks",
        "gen:nested_filter_blocks",
        "gen:not_chain",
        "gen:minus_chain",
    ];
    let cases: Vec<_> = nesting
        .iter()
        .map(|n| (n.to_string(), Expect::Err("Limit(Nesting)")))
        .collect();
    run_all(&cases);
}

#[test]
fn hostile_generated_long_chains() {
    // 100000 `1`s: what `gen:many_tags` renders.
    let ones: &'static str = Box::leak("1".repeat(DEEP).into_boxed_str());
    // Left-leaning chains: each is either rejected by the nesting limit or evaluated; what
    // matters is that none overflows the stack. Where they evaluate, the value is checked.
    let cases = [
        ("gen:plus_chain", Expect::TextOrLimit("100001")),
        (
            "gen:and_chain",
            Expect::TextOrLimit(
                "[{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': 'yo'}]",
            ),
        ),
        ("gen:filter_chain", Expect::TextOrLimit("a")),
        ("gen:attr_chain", Expect::TextOrLimit("")),
        ("gen:many_tags", Expect::TextOrLimit(ones)),
        ("gen:long_string_literal", Expect::Text("10485760")),
    ];
    let cases: Vec<_> = cases.iter().map(|(n, e)| (n.to_string(), *e)).collect();
    run_all(&cases);
}

#[test]
fn hostile_generated_chains_that_fail() {
    // These fail in the reference too: the 100k-char concatenation, an out-of-range
    // subscript chain and calling a range. Any error kind is fine as long as it is an error
    // (or a limit), fast, and not a crash.
    let cases = [
        ("gen:concat_chain", "Limit(Nesting)|Text"),
        ("gen:subscript_chain", "Limit(Nesting)|Undefined|Type|Value"),
        ("gen:call_chain", "Limit(Nesting)|Type"),
    ];
    let mut failures = Vec::new();
    for (name, allowed) in cases {
        let outcome = run_case(name);
        let ok = match &outcome {
            Outcome::Error { kind, .. } => allowed.split('|').any(|k| k == kind),
            Outcome::Text(t) => allowed.contains("Text") && t == &"a".repeat(DEEP + 1),
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{name}: expected one of {allowed}, got {outcome:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn hostile_deep_json_input() {
    // Inputs nested 100k deep. The reference fails on all of these with RecursionError;
    // the engine may fail the same way (a limit or jinja2's "maximum recursion depth
    // exceeded" runtime error), or print the deep part as `...` (its documented printing
    // depth cap). What it must never do is overflow the stack.
    let mut failures = Vec::new();
    for name in [
        "gen:deep_json_print",
        "gen:deep_json_tojson",
        "gen:deep_json_object",
        "gen:deep_json_compare",
        "gen:deep_json_request",
    ] {
        match run_case(name) {
            Outcome::Error { kind, .. } if kind.starts_with("Limit(") || kind == "Runtime" => {}
            Outcome::Text(t) if name == "gen:deep_json_compare" && t == "False" => {}
            Outcome::Text(t) if t.contains("...") && t.len() < 10_000 => {}
            other => failures.push(format!(
                "{name}: {}",
                check(Expect::Err("Limit(..) or Runtime"), &other).unwrap_err()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    run_all(&[
        ("gen:deep_json_length".to_string(), Expect::Text("1")),
        (
            "gen:nul_request".to_string(),
            Expect::Text("<|us\0er|>a\0b"),
        ),
    ]);
}

// ---------------------------------------------------------------------------------------------
// Limits are settable.

const NORMAL: &str = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}";

fn with_limits(source: &str, f: impl FnOnce(&mut Limits)) -> Result<String, chatcodec::Error> {
    let mut options = Options::default();
    f(&mut options.limits);
    let t = Template::with_options(source, options)?;
    t.render(&vars())
}

#[test]
fn default_limits_let_normal_templates_render() {
    assert_eq!(
        with_limits(NORMAL, |_| {}).unwrap(),
        "<|user|>hi\n<|assistant|>yo\n"
    );
    let d = Limits::default();
    assert!(d.fuel >= 1_000_000, "{d:?}");
    assert!(d.max_depth >= 100, "{d:?}");
    assert!(d.max_output >= 1 << 20, "{d:?}");
    assert!(d.max_nesting >= 50, "{d:?}");
}

#[test]
fn small_fuel_fails_with_fuel_limit() {
    let e = with_limits(NORMAL, |l| l.fuel = 3).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit(Limit::Fuel), "{e:#}");
    assert!(!e.message().is_empty());
    // And the same template passes when the fuel is big.
    assert!(with_limits(NORMAL, |l| l.fuel = u64::MAX).is_ok());
}

#[test]
fn fuel_limit_stops_a_loop_that_default_fuel_allows() {
    let src = "{% for i in range(1000) %}{{ i }}{% endfor %}";
    assert!(with_limits(src, |_| {}).is_ok());
    let e = with_limits(src, |l| l.fuel = 500).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit(Limit::Fuel), "{e:#}");
}

#[test]
fn big_fuel_lets_a_long_loop_pass() {
    // 100k x 10 iterations: beyond small budgets, fine with a big one.
    let src = "{% for i in range(100000) %}{% for j in range(10) %}{% endfor %}{% endfor %}ok";
    let e = with_limits(src, |l| l.fuel = 10_000).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit(Limit::Fuel), "{e:#}");
    assert_eq!(with_limits(src, |l| l.fuel = u64::MAX).unwrap(), "ok");
}

#[test]
fn small_max_output_fails_with_output_limit() {
    let e = with_limits(NORMAL, |l| l.max_output = 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit(Limit::Output), "{e:#}");
    // Exactly enough is enough.
    let full = "<|user|>hi\n<|assistant|>yo\n";
    assert_eq!(
        with_limits(NORMAL, |l| l.max_output = full.len()).unwrap(),
        full
    );
    // Captured text counts too.
    let e = with_limits(
        "{% set x %}{% for i in range(100) %}abcdef{% endfor %}{% endset %}",
        |l| l.max_output = 100,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit(Limit::Output), "{e:#}");
}

#[test]
fn max_depth_is_settable() {
    let src = "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% else %}done{% endif %}{% endmacro %}{{ f(50) }}";
    assert_eq!(with_limits(src, |_| {}).unwrap(), "done");
    let e = with_limits(src, |l| l.max_depth = 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit(Limit::Depth), "{e:#}");
    assert_eq!(with_limits(src, |l| l.max_depth = 60).unwrap(), "done");
}

#[test]
fn max_nesting_is_settable() {
    let src = nest("{% if true %}", "x", "{% endif %}", 30);
    assert_eq!(with_limits(&src, |_| {}).unwrap(), "x");
    let mut options = Options::default();
    options.limits.max_nesting = 10;
    let e = Template::with_options(&src, options)
        .err()
        .expect("too deep");
    assert_eq!(e.kind(), ErrorKind::Limit(Limit::Nesting), "{e:#}");
    let src = format!("{{{{ {} }}}}", nest("[", "1", "]", 30));
    let e = Template::with_options(&src, options)
        .err()
        .expect("too deep");
    assert_eq!(e.kind(), ErrorKind::Limit(Limit::Nesting), "{e:#}");
    options.limits.max_nesting = 1000;
    let t = Template::with_options(&src, options).unwrap();
    assert_eq!(
        t.render(&vars()).unwrap(),
        format!("{}1{}", "[".repeat(30), "]".repeat(30))
    );
}

#[test]
fn limit_errors_name_the_limit() {
    let e = with_limits(NORMAL, |l| l.fuel = 3).unwrap_err();
    assert!(e.to_string().contains("limit"), "{e}");
    let e = with_limits(NORMAL, |l| l.max_output = 3).unwrap_err();
    assert!(
        e.to_string().contains("limit") || e.to_string().contains("output"),
        "{e}"
    );
}

#[test]
fn options_mut_changes_limits_of_a_compiled_template() {
    let mut t = Template::new(NORMAL).unwrap();
    t.options_mut().limits.fuel = 3;
    let e = t.render(&vars()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit(Limit::Fuel), "{e:#}");
    t.options_mut().limits.fuel = Limits::default().fuel;
    assert!(t.render(&vars()).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Engine bugs: each fails until the engine is fixed (see the report in BUG_FILES' comments).

#[test]
fn engine_bug_padding_width_aborts_process_on_allocation() {
    // `'a'.center(10**12)` and friends try to allocate the full width before checking any
    // limit: `memory allocation of 1000000000000 bytes failed`, the process aborts.
    let mut cases = Vec::new();
    for f in [
        "center_alloc_abort",
        "center_filter_alloc_abort",
        "ljust_alloc_abort",
        "zfill_alloc_abort",
        "format_width_alloc_abort",
        "percent_width_alloc_abort",
        "indent_alloc_abort",
    ] {
        cases.extend(file_case(f));
    }
    run_all(&cases);
}

#[test]
fn engine_bug_str_replace_growth_is_unbounded() {
    // `ns.s.replace('a', 'aa')` doubling: the value limit is never checked; hangs / eats memory.
    run_all(&file_case("replace_blowup"));
}

#[test]
fn engine_bug_format_method_growth_is_unbounded() {
    // `'{0}{0}'.format(s)` doubling: no value limit; hangs / eats memory.
    run_all(&file_case("format_doubling"));
}

#[test]
fn engine_bug_shared_nested_lists_hang() {
    // `[s, s]` 40 times is a DAG with 2^40 leaves: printing, tojson and == walk it all
    // without fuel or output checks and hang.
    let mut cases = file_case("shared_list_print");
    cases.extend(file_case("shared_list_pprint"));
    cases.extend(file_case("shared_list_tojson"));
    cases.extend(file_case("shared_list_compare"));
    run_all(&cases);
}

#[test]
fn engine_bug_macro_not_visible_in_own_call_block() {
    // Inside `{% macro g() %}{% call f() %}{{ g() }}{% endcall %}`, `g` is undefined; in the
    // reference it resolves (here: infinite recursion, so RecursionError -> Limit(Depth)).
    run_all(&file_case("call_block_self_recursion"));
    let src = "{% macro f() %}[{{ caller() }}]{% endmacro %}{% macro g(n) %}{% if n > 0 %}{% call f() %}{{ g(n - 1) }}{% endcall %}{% else %}x{% endif %}{% endmacro %}{{ g(3) }}";
    // Reference: '[[[x]]]'.
    assert_eq!(
        Template::new(src)
            .and_then(|t| t.render(&vars()))
            .map_err(|e| format!("{e:#}")),
        Ok("[[[x]]]".to_string())
    );
}

#[test]
fn engine_bug_self_is_undefined() {
    // Reference: `{{ self }}` prints `<TemplateReference None>`; `self.__init__` is a
    // SecurityError. The engine treats `self` as undefined.
    run_all(&[
        file_case("self_reference").remove(0),
        file_case("self_module").remove(0),
    ]);
}

#[test]
fn engine_bug_wordwrap_zero_width() {
    // Reference: ValueError `invalid width 0 (must be > 0)`; the engine wraps every char.
    run_all(&file_case("wordwrap_zero"));
}

#[test]
fn engine_bug_ternary_else_chain_overflows_parser_stack() {
    // src/syntax/parser.rs `condexpr`: the `else` branch recurses into `condexpr` without
    // `enter()`, so `{{ 1 if x else 1 if x else ... }}` 100k long overflows the stack of a
    // 2 MiB thread (SIGABRT) instead of failing with Limit(Nesting). (At 1000 the codegen's
    // own depth check catches it; at 10000 the parser already overflows.)
    run_all(&[(
        "gen:ternary_chain".to_string(),
        Expect::Err("Limit(Nesting)"),
    )]);
}

#[test]
fn engine_bug_quadratic_dict_copy_is_slow() {
    // `{% set ns.d = dict(ns.d, **{...}) %}` 100k times copies an ever larger dict; fuel
    // counts instructions, not the size of the copies. Fixed: `dict()` copies a dict without
    // searching its (unique) keys, indexes keys when adding, and checks the arena's growth,
    // so the value-size limit ends it in milliseconds.
    run_all(&file_case("dict_blowup"));
}

#[test]
fn engine_bug_chained_comparison_slot_counter_overflows() {
    // src/compile/codegen.rs `compare`: each middle operand of a chained comparison takes a
    // new local slot (`f.next_slot += 1`, a u16). Past 65535 operands this overflows: a
    // panic ("attempt to add with overflow") in debug builds, and in release the slot
    // numbers wrap and clobber other locals: this renders "'undefined' is undefined"
    // instead of the reference's "True|keep".
    let mut src = String::from("{% set a = 'keep' %}{{ 0");
    for i in 1..65540 {
        src.push_str(&format!(" < {i}"));
    }
    src.push_str(" }}|{{ a }}");
    let result = std::thread::spawn(move || {
        catch_unwind(AssertUnwindSafe(|| {
            Template::new(&src)
                .and_then(|t| t.render(&vars()))
                .map_err(|e| short(e.message()))
        }))
        .map_err(|p| panic_text(&*p))
    })
    .join()
    .expect("thread");
    let nesting_error = matches!(&result, Ok(Err(m)) if m.contains("nesting"));
    assert!(
        result == Ok(Ok("True|keep".to_string())) || nesting_error,
        "expected True|keep (or a nesting limit), got {result:?}"
    );
}
