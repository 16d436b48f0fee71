//! The operators as the compiler emits them and as Python's error messages name them.

use std::cmp::Ordering;

/// Binary arithmetic operators (and `~`, string concatenation).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum BinOp {
    /// `+`: numbers, or concatenation of two strs, lists or tuples.
    Add,
    /// `-`.
    Sub,
    /// `*`: numbers, or a str, list or tuple repeated.
    Mul,
    /// `/`: true division, always a float.
    Div,
    /// `//`: floored division.
    FloorDiv,
    /// `%`: floored modulo (the divisor's sign), or printf-style formatting of a str.
    Mod,
    /// `**`: a float for negative int exponents.
    Pow,
    /// `~`: `str(a) + str(b)`.
    Concat,
}

impl BinOp {
    /// The operator as Python's error messages spell it.
    pub(super) fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "** or pow()",
            BinOp::Concat => "~",
        }
    }
}

/// Ordering comparisons (`==`/`!=` go through [`eq`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum CmpOp {
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CmpOp {
    /// The operator as Python's error messages spell it.
    pub(super) fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// Whether `ord` satisfies the operator.
    pub(super) fn holds(self, ord: Ordering) -> bool {
        match self {
            CmpOp::Lt => ord.is_lt(),
            CmpOp::Le => ord.is_le(),
            CmpOp::Gt => ord.is_gt(),
            CmpOp::Ge => ord.is_ge(),
        }
    }
}
