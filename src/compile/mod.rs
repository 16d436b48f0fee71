//! AST to bytecode.

use crate::error::{err, Error};
use crate::template::Limits;

/// A compiled template.
pub(crate) struct Program {}

/// Compiles `source`.
pub(crate) fn compile(source: &str, limits: &Limits) -> Result<Program, Error> {
    let _ = (source, limits);
    Err(err!(Syntax, "the compiler is not written yet"))
}
