//! A model's output format described as data: where reasoning, content and tool calls sit and
//! how a call writes its name and arguments. A [`FormatSpec`] is what template analysis
//! derives from a chat template, what a hand-written format is described by, and the single
//! source from which derived parsers and exported grammars (GBNF, Lark, structural tags) are
//! built.
//!
//! Markers are literal text exactly as the model writes it (whitespace included).

use serde::{Deserialize, Serialize};

/// A model's output format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormatSpec {
    /// The hand-written format this output follows (a name of `parse --list-formats`), or
    /// `None` when no hand-written format matches.
    pub format: Option<String>,
    /// The text that ends an assistant turn (`<|im_end|>`, `<|eot_id|>`), when known.
    pub end_of_turn: Option<String>,
    /// Reasoning (thinking) blocks.
    pub reasoning: ReasoningSpec,
    /// Markers around the visible answer, when the format wraps it (`<response>`…`</response>`).
    pub content: Option<Markers>,
    /// Tool calls, when the format has them.
    pub tools: Option<ToolCallSpec>,
    /// The channel layout of harmony-style formats (gpt-oss), where reasoning, content and
    /// calls are messages on named channels instead of marked regions.
    pub channels: Option<ChannelSpec>,
    /// How sure the description is, from 0.0 (a guess) to 1.0 (every probe agreed).
    pub confidence: f32,
    /// Why the description is unsure, or what could not be found.
    pub notes: Vec<String>,
    /// The message layout of formats where reasoning, the answer and each call are messages
    /// of their own, addressed to a recipient (Muse: `<|start|>assistant to=self<|message|>…`).
    /// Absent in older descriptions (serde default).
    #[serde(default)]
    pub messages: Option<MessageSpec>,
}

/// An opening and a closing marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Markers {
    /// The opening text.
    pub open: String,
    /// The closing text (empty when the region runs to the next marker or the end).
    pub close: String,
}

/// How reasoning appears in the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningMode {
    /// The format has no reasoning.
    #[default]
    None,
    /// The model may open a reasoning block with the open marker and close it.
    Tag,
    /// The generation prompt already opened the block: output starts inside reasoning and
    /// the model writes only the close marker.
    ForcedOpen,
    /// The generation prompt wrote an empty, closed block: the output has no reasoning.
    ForcedClosed,
}

/// Reasoning markers and mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ReasoningSpec {
    /// The mode.
    pub mode: ReasoningMode,
    /// The opening and closing markers (`<think>`, `</think>`), when the format has reasoning.
    pub markers: Option<Markers>,
}

/// Tool calls in the output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallSpec {
    /// Markers around the whole group of calls (`[TOOL_CALLS]`, `<tool_calls>`…`</tool_calls>`),
    /// when there is a group.
    pub section: Option<Markers>,
    /// Markers around each call (`<tool_call>`…`</tool_call>`), when each call is wrapped.
    pub call: Option<Markers>,
    /// The text between two calls (`""`, `"\n"`, `", "`).
    pub separator: String,
    /// How a call writes its name and arguments.
    pub syntax: CallSyntax,
    /// How calls carry ids.
    pub id: IdSpec,
    /// Whether one turn can hold several calls.
    pub parallel: bool,
}

