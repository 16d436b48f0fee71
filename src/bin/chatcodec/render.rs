//! `chatcodec render`: a prompt from a template and variables or a chat request, one at a
//! time or a JSONL batch, for a template file, a model folder or a GGUF file.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use chatcodec::chat::caps::Caps;
use chatcodec::chat::polyfill::Polyfills;
use chatcodec::chat::ChatTemplate;
use chatcodec::load::ModelTemplates;
use chatcodec::{Clock, DateTime, Template};

/// Arguments of `chatcodec render`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["template", "model", "gguf"])))]
pub(crate) struct Args {
    /// The template file (Jinja source); chat requests are rendered as transformers'
    /// `render_jinja_template` does.
    #[arg(long)]
    template: Option<PathBuf>,
    /// A Hugging Face model folder: its template and special tokens, applied as
    /// `apply_chat_template` does.
    #[arg(long)]
    model: Option<PathBuf>,
    /// A GGUF file: the template and special tokens in its metadata.
    #[arg(long)]
    gguf: Option<PathBuf>,
    /// Which of the model's named templates to use (default: `tool_use` when the request has
    /// tools and the model has it, else `default`).
    #[arg(long)]
    template_name: Option<String>,
    /// Continue the final message (sets the request's `continue_final_message` when absent).
    #[arg(long)]
    continue_final_message: bool,
    /// Print the assistant mask (byte ranges made inside `{% generation %}`) as JSON on
    /// stderr, or as a "mask" field of each JSONL output line.
    #[arg(long)]
    assistant_mask: bool,
    /// Check the history before rendering: tool-call sequencing, tool-call arguments that
    /// are valid JSON, and called tools that the request's tools list.
    #[arg(long)]
    validate: bool,
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
    /// Render as transformers' processors do (`processor.apply_chat_template`): the
    /// processor's own template of a model folder, null message keys dropped, OpenAI
    /// `image_url` parts turned into `{"type": "image", "url": ...}` blocks.
    #[arg(long)]
    processor: bool,
    /// How message content reaches the template, as vLLM's --chat-template-content-format:
    /// `openai` passes parts through, `string` joins text parts and puts a placeholder per
    /// media part, `auto` picks by what the template reads. Without it, content is passed
    /// as given (transformers' behaviour).
    #[arg(long, value_parser = ["auto", "string", "openai"])]
    content_format: Option<String>,
    /// The placeholder of a modality for `--content-format string`, e.g. `image=<image>`
    /// (default: the model's `image_token`, `audio_token`, `video_token`). Repeatable.
    #[arg(long, value_name = "MODALITY=TEXT")]
    media_placeholder: Vec<String>,
    /// Adapt chat requests to what the template shows (see `chatcodec caps`): `--polyfill`
    /// turns every polyfill on, `--polyfill=LIST` some (system_role, tools, tool_calls,
    /// tool_responses, object_arguments, typed_content, reasoning; `none` only checks that
    /// the request needs no adaptation). Off by default: the prompt is transformers'.
    #[arg(
        long,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "all",
        conflicts_with = "assistant_mask"
    )]
    polyfill: Option<String>,
    /// Mark the control tokens in user-supplied strings with U+F0000/U+F0001 before
    /// rendering, exactly as transformers' `apply_chat_template(...,
    /// sanitize_control_tokens=True)` does (needs --model).
    #[arg(long)]
    mark_control_tokens: bool,
    /// With --mark-control-tokens: print JSON `{"text": ..., "control_spans": [[start,
    /// end], ...]}`, the plain text and the byte spans of user-supplied control tokens,
    /// instead of markers (in --jsonl, a "control_spans" field of each record).
    #[arg(long, requires = "mark_control_tokens")]
    control_spans: bool,
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

/// `bytes` as text, or an error naming `what` and the byte offset of the first invalid byte.
pub(crate) fn utf8(bytes: Vec<u8>, what: &str) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bad = e.as_bytes().get(at).copied().unwrap_or(0);
        format!("{what} is not valid UTF-8: invalid byte 0x{bad:02x} at byte offset {at}")
    })
}

