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
    /// Check the history's tool-call sequencing before rendering.
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
    let source = std::fs::read_to_string(path).map_err(|e| {
        (
            INPUT_ERROR,
            format!("cannot read template {}: {e}", path.display()),
        )
    })?;
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
    /// The plain template's capabilities, probed on first use.
    caps: std::cell::OnceCell<Caps>,
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
                ("auto", Renderer::Plain(t)) => media::ContentFormat::detect(t),
                ("auto", Renderer::Model(model, _)) => {
                    let has_tools = request.get("tools").is_some_and(|t| !t.is_null());
                    let chosen = model.select(s.name, has_tools)?;
                    media::ContentFormat::detect(chosen.template())
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
                chatcodec::chat::validate::validate_history(m)?;
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
                cache[pos].apply_to(request, s.mask, out)
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
        caps: std::cell::OnceCell::new(),
    };
    if let Some(spec) = &args.jsonl {
        return batch(&renderer, &settings, spec);
    }
    let mut out = String::new();
    let mut spans = None;
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
                .request(request, &settings, &mut out)
                .map(|s| spans = Some(s))
        }
        _ => return Err((INPUT_ERROR, "give one of --vars, --input or --jsonl".into())),
    };
    result.map_err(failure)?;
    if let (true, Some(spans)) = (args.assistant_mask, spans) {
        eprintln!("{}", serde_json::json!({ "mask": mask_json(&spans) }));
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
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| (INPUT_ERROR, format!("line {}: cannot read: {e}", n + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let mut item: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| (INPUT_ERROR, format!("line {}: not valid JSON: {e}", n + 1)))?;
        let id = item.get("id").cloned().unwrap_or(serde_json::Value::Null);
        text.clear();
        let result = match item.get_mut("input") {
            Some(input) => renderer.request(input.take(), settings, &mut text),
            None => Err(chatcodec::Error::new(
                chatcodec::ErrorKind::Input,
                format!("line {}: no \"input\" object", n + 1),
            )),
        };
        let record = match result {
            Ok(spans) if settings.mask => {
                serde_json::json!({"id": id, "ok": true, "text": text, "mask": mask_json(&spans)})
            }
            Ok(_) => serde_json::json!({"id": id, "ok": true, "text": text}),
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
        if let Some(p) = progress.as_mut() {
            p.update(done, failed);
        }
    }
    if let Some(p) = progress.as_mut() {
        p.finish(done, failed);
    }
    stdout
        .flush()
        .map_err(|e| (INPUT_ERROR, format!("cannot write the output: {e}")))
}
