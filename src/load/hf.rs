//! A Hugging Face model folder: its chat templates and special tokens, found the way
//! transformers' `from_pretrained` finds them.
//!
//! Templates: `chat_template.jinja` (named `default`) plus `additional_chat_templates/*.jinja`
//! take priority over everything (read as Python's text mode reads them: `\r\n` becomes `\n`); else the legacy processor file `chat_template.json`
//! (`{"chat_template": ...}`); else `tokenizer_config.json`'s `chat_template`, a string or a
//! list of `{name, template}`. Special tokens: the named tokens of `tokenizer_config.json`
//! (`bos_token`, `eos_token`, `unk_token`, `sep_token`, `pad_token`, `cls_token`,
//! `mask_token`, any other `*_token` string, and the entries of an `extra_special_tokens`
//! object), each a string or an AddedToken object (`{"content": ...}`); missing ones are taken
//! from `special_tokens_map.json`. These are the kwargs transformers' `apply_chat_template`
//! passes (`tokenizer.special_tokens_map`).

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{err, Error};

/// The largest JSON or template file read.
const MAX_FILE: u64 = 64 << 20;

/// What a model folder holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModelFolder {
    /// Named templates (`default` for the unnamed one), in a stable order.
    pub templates: Vec<(String, String)>,
    /// Which file the templates came from.
    pub origin: String,
    /// Special tokens as template kwargs.
    pub special_tokens: Map<String, Value>,
    /// `config.json`'s `model_type`, if any.
    pub model_type: Option<String>,
    /// `tokenizer_config.json`'s `response_template` (transformers' declarative output
    /// description) or, failing that, its legacy `response_schema`, as `(key, value)`.
    pub response_template: Option<(String, Value)>,
    /// The tokenizer's added tokens (tokenizer.json `added_tokens`, tokenizer_config.json
    /// `added_tokens_decoder`, then the special tokens the config names), in id order.
    pub added_tokens: Vec<crate::chat::control::AddedToken>,
    /// tokenizer_config.json `chat_control_tokens`, if it lists them.
    pub chat_control_tokens: Option<Vec<String>>,
}

/// The added tokens of a model folder, as transformers' `added_tokens_decoder` has them.
fn added_tokens(
    dir: &Path,
    config: &Map<String, Value>,
) -> Result<Vec<crate::chat::control::AddedToken>, Error> {
    use crate::chat::control::AddedToken;
    let mut out: Vec<AddedToken> = Vec::new();
    let add = |id: u64, content: &str, special: bool, out: &mut Vec<AddedToken>| {
        if !out.iter().any(|t| t.content == content) {
            out.push(AddedToken {
                id,
                content: content.to_string(),
                special,
            });
        }
    };
    if let Some(Value::Object(tok)) = read_json(&dir.join("tokenizer.json"))? {
        if let Some(Value::Array(list)) = tok.get("added_tokens") {
            for t in list {
                if let (Some(id), Some(content)) = (
                    t.get("id").and_then(Value::as_u64),
                    t.get("content").and_then(Value::as_str),
                ) {
                    let special = t.get("special").and_then(Value::as_bool).unwrap_or(false);
                    add(id, content, special, &mut out);
                }
            }
        }
    }
    if let Some(Value::Object(dec)) = config.get("added_tokens_decoder") {
        for (id, t) in dec {
            if let (Ok(id), Some(content)) =
                (id.parse::<u64>(), t.get("content").and_then(Value::as_str))
            {
                let special = t.get("special").and_then(Value::as_bool).unwrap_or(false);
                add(id, content, special, &mut out);
            }
        }
    }
    out.sort_by_key(|t| t.id);
    Ok(out)
}

fn read_text(path: &Path) -> Result<Option<String>, Error> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err!(Input, "cannot read {}: {e}", path.display())),
    };
    if meta.len() > MAX_FILE {
        return Err(err!(
            Input,
            "{} is {} bytes, more than the {MAX_FILE} allowed",
            path.display(),
            meta.len()
        ));
    }
    let bytes =
        std::fs::read(path).map_err(|e| err!(Input, "cannot read {}: {e}", path.display()))?;
    crate::error::utf8(bytes, &path.display().to_string()).map(Some)
}

/// A `.jinja` file as transformers reads it: Python text mode, so `\r\n` and a lone `\r`
/// become `\n` (universal newlines).
fn read_jinja(path: &Path) -> Result<Option<String>, Error> {
    Ok(read_text(path)?.map(|t| {
        if t.contains('\r') {
            t.replace("\r\n", "\n").replace('\r', "\n")
        } else {
            t
        }
    }))
}

