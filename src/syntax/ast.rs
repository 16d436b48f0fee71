//! The syntax tree, allocated in the compile-time arena. Every expression carries its span.

use crate::syntax::{IntLit, Span};
use crate::value::ops::BinOp;

/// An expression with its span.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expr<'a> {
    /// What it is.
    pub(crate) kind: ExprKind<'a>,
    /// Where it is.
    pub(crate) span: Span,
}

/// A literal.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lit<'a> {
    None,
    Bool(bool),
    Int(IntLit),
    /// An integer literal beyond 128 bits, as written; it becomes an int at run time.
    BigInt(&'a str),
    Float(f64),
    Str(&'a str),
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    Pos,
    Not,
}

/// Comparison operators, chainable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
}

/// Arguments of a call, a filter or a test.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Args<'a> {
    /// Positional arguments.
    pub(crate) pos: &'a [Expr<'a>],
    /// Keyword arguments, in order.
    pub(crate) kw: &'a [(&'a str, Expr<'a>)],
    /// `*iterable`: more positional arguments.
    pub(crate) star: Option<&'a Expr<'a>>,
    /// `**mapping`: more keyword arguments.
    pub(crate) dstar: Option<&'a Expr<'a>>,
}

/// No arguments.
pub(crate) static NO_ARGS: Args<'static> = Args {
    pos: &[],
    kw: &[],
    star: None,
    dstar: None,
};

/// The kinds of expressions (arguments are behind a reference, so that an expression stays
/// small to move).
#[derive(Debug, Clone, Copy)]
pub(crate) enum ExprKind<'a> {
    /// A literal.
    Lit(Lit<'a>),
    /// A variable.
    Name(&'a str),
    /// The value a filter block or a set block feeds into its filter chain.
    Hole,
    /// `x.name`
    Attr(&'a Expr<'a>, &'a str),
    /// `x[key]`
    Item(&'a Expr<'a>, &'a Expr<'a>),
    /// `x[start:stop:step]`
    Slice(&'a Expr<'a>, [Option<&'a Expr<'a>>; 3]),
    /// `-x`, `+x`, `not x`
    Unary(UnOp, &'a Expr<'a>),
    /// Arithmetic and `~`.
    Bin(BinOp, &'a Expr<'a>, &'a Expr<'a>),
    /// `a and b`
    And(&'a Expr<'a>, &'a Expr<'a>),
    /// `a or b`
    Or(&'a Expr<'a>, &'a Expr<'a>),
    /// `a < b <= c ...`
    Compare(&'a Expr<'a>, &'a [(Cmp, Expr<'a>)]),
    /// `then if cond else otherwise`
    Cond {
        cond: &'a Expr<'a>,
        then: &'a Expr<'a>,
        otherwise: Option<&'a Expr<'a>>,
    },
    /// `[a, b]`
    List(&'a [Expr<'a>]),
    /// `(a, b)`
    Tuple(&'a [Expr<'a>]),
    /// `{k: v}`
    Dict(&'a [(Expr<'a>, Expr<'a>)]),
    /// `f(args)`
    Call(&'a Expr<'a>, &'a Args<'a>),
    /// `value|name(args)`
    Filter(&'a Expr<'a>, &'a str, &'a Args<'a>),
    /// `value is [not] name(args)`
    Test {
        value: &'a Expr<'a>,
        name: &'a str,
        args: &'a Args<'a>,
        negated: bool,
    },
}

/// What `set` and `for` assign to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'a> {
    /// A variable.
    Name(&'a str),
    /// Unpacking.
    Tuple(&'a [Target<'a>], Span),
    /// `ns.attr` (namespaces only).
    Attr(&'a str, &'a str, Span),
}

/// A macro definition (also the body of a `{% call %}` block).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MacroDef<'a> {
    /// Its name (`caller` for call blocks).
    pub(crate) name: &'a str,
    /// Parameters with their defaults.
    pub(crate) params: &'a [(&'a str, Option<Expr<'a>>)],
    /// What it renders.
    pub(crate) body: &'a [Stmt<'a>],
    /// Where it is defined.
    pub(crate) span: Span,
}

