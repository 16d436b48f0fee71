//! Loading a model's chat templates: a Hugging Face model folder, a GGUF file or a plain
//! `.jinja` file, with the special tokens the template is rendered with and the model's family.
//! A model that ships no template gets the built-in template of its family.
//!
//! ```no_run
//! let model = chatcodec::load::ModelTemplates::from_model_dir("models/Qwen3-8B".as_ref())?;
//! let request = serde_json::json!({"messages": [{"role": "user", "content": "Hi"}]});
//! let prompt = model.select(None, false)?.apply(&request)?;
//! # Ok::<(), chatcodec::Error>(())
//! ```

use std::path::Path;

use serde_json::{Map, Value};

use crate::chat::control::AddedToken;
use crate::chat::{ChatTemplate, Family};
use crate::error::{err, Error};

pub(crate) mod gguf;
pub(crate) mod hf;

/// The chat templates of one model, its special tokens and its family.
#[derive(Debug, Clone)]
pub struct ModelTemplates {
    templates: Vec<(String, String)>,
    special_tokens: Map<String, Value>,
    family: Family,
    origin: String,
    builtin: bool,
    added_tokens: Vec<AddedToken>,
    chat_control_tokens: Option<Vec<String>>,
}

impl ModelTemplates {
    /// Reads a Hugging Face model folder (see the `hf` loader for which files count).
    pub fn from_model_dir(dir: &Path) -> Result<ModelTemplates, Error> {
        let folder = hf::read_folder(dir)?;
        let hint = folder
            .model_type
            .as_deref()
            .and_then(Family::from_architecture);
        let tokens = folder.special_tokens.clone();
        let vocab_family = Family::from_markers(|m| tokens.values().any(|v| v.as_str() == Some(m)));
        let mut model = ModelTemplates::build(
            folder.templates,
            folder.special_tokens,
            hint.unwrap_or(vocab_family),
            format!("{} ({})", dir.display(), folder.origin),
        );
        model.added_tokens = folder.added_tokens;
        model.chat_control_tokens = folder.chat_control_tokens;
        Ok(model)
    }

    /// The tokenizer's added tokens, in id order (model folders; empty for GGUF files and
    /// template files).
    pub fn added_tokens(&self) -> &[AddedToken] {
        &self.added_tokens
    }

    /// The control tokens of template `name`, as transformers'
    /// `apply_chat_template(..., sanitize_control_tokens=True)` finds them (see
    /// [`crate::chat::control`]).
    pub fn control_tokens(&self, name: &str) -> Result<Vec<String>, Error> {
        let source = self
            .source(name)
            .ok_or_else(|| err!(Input, "no chat template named '{name}'"))?;
        crate::chat::control::control_tokens(
            &self.added_tokens,
            self.chat_control_tokens.as_deref(),
            source,
        )
    }

    /// Reads the metadata of a GGUF file (streamed; tensor data is never read).
    pub fn from_gguf(path: &Path) -> Result<ModelTemplates, Error> {
        let meta = gguf::read_file(path)?;
        Ok(ModelTemplates::from_gguf_meta(
            meta,
            &path.display().to_string(),
        ))
    }

    /// Reads GGUF metadata from `bytes` (the start of a GGUF file; tensor data is not needed).
    pub fn from_gguf_bytes(bytes: &[u8]) -> Result<ModelTemplates, Error> {
        let meta = gguf::read(bytes)?;
        Ok(ModelTemplates::from_gguf_meta(meta, "GGUF bytes"))
    }

    fn from_gguf_meta(meta: gguf::GgufMeta, origin: &str) -> ModelTemplates {
        let mut templates = Vec::new();
        if let Some(t) = meta.chat_template {
            templates.push(("default".to_string(), t));
        }
        templates.extend(meta.named_templates);
        let vocab_family = Family::from_markers(|m| meta.token_markers.iter().any(|t| t == m));
        let hint = meta
            .architecture
            .as_deref()
            .and_then(Family::from_architecture);
        let family = match (hint, vocab_family) {
            (Some(Family::ChatMl), Family::Qwen3) => Family::Qwen3,
            (Some(f), _) => f,
            (None, f) => f,
        };
        let tokens = meta
            .special_tokens
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        ModelTemplates::build(
            templates,
            tokens,
            family,
            format!("{origin} (GGUF metadata)"),
        )
    }