fn read_json(path: &Path) -> Result<Option<Value>, Error> {
    match read_text(path)? {
        None => Ok(None),
        Some(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| err!(Input, "{} is not valid JSON: {e}", path.display())),
    }
}

/// A template entry: a string, or a list of `{name, template}`.
fn templates_from(value: &Value, file: &Path) -> Result<Vec<(String, String)>, Error> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::String(s) => Ok(vec![("default".to_string(), s.clone())]),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                let name = item.get("name").and_then(Value::as_str);
                let template = item.get("template").and_then(Value::as_str);
                match (name, template) {
                    (Some(n), Some(t)) => Ok((n.to_string(), t.to_string())),
                    _ => Err(err!(
                        Input,
                        "{}: each chat_template entry needs a \"name\" and a \"template\" string",
                        file.display()
                    )),
                }
            })
            .collect(),
        _ => Err(err!(
            Input,
            "{}: chat_template must be a string or a list of {{name, template}}",
            file.display()
        )),
    }
}

/// The text of a token: a string, or an AddedToken object's `content`.
fn token_text(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s),
        Value::Object(o) => o.get("content").and_then(Value::as_str),
        _ => None,
    }
}

const NAMED: [&str; 7] = [
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
];

fn special_tokens(config: &Map<String, Value>, out: &mut Map<String, Value>) {
    for (k, v) in config {
        let named = NAMED.contains(&k.as_str()) || k.ends_with("_token");
        if named && !out.contains_key(k) {
            if let Some(t) = token_text(v) {
                out.insert(k.clone(), Value::String(t.to_string()));
            }
        }
    }
    if let Some(Value::Object(extra)) = config.get("extra_special_tokens") {
        for (k, v) in extra {
            if let Some(t) = token_text(v) {
                out.entry(k.clone())
                    .or_insert_with(|| Value::String(t.to_string()));
            }
        }
    }
}

/// Whether `dir` has any of the files a model folder is read from.
fn has_model_files(dir: &Path) -> bool {
    [
        "tokenizer_config.json",
        "chat_template.jinja",
        "chat_template.json",
        "special_tokens_map.json",
        "config.json",
        "tokenizer.json",
    ]
    .iter()
    .any(|f| dir.join(f).is_file())
}

/// The named templates of `additional_chat_templates/*.jinja` (the file stem is the name),
/// sorted by name; none when the folder is absent.
fn additional_templates(dir: &Path) -> Result<Vec<(String, String)>, Error> {
    let mut extra = Vec::new();
    let extra_dir = dir.join("additional_chat_templates");
    if !extra_dir.is_dir() {
        return Ok(extra);
    }
    let entries = std::fs::read_dir(&extra_dir)
        .map_err(|e| err!(Input, "cannot list {}: {e}", extra_dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".jinja"))
        else {
            continue;
        };
        if let Some(t) = read_jinja(&path)? {
            extra.push((name.to_string(), t));
        }
    }
    extra.sort();
    Ok(extra)
}