/// How one call writes its name and arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallSyntax {
    /// One JSON object per call: `{"name": "f", "arguments": {...}}` with these keys
    /// (`parameters` for Llama 3). When `list` is true the calls form a JSON array
    /// (`[{...}, {...}]`) inside the section.
    JsonObject {
        /// The key of the function name.
        name_key: String,
        /// The key of the arguments object.
        args_key: String,
        /// The key of the call id, when calls carry one in the object.
        id_key: Option<String>,
        /// Calls are elements of one JSON array.
        list: bool,
    },
    /// The name between two markers, then the arguments as one JSON object between two more:
    /// `<function=NAME>{...}</function>`, `functions.NAME:0<|tool_call_argument_begin|>{...}`,
    /// `[TOOL_CALLS]NAME[ARGS]{...}`.
    NameThenJson {
        /// Text before the name.
        name_prefix: String,
        /// Text after the name, before the arguments' prefix.
        name_suffix: String,
        /// Text before the JSON arguments.
        args_prefix: String,
        /// Text after the JSON arguments.
        args_suffix: String,
    },
    /// XML-ish parameters, one per argument:
    /// `<function=NAME>\n<parameter=K>\nV\n</parameter>\n</function>` is
    /// name_prefix `<function=`, name_suffix `>\n`, param_prefix `<parameter=`,
    /// param_middle `>\n`, param_suffix `\n</parameter>\n`, call_suffix `</function>`.
    XmlParams {
        /// Text before the name.
        name_prefix: String,
        /// Text after the name.
        name_suffix: String,
        /// Text before a parameter's key.
        param_prefix: String,
        /// Text between a key and its value.
        param_middle: String,
        /// Text after a value.
        param_suffix: String,
        /// Text after the last parameter.
        call_suffix: String,
        /// How values are written.
        values: ValueTyping,
    },
    /// Python call syntax: `NAME(k="v", n=1)`; when `list` is true the calls are written as a
    /// Python list `[f(a=1), g(b=2)]`.
    Pythonic {
        /// Calls are elements of one list.
        list: bool,
    },
    /// One JSON object per call whose only key is the function name and whose value is the
    /// arguments: `{"NAME": {...}}` (Apertus). When `list` is true the calls form a JSON array.
    NameAsKey {
        /// Calls are elements of one JSON array.
        list: bool,
    },
    /// Key-value syntax with its own string quotes: `call:NAME{k:<escape>v<escape>,n:1}`.
    KeyValue {
        /// Text before the name.
        name_prefix: String,
        /// Text that opens the arguments.
        open: String,
        /// Text that closes the arguments.
        close: String,
        /// Between a key and its value.
        key_value_separator: String,
        /// Between two pairs.
        pair_separator: String,
        /// The quote that opens and closes a string value.
        string_quote: String,
    },
}

/// How the values of XML-ish parameters are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueTyping {
    /// Strings as raw text, other JSON values as JSON text (`42`, `true`, `{"a": 1}`); the
    /// tool's JSON schema says which is which.
    RawStrings,
    /// Every value as JSON text (strings quoted).
    Json,
}

/// How calls carry ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IdSpec {
    /// Calls have no id in the output; the parser generates them.
    None,
    /// The call's id sits between two markers (`[CALL_ID]ID[ARGS]`).
    Marked {
        /// Text before the id.
        prefix: String,
        /// Text after the id.
        suffix: String,
        /// The shape the template expects, when it checks one (`9 alphanumerics`).
        shape: Option<String>,
    },
    /// The id is the call's position, written as `NAME:INDEX` (Kimi K2 `functions.NAME:0`).
    Index,
    /// The id is a key of a JSON call object (see [`CallSyntax::JsonObject::id_key`]).
    InObject,
}

/// The channel layout of harmony-style output (gpt-oss):
/// `<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelSpec {
    /// Starts a message header (`<|start|>`).
    pub message_start: String,
    /// Precedes the channel name (`<|channel|>`).
    pub channel_marker: String,
    /// Separates the header from the message body (`<|message|>`).
    pub message_marker: String,
    /// Texts that end a message (`<|end|>`, `<|call|>`, `<|return|>`).
    pub message_ends: Vec<String>,
    /// The channel of reasoning (`analysis`).
    pub reasoning_channel: String,
    /// The channel of the answer (`final`).
    pub content_channel: String,
    /// The channel of tool calls (`commentary`).
    pub tool_channel: String,
    /// Precedes the called function's name in a header (` to=functions.`).
    pub recipient_prefix: String,
}

/// The message layout of formats where the assistant turn is a series of messages, each
/// addressed to a recipient in its header: `<|start|>assistant to=self<|message|>…<|eom|>`
/// (reasoning), `… to=user<|message|>…` (the answer), `… to=NAME<|message|>CALL<|eom|>` (a tool
/// call: the recipient is the function, the body is one call as [`FormatSpec::tools`]
/// describes it, markers included). The generation prompt writes the first `message_start`, so
/// the output starts with the recipient.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageSpec {
    /// Starts a message header (`<|start|>assistant`).
    pub message_start: String,
    /// Precedes the recipient in a header (` to=`).
    pub recipient_prefix: String,
    /// Separates the header from the message body (`<|message|>`).
    pub message_marker: String,
    /// Texts that end a message (`<|eom|>`, `<|eot|>`).
    pub message_ends: Vec<String>,
    /// The recipient of reasoning messages (`self`), when the format has reasoning.
    pub reasoning_recipient: Option<String>,
    /// The recipients of answer messages (`user`).
    pub content_recipients: Vec<String>,
}
