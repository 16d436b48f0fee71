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
    /// Text a generation prompt may end with that the output then continues (functionary
    /// v3.2's prompt ends with `>>>`, the start of both `>>>all` and `>>>NAME`). Grammars built
    /// with [`GrammarOptions::after_prompt_prefix`](crate::output::grammar::GrammarOptions)
    /// start after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_prefix: Option<String>,
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
    /// How argument values are written, when not the syntax's own way.
    #[serde(default, skip_serializing_if = "ValueWriting::is_native")]
    pub values: ValueWriting,
    /// Other shapes of the calls that the format also reads (templates of one family differ:
    /// DeepSeek V4 names V3.2's `function_calls` section `tool_calls`). Each is a whole
    /// description of its own; a grammar accepts any of them, the first is the main one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<ToolCallSpec>,
}

/// How argument values are written, over what the call syntax itself says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ValueWriting {
    /// The syntax's own way (JSON text; Python literals for pythonic calls; the key-value
    /// syntax's quotes).
    #[default]
    Native,
    /// JSON arguments written as a Python literal: `{'location': 'Paris', 'hourly': True}`.
    Python,
    /// Every scalar written as a quoted string (`limit="5"`, `limit:<escape>5<escape>`); the
    /// quoted text still has the parameter's type (an integer parameter takes `"5"`, not
    /// `"abc"`).
    QuotedScalars,
    /// String values written without quotes, up to the next argument
    /// (`location=Paris, France, unit=celsius`); other values as the syntax writes them.
    BareStrings,
}

impl ValueWriting {
    /// The syntax's own way.
    pub fn is_native(&self) -> bool {
        *self == ValueWriting::Native
    }
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
        /// When not empty, the text between a key and its value depends on the value's JSON
        /// type, and replaces `param_middle` (DeepSeek V3.2 `" string="true">` for strings,
        /// `" string="false">` for the rest; Kimi K3 `" type="number"<|sep|>`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        typed_middles: Vec<TypedMiddle>,
        /// When not empty, a parameter's closing repeats its key: `param_suffix`, the key,
        /// then this text (MiniMax M3 `]<]minimax[>[</` `location` `>`).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        param_close_after_key: String,
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
    /// The OpenAI call object: `{"id": ID, "type": "function", "function": {"name": NAME,
    /// "arguments": {...}}}` (id and type optional, in that order). When `list` is true the
    /// calls form a JSON array.
    OpenAiObject {
        /// Calls are elements of one JSON array.
        list: bool,
    },
}

impl CallSyntax {
    /// Whether the calls form one list (a JSON or Python array) rather than following each
    /// other.
    pub fn is_list(&self) -> bool {
        matches!(
            self,
            CallSyntax::JsonObject { list: true, .. }
                | CallSyntax::NameAsKey { list: true }
                | CallSyntax::Pythonic { list: true }
                | CallSyntax::OpenAiObject { list: true }
        )
    }
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

/// The text between a parameter's key and value for values of some JSON types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypedMiddle {
    /// JSON schema type names (`string`, `integer`, `number`, `boolean`, `null`, `object`,
    /// `array`); `*` stands for every type no other entry names.
    pub types: Vec<String>,
    /// The text.
    pub middle: String,
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
    /// The id is the call's position (1 for the first), written right after the name between
    /// two texts (Kimi K3 `tool="NAME" index="1"`: prefix `" index="`, suffix empty, the
    /// name's suffix `"<|sep|>`).
    Position {
        /// Text before the position.
        prefix: String,
        /// Text after the position.
        suffix: String,
    },
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