/// A `for` loop.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ForLoop<'a> {
    /// What each item is assigned to.
    pub(crate) target: Target<'a>,
    /// What is iterated.
    pub(crate) iter: Expr<'a>,
    /// `if filter`: items for which it is false are skipped.
    pub(crate) filter: Option<Expr<'a>>,
    /// What each item renders.
    pub(crate) body: &'a [Stmt<'a>],
    /// `{% else %}`: what renders when no item is left after filtering.
    pub(crate) otherwise: Option<&'a [Stmt<'a>]>,
    /// `recursive`: the body may call `loop(items)` to run the loop again over `items`.
    pub(crate) recursive: bool,
    /// Where the loop starts.
    pub(crate) span: Span,
}

/// Statements. Expressions, targets and loops are behind references: a statement stays
/// small, and the parser stores the node it built instead of copying it into the statement.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stmt<'a> {
    /// Literal text (also the content of `{% raw %}`).
    Data(Span),
    /// `{{ expr }}`
    Print(&'a Expr<'a>),
    /// `{% if %}` with its `elif`s and `else`.
    If {
        branches: &'a [(&'a Expr<'a>, &'a [Stmt<'a>])],
        otherwise: Option<&'a [Stmt<'a>]>,
    },
    /// `{% for target in iter if filter recursive %}body{% else %}otherwise{% endfor %}`
    For(&'a ForLoop<'a>),
    /// `{% set target = value %}`
    Set {
        target: &'a Target<'a>,
        value: &'a Expr<'a>,
    },
    /// `{% set name | filters %}body{% endset %}`; `filter` applies to [`ExprKind::Hole`].
    SetBlock {
        target: &'a Target<'a>,
        filter: Option<&'a Expr<'a>>,
        body: &'a [Stmt<'a>],
    },
    /// `{% macro %}`
    Macro(&'a MacroDef<'a>),
    /// `{% call(params) expr %}body{% endcall %}`
    CallBlock {
        caller: &'a MacroDef<'a>,
        call: &'a Expr<'a>,
    },
    /// `{% filter f %}body{% endfilter %}`; `filter` applies to [`ExprKind::Hole`].
    FilterBlock {
        filter: &'a Expr<'a>,
        body: &'a [Stmt<'a>],
    },
    /// `{% break %}`
    Break(Span),
    /// `{% continue %}`
    Continue(Span),
    /// `{% generation %}body{% endgeneration %}`
    Generation(&'a [Stmt<'a>]),
    /// `{% autoescape on %}body{% endautoescape %}`: inside, `{{ }}` output is HTML-escaped
    /// unless it is `Markup`, and captures and macro results are `Markup`.
    Autoescape {
        on: &'a Expr<'a>,
        body: &'a [Stmt<'a>],
    },
    /// `{% extends %}`, `{% include %}`, `{% import %}` or `{% from %}`: a template from a
    /// loader, which the environment has none of, so running it fails as jinja2's does.
    NoLoader {
        template: &'a Expr<'a>,
        span: Span,
        /// `{% extends %}`, which jinja2 allows only at the top level or inside `if`s.
        extends: bool,
    },
    /// The body of `{% block name required %}` in a template nothing extends: rendering it
    /// fails as jinja2's does ("Required block 'name' not found").
    RequiredBlock { name: &'a str, span: Span },
    /// `{% with a = x %}body{% endwith %}`
    With {
        assigns: &'a [(Target<'a>, Expr<'a>)],
        body: &'a [Stmt<'a>],
    },
}

#[cfg(test)]
mod tests {
    #[test]
    fn nodes_stay_small_to_move() {
        // The parser moves nodes and tokens by value at every level; compile time follows
        // their size.
        assert!(std::mem::size_of::<super::Expr<'_>>() <= 48);
        assert!(std::mem::size_of::<super::Stmt<'_>>() <= 40);
        assert!(std::mem::size_of::<crate::syntax::lexer::Token<'_>>() <= 32);
    }
}