    /// Reads a plain Jinja template file (named `default`, no special tokens).
    pub fn from_template_file(path: &Path) -> Result<ModelTemplates, Error> {
        let source = std::fs::read_to_string(path)
            .map_err(|e| err!(Input, "cannot read template {}: {e}", path.display()))?;
        Ok(ModelTemplates::build(
            vec![("default".to_string(), source)],
            Map::new(),
            Family::Generic,
            path.display().to_string(),
        ))
    }

    /// A set of named templates with special tokens; with no template, the built-in one of
    /// `family` (`fallback`) is used.
    fn build(
        templates: Vec<(String, String)>,
        special_tokens: Map<String, Value>,
        fallback: Family,
        origin: String,
    ) -> ModelTemplates {
        if templates.is_empty() {
            return ModelTemplates {
                templates: vec![(
                    "default".to_string(),
                    fallback.builtin_template().to_string(),
                )],
                special_tokens,
                family: fallback,
                origin: format!(
                    "built-in {} template (the model ships none)",
                    fallback.name()
                ),
                builtin: true,
                added_tokens: Vec::new(),
                chat_control_tokens: None,
            };
        }
        let family = templates
            .iter()
            .find(|(n, _)| n == "default")
            .or(templates.first())
            .map_or(fallback, |(_, t)| Family::detect(t));
        ModelTemplates {
            templates,
            special_tokens,
            family,
            origin,
            builtin: false,
            added_tokens: Vec::new(),
            chat_control_tokens: None,
        }
    }

    /// The template names, in the order found.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.templates.iter().map(|(n, _)| n.as_str())
    }

    /// The source of the template called `name`.
    pub fn source(&self, name: &str) -> Option<&str> {
        self.templates
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }

    /// The special tokens (template kwargs).
    pub fn special_tokens(&self) -> &Map<String, Value> {
        &self.special_tokens
    }

    /// The model's family (from its template, else its architecture or vocabulary).
    pub fn family(&self) -> Family {
        self.family
    }

    /// Where the templates came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether the template is one of chatcodec's built-ins (the model ships none).
    pub fn is_builtin(&self) -> bool {
        self.builtin
    }

    /// The name of the template transformers' `get_chat_template` picks: `name` if given,
    /// else `tool_use` when tools are given and it exists, else `default`.
    pub fn select_name(&self, name: Option<&str>, has_tools: bool) -> Result<&str, Error> {
        let available = || {
            let mut names: Vec<&str> = self.names().collect();
            names.sort_unstable();
            names.join(", ")
        };
        if let Some(name) = name {
            return self
                .templates
                .iter()
                .find(|(n, _)| n == name)
                .map(|(n, _)| n.as_str())
                .ok_or_else(|| {
                    err!(
                        Input,
                        "the model has no chat template named '{name}' (available: {})",
                        available()
                    )
                });
        }
        let pick = |n: &str| {
            self.templates
                .iter()
                .find(|(t, _)| t == n)
                .map(|(t, _)| t.as_str())
        };
        let chosen = if has_tools { pick("tool_use") } else { None };
        chosen.or_else(|| pick("default")).ok_or_else(|| {
            err!(
                Input,
                "This model has multiple chat templates with no default specified! Pass the name of the template to use. Available template names are {}.",
                available()
            )
        })
    }

    /// Compiles the selected template (see [`ModelTemplates::select_name`]).
    pub fn select(&self, name: Option<&str>, has_tools: bool) -> Result<ChatTemplate, Error> {
        let name = self.select_name(name, has_tools)?;
        let source = self.source(name).unwrap_or_default();
        ChatTemplate::new(name, source, self.special_tokens.clone())
    }
}
