//! The grammar IR: what a `.peg` file parses into and what the compiler lowers to instructions.

/// What a capture means to the event assembler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// Assistant text.
    Content,
    /// Reasoning text.
    Reasoning,
    /// A whole tool call (a group: no text of its own).
    Call,
    /// A tool call announced only once complete (its id may follow its arguments).
    WholeCall,
    /// The function name of the current call.
    Name,
    /// The call id the model wrote.
    Id,
    /// Raw JSON argument text, streamed verbatim.
    Args,
    /// An XML-style parameter name.
    Key,
    /// A parameter value typed by the tool's schema; a parameter the schema does not type
    /// (or any, without a schema) is guessed: JSON if it parses, else a string.
    Value,
    /// A parameter value typed by the tool's schema; a parameter the schema does not type
    /// is a string (vLLM's Qwen3-Coder and MiniMax-M2 rule). Without a schema, typed like
    /// `Value`.
    PValue,
    /// A parameter value known to be a string.
    SValue,
    /// A parameter value known to be JSON.
    JValue,
    /// A parameter value written as a Python literal.
    PyValue,
    /// Gemma-style dict arguments (`{k:<|"|>v<|"|>,n:1}`), converted once complete.
    Dict,
    /// A MiniMax-M3 parameter value: nested elements (`NS<k>v NS</k>`, lists of `NS<item>`)
    /// converted to JSON once complete; a value without elements is typed like `Value`.
    XValue,
    /// Assistant text written as a JSON value other than a string (llama.cpp's generic
    /// `{"response": {…}}`): the value printed as llama.cpp prints it (sorted keys, two-space
    /// indent), once complete.
    JDump,
    /// Arguments written as a JSON string holding the JSON (`"arguments": "{\"k\": 1}"`):
    /// decoded once complete (kept as the string if its text is not JSON).
    SArgs,
    /// Arguments written as a command line (CWM's `<tool: …>\nNAME text`): JSON when the
    /// text is a JSON object or array, else `{"command": text}`, once complete.
    Command,
    /// Assistant text written as the inside of a JSON string (llama.cpp's generic
    /// `{"response": "…"}`): unescaped once the string is complete.
    JContent,
}

impl Kind {
    pub(crate) fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "content" => Kind::Content,
            "reasoning" => Kind::Reasoning,
            "call" => Kind::Call,
            "wholecall" => Kind::WholeCall,
            "name" => Kind::Name,
            "id" => Kind::Id,
            "args" => Kind::Args,
            "key" => Kind::Key,
            "value" => Kind::Value,
            "pvalue" => Kind::PValue,
            "svalue" => Kind::SValue,
            "jvalue" => Kind::JValue,
            "pyvalue" => Kind::PyValue,
            "dict" => Kind::Dict,
            "xvalue" => Kind::XValue,
            "jcontent" => Kind::JContent,
            "sargs" => Kind::SArgs,
            "jdump" => Kind::JDump,
            "command" => Kind::Command,
            _ => return None,
        })
    }

    /// Whether the capture is one of the message's parts (content, reasoning, a call) rather
    /// than a piece of a call.
    pub(crate) fn top_level(self) -> bool {
        matches!(
            self,
            Kind::Content
                | Kind::Reasoning
                | Kind::Call
                | Kind::WholeCall
                | Kind::JContent
                | Kind::JDump
        )
    }

    /// Whether the capture is a parameter's value (what follows a `key` capture).
    pub(crate) fn is_value(self) -> bool {
        matches!(
            self,
            Kind::Value | Kind::PValue | Kind::SValue | Kind::JValue | Kind::PyValue | Kind::XValue
        )
    }

    /// Whether the capture receives the text it spans (groups do not).
    pub(crate) fn has_text(self) -> bool {
        !matches!(self, Kind::Call | Kind::WholeCall)
    }
}

/// A byte class over ASCII; non-ASCII characters are in the class iff `non_ascii`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ByteSet {
    pub(crate) bits: [u64; 2],
    pub(crate) non_ascii: bool,
}

impl ByteSet {
    pub(crate) fn contains(&self, b: u8) -> bool {
        if b >= 0x80 {
            self.non_ascii
        } else {
            self.bits[(b >> 6) as usize] & (1u64 << (b & 63)) != 0
        }
    }

    pub(crate) fn insert(&mut self, b: u8) {
        self.bits[(b >> 6) as usize] |= 1u64 << (b & 63);
    }
}

/// A parsing expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    /// A literal byte string ("" matches the empty string).
    Lit(Vec<u8>),
    /// One character of a class.
    Set(ByteSet),
    /// Any one UTF-8 character.
    Any,
    /// Zero or more characters up to (not including) the earliest of the markers, or to the
    /// end of input.
    Until(Vec<Vec<u8>>),
    /// A sequence.
    Seq(Vec<Expr>),
    /// Ordered choice.
    Choice(Vec<Expr>),
    /// Zero or more.
    Star(Box<Expr>),
    /// One or more.
    Plus(Box<Expr>),
    /// Optional.
    Opt(Box<Expr>),
    /// Positive lookahead.
    And(Box<Expr>),
    /// Negative lookahead.
    Not(Box<Expr>),
    /// Cut (commit): no choice point pushed so far can be backtracked to any more.
    Cut,
    /// A capture of the given kind.
    Cap(Kind, Box<Expr>),
    /// A reference to a rule, by index.
    Rule(usize),
}

/// A grammar: named rules, each an expression.
#[derive(Debug, Clone)]
pub(crate) struct Grammar {
    pub(crate) names: Vec<String>,
    pub(crate) rules: Vec<Expr>,
}

impl Grammar {
    pub(crate) fn rule_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}