fn read_source(spec: &str) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    if spec == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| (INPUT_ERROR, format!("cannot read standard input: {e}")))?;
        utf8(bytes, "standard input").map_err(|m| (INPUT_ERROR, m))
    } else {
        bytes =
            std::fs::read(spec).map_err(|e| (INPUT_ERROR, format!("cannot read {spec}: {e}")))?;
        utf8(bytes, spec).map_err(|m| (INPUT_ERROR, m))
    }
}

fn read_json(spec: &str) -> Result<serde_json::Value, Failure> {
    let text = read_source(spec)?;
    let name = if spec == "-" { "standard input" } else { spec };
    serde_json::from_str(&text).map_err(|e| {
        (
            INPUT_ERROR,
            format!("{name} is not valid JSON: {}", json_error(&e, &text)),
        )
    })
}

/// What renders requests: a plain template, or a model's templates.
enum Renderer {
    Plain(Template),
    Model(ModelTemplates, std::cell::RefCell<Vec<ChatTemplate>>),
}

fn fix_clock(t: &mut Template, now: Option<&str>) -> Result<(), Failure> {
    if let Some(now) = now {
        let time = DateTime::parse(now).map_err(|e| (INPUT_ERROR, format!("--now: {e}")))?;
        t.options_mut().clock = Clock::Fixed(time);
    }
    Ok(())
}

fn load_template(path: &Path, now: Option<&str>) -> Result<Template, Failure> {
    let bytes = std::fs::read(path).map_err(|e| {
        (
            INPUT_ERROR,
            format!("cannot read template {}: {e}", path.display()),
        )
    })?;
    let source = utf8(bytes, &path.display().to_string()).map_err(|m| (INPUT_ERROR, m))?;
    let mut t = Template::new(&source)
        .map_err(|e| (TEMPLATE_ERROR, format!("{}: {e:#}", path.display())))?;
    fix_clock(&mut t, now)?;
    Ok(t)
}

struct Settings<'a> {
    name: Option<&'a str>,
    now: Option<&'a str>,
    cont: bool,
    mask: bool,
    validate: bool,
    processor: bool,
    content_format: Option<&'a str>,
    placeholders: chatcodec::chat::media::Placeholders,
    polyfill: Option<Polyfills>,
    /// The plain template's content format, detected on first use.
    plain_format: std::cell::OnceCell<chatcodec::chat::media::ContentFormat>,
    /// The plain template's capabilities, probed on first use.
    caps: std::cell::OnceCell<Caps>,
    mark: bool,
    spans: bool,
}

fn failure(e: chatcodec::Error) -> Failure {
    if e.kind() == chatcodec::ErrorKind::Input {
        (INPUT_ERROR, format!("{e}"))
    } else {
        (TEMPLATE_ERROR, format!("{e:#}"))
    }
}

impl Renderer {
    fn open(args: &Args) -> Result<Renderer, Failure> {
        let model = if let (Some(dir), true) = (&args.model, args.processor) {
            ModelTemplates::from_processor_dir(dir)
        } else if let Some(dir) = &args.model {
            ModelTemplates::from_model_dir(dir)
        } else if let Some(file) = &args.gguf {
            ModelTemplates::from_gguf(file)
        } else if let Some(path) = &args.template {
            if args.template_name.is_some() {
                return Err((
                    INPUT_ERROR,
                    "--template-name needs --model or --gguf".into(),
                ));
            }
            return load_template(path, args.now.as_deref()).map(Renderer::Plain);
        } else {
            return Err((INPUT_ERROR, "give --template, --model or --gguf".into()));
        };
        Ok(Renderer::Model(
            model.map_err(failure)?,
            std::cell::RefCell::new(Vec::new()),
        ))
    }

    fn plain(&self) -> Option<&Template> {
        match self {
            Renderer::Plain(t) => Some(t),
            Renderer::Model(..) => None,
        }
    }

