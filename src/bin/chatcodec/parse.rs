//! `chatcodec parse`.

/// Arguments of `chatcodec parse`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The output format, by name.
    #[arg(long)]
    format: Option<String>,
}

/// Runs `chatcodec parse`; returns the exit status.
pub(crate) fn run(args: Args) -> i32 {
    let _ = args.format;
    eprintln!("error: parse is not available yet");
    2
}
