//! Calls: macros (a new frame whose output is captured), methods and global functions.

use crate::compile::NONE16;
use crate::error::{err, Error, ErrorKind, Limit};
use crate::value::{budget, ops, Callable, Value};
use crate::vm::run::{Frame, Vm};

impl<'a, 'o> Vm<'a, 'o> {
    /// Calls `callee`; a macro call switches `pc` into the macro, anything else pushes its
    /// result at once.
    pub(super) fn call(
        &mut self,
        callee: Value<'a>,
        args: &[Value<'a>],
        kwargs: &[(&'a str, Value<'a>)],
        pc: &mut usize,
    ) -> Result<(), Error> {
        let ctx = self.ctx;
        let v = match callee {
            Value::Callable(c) => match *c {
                Callable::Macro { id, env, .. } => {
                    return self.enter_macro(id, env, args, kwargs, pc)
                }
                Callable::Method { recv, name } => {
                    budget::charge_call(&recv, args, kwargs)?;
                    crate::builtins::call_method(ctx, recv, name, args, kwargs)?
                }
                Callable::Global(g) => {
                    budget::charge_call(&Value::None, args, kwargs)?;
                    crate::builtins::call_global(ctx, g, args, kwargs)?
                }
                Callable::Cycle(l) => cycle(l.index0.get(), args)?,
            },
            Value::Undefined(_) => return Err(ops::undefined_error(&callee)),
            Value::Loop(l) => return self.call_loop(l, args, kwargs, pc),
            other => return Err(err!(Type, "'{}' object is not callable", other.type_name())),
        };
        self.stack.push(v);
        Ok(())
    }

    /// `recv.name(args)`: a method when the receiver's type has one, else the attribute called.
    pub(super) fn call_method(
        &mut self,
        recv: Value<'a>,
        name: &'a str,
        args: &[Value<'a>],
        kwargs: &[(&'a str, Value<'a>)],
        pc: &mut usize,
    ) -> Result<(), Error> {
        if let Value::Loop(l) = recv {
            if name == "cycle" {
                let v = cycle(l.index0.get(), args)?;
                self.stack.push(v);
                return Ok(());
            }
            if name == "changed" {
                let now = Value::Tuple(self.ctx.arena.alloc_slice_copy(args));
                let changed = l
                    .changed
                    .get()
                    .map_or(true, |before| !ops::eq(&before, &now));
                if changed {
                    l.changed.set(Some(now));
                }
                self.stack.push(Value::Bool(changed));
                return Ok(());
            }
        }
        if crate::value::methods::has_method(&recv, name) {
            budget::charge_call(&recv, args, kwargs)?;
            let v = crate::builtins::call_method(self.ctx, recv, name, args, kwargs)?;
            self.stack.push(v);
            return Ok(());
        }
        let f = ops::getattr(self.ctx, recv, name)?;
        self.call(f, args, kwargs, pc)
    }

    /// A loop object called, under any name (`{% set parent = loop %}...{{ parent(items) }}`):
    /// a running recursive loop runs again over `items` one level deeper, as jinja2's
    /// `LoopContext.__call__` does; any other loop is refused.
    fn call_loop(
        &mut self,
        l: &'a crate::value::LoopState<'a>,
        args: &[Value<'a>],
        kwargs: &[(&'a str, Value<'a>)],
        pc: &mut usize,
    ) -> Result<(), Error> {
        let recurse = self
            .loops
            .iter()
            .rev()
            .find(|r| r.state.is_some_and(|s| std::ptr::eq(s, l)))
            .and_then(|r| r.recurse);
        let Some(f) = recurse else {
            return Err(err!(
                Type,
                "The loop must be marked as 'recursive' to call it."
            ));
        };
        if let Some((name, _)) = kwargs.first() {
            return Err(err!(
                Type,
                "LoopContext.__call__() got an unexpected keyword argument '{name}'"
            ));
        }
        let [items] = args else {
            return Err(err!(
                Type,
                "LoopContext.__call__() takes 2 positional arguments but {} were given",
                args.len() + 1
            ));
        };
        let depth = i64::try_from(l.depth).unwrap_or(i64::MAX).saturating_add(1);
        self.call(f, &[*items, Value::Int(depth)], &[], pc)
    }

    fn enter_macro(
        &mut self,
        id: u32,
        env: u32,
        args: &[Value<'a>],
        kwargs: &[(&'a str, Value<'a>)],
        pc: &mut usize,
    ) -> Result<(), Error> {
        let prog = self.prog;
        let Some(info) = prog.macros.get(id as usize) else {
            return Err(err!(Runtime, "internal: no macro {id}"));
        };
        if self.frames.len() > self.limits.max_depth {
            return Err(Error::new(
                ErrorKind::Limit(Limit::Depth),
                format!("macro calls nested deeper than {}", self.limits.max_depth),
            ));
        }
        let params = &info.params;
        let has_varargs = info.varargs_slot != NONE16;
        let has_kwargs = info.kwargs_slot != NONE16;
        let keep = self.slots.len();
        let env = self.definer_slots(env);
        let base = self.slots.len();
        self.slots
            .resize(base + info.slots as usize, Value::UNDEFINED);
        let mut bound = 0u64;
        for (i, v) in args.iter().take(params.len()).enumerate() {
            self.slots[base + i] = *v;
            bound |= 1 << (i & 63);
        }
        if has_varargs {
            let extra = args.get(params.len()..).unwrap_or(&[]);
            self.slots[base + usize::from(info.varargs_slot)] =
                Value::Tuple(self.ctx.arena.alloc_slice_copy(extra));
        }
        let mut extra_kw: Vec<(Value<'a>, Value<'a>)> = Vec::new();
        for (name, v) in kwargs {
            // jinja2 looks keywords up only for the parameters the positional arguments left
            // unbound; a keyword naming a bound one is an unknown keyword.
            match params
                .iter()
                .position(|p| &prog.strs[*p as usize] == *name)
                .filter(|i| *i >= args.len())
            {
                Some(i) => {
                    self.slots[base + i] = *v;
                    bound |= 1 << (i & 63);
                }
                None if *name == "caller" && info.caller_slot != NONE16 => {
                    self.slots[base + usize::from(info.caller_slot)] = *v;
                }
                None if has_kwargs => extra_kw.push((Value::Str(name), *v)),
                None if *name == "caller" => {
                    self.slots.truncate(keep);
                    return Err(err!(
                        Type,
                        "macro '{}' was invoked with two values for the special caller argument. This is most likely a bug.",
                        info.name
                    ));
                }
                None => {
                    self.slots.truncate(keep);
                    return Err(err!(
                        Type,
                        "macro '{}' takes no keyword argument '{name}'",
                        info.name
                    ));
                }
            }
        }
        if args.len() > params.len() && !has_varargs {
            self.slots.truncate(keep);
            return Err(err!(
                Type,
                "macro '{}' takes not more than {} argument(s)",
                info.name,
                params.len()
            ));
        }
        if has_kwargs {
            self.slots[base + usize::from(info.kwargs_slot)] =
                Value::Dict(self.ctx.arena.alloc_slice_copy(&extra_kw));
        }
        self.calls = self.calls.wrapping_add(1).max(1);
        self.frames.push(Frame {
            base: base as u32,
            env,
            id: self.calls,
            keep: keep as u32,
            made_macros: false,
            ret_pc: *pc as u32,
            capture: self.out.len() as u32,
            bound,
            loops: self.loops.len() as u32,
            markup: self.autoescape,
        });
        self.base = base;
        *pc = info.entry as usize;
        Ok(())
    }

    /// The first slot of the variables of call `id`, which defined the macro being called:
    /// the template body's, a running call's, or, for a call that has returned, its slots as
    /// they were then, copied to the top of the slots for this call.
    fn definer_slots(&mut self, id: u32) -> u32 {
        if id == 0 {
            return 0;
        }
        if let Some(f) = self.frames.iter().rev().find(|f| f.id == id) {
            return f.base;
        }
        let start = self.slots.len();
        match self.closed.iter().rev().find(|(i, _)| *i == id) {
            Some((_, saved)) => {
                self.slots.extend_from_slice(saved);
                start as u32
            }
            // Not reached: a call that defined a macro leaves its slots when it returns.
            None => u32::MAX,
        }
    }

    /// Leaves a macro: its output becomes a string value for the caller.
    pub(super) fn ret(&mut self, pc: &mut usize) -> Result<(), Error> {
        let Some(frame) = self.frames.pop() else {
            return Err(err!(Runtime, "internal: return outside a macro"));
        };
        let start = frame.capture as usize;
        let text = self
            .ctx
            .arena
            .alloc_str(self.out.get(start..).unwrap_or(""));
        self.out.truncate(start);
        if frame.made_macros {
            let own = self.slots.get(frame.base as usize..).unwrap_or(&[]);
            let own = self.ctx.arena.alloc_slice_copy(own);
            self.closed.push((frame.id, own));
        }
        self.slots.truncate(frame.keep as usize);
        self.loops.truncate(frame.loops as usize);
        self.base = self.frames.last().map_or(0, |f| f.base as usize);
        *pc = frame.ret_pc as usize;
        self.stack.push(if frame.markup {
            Value::Markup(text)
        } else {
            Value::Str(text)
        });
        Ok(())
    }
}

/// The attributes jinja2's `Macro` objects expose: `name`, `arguments`, `catch_varargs`,
/// `catch_kwargs`.
pub(super) fn macro_attr<'a>(
    ctx: &crate::value::Ctx<'a>,
    prog: &'a crate::compile::Program,
    id: u32,
    name: &str,
) -> Option<Value<'a>> {
    let info = prog.macros.get(id as usize)?;
    Some(match name {
        "name" => Value::Str(&info.name),
        "arguments" => Value::Tuple(
            ctx.slice(
                info.params
                    .iter()
                    .map(|p| Value::Str(&prog.strs[*p as usize])),
            ),
        ),
        "catch_varargs" => Value::Bool(info.varargs_slot != NONE16),
        "catch_kwargs" => Value::Bool(info.kwargs_slot != NONE16),
        "caller" => Value::Bool(info.caller_slot != NONE16),
        _ => return None,
    })
}

/// `loop.cycle(a, b, ...)` at 0-based index `i`.
fn cycle<'a>(i: usize, args: &[Value<'a>]) -> Result<Value<'a>, Error> {
    if args.is_empty() {
        return Err(err!(Type, "no items for cycling given"));
    }
    Ok(args[i % args.len()])
}