    /// Renders one chat request into `out`; returns the mask ranges.
    fn request(
        &self,
        mut request: serde_json::Value,
        s: &Settings<'_>,
        out: &mut String,
        control: &mut Vec<(usize, usize)>,
    ) -> Result<Vec<(usize, usize)>, chatcodec::Error> {
        use chatcodec::chat::media;
        if s.cont && request.get("continue_final_message").is_none() {
            if let Some(o) = request.as_object_mut() {
                o.insert("continue_final_message".into(), true.into());
            }
        }
        if s.processor {
            media::normalize_for_processor(&mut request);
        }
        if let Some(format) = s.content_format {
            let format = match (format, self) {
                ("auto", Renderer::Plain(t)) => *s
                    .plain_format
                    .get_or_init(|| media::ContentFormat::detect(t)),
                ("auto", Renderer::Model(model, cache)) => {
                    let pos = Self::cached(model, cache, &request, s)?;
                    cache.borrow()[pos].content_format()
                }
                (name, _) => media::ContentFormat::from_name(name)?,
            };
            if format == media::ContentFormat::String {
                let mut placeholders = match self {
                    Renderer::Model(model, _) => model.placeholders(),
                    Renderer::Plain(_) => media::Placeholders::default(),
                };
                for m in media::Modality::ALL {
                    if let Some(p) = s.placeholders.get(m) {
                        placeholders.set(m, p.to_string());
                    }
                }
                media::flatten_content(&mut request, &placeholders)?;
            }
        }
        let request = &request;
        if s.validate {
            if let Some(serde_json::Value::Array(m)) = request.get("messages") {
                chatcodec::chat::validate::validate_tool_calls(m, request.get("tools"))?;
            }
        }
        if let Some(on) = &s.polyfill {
            return self.polyfilled(request, s, on, out);
        }
        match self {
            Renderer::Plain(t) => chatcodec::chat::render_request_spans(t, request, out),
            Renderer::Model(model, cache) => {
                let pos = Self::cached(model, cache, request, s)?;
                let cache = cache.borrow();
                if !s.mark {
                    return cache[pos].apply_to(request, s.mask, out);
                }
                let name = cache[pos].name().to_string();
                let tokens = model.control_tokens(&name)?;
                let marked = chatcodec::chat::control::mark_request(request, &tokens);
                let start = out.len();
                let mask = cache[pos].apply_to(&marked, s.mask, out)?;
                if s.spans {
                    let added: Vec<String> = model
                        .added_tokens()
                        .iter()
                        .map(|t| t.content.clone())
                        .collect();
                    let (text, spans) =
                        chatcodec::chat::control::control_spans(&out[start..], &added);
                    out.truncate(start);
                    out.push_str(&text);
                    *control = spans;
                }
                Ok(mask)
            }
        }
    }

    /// Renders `request` adapted by the polyfills `on` (no mask: `--polyfill` and
    /// `--assistant-mask` conflict).
    fn polyfilled(
        &self,
        request: &serde_json::Value,
        s: &Settings<'_>,
        on: &Polyfills,
        out: &mut String,
    ) -> Result<Vec<(usize, usize)>, chatcodec::Error> {
        use chatcodec::chat::polyfill::render_with;
        let text = match self {
            Renderer::Plain(t) => {
                let caps = s.caps.get_or_init(|| chatcodec::chat::caps::probe(t));
                render_with(request, caps, on, |r| chatcodec::chat::render_request(t, r))?
            }
            Renderer::Model(model, cache) => {
                let pos = Self::cached(model, cache, request, s)?;
                let cache = cache.borrow();
                let t = &cache[pos];
                render_with(request, t.caps(), on, |r| t.apply(r))?
            }
        };
        out.push_str(&text);
        Ok(Vec::new())
    }

    /// The position in `cache` of the model template `request` selects, compiled on first use.
    fn cached(
        model: &ModelTemplates,
        cache: &std::cell::RefCell<Vec<ChatTemplate>>,
        request: &serde_json::Value,
        s: &Settings<'_>,
    ) -> Result<usize, chatcodec::Error> {
        let has_tools = request.get("tools").is_some_and(|t| !t.is_null());
        let name = model.select_name(s.name, has_tools)?.to_string();
        let mut cache = cache.borrow_mut();
        if let Some(p) = cache.iter().position(|c| c.name() == name) {
            return Ok(p);
        }
        let mut t = model.select(Some(&name), has_tools)?;
        if let Some(now) = s.now {
            t.template_mut().options_mut().clock = Clock::Fixed(DateTime::parse(now)?);
        }
        cache.push(t);
        Ok(cache.len() - 1)
    }
}

