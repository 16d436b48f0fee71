//! Template source to AST: the lexer, the parser and spans.

pub(crate) mod ast;
pub(crate) mod lexer;
pub(crate) mod parser;

/// An integer literal's value, kept in two words so that tokens and syntax nodes need only
/// 8-byte alignment (an `i128` field would make every node 16-byte aligned and bigger).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IntLit([u64; 2]);

impl IntLit {
    /// The literal `v`.
    pub(crate) fn new(v: i128) -> IntLit {
        let v = v as u128;
        IntLit([v as u64, (v >> 64) as u64])
    }

    /// Its value.
    pub(crate) fn get(self) -> i128 {
        ((u128::from(self.0[1]) << 64) | u128::from(self.0[0])) as i128
    }
}

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
