//! Template source to AST: the lexer, the parser and spans.

pub(crate) mod ast;
pub(crate) mod lexer;
pub(crate) mod parser;

/// A byte range of the (newline-normalized) template source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    /// First byte.
    pub(crate) start: u32,
    /// One past the last byte.
    pub(crate) end: u32,
}

impl Span {
    /// The span from `start` to `end`.
    pub(crate) fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The span covering both.
    pub(crate) fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}