fn mask_json(spans: &[(usize, usize)]) -> serde_json::Value {
    spans
        .iter()
        .map(|(a, b)| serde_json::json!([a, b]))
        .collect()
}

fn run_inner(args: Args) -> Result<(), Failure> {
    if args.processor && args.gguf.is_some() {
        return Err((
            INPUT_ERROR,
            "--processor needs --model or --template".into(),
        ));
    }
    let renderer = Renderer::open(&args)?;
    let mut placeholders = chatcodec::chat::media::Placeholders::default();
    for p in &args.media_placeholder {
        placeholders.set_from_arg(p).map_err(failure)?;
    }
    let settings = Settings {
        name: args.template_name.as_deref(),
        now: args.now.as_deref(),
        cont: args.continue_final_message,
        mask: args.assistant_mask,
        validate: args.validate,
        processor: args.processor,
        content_format: args.content_format.as_deref(),
        placeholders,
        polyfill: match &args.polyfill {
            Some(list) => Some(Polyfills::parse(list).map_err(failure)?),
            None => None,
        },
        plain_format: std::cell::OnceCell::new(),
        caps: std::cell::OnceCell::new(),
        mark: args.mark_control_tokens,
        spans: args.control_spans,
    };
    if settings.mark && !matches!(renderer, Renderer::Model(..)) {
        return Err((
            INPUT_ERROR,
            "--mark-control-tokens needs --model (the control tokens are the tokenizer's)".into(),
        ));
    }
    if let Some(spec) = &args.jsonl {
        return batch(&renderer, &settings, spec);
    }
    let mut out = String::new();
    let mut spans = None;
    let mut control = Vec::new();
    let result = match (&args.vars, &args.input) {
        (Some(v), None) => {
            let vars = read_json(v)?;
            if !vars.is_object() {
                return Err((INPUT_ERROR, "--vars must hold a JSON object".into()));
            }
            let Some(template) = renderer.plain() else {
                return Err((INPUT_ERROR, "--vars needs --template".into()));
            };
            template.render_to(&vars, &mut out)
        }
        (None, Some(i)) => {
            let request = read_json(i)?;
            renderer
                .request(request, &settings, &mut out, &mut control)
                .map(|s| spans = Some(s))
        }
        _ => return Err((INPUT_ERROR, "give one of --vars, --input or --jsonl".into())),
    };
    result.map_err(failure)?;
    if let (true, Some(spans)) = (args.assistant_mask, spans) {
        eprintln!("{}", serde_json::json!({ "mask": mask_json(&spans) }));
    }
    if settings.spans {
        let spans: Vec<_> = control
            .iter()
            .map(|(a, b)| serde_json::json!([a, b]))
            .collect();
        out = serde_json::json!({"text": out, "control_spans": spans}).to_string() + "\n";
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(|e| (INPUT_ERROR, format!("cannot write the output: {e}")))
}

fn batch(renderer: &Renderer, settings: &Settings<'_>, spec: &str) -> Result<(), Failure> {
    let reader: Box<dyn BufRead> = if spec == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(spec)
            .map_err(|e| (INPUT_ERROR, format!("cannot read {spec}: {e}")))?;
        Box::new(std::io::BufReader::new(f))
    };
    // The bar's total costs a read of the file: only when the bar is shown.
    let total = if spec != "-" && std::io::stderr().is_terminal() {
        crate::progress::count_lines(spec)
    } else {
        None
    };
    let mut progress = crate::progress::Progress::new(total);
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut text = String::new();
    let mut done = 0usize;
    let mut failed = 0usize;
    let mut raw = Vec::new();
    let mut n = 0usize;
    let mut reader = reader;
    loop {
        raw.clear();
        let read = reader
            .read_until(b'\n', &mut raw)
            .map_err(|e| (INPUT_ERROR, format!("line {}: cannot read: {e}", n + 1)))?;
        if read == 0 {
            break;
        }
        n += 1;
        // A bad line is reported (an error record, and on standard error) and the batch
        // goes on with the next.
        let item = match std::str::from_utf8(&raw) {
            Err(e) => Err(format!(
                "not valid UTF-8: invalid byte at byte offset {} of the line",
                e.valid_up_to()
            )),
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => serde_json::from_str::<serde_json::Value>(line)
                .map_err(|e| format!("not valid JSON: {}", crate::render::json_error(&e, line))),
        };
        let mut item = match item {
            Ok(item) => item,
            Err(msg) => {
                failed += 1;
                done += 1;
                eprintln!("line {n}: {msg}");
                let record = serde_json::json!({"line": n, "ok": false, "error": format!("line {n}: {msg}")});
                write_record(&mut stdout, &record)?;
                continue;
            }
        };
        let id = item.get("id").cloned().unwrap_or(serde_json::Value::Null);
        text.clear();
        let mut control = Vec::new();
        let result = match item.get_mut("input") {
            Some(input) => renderer.request(input.take(), settings, &mut text, &mut control),
            None => Err(chatcodec::Error::new(
                chatcodec::ErrorKind::Input,
                format!("line {n}: no \"input\" object"),
            )),
        };
        let record = match result {
            Ok(spans) => {
                let mut r = serde_json::json!({"id": id, "ok": true, "text": text});
                if settings.mask {
                    r["mask"] = mask_json(&spans);
                }
                if settings.spans {
                    r["control_spans"] = mask_json(&control);
                }
                r
            }
            Err(e) => {
                failed += 1;
                eprintln!("line {n}: {e}");
                serde_json::json!({"id": id, "line": n, "ok": false, "error": e.to_string()})
            }
        };
        write_record(&mut stdout, &record)?;
        done += 1;
        if let Some(p) = progress.as_mut() {
            p.update(done, failed);
        }
    }
    if let Some(p) = progress.as_mut() {
        p.finish(done, failed);
    }
    stdout
        .flush()
        .map_err(|e| (INPUT_ERROR, format!("cannot write the output: {e}")))?;
    if failed > 0 {
        return Err((
            TEMPLATE_ERROR,
            format!("{failed} of {done} lines failed (see their error records)"),
        ));
    }
    Ok(())
}

