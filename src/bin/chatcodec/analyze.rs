//! `chatcodec analyze`: a template's output format (FormatSpec) as JSON, derived by rendering
//! probe conversations and comparing them.

use chatcodec::load::ModelTemplates;
use chatcodec::output::analyze::{analyze_with_cases, apply_response_template, spec_grammar, Case};
use chatcodec::output::FormatSpec;
use std::io::Write;
use std::path::PathBuf;

/// Where a chat template comes from.
#[derive(clap::Args, Clone)]
#[group(required = false, multiple = false)]
pub(crate) struct Source {
    /// A Jinja chat template file.
    #[arg(long, value_name = "FILE")]
    pub(crate) template: Option<PathBuf>,
    /// A Hugging Face model folder (chat_template.jinja, tokenizer_config.json, ...).
    #[arg(long, value_name = "DIR")]
    pub(crate) model: Option<PathBuf>,
    /// A GGUF file (its metadata's chat template and special tokens).
    #[arg(long, value_name = "FILE")]
    pub(crate) gguf: Option<PathBuf>,
    /// The template name, when the model has several (default: `tool_use` if present, else
    /// `default`).
    #[arg(long, value_name = "NAME")]
    pub(crate) template_name: Option<String>,
}

impl Source {
    /// Whether a template source was given.
    pub(crate) fn given(&self) -> bool {
        self.template.is_some() || self.model.is_some() || self.gguf.is_some()
    }

    /// The chat template's derived output format: analysis, with the markers of the model's
    /// `response_template` (tokenizer_config.json) over it when it has one.
    pub(crate) fn spec(&self) -> Result<(FormatSpec, Vec<Case>), String> {
        let model = self.model()?;
        let template = model
            .select(self.template_name.as_deref(), true)
            .map_err(|e| e.to_string())?;
        let mut analysis = analyze_with_cases(&template);
        if let Some((key, rt)) = model.response_template() {
            apply_response_template(&mut analysis.spec, key, rt);
        }
        Ok((analysis.spec, analysis.cases))
    }

    fn model(&self) -> Result<ModelTemplates, String> {
        if let Some(p) = &self.template {
            ModelTemplates::from_template_file(p)
        } else if let Some(p) = &self.model {
            ModelTemplates::from_model_dir(p)
        } else if let Some(p) = &self.gguf {
            ModelTemplates::from_gguf(p)
        } else {
            return Err("give --template, --model or --gguf".into());
        }
        .map_err(|e| e.to_string())
    }
}

/// Arguments of `chatcodec analyze`.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    source: Source,
    /// Also print the probe turns the spec was checked on.
    #[arg(long)]
    cases: bool,
    /// Print the PEG grammar of the parser built from the spec instead of the spec.
    #[arg(long)]
    peg: bool,
}

/// Runs `chatcodec analyze`; returns the exit status.
pub(crate) fn run(args: Args) -> i32 {
    let analysis = match args.source.spec() {
        Ok((spec, cases)) => chatcodec::output::analyze::Analysis { spec, cases },
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut out = std::io::stdout().lock();
    if args.peg {
        return match spec_grammar(&analysis.spec) {
            Ok(g) => {
                let _ = write!(out, "{g}");
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
    }
    let mut v = serde_json::to_value(&analysis.spec).unwrap_or_default();
    if args.cases {
        let cases: Vec<_> = analysis
            .cases
            .iter()
            .map(|c| serde_json::json!({"text": c.text, "reasoning": c.reasoning, "content": c.content,
                "calls": c.calls.iter().map(|(n, a)| serde_json::json!({"name": n, "arguments": a})).collect::<Vec<_>>()}))
            .collect();
        v["cases"] = serde_json::Value::Array(cases);
    }
    let _ = writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(&v).unwrap_or_default()
    );
    0
}
