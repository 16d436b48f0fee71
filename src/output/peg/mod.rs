//! The PEG engine: the grammar IR, the parser of `.peg` files, the compiler to machine
//! instructions and the resumable machine.

pub(crate) mod compile;
pub(crate) mod ir;
pub(crate) mod machine;
pub(crate) mod syntax;

pub(crate) use compile::Program;
pub(crate) use ir::Kind;
pub(crate) use machine::{Machine, Sink};

/// Parses and compiles grammar text with its parameters; `entries` are the rules a machine may
/// start at.
pub(crate) fn build(
    src: &str,
    params: &[(&str, &str)],
    entries: &[&str],
) -> Result<Program, String> {
    let g = syntax::parse_grammar(src, params)?;
    compile::compile(&g, entries)
}

/// [`build`] of a text whose part from byte `origin` on is a user's file (errors there give
/// its own line and column).
pub(crate) fn build_from(
    src: &str,
    params: &[(&str, &str)],
    entries: &[&str],
    origin: usize,
) -> Result<Program, String> {
    let g = syntax::parse_grammar_from(src, params, origin)?;
    compile::compile(&g, entries)
}
