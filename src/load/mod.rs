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
mod gguf_tokens;
pub(crate) mod hf;

/// The chat templates of one model, its special tokens and its family.
#[derive(Debug, Clone)]
pub struct ModelTemplates {
    templates: Vec<(String, String)>,
    special_tokens: Map<String, Value>,
    family: Family,
    origin: String,
    builtin: bool,
    /// The file that makes the folder a processor folder, if it is one.
    processor_marker: Option<&'static str>,
    /// Whether the templates are the processor's (chosen as `ProcessorMixin` chooses them).
    processor_path: bool,
    /// Media placeholder tokens of `processor_config.json`.
    media_tokens: Map<String, Value>,
    response_template: Option<(String, Value)>,
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
        let processor = hf::read_processor(dir)?;
        let mut model = ModelTemplates::build(
            folder.templates,
            folder.special_tokens,
            hint.unwrap_or(vocab_family),
            format!("{} ({})", dir.display(), folder.origin),
        );
        model.processor_marker = processor.marker;
        model.media_tokens = processor.media_tokens;
        model.response_template = folder.response_template;
        model.added_tokens = folder.added_tokens;
        model.chat_control_tokens = folder.chat_control_tokens;
        Ok(model)
    }

    /// Reads a model folder as transformers' processors read it
    /// (`AutoProcessor.from_pretrained(dir).apply_chat_template`): the processor's own
    /// templates (the legacy `chat_template.json`, else `chat_template.jinja` and
    /// `additional_chat_templates/`, else a `chat_template` in `processor_config.json`), with
    /// the tokenizer's special tokens. A processor without a template is an error when a
    /// template is selected, as it is in transformers.
    pub fn from_processor_dir(dir: &Path) -> Result<ModelTemplates, Error> {
        let mut model = ModelTemplates::from_model_dir(dir)?;
        let processor = hf::read_processor(dir)?;
        model.family = processor
            .templates
            .iter()
            .find(|(n, _)| n == "default")
            .or(processor.templates.first())
            .map_or(model.family, |(_, t)| Family::detect(t));
        model.origin = format!(
            "{} (processor: {})",
            dir.display(),
            if processor.origin.is_empty() {
                "no chat template"
            } else {
                &processor.origin
            }
        );
        model.templates = processor.templates;
        model.builtin = false;
        model.processor_path = true;
        Ok(model)
    }

    /// The tokenizer's added tokens, in id order (model folders, and GGUF files as
    /// transformers builds their tokenizer; empty for template files).
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
        let mut model = ModelTemplates::build(
            templates,
            tokens,
            family,
            format!("{origin} (GGUF metadata)"),
        );
        model.added_tokens = meta.added_tokens;
        model
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
                processor_marker: None,
                processor_path: false,
                media_tokens: Map::new(),
                response_template: None,
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
            processor_marker: None,
            processor_path: false,
            media_tokens: Map::new(),
            response_template: None,
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

    /// `tokenizer_config.json`'s output description, as (key, value): `response_template`
    /// (transformers' declarative response parser) or the legacy `response_schema`.
    pub fn response_template(&self) -> Option<(&str, &Value)> {
        self.response_template
            .as_ref()
            .map(|(k, v)| (k.as_str(), v))
    }

    /// Whether the template is one of chatcodec's built-ins (the model ships none).
    pub fn is_builtin(&self) -> bool {
        self.builtin
    }

    /// The file that makes the folder a processor folder (`processor_config.json`,
    /// `preprocessor_config.json`, `video_preprocessor_config.json`, `chat_template.json`),
    /// if it is one.
    pub fn processor_marker(&self) -> Option<&str> {
        self.processor_marker
    }

    /// Whether these are a processor's templates ([`ModelTemplates::from_processor_dir`]).
    pub fn is_processor(&self) -> bool {
        self.processor_path
    }

    /// The media placeholders the model names: `image_token`, `audio_token`, `video_token`
    /// of `processor_config.json`, else of the tokenizer's special tokens.
    pub fn placeholders(&self) -> crate::chat::media::Placeholders {
        let mut tokens = self.special_tokens.clone();
        for (k, v) in &self.media_tokens {
            tokens.insert(k.clone(), v.clone());
        }
        crate::chat::media::Placeholders::from_special_tokens(&tokens)
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
        if self.processor_path {
            // `ProcessorMixin._resolve_chat_template`: the default, whatever the tools.
            return match self.templates.len() {
                0 => Err(err!(
                    Value,
                    "Cannot use apply_chat_template because this processor does not have a chat template."
                )),
                _ => self
                    .templates
                    .iter()
                    .find(|(n, _)| n == "default")
                    .map(|(n, _)| n.as_str())
                    .ok_or_else(|| err!(
                        Value,
                        "The processor has multiple chat templates but none of them are named \"default\". You need to specify which one to use by passing the `chat_template` argument. Available templates are: {}",
                        self.names().collect::<Vec<_>>().join(", ")
                    )),
            };
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
