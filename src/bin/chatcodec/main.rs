//! The `chatcodec` command line: render prompts, parse model output.

mod analyze;
mod caps;
mod grammar;
mod parse;
mod progress;
mod render;
mod show;

use clap::{Parser, Subcommand};

/// chatcodec: byte-exact chat templates and streaming output parsing.
#[derive(Parser)]
#[command(name = "chatcodec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Render a template with variables, or a chat request the way transformers does.
    Render(render::Args),
    /// Parse model output (stdin) into an assistant message or a stream of deltas.
    Parse(parse::Args),
    /// Print a chat template's capabilities (what it shows of a request) as one JSON object.
    Caps(caps::Args),
    /// Print a grammar that constrains a format's output to the request's tools.
    Grammar(grammar::Args),
    /// Derive a template's output format (markers, call syntax) as FormatSpec JSON.
    Analyze(analyze::Args),
    /// Show which chat templates, special tokens and family a model folder or GGUF file has.
    Show(show::Args),
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Render(args) => render::run(args),
        Command::Parse(args) => parse::run(args),
        Command::Show(args) => show::run(args),
        Command::Caps(args) => caps::run(args),
        Command::Grammar(args) => grammar::run(args),
        Command::Analyze(args) => analyze::run(args),
    };
    std::process::exit(code);
}
