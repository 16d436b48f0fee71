//! Model families and the built-in templates chatcodec ships for models that bring none.

/// A chat format family, detected from a template, a vocabulary or an architecture name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// ChatML (`<|im_start|>role\n...<|im_end|>`): Qwen 2.x and many others.
    ChatMl,
    /// Qwen 3.x with thinking (`<think>` blocks).
    Qwen3,
    /// Llama 1.x / 2.x (`[INST]`).
    Llama2,
    /// Llama 3.x (`<|start_header_id|>`).
    Llama3,
    /// GLM-4.x (`[gMASK]<sop>`, `<|observation|>`).
    Glm4,
    /// Anything else.
    Generic,
}

impl Family {
    /// A short lowercase name (`chatml`, `qwen3`, `llama2`, `llama3`, `glm4`, `generic`).
    pub fn name(self) -> &'static str {
        match self {
            Family::ChatMl => "chatml",
            Family::Qwen3 => "qwen3",
            Family::Llama2 => "llama2",
            Family::Llama3 => "llama3",
            Family::Glm4 => "glm4",
            Family::Generic => "generic",
        }
    }

    /// The family for a name given by [`Family::name`].
    pub fn from_name(name: &str) -> Option<Family> {
        [
            Family::ChatMl,
            Family::Qwen3,
            Family::Llama2,
            Family::Llama3,
            Family::Glm4,
            Family::Generic,
        ]
        .into_iter()
        .find(|f| f.name() == name)
    }

    /// The built-in template of this family (written by this project, in corpus/builtin/).
    pub fn builtin_template(self) -> &'static str {
        match self {
            Family::ChatMl => include_str!("../../corpus/builtin/chatml.jinja"),
            Family::Qwen3 => include_str!("../../corpus/builtin/qwen3.jinja"),
            Family::Llama2 => include_str!("../../corpus/builtin/llama2.jinja"),
            Family::Llama3 => include_str!("../../corpus/builtin/llama3.jinja"),
            Family::Glm4 => include_str!("../../corpus/builtin/glm4.jinja"),
            Family::Generic => include_str!("../../corpus/builtin/generic.jinja"),
        }
    }

    /// The family a template's text belongs to, from the markers it writes.
    pub fn detect(template: &str) -> Family {
        Family::from_markers(|m| template.contains(m))
    }

    /// The family from which marker strings are present (in a template or a vocabulary).
    pub(crate) fn from_markers(has: impl Fn(&str) -> bool) -> Family {
        if has("<|im_start|>") {
            if has("<think>") {
                Family::Qwen3
            } else {
                Family::ChatMl
            }
        } else if has("<|start_header_id|>") {
            Family::Llama3
        } else if has("[gMASK]") || has("<|observation|>") {
            Family::Glm4
        } else if has("[INST]") {
            Family::Llama2
        } else {
            Family::Generic
        }
    }

    /// The family from an architecture or model type name (`qwen3`, `llama`, `glm4`, ...),
    /// when that name alone tells; `llama` is ambiguous and returns `None`.
    pub(crate) fn from_architecture(arch: &str) -> Option<Family> {
        let a = arch.to_ascii_lowercase();
        if a.starts_with("qwen3") {
            Some(Family::Qwen3)
        } else if a.starts_with("qwen") {
            Some(Family::ChatMl)
        } else if a.starts_with("glm4") || a.starts_with("chatglm") || a == "glm" {
            Some(Family::Glm4)
        } else if a.starts_with("llama3") {
            Some(Family::Llama3)
        } else if a.starts_with("llama2") {
            Some(Family::Llama2)
        } else {
            None
        }
    }
}

/// chatcodec's corrected Qwen3.5 / Qwen3.6 template (seed 001: BUG-001..006 fixed): thinking
/// on by default, `/think` and `/no_think` suffixes, merged system messages, past think
/// blocks stripped, the exact 19-character empty think block when thinking is off.
pub const QWEN3_5_TEMPLATE: &str = include_str!("../../corpus/builtin/qwen3_5.jinja");
