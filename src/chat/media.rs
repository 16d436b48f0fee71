//! Multimodal requests: content made of parts (text, images, audio, video), the way a vision
//! or audio model's server receives them.
//!
//! Two paths lead from an OpenAI request to a template:
//!
//! - **the processor path** ([`normalize_for_processor`]): what transformers'
//!   `ProcessorMixin.apply_chat_template` does before rendering: message keys whose value is
//!   null are dropped and OpenAI `image_url` parts become Hugging Face image blocks
//!   (`{"type": "image", "url": ...}`); every other part is passed through unchanged;
//! - **content formats** ([`ContentFormat`], as vLLM's `--chat-template-content-format`):
//!   `openai` passes the parts through; `string` ([`flatten_content`]) joins the text parts
//!   with newlines and puts one placeholder per media part in front of the text.
//!
//! Both move the strings of the request (a data URL of tens of megabytes is never copied).

use serde_json::{Map, Value};

use crate::error::{err, Error};
use crate::template::Template;

/// How a template reads a message's `content`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContentFormat {
    /// As a string: parts must be flattened to text before rendering.
    #[default]
    String,
    /// As a list of parts (`{"type": "text", "text": ...}`, `{"type": "image"}`, ...).
    #[serde(rename = "openai")]
    OpenAi,
}

impl ContentFormat {
    /// What `template` expects, found on its syntax tree: a template that loops over a
    /// message's `content` (directly, or through a name assigned from the messages, or through
    /// a macro parameter called `content`) reads parts; any other reads a string. This is the
    /// rule of vLLM's `--chat-template-content-format auto`.
    pub fn detect(template: &Template) -> ContentFormat {
        let program = &template.program;
        let nesting = template.options.limits.max_nesting;
        if crate::compile::reads_content_parts(&program.source, nesting) {
            ContentFormat::OpenAi
        } else {
            ContentFormat::String
        }
    }

    /// The format called `name` (`string` or `openai`).
    pub fn from_name(name: &str) -> Result<ContentFormat, Error> {
        match name {
            "string" => Ok(ContentFormat::String),
            "openai" => Ok(ContentFormat::OpenAi),
            _ => Err(err!(
                Input,
                "unknown content format '{name}' (expected auto, string or openai)"
            )),
        }
    }

    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            ContentFormat::String => "string",
            ContentFormat::OpenAi => "openai",
        }
    }
}

/// A kind of media.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Modality {
    /// Images (`image_url`, `input_image`, `image`).
    Image,
    /// Audio (`input_audio`, `audio_url`, `audio`).
    Audio,
    /// Video (`video_url`, `video`).
    Video,
}

impl Modality {
    /// Every modality.
    pub const ALL: [Modality; 3] = [Modality::Image, Modality::Audio, Modality::Video];

    /// The modality called `name` (`image`, `audio` or `video`).
    pub fn from_name(name: &str) -> Result<Modality, Error> {
        match name {
            "image" => Ok(Modality::Image),
            "audio" => Ok(Modality::Audio),
            "video" => Ok(Modality::Video),
            _ => Err(err!(
                Input,
                "unknown modality '{name}' (expected image, audio or video)"
            )),
        }
    }

    /// The modality's name.
    pub fn name(self) -> &'static str {
        match self {
            Modality::Image => "image",
            Modality::Audio => "audio",
            Modality::Video => "video",
        }
    }

    /// The special-token key a model folder names its placeholder with (`image_token`).
    pub fn token_key(self) -> &'static str {
        match self {
            Modality::Image => "image_token",
            Modality::Audio => "audio_token",
            Modality::Video => "video_token",
        }
    }
}

/// The text that stands for each media part when content is flattened to a string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placeholders {
    texts: [Option<String>; 3],
}

impl Placeholders {
    /// The placeholders a model names among its special tokens (`image_token`,
    /// `audio_token`, `video_token`).
    pub fn from_special_tokens(tokens: &Map<String, Value>) -> Placeholders {
        let mut p = Placeholders::default();
        for m in Modality::ALL {
            if let Some(Value::String(s)) = tokens.get(m.token_key()) {
                p.set(m, s.clone());
            }
        }
        p
    }

    /// Sets the placeholder of `modality`.
    pub fn set(&mut self, modality: Modality, text: String) {
        self.texts[modality as usize] = Some(text);
    }

    /// Parses `image=TEXT` (as the CLI's `--media-placeholder` takes it) and sets it.
    pub fn set_from_arg(&mut self, arg: &str) -> Result<(), Error> {
        let Some((name, text)) = arg.split_once('=') else {
            return Err(err!(
                Input,
                "--media-placeholder takes MODALITY=TEXT (image=<image>), got '{arg}'"
            ));
        };
        self.set(Modality::from_name(name)?, text.to_string());
        Ok(())
    }

    /// The placeholder of `modality`, if known.
    pub fn get(&self, modality: Modality) -> Option<&str> {
        self.texts[modality as usize].as_deref()
    }
}

/// transformers' `ProcessorMixin._normalize_conversations`, in place: in every message, keys
/// whose value is null are dropped; in list contents, a part `{"type": "image_url",
/// "image_url": X}` becomes `{"type": "image", "url": U}` with `U` the `url` of `X` (an empty
/// string when it has none) or `X` itself when `X` is not an object. Other parts, and
/// contents that are not lists, are left as they are.
pub fn normalize_for_processor(request: &mut Value) {
    let Some(Value::Array(messages)) = request.get_mut("messages") else {
        return;
    };
    for message in messages.iter_mut() {
        let Value::Object(m) = message else { continue };
        m.retain(|_, v| !v.is_null());
        let Some(Value::Array(parts)) = m.get_mut("content") else {
            continue;
        };
        for part in parts.iter_mut() {
            let Value::Object(p) = part else { continue };
            if p.get("type").and_then(Value::as_str) != Some("image_url") {
                continue;
            }
            let Some(info) = p.get_mut("image_url") else {
                continue;
            };
            let url = match info {
                Value::Object(o) => o
                    .get_mut("url")
                    .map(Value::take)
                    .unwrap_or_else(|| Value::String(String::new())),
                other => other.take(),
            };
            let mut block = Map::new();
            block.insert("type".into(), Value::String("image".into()));
            block.insert("url".into(), url);
            *p = block;
        }
    }
}

