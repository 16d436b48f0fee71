//! Helpers for unit tests of values and of the builtins.

use crate::value::{Ctx, Value};

/// Runs `f` with a fresh context at the Unix epoch (the arena is leaked: tests only).
pub(crate) fn with_ctx<R>(f: impl FnOnce(&Ctx<'static>) -> R) -> R {
    let arena: &'static bumpalo::Bump = Box::leak(Box::new(bumpalo::Bump::new()));
    let ctx = Ctx::new(
        arena,
        crate::clock::DateTime::from_unix(0, 0),
        crate::Limits::default().max_output,
    );
    f(&ctx)
}

/// Leaks `v` for a `'static` slice (tests only).
pub(crate) fn leak<T>(v: impl Into<Vec<T>>) -> &'static [T] {
    v.into().leak()
}

/// `str(v)`.
pub(crate) fn s(v: &Value<'_>) -> String {
    let mut out = String::new();
    crate::value::fmt::write_str(&mut out, v);
    out
}

/// The repr of a result's value, or `error: MESSAGE`.
pub(crate) fn show(v: crate::value::VResult<'_>) -> String {
    match v {
        Ok(v) => {
            let mut s = String::new();
            crate::value::fmt::write_repr(&mut s, &v);
            s
        }
        Err(e) => format!("error: {e}"),
    }
}

/// Helpers of the operators' unit tests (`value::ops`).
pub(crate) mod ops {
    pub(crate) use std::cell::Cell;

    pub(crate) use bumpalo::Bump;

    pub(crate) use crate::error::Error;
    pub(crate) use crate::value::*;

    /// A context over `bump`.
    pub(crate) fn ctx(bump: &Bump) -> Ctx<'_> {
        Ctx::for_tests(bump)
    }

    /// `str(v)`, or `Kind: message` for an error.
    pub(crate) fn show(r: Result<Value<'_>, Error>) -> String {
        match r {
            Ok(v) => {
                let mut s = String::new();
                crate::value::fmt::write_str(&mut s, &v);
                s
            }
            Err(e) => format!("{:?}: {}", e.kind(), e.message()),
        }
    }

    /// `Kind: message` of an error, or `ok`.
    pub(crate) fn show_err<T>(r: Result<T, Error>) -> String {
        match r {
            Ok(_) => "ok".to_string(),
            Err(e) => format!("{:?}: {}", e.kind(), e.message()),
        }
    }

    /// The caller's JSON for `{{ d }}`-style probes.
    pub(crate) fn json(src: &str) -> serde_json::Value {
        serde_json::from_str(src).unwrap_or_default()
    }
}
