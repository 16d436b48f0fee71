//! The bytecode interpreter: one dispatch loop over a program, with a value stack, frames of
//! slots, a loop stack and captures that are ranges of the output buffer. Renders allocate
//! in a per-thread arena that is reset, not freed, between renders.

mod call;
pub(crate) mod resume;
mod run;

use std::cell::Cell;

use bumpalo::Bump;

use crate::clock::Clock;
use crate::compile::Program;
use crate::error::{err, Error};
use crate::limits::Limits;
use crate::value::{Callable, Ctx, UndefInfo, Value};

pub(crate) use run::{run, run_spans};

thread_local! {
    static ARENA: Cell<Option<Box<Bump>>> = const { Cell::new(None) };
}

/// Runs `f` with this thread's render arena (a fresh one if it is in use), then resets it.
pub(crate) fn with_arena<R>(f: impl FnOnce(&Bump) -> R) -> R {
    let arena = ARENA.with(|a| a.take()).unwrap_or_default();
    let r = f(&arena);
    let mut arena = arena;
    // Keep big arenas from pinning memory after an unusually large render.
    if arena.allocated_bytes() > 64 << 20 {
        arena = Box::default();
    } else {
        arena.reset();
    }
    ARENA.with(|a| a.set(Some(arena)));
    r
}

/// The value global name `name` has when the render's variables do not define it: the
/// builtin function `builtin` (what `crate::builtins::global` gives for the name), else
/// undefined.
pub(crate) fn builtin_global<'a>(
    ctx: &Ctx<'a>,
    name: &'a str,
    builtin: Option<crate::value::Global>,
) -> Value<'a> {
    match builtin {
        Some(g) => ctx.callable(Callable::Global(g)),
        None => Value::Undefined(Some(ctx.arena.alloc(UndefInfo::Name(name)))),
    }
}

/// Resolves the program's global names: `lookup` first (the render's variables), then the
/// builtin globals, else undefined.
pub(crate) fn resolve_globals<'a>(
    prog: &'a Program,
    ctx: &Ctx<'a>,
    mut lookup: impl FnMut(&str) -> Option<Value<'a>>,
) -> &'a [Value<'a>] {
    // In the arena, like the rest of the render's values (no heap allocation per render).
    ctx.arena.alloc_slice_fill_iter(
        prog.globals
            .iter()
            .zip(prog.global_builtins())
            .map(|(name, &builtin)| {
                lookup(name).unwrap_or_else(|| builtin_global(ctx, name, builtin))
            }),
    )
}

/// Renders `prog` with the keys of `vars` (a JSON object) as variables.
pub(crate) fn render_json(
    prog: &Program,
    limits: &Limits,
    clock: Clock,
    vars: &serde_json::Value,
    out: &mut String,
) -> Result<(), Error> {
    let map = match vars {
        serde_json::Value::Object(m) => Some(m),
        serde_json::Value::Null => None,
        _ => return Err(err!(Input, "template variables must be a JSON object")),
    };
    with_arena(|arena| {
        let ctx = Ctx::new(arena, clock.now(), limits.max_output);
        let globals = resolve_globals(prog, &ctx, |name| {
            map.and_then(|m| m.get(name))
                .map(|v| Value::from_json_in(v, &ctx))
        });
        run(prog, &ctx, globals, out, limits).map(|_| ())
    })
}