/// Reads the model folder at `dir`.
pub(crate) fn read_folder(dir: &Path) -> Result<ModelFolder, Error> {
    if !dir.is_dir() {
        return Err(err!(Input, "{} is not a model folder", dir.display()));
    }
    let mut folder = ModelFolder::default();
    let config_path = dir.join("tokenizer_config.json");
    let config = match read_json(&config_path)? {
        Some(Value::Object(o)) => o,
        Some(_) => {
            return Err(err!(
                Input,
                "{} must hold a JSON object",
                config_path.display()
            ))
        }
        None => Map::new(),
    };

    if let Some(t) = read_jinja(&dir.join("chat_template.jinja"))? {
        folder.templates.push(("default".to_string(), t));
        folder.origin = "chat_template.jinja".to_string();
    }
    let extra = additional_templates(dir)?;
    if folder.origin.is_empty() && !extra.is_empty() {
        folder.origin = "additional_chat_templates/".to_string();
    }
    folder.templates.extend(extra);
    if folder.templates.is_empty() {
        let path = dir.join("chat_template.json");
        if let Some(v) = read_json(&path)? {
            let entry = v.get("chat_template").unwrap_or(&Value::Null);
            folder.templates = templates_from(entry, &path)?;
            folder.origin = "chat_template.json".to_string();
        }
    }
    if folder.templates.is_empty() {
        let entry = config.get("chat_template").unwrap_or(&Value::Null);
        folder.templates = templates_from(entry, &config_path)?;
        if !folder.templates.is_empty() {
            folder.origin = "tokenizer_config.json".to_string();
        }
    }

    folder.response_template = ["response_template", "response_schema"]
        .iter()
        .find_map(|k| {
            config
                .get(*k)
                .filter(|v| v.is_object())
                .map(|v| (k.to_string(), v.clone()))
        });
    if folder.templates.is_empty() && config.is_empty() && !has_model_files(dir) {
        return Err(err!(
            Input,
            "{} holds no model files (tokenizer_config.json, chat_template.jinja, \
             chat_template.json, config.json)",
            dir.display()
        ));
    }
    folder.added_tokens = added_tokens(dir, &config)?;
    if let Some(Value::Array(list)) = config.get("chat_control_tokens") {
        folder.chat_control_tokens = Some(
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        );
    }
    special_tokens(&config, &mut folder.special_tokens);
    if let Some(Value::Object(map)) = read_json(&dir.join("special_tokens_map.json"))? {
        special_tokens(&map, &mut folder.special_tokens);
    }
    folder.special_tokens.remove("chat_template");
    if let Some(Value::Object(cfg)) = read_json(&dir.join("config.json"))? {
        folder.model_type = cfg
            .get("model_type")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    Ok(folder)
}

/// The files that make a folder a processor folder (a model with image, video or audio
/// inputs), in the order they are looked for.
const PROCESSOR_FILES: [&str; 4] = [
    "processor_config.json",
    "preprocessor_config.json",
    "video_preprocessor_config.json",
    "chat_template.json",
];

/// What a processor folder holds beyond its tokenizer.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProcessorFiles {
    /// The first file of [`PROCESSOR_FILES`] found, if any: the folder is a processor folder.
    pub marker: Option<&'static str>,
    /// The processor's templates (`default` for the unnamed one).
    pub templates: Vec<(String, String)>,
    /// Which file the templates came from.
    pub origin: String,
    /// `image_token`, `video_token`, `audio_token` of `processor_config.json`.
    pub media_tokens: Map<String, Value>,
}

/// Reads the processor side of the folder at `dir` the way transformers'
/// `ProcessorMixin.from_pretrained` does: the legacy `chat_template.json` (which may not be
/// combined with `additional_chat_templates/`), else `additional_chat_templates/*.jinja` and
/// `chat_template.jinja` (named `default`); a non-null `chat_template` in
/// `processor_config.json` replaces them all.
pub(crate) fn read_processor(dir: &Path) -> Result<ProcessorFiles, Error> {
    if !dir.is_dir() {
        return Err(err!(Input, "{} is not a model folder", dir.display()));
    }
    let mut files = ProcessorFiles {
        marker: PROCESSOR_FILES.into_iter().find(|f| dir.join(f).is_file()),
        ..ProcessorFiles::default()
    };
    let extra = additional_templates(dir)?;
    let legacy_path = dir.join("chat_template.json");
    if let Some(legacy) = read_json(&legacy_path)? {
        let Some(template) = legacy.get("chat_template") else {
            return Err(err!(
                Input,
                "{} has no \"chat_template\" key",
                legacy_path.display()
            ));
        };
        if !extra.is_empty() {
            return Err(err!(
                Input,
                "Cannot load chat template due to conflicting files - this checkpoint combines a legacy chat_template.json file with separate template files, which is not supported. To resolve this error, replace the legacy chat_template.json file with a modern chat_template.jinja file."
            ));
        }
        files.templates = templates_from(template, &legacy_path)?;
        files.origin = "chat_template.json".to_string();
    } else {
        if !extra.is_empty() {
            files.origin = "additional_chat_templates/".to_string();
        }
        files.templates = extra;
        if let Some(t) = read_jinja(&dir.join("chat_template.jinja"))? {
            files.templates.push(("default".to_string(), t));
            files.origin = "chat_template.jinja".to_string();
        }
    }
    let config_path = dir.join("processor_config.json");
    if let Some(Value::Object(config)) = read_json(&config_path)? {
        match config.get("chat_template") {
            None | Some(Value::Null) => {}
            Some(Value::Object(named)) => {
                files.templates = named
                    .iter()
                    .filter_map(|(k, v)| v.as_str().map(|t| (k.clone(), t.to_string())))
                    .collect();
                files.origin = "processor_config.json".to_string();
            }
            Some(other) => {
                files.templates = templates_from(other, &config_path)?;
                files.origin = "processor_config.json".to_string();
            }
        }
        for key in ["image_token", "video_token", "audio_token"] {
            if let Some(t) = config.get(key).and_then(token_text) {
                files
                    .media_tokens
                    .insert(key.to_string(), Value::String(t.to_string()));
            }
        }
    }
    Ok(files)
}
