//! `chatcodec caps`: a template's capabilities (what it shows of a chat request) as one JSON
//! object.

use std::path::PathBuf;

use chatcodec::load::ModelTemplates;
use chatcodec::Template;

/// Arguments of `chatcodec caps`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["template", "model", "gguf"])))]
pub(crate) struct Args {
    /// The template file (Jinja source), probed as transformers' `render_jinja_template`
    /// renders it (no special tokens).
    #[arg(long)]
    template: Option<PathBuf>,
    /// A Hugging Face model folder: its template probed with its special tokens, as
    /// `apply_chat_template` renders it.
    #[arg(long)]
    model: Option<PathBuf>,
    /// A GGUF file: the template and special tokens in its metadata.
    #[arg(long)]
    gguf: Option<PathBuf>,
    /// Which of the model's named templates to probe (default: `default`).
    #[arg(long)]
    template_name: Option<String>,
}

/// Runs `chatcodec caps`; returns the exit status.
pub(crate) fn run(args: Args) -> i32 {
    match caps(&args) {
        Ok(json) => {
            println!("{json}");
            0
        }
        Err((code, msg)) => {
            eprintln!("error: {msg}");
            code
        }
    }
}

fn caps(args: &Args) -> Result<String, (i32, String)> {
    let caps = if let Some(path) = &args.template {
        let source = std::fs::read_to_string(path)
            .map_err(|e| (2, format!("cannot read template {}: {e}", path.display())))?;
        let t = Template::new(&source).map_err(|e| (1, format!("{}: {e:#}", path.display())))?;
        chatcodec::chat::caps::probe(&t)
    } else {
        let model = match (&args.model, &args.gguf) {
            (Some(dir), _) => ModelTemplates::from_model_dir(dir),
            (None, Some(file)) => ModelTemplates::from_gguf(file),
            (None, None) => return Err((2, "give --template, --model or --gguf".into())),
        }
        .map_err(|e| (2, e.to_string()))?;
        let t = model
            .select(args.template_name.as_deref(), false)
            .map_err(|e| (1, format!("{e:#}")))?;
        t.caps().clone()
    };
    serde_json::to_string_pretty(&caps.to_json()).map_err(|e| (1, e.to_string()))
}
