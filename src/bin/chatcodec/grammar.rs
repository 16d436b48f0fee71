//! `chatcodec grammar`: the grammar that constrains a format's output to the request's tools
//! (GBNF, Lark or an xgrammar structural tag); with --lazy, a JSON object with the triggers.

use chatcodec::output::grammar::{self, GrammarOptions, Syntax, ToolChoice};
use chatcodec::output::Format;
use std::io::Write;

/// Arguments of `chatcodec grammar`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// A chat template file, analyzed for its output format.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "format",
        conflicts_with = "format"
    )]
    template: Option<std::path::PathBuf>,
    /// A hand-written output format, by name (see `parse --list-formats`).
    #[arg(long)]
    format: Option<String>,
    /// A JSON file with the request's OpenAI `tools` array.
    #[arg(long, value_name = "FILE")]
    tools: std::path::PathBuf,
    /// The grammar syntax: gbnf, lark or structural-tag.
    #[arg(long, default_value = "gbnf", value_parser = ["gbnf", "lark", "structural-tag"])]
    syntax: String,
    /// Constrain the calls only, from a trigger on; prints {"grammar", "triggers"}.
    #[arg(long)]
    lazy: bool,
    /// auto, required (at least one call) or none (no calls).
    #[arg(long, default_value = "auto", value_parser = ["auto", "required", "none"])]
    tool_choice: String,
    /// At most one call.
    #[arg(long)]
    no_parallel: bool,
    /// The prompt already opened the reasoning block (e.g. ends with `<think>`).
    #[arg(long)]
    forced_open: bool,
    /// The prompt already wrote the format's prompt prefix (functionary v3.2's `>>>`): the
    /// grammar starts after it.
    #[arg(long)]
    after_prompt_prefix: bool,
}

/// Runs `chatcodec grammar`; returns the exit status.
pub(crate) fn run(args: Args) -> i32 {
    // With --template, the start of the output the template's own generation prompt writes.
    let mut template_prefix = None;
    let spec = match (&args.format, &args.template) {
        (Some(name), _) => match Format::by_name(name) {
            Ok(f) => f.spec(),
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        },
        (None, Some(path)) => {
            // The template's derived format: the hand-written format's spec when analysis
            // names one, else the spec analysis derived.
            let derived = chatcodec::load::ModelTemplates::from_template_file(path)
                .and_then(|m| m.select(None, true))
                .map(|t| chatcodec::output::analyze::analyze(&t));
            match derived {
                Ok(spec) => {
                    template_prefix = spec.prompt_prefix.clone();
                    let mut used = match spec.format.as_deref().map(Format::by_name) {
                        Some(Ok(f)) => f.spec(),
                        _ => spec,
                    };
                    used.prompt_prefix = template_prefix.clone();
                    used
                }
                Err(e) => {
                    eprintln!("error: --template {}: {e}", path.display());
                    return 2;
                }
            }
        }
        (None, None) => return 2,
    };
    let tools = std::fs::read_to_string(&args.tools)
        .map_err(|e| e.to_string())
        .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).map_err(|e| e.to_string()))
        .and_then(|v| grammar::tools_from_json(&v).map_err(|e| e.to_string()));
    let tools = match tools {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: --tools {}: {e}", args.tools.display());
            return 2;
        }
    };
    let opts = GrammarOptions {
        syntax: match args.syntax.as_str() {
            "lark" => Syntax::Lark,
            "structural-tag" => Syntax::StructuralTag,
            _ => Syntax::Gbnf,
        },
        lazy: args.lazy,
        tool_choice: match args.tool_choice.as_str() {
            "required" => ToolChoice::Required,
            "none" => ToolChoice::None,
            _ => ToolChoice::Auto,
        },
        parallel: !args.no_parallel,
        forced_open: args.forced_open,
        after_prompt_prefix: args.after_prompt_prefix || template_prefix.is_some(),
    };
    let mut result = grammar::export(&spec, &tools, &opts);
    if let Some(p) = &template_prefix {
        if result.is_ok() {
            eprintln!("note: the template's generation prompt ends with {p:?}: the grammar starts after it");
        } else if !args.after_prompt_prefix {
            // The prefix starts neither the content nor a call: a whole turn follows it.
            let whole = GrammarOptions {
                after_prompt_prefix: false,
                ..opts
            };
            result = grammar::export(&spec, &tools, &whole);
        }
    }
    match result {
        Ok(g) => {
            for n in &g.notes {
                eprintln!("note: {n}");
            }
            let mut out = std::io::stdout().lock();
            let text = if args.lazy { g.to_json() } else { g.grammar };
            let _ = writeln!(out, "{}", text.trim_end());
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
