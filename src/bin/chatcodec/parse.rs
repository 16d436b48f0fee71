//! `chatcodec parse`: model output on stdin → the final assistant message, or a stream of
//! OpenAI `choices[0].delta` objects (one per line) ending with `{"message": …}`.

use chatcodec::output::{delta, Format, Options, ParserChoice, Reasoning, StreamParser};
use std::io::{Read, Write};

/// Arguments of `chatcodec parse`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The output format, by name (see --list-formats).
    #[arg(
        long,
        required_unless_present_any = ["list_formats", "tool_call_parser", "reasoning_parser", "grammar", "template", "model", "gguf"],
        conflicts_with_all = ["tool_call_parser", "reasoning_parser", "grammar"]
    )]
    format: Option<String>,
    /// A vLLM (or SGLang) tool-call parser name, as given to vLLM's `--tool-call-parser`:
    /// the format it names, with vLLM's meaning (no reasoning unless --reasoning-parser is
    /// given too; calls to tools not in --tools stay calls unless --strict-tools).
    #[arg(long, value_name = "NAME")]
    tool_call_parser: Option<String>,
    /// A vLLM (or SGLang) reasoning parser name, as given to vLLM's `--reasoning-parser`.
    #[arg(long, value_name = "NAME")]
    reasoning_parser: Option<String>,
    /// With parser names: a call to a tool not in --tools becomes content (the default
    /// with --format).
    #[arg(long)]
    strict_tools: bool,
    /// A format defined by a grammar file (the language of grammar/*.peg; see
    /// docs/formats.md, "User-defined formats").
    #[arg(long, value_name = "FILE.peg", conflicts_with_all = ["tool_call_parser", "reasoning_parser"])]
    grammar: Option<std::path::PathBuf>,
    /// Derive the format from a chat template (--template, --model or --gguf) instead of
    /// naming it: the hand-written format the analysis names, else a parser built from the
    /// derived spec. The spec's reasoning mode is the default.
    #[command(flatten)]
    source: crate::analyze::Source,
    /// The prompt already opened the reasoning block (e.g. ends with `<think>`); with parser
    /// names, also thinking on for those that follow the request's switch (`deepseek_v3`).
    #[arg(long)]
    forced_open: bool,
    /// The prompt closed reasoning (thinking disabled): the output has none; with parser
    /// names, also thinking off for those that follow the request's switch (`holo2`).
    #[arg(long, conflicts_with = "forced_open")]
    forced_closed: bool,
    /// Print one delta per line, then `{"message": …}`.
    #[arg(long)]
    stream: bool,
    /// With --stream: bytes per chunk fed to the parser (chunks may split markers and UTF-8).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..))]
    chunk_bytes: u64,
    /// Seed of generated tool call ids, for reproducible ids; without it every run draws
    /// fresh random ids, as servers do.
    #[arg(long)]
    id_seed: Option<u64>,
    /// A JSON file with the request's OpenAI `tools` array: a call to a name not in it is
    /// reported as malformed and kept as content. Without it, any name is accepted. Its
    /// parameter schemas type the values of tagged (XML-style) parameters.
    #[arg(long, value_name = "FILE")]
    tools: Option<std::path::PathBuf>,
    /// List the format names and exit.
    #[arg(long)]
    list_formats: bool,
}

/// Runs `chatcodec parse`; returns the exit status.
pub(crate) fn run(args: Args) -> i32 {
    let mut out = std::io::stdout().lock();
    if args.list_formats {
        for (name, about) in Format::names() {
            let _ = writeln!(out, "{name:<16} {about}");
            let aliases = Format::aliases(name);
            if !aliases.is_empty() {
                let _ = writeln!(out, "{:<16} aliases: {}", "", aliases.join(", "));
            }
        }
        return 0;
    }
    let choice = match select(&args) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let tools = match &args.tools {
        None => None,
        Some(path) => match read_tools(path) {
            Ok(tools) => Some(tools),
            Err(e) => {
                eprintln!("error: --tools {}: {e}", path.display());
                return 2;
            }
        },
    };
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().lock().read_to_end(&mut input) {
        eprintln!("error: reading stdin: {e}");
        return 1;
    }
    let seed = args
        .id_seed
        .unwrap_or_else(chatcodec::output::random_id_seed);
    let mut options = Options::for_choice(&choice, tools, seed);
    if args.forced_open {
        options.reasoning = Reasoning::ForcedOpen;
    } else if args.forced_closed {
        options.reasoning = Reasoning::ForcedClosed;
    }
    if args.strict_tools {
        options.keep_unknown_tools = false;
    }
    let mut parser = StreamParser::with_options(&choice.format, options);
    if !args.stream {
        parser.feed_bytes(&input);
        parser.finish();
        let _ = writeln!(out, "{}", parser.message().to_json());
        return 0;
    }
    let n = usize::try_from(args.chunk_bytes).unwrap_or(usize::MAX);
    let write_events = |events: Vec<chatcodec::output::Event>, out: &mut dyn Write| {
        for e in &events {
            if let Some(d) = delta(e) {
                let _ = writeln!(out, "{d}");
            }
        }
    };
    for chunk in input.chunks(n) {
        let events = parser.feed_bytes(chunk);
        write_events(events, &mut out);
    }
    let events = parser.finish();
    write_events(events, &mut out);
    let _ = writeln!(
        out,
        "{}",
        serde_json::json!({"message": parser.message().to_json()})
    );
    0
}

/// The format the arguments select, with the reasoning mode and call rules it implies.
fn select(args: &Args) -> Result<ParserChoice, String> {
    if let Some(path) = &args.grammar {
        let src = std::fs::read_to_string(path)
            .map_err(|e| format!("--grammar {}: {e}", path.display()))?;
        let name = path
            .file_stem()
            .map_or_else(|| "user".to_string(), |s| s.to_string_lossy().into_owned());
        let f = Format::from_grammar(&name, &src)
            .map_err(|e| format!("--grammar {}: {e}", path.display()))?;
        return Ok(ParserChoice::of(f));
    }
    if args.tool_call_parser.is_some() || args.reasoning_parser.is_some() {
        // The prompt's reasoning state stands for the request's thinking switch.
        let thinking = match (args.forced_open, args.forced_closed) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        };
        return Format::by_parsers_thinking(
            args.tool_call_parser.as_deref(),
            args.reasoning_parser.as_deref(),
            thinking,
        )
        .map_err(|e| e.to_string());
    }
    if args.format.is_none() && args.source.given() {
        let (spec, _) = args.source.spec().map_err(|e| e.to_string())?;
        let reasoning = match spec.reasoning.mode {
            chatcodec::output::ReasoningMode::ForcedOpen => Reasoning::ForcedOpen,
            chatcodec::output::ReasoningMode::ForcedClosed => Reasoning::ForcedClosed,
            _ => Reasoning::Auto,
        };
        let f = Format::for_spec(&spec).map_err(|e| e.to_string())?;
        return Ok(ParserChoice {
            reasoning,
            ..ParserChoice::of(f)
        });
    }
    let name = args.format.clone().unwrap_or_default();
    let f = Format::by_name(&name).map_err(|e| e.to_string())?;
    Ok(ParserChoice::of(f))
}

/// The OpenAI `tools` JSON array in `path`.
fn read_tools(path: &std::path::Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if !value.is_array() {
        return Err("expected a JSON array of tools".into());
    }
    Ok(value)
}
