//! The `chatcodec` command line: render prompts, parse model output.

mod parse;
mod render;

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
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Render(args) => render::run(args),
        Command::Parse(args) => parse::run(args),
    };
    std::process::exit(code);
}