/// What one content part is, for flattening.
enum Part<'v> {
    Text(&'v str),
    Media(Modality),
}

fn classify(part: &Value, msg: usize, index: usize) -> Result<Part<'_>, Error> {
    let text_of = |key: &str| -> Result<Part<'_>, Error> {
        match part.get(key) {
            Some(Value::String(s)) => Ok(Part::Text(s)),
            _ => Err(err!(
                Input,
                "message {msg}, content part {index}: a '{key}' part needs a '{key}' string"
            )),
        }
    };
    let Value::Object(p) = part else {
        return match part {
            Value::String(s) => Ok(Part::Text(s)),
            _ => Err(err!(
                Input,
                "message {msg}, content part {index}: a content part must be an object, got {part}"
            )),
        };
    };
    let ty = match p.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(other) => {
            return Err(err!(
                Input,
                "message {msg}, content part {index}: 'type' must be a string, got {other}"
            ))
        }
        // A part without `type` names its kind by its one key (`{"image_url": ...}`).
        None => match ["text", "image_url", "audio_url", "video_url", "input_audio"]
            .into_iter()
            .find(|k| p.contains_key(*k))
        {
            Some(k) => k,
            None => {
                return Err(err!(
                    Input,
                    "message {msg}, content part {index}: a content part needs a 'type'"
                ))
            }
        },
    };
    let media = |m: Modality, key: &str| -> Result<Part<'_>, Error> {
        let url = p.get(key).map(|v| match v {
            Value::Object(o) => o.get("url").or_else(|| o.get("data")),
            other => Some(other),
        });
        match url {
            Some(Some(Value::String(_))) => Ok(Part::Media(m)),
            _ if key.is_empty() => Ok(Part::Media(m)),
            _ => Err(err!(
                Input,
                "message {msg}, content part {index}: a '{ty}' part needs {key}.url"
            )),
        }
    };
    match ty {
        "text" | "input_text" | "output_text" => text_of("text"),
        "refusal" => text_of("refusal"),
        "image_url" => media(Modality::Image, "image_url"),
        "audio_url" => media(Modality::Audio, "audio_url"),
        "video_url" => media(Modality::Video, "video_url"),
        "input_audio" => match p.get("input_audio") {
            Some(Value::Object(o)) if o.get("data").is_some_and(Value::is_string) => {
                Ok(Part::Media(Modality::Audio))
            }
            _ => Err(err!(
                Input,
                "message {msg}, content part {index}: an 'input_audio' part needs input_audio.data"
            )),
        },
        "image" | "input_image" | "image_pil" | "image_embeds" => media(Modality::Image, ""),
        "audio" | "audio_embeds" => media(Modality::Audio, ""),
        "video" => media(Modality::Video, ""),
        other => Err(err!(
            Input,
            "message {msg}, content part {index}: unknown content part type '{other}'"
        )),
    }
}

/// vLLM's string content format, in place: every message whose content is a list of parts
/// gets a string: its text parts joined with `\n`, preceded by one line per media part (the
/// placeholder of its modality), except the placeholders the text already holds. A media
/// part whose modality has no placeholder is an error naming the message and part.
pub fn flatten_content(request: &mut Value, placeholders: &Placeholders) -> Result<(), Error> {
    let Some(Value::Array(messages)) = request.get_mut("messages") else {
        return Ok(());
    };
    for (i, message) in messages.iter_mut().enumerate() {
        let Some(content) = message.get_mut("content") else {
            continue;
        };
        let parts = match content {
            Value::Null | Value::String(_) => continue,
            Value::Array(parts) => parts,
            other => {
                return Err(err!(
                    Input,
                    "message {i}: content must be a string or a list of parts, got {other}"
                ))
            }
        };
        let mut texts: Vec<&str> = Vec::new();
        // Placeholders in order of first use, with how many parts want each.
        let mut wanted: Vec<(&str, usize)> = Vec::new();
        for (j, part) in parts.iter().enumerate() {
            match classify(part, i, j)? {
                Part::Text(t) => texts.push(t),
                Part::Media(m) => {
                    let Some(ph) = placeholders.get(m) else {
                        return Err(err!(
                            Input,
                            "message {i}, content part {j}: no placeholder is known for {} parts (give one with --media-placeholder {}=TEXT)",
                            m.name(),
                            m.name()
                        ));
                    };
                    match wanted.iter_mut().find(|(p, _)| *p == ph) {
                        Some((_, n)) => *n += 1,
                        None => wanted.push((ph, 1)),
                    }
                }
            }
        }
        let text = texts.join("\n");
        let mut lines: Vec<&str> = Vec::new();
        for (ph, n) in &wanted {
            let present = if ph.is_empty() {
                0
            } else {
                text.matches(ph).count()
            };
            if present > *n {
                return Err(err!(
                    Input,
                    "message {i}: Found more '{ph}' placeholders in input prompt than actual multimodal data items."
                ));
            }
            lines.extend(std::iter::repeat(*ph).take(n - present));
        }
        lines.push(&text);
        let joined = lines.join("\n");
        *content = Value::String(joined);
    }
    Ok(())
}
