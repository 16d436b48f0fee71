//! `chatcodec show`: which chat templates, special tokens, family and output format (the
//! `parse --format` name) a model has.

use std::path::PathBuf;

use chatcodec::load::ModelTemplates;

/// Arguments of `chatcodec show`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["model", "gguf"])))]
pub(crate) struct Args {
    /// A Hugging Face model folder.
    #[arg(long)]
    model: Option<PathBuf>,
    /// A GGUF file.
    #[arg(long)]
    gguf: Option<PathBuf>,
}

/// Runs `chatcodec show`; returns the exit status.
pub(crate) fn run(args: Args) -> i32 {
    let loaded = match (&args.model, &args.gguf) {
        (Some(dir), _) => ModelTemplates::from_model_dir(dir),
        (None, Some(file)) => ModelTemplates::from_gguf(file),
        (None, None) => {
            eprintln!("error: give --model or --gguf");
            return 2;
        }
    };
    let model = match loaded {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    println!("source: {}", model.origin());
    println!("family: {}", model.family().name());
    println!("builtin: {}", model.is_builtin());
    // The `parse --format` name of the model's output, from its default (or first) template.
    let source = model
        .source("default")
        .or_else(|| model.names().next().and_then(|n| model.source(n)));
    match source.and_then(chatcodec::output::Format::for_template) {
        Some(f) => println!(
            "format: {} (chatcodec parse --format {})",
            f.name(),
            f.name()
        ),
        None => println!("format: unknown (no tool-call or reasoning markers in the template)"),
    }
    for name in model.names() {
        let len = model.source(name).map_or(0, str::len);
        println!("template: {name} ({len} bytes)");
    }
    for (k, v) in model.special_tokens() {
        println!("token: {k} = {v}");
    }
    if let Ok(t) = model.select(None, false) {
        let format = t.content_format();
        println!("content format: {}", format.name());
    }
    if let (Some(marker), Some(dir)) = (model.processor_marker(), &args.model) {
        println!("processor: yes ({marker})");
        match ModelTemplates::from_processor_dir(dir) {
            Ok(p) => {
                println!("processor source: {}", p.origin());
                for name in p.names() {
                    let len = p.source(name).map_or(0, str::len);
                    println!("processor template: {name} ({len} bytes)");
                }
                if let Ok(t) = p.select(None, false) {
                    let format = t.content_format();
                    println!("processor content format: {}", format.name());
                }
            }
            Err(e) => println!("processor error: {e}"),
        }
    }
    let placeholders = model.placeholders();
    for m in chatcodec::chat::media::Modality::ALL {
        if let Some(p) = placeholders.get(m) {
            println!("placeholder: {} = {p}", m.name());
        }
    }
    0
}
