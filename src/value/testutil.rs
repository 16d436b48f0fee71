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