fn write_record(out: &mut impl Write, record: &serde_json::Value) -> Result<(), Failure> {
    serde_json::to_writer(&mut *out, record)
        .and_then(|_| out.write_all(b"\n").map_err(serde_json::Error::io))
        .map_err(|e| (INPUT_ERROR, format!("cannot write the output: {e}")))
}

/// A JSON parse error, naming a lone surrogate escape as such.
pub(crate) fn json_error(e: &serde_json::Error, text: &str) -> String {
    match lone_surrogate(text) {
        Some((at, esc)) => format!(
            "a lone UTF-16 surrogate escape {esc} at byte offset {at} (U+D800..U+DFFF must \
             come in high-low pairs; a lone one is not a character) ({e})"
        ),
        None => e.to_string(),
    }
}

/// The byte offset and text of the first `\uXXXX` escape of a surrogate that is not part of
/// a high-low pair, in JSON text.
fn lone_surrogate(text: &str) -> Option<(usize, &str)> {
    let b = text.as_bytes();
    let hex = |at: usize| -> Option<u32> {
        let h = text.get(at..at + 4)?;
        u32::from_str_radix(h, 16).ok()
    };
    let mut i = 0;
    while i + 6 <= b.len() {
        if b[i] == b'\\' {
            if b[i + 1] == b'u' {
                if let Some(u) = hex(i + 2) {
                    if (0xD800..0xDC00).contains(&u) {
                        let low = b.get(i + 6) == Some(&b'\\')
                            && b.get(i + 7) == Some(&b'u')
                            && hex(i + 8).is_some_and(|l| (0xDC00..0xE000).contains(&l));
                        if !low {
                            return Some((i, &text[i..i + 6]));
                        }
                        i += 12;
                        continue;
                    }
                    if (0xDC00..0xE000).contains(&u) {
                        return Some((i, &text[i..i + 6]));
                    }
                }
            }
            // Skip the escaped character (an escaped backslash included).
            i += 2;
            continue;
        }
        i += 1;
    }
    None
}
