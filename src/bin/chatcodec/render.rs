//! `chatcodec render`: a prompt from a template and variables or a chat request, one at a
//! time or a JSONL batch.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use chatcodec::{Clock, DateTime, Template};

/// Arguments of `chatcodec render`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The template file (Jinja source).
    #[arg(long)]
    template: PathBuf,
    /// A JSON object whose keys become template variables (plain Jinja, no chat
    /// processing); `-` reads standard input.
    #[arg(long, conflicts_with_all = ["input", "jsonl"])]
    vars: Option<String>,
    /// A chat request (messages, tools, documents, add_generation_prompt,
    /// continue_final_message, other keys as kwargs), rendered the way transformers'
    /// apply_chat_template does; `-` reads standard input.
    #[arg(long, conflicts_with = "jsonl")]
    input: Option<String>,
    /// A JSONL batch: each line `{"id": ..., "input": {...}}`; each output line
    /// `{"id": ..., "ok": true, "text": ...}` or `{"id": ..., "ok": false, "error": ...}`.
    #[arg(long)]
    jsonl: Option<String>,
    /// Fix the clock `strftime_now` reads, e.g. 2026-01-15T10:30:00.
    #[arg(long)]
    now: Option<String>,
}

/// Exit status for a template error.
const TEMPLATE_ERROR: i32 = 1;
/// Exit status for unreadable or invalid input.
const INPUT_ERROR: i32 = 2;

/// Runs `chatcodec render`; returns the exit status.
pub(crate) fn run(args: Args) -> i32 {
    match run_inner(args) {
        Ok(()) => 0,
        Err((code, msg)) => {
            eprintln!("error: {msg}");
            code
        }
    }
}

type Failure = (i32, String);

fn read_source(spec: &str) -> Result<String, Failure> {
    if spec == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| (INPUT_ERROR, format!("cannot read standard input: {e}")))?;
        Ok(s)
    } else {
        std::fs::read_to_string(spec).map_err(|e| (INPUT_ERROR, format!("cannot read {spec}: {e}")))
    }
}

fn read_json(spec: &str) -> Result<serde_json::Value, Failure> {
    let text = read_source(spec)?;
    let name = if spec == "-" { "standard input" } else { spec };
    serde_json::from_str(&text).map_err(|e| (INPUT_ERROR, format!("{name} is not valid JSON: {e}")))
}

fn load_template(path: &Path, now: Option<&str>) -> Result<Template, Failure> {
    let source = std::fs::read_to_string(path).map_err(|e| {
        (
            INPUT_ERROR,
            format!("cannot read template {}: {e}", path.display()),
        )
    })?;
    let mut t = Template::new(&source)
        .map_err(|e| (TEMPLATE_ERROR, format!("{}: {e:#}", path.display())))?;
    if let Some(now) = now {
        let time = DateTime::parse(now).map_err(|e| (INPUT_ERROR, format!("--now: {e}")))?;
        t.options_mut().clock = Clock::Fixed(time);
    }
    Ok(t)
}

fn run_inner(args: Args) -> Result<(), Failure> {
    let template = load_template(&args.template, args.now.as_deref())?;
    if let Some(spec) = &args.jsonl {
        return batch(&template, spec);
    }
    let mut out = String::new();
    let result = match (&args.vars, &args.input) {
        (Some(v), None) => {
            let vars = read_json(v)?;
            if !vars.is_object() {
                return Err((INPUT_ERROR, "--vars must hold a JSON object".into()));
            }
            template.render_to(&vars, &mut out)
        }
        (None, Some(i)) => {
            let request = read_json(i)?;
            chatcodec::chat::render_request_to(&template, &request, &mut out)
        }
        _ => return Err((INPUT_ERROR, "give one of --vars, --input or --jsonl".into())),
    };
    match result {
        Ok(()) => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(out.as_bytes())
                .and_then(|_| stdout.flush())
                .map_err(|e| (INPUT_ERROR, format!("cannot write the output: {e}")))
        }
        Err(e) if e.kind() == chatcodec::ErrorKind::Input => Err((INPUT_ERROR, format!("{e}"))),
        Err(e) => Err((TEMPLATE_ERROR, format!("{e:#}"))),
    }
}

fn batch(template: &Template, spec: &str) -> Result<(), Failure> {
    let reader: Box<dyn BufRead> = if spec == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(spec)
            .map_err(|e| (INPUT_ERROR, format!("cannot read {spec}: {e}")))?;
        Box::new(std::io::BufReader::new(f))
    };
    let progress = std::io::stderr().is_terminal();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut text = String::new();
    let mut done = 0usize;
    let mut failed = 0usize;
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| (INPUT_ERROR, format!("line {}: cannot read: {e}", n + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let item: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| (INPUT_ERROR, format!("line {}: not valid JSON: {e}", n + 1)))?;
        let id = item.get("id").cloned().unwrap_or(serde_json::Value::Null);
        let result = match item.get("input") {
            Some(input) => {
                text.clear();
                chatcodec::chat::render_request_to(template, input, &mut text)
                    .map(|()| text.as_str())
            }
            None => Err(chatcodec::Error::new(
                chatcodec::ErrorKind::Input,
                format!("line {}: no \"input\" object", n + 1),
            )),
        };
        let record = match result {
            Ok(t) => serde_json::json!({"id": id, "ok": true, "text": t}),
            Err(e) => {
                failed += 1;
                serde_json::json!({"id": id, "ok": false, "error": e.to_string()})
            }
        };
        serde_json::to_writer(&mut stdout, &record)
            .map_err(|e| (INPUT_ERROR, format!("cannot write the output: {e}")))?;
        stdout
            .write_all(b"\n")
            .map_err(|e| (INPUT_ERROR, format!("cannot write the output: {e}")))?;
        done += 1;
        if progress && done % 256 == 0 {
            eprint!("\r{done} rendered, {failed} failed");
        }
    }
    if progress {
        eprintln!("\r{done} rendered, {failed} failed");
    }
    stdout
        .flush()
        .map_err(|e| (INPUT_ERROR, format!("cannot write the output: {e}")))
}
