//! Decoding model output: a resumable PEG machine that turns streamed text into OpenAI-style
//! deltas and a final message.
//!
//! ```
//! use chatcodec::output::{parse, Format};
//! let f = Format::by_name("hermes").unwrap();
//! let m = parse(&f, "Let me check.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>");
//! assert_eq!(m.content, "Let me check.");
//! assert_eq!(m.tool_calls[0].name, "get_weather");
//! assert_eq!(m.tool_calls[0].arguments, "{\"city\": \"Paris\"}");
//! ```

pub mod analyze;
mod assemble;
mod convert;
mod event;
mod formats;
pub mod grammar;
mod message;
pub(crate) mod peg;
pub(crate) mod scan;
mod spec;
mod stream;
mod typing;

pub use event::Event;
pub use formats::{Format, GrammarError, ParserChoice};
pub use message::{delta, Message, ToolCall};
pub use spec::{
    CallSyntax, ChannelSpec, FormatSpec, IdSpec, Markers, MessageSpec, ReasoningMode,
    ReasoningSpec, ToolCallSpec, ValueTyping,
};
pub use stream::{parse, parse_with, random_id_seed, Options, Reasoning, StreamParser};
