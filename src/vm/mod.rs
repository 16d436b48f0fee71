//! The bytecode interpreter.

use crate::error::{err, Error};
use crate::template::Template;

/// Renders `t` with the keys of `vars` as variables.
pub(crate) fn render_json(t: &Template, vars: &serde_json::Value, out: &mut String) -> Result<(), Error> {
    let _ = (t, vars, out);
    Err(err!(Runtime, "the VM is not written yet"))
}
