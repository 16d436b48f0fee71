//! Parser events: append-only, in output order.

/// One thing the parser learned about the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Assistant text.
    Content(String),
    /// Reasoning text.
    Reasoning(String),
    /// A tool call begins; its name is complete.
    ToolCallStart {
        /// The position of the call in the message (0-based).
        index: usize,
        /// The model's id when it wrote one, otherwise a generated `call_…` id.
        id: String,
        /// The function name.
        name: String,
    },
    /// More argument text: the pieces of one call concatenate to its JSON arguments string.
    ToolCallArgs {
        /// The call this text belongs to.
        index: usize,
        /// The piece.
        text: String,
    },
    /// A tool call is complete.
    ToolCallEnd {
        /// The call that ended.
        index: usize,
    },
    /// The output did not follow the format here; what was read was kept as content.
    Malformed {
        /// Byte offset in the output where the format broke.
        at: usize,
        /// What was wrong.
        reason: String,
    },
}
