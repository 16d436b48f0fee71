//! `chatcodec render`.

/// Arguments of `chatcodec render`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The template file.
    #[arg(long)]
    template: std::path::PathBuf,
}

/// Runs `chatcodec render`; returns the exit status.
pub(crate) fn run(args: Args) -> i32 {
    let _ = args.template;
    eprintln!("error: render is not available yet");
    2
}
