//! Checkpoints of the message loop, for incremental rendering (`chat::incremental`).
//!
//! A render can watch one `Iter` instruction: the top-level `for message in messages` loop.
//! When that loop runs out of items, the machine state at that instant (the start of the
//! iteration that a longer conversation would run next) is saved in an owned form: root
//! slots, namespaces, the iteration count and where the loop's items start in `messages`.
//! Values that borrow the request are saved by reference (a message by index, a request key
//! by name) or copied; values of the render's arena are copied. A later render rebuilds
//! that state in its own arena over a longer conversation and continues from the same
//! instruction with the new messages only, so its cost does not depend on how many messages
//! came before.
//!
//! Whether continuing is the same as rendering the whole conversation is not decided here:
//! `chat::incremental` proves it from the compiled program before it ever watches a loop.
//! This module refuses, rather than saves wrongly, any state it cannot rebuild exactly.

use std::cell::Cell;

use crate::compile::Program;
use crate::error::Error;
use crate::limits::Limits;
use crate::value::{Callable, Ctx, Global, IterKind, LoopState, UndefInfo, Value};

use super::run::{LoopRun, Vm};

/// How deep a saved value may nest before the checkpoint is refused.
const MAX_DEPTH: usize = 200;

/// The request data a render reads, which a checkpoint refers to instead of copying.
#[derive(Clone, Copy)]
pub(crate) struct Sources<'a> {
    /// The conversation: a JSON array of message objects, the `messages` variable.
    pub(crate) messages: &'a serde_json::Value,
    /// The request's other keys (`tools`, `documents`, kwargs).
    pub(crate) request: &'a serde_json::Map<String, serde_json::Value>,
    /// Kwargs under the request's own (a model's special tokens).
    pub(crate) extra: Option<&'a serde_json::Map<String, serde_json::Value>>,
}

impl<'a> Sources<'a> {
    fn items(&self) -> &'a [serde_json::Value] {
        self.messages.as_array().map_or(&[], |a| a.as_slice())
    }
}

/// What a watched render records.
pub(crate) struct Watch<'a> {
    /// The `Iter` instruction of the message loop.
    pub(crate) pc: usize,
    /// The data the render reads.
    pub(crate) sources: Sources<'a>,
    /// Root slots never read once the loop has started (sliced copies of `messages`):
    /// saved as undefined.
    pub(crate) dead_slots: &'a [u16],
    /// No checkpoint with fewer messages than this (the template reads `messages[k]`).
    pub(crate) min_messages: usize,
    /// The checkpoint, or why none could be taken; `None` if the loop never ran out.
    pub(crate) saved: Option<Result<Checkpoint, &'static str>>,
    /// The length of the output buffer when the loop ran out: what came before is kept
    /// even if the rest of the render fails.
    pub(crate) out_at: Option<usize>,
}

impl<'a> Watch<'a> {
    /// A watch of the loop at `pc` over `sources`.
    pub(crate) fn new(
        pc: usize,
        sources: Sources<'a>,
        dead_slots: &'a [u16],
        min_messages: usize,
    ) -> Watch<'a> {
        Watch {
            pc,
            sources,
            dead_slots,
            min_messages,
            saved: None,
            out_at: None,
        }
    }
}

/// The machine state at the start of an iteration of the message loop, owned.
#[derive(Clone)]
pub(crate) struct Checkpoint {
    /// The loop's `Iter` instruction.
    pc: usize,
    /// Root slots.
    slots: Vec<Saved>,
    /// Namespaces, by the index [`Saved::Ns`] holds.
    namespaces: Vec<Vec<(String, Saved)>>,
    /// Copies of request JSON that is neither a message nor a top-level request value.
    json: Vec<serde_json::Value>,
    /// Iterations run: `loop.index0` of the next item.
    pub(crate) done: usize,
    /// Index in `messages` of the loop's first item (`messages[offset:]` is iterated).
    pub(crate) offset: usize,
}

/// A value in owned form.
#[derive(Clone)]
enum Saved {
    Undefined(Option<Box<SavedUndef>>),
    None,
    Bool(bool),
    Int(i64),
    Big(bool, Vec<u32>),
    Float(f64),
    Str(String),
    Markup(String),
    List(Vec<Saved>),
    Tuple(Vec<Saved>),
    /// One of `groupby`'s `(grouper, list)` tuples.
    GroupTuple(Vec<Saved>),
    Dict(Vec<(Saved, Saved)>),
    /// The `messages` array itself.
    Messages,
    /// `messages[i]`.
    Message(usize),
    /// A top-level value of the request (`request` first, then `extra`).
    Request(bool, String),
    /// A copy in [`Checkpoint::json`].
    Json(usize),
    Iter(IterKind, Vec<Saved>),
    /// A generator whose body failed: its function and error.
    FailedGen(
        crate::value::Gen,
        crate::error::ErrorKind,
        crate::error::ExceptionClass,
        String,
    ),
    Ns(usize),
    Macro(u32, u32, Option<Box<str>>),
    Method(Box<Saved>, String),
    Global(Global),
    /// The message loop's `loop` object.
    MainLoop,
}

#[derive(Clone)]
enum SavedUndef {
    Name(String),
    Attr(&'static str, String),
    Item(&'static str, Saved),
}

/// Saves values, giving each namespace one index.
struct Saver<'s, 'a> {
    sources: Sources<'a>,
    main_loop: *const LoopState<'a>,
    ctx: &'s Ctx<'a>,
    ns_seen: Vec<*const crate::value::Namespace<'a>>,
    namespaces: Vec<Vec<(String, Saved)>>,
    json: Vec<serde_json::Value>,
}

impl<'a> Saver<'_, 'a> {
    fn save(&mut self, v: &Value<'a>, depth: usize) -> Result<Saved, &'static str> {
        if depth > MAX_DEPTH {
            return Err("a value nested too deeply to save");
        }
        let d = depth + 1;
        Ok(match *v {
            Value::Undefined(None) => Saved::Undefined(None),
            Value::Undefined(Some(info)) => Saved::Undefined(Some(Box::new(match *info {
                UndefInfo::Name(n) => SavedUndef::Name(n.to_string()),
                UndefInfo::Attr { obj, name } => SavedUndef::Attr(obj, name.to_string()),
                UndefInfo::Item { obj, key } => SavedUndef::Item(obj, self.save(&key, d)?),
            }))),
            Value::None => Saved::None,
            Value::Bool(b) => Saved::Bool(b),
            Value::Int(i) => Saved::Int(i),
            Value::Big(b) => {
                let (_, digits) = b.to_bigint().to_u32_digits();
                Saved::Big(b.is_negative(), digits)
            }
            Value::Float(f) => Saved::Float(f),
            Value::Str(s) => Saved::Str(s.to_string()),
            Value::Markup(s) => Saved::Markup(s.to_string()),
            Value::List(l) => Saved::List(self.save_all(l, d)?),
            Value::Tuple(t) if self.ctx.is_group_tuple(t) => {
                Saved::GroupTuple(self.save_all(t, d)?)
            }
            Value::Tuple(t) => Saved::Tuple(self.save_all(t, d)?),
            Value::Dict(pairs) => {
                let mut out = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    out.push((self.save(k, d)?, self.save(v, d)?));
                }
                Saved::Dict(out)
            }
            Value::Json(j) => self.save_json(j),
            Value::Iter(crate::value::Seq {
                kind: IterKind::Generator(gen),
                failed: Some((kind, class, message)),
                ..
            }) => Saved::FailedGen(*gen, *kind, *class, message.to_string()),
            Value::Iter(s) => Saved::Iter(s.kind, self.save_all(s.items, d)?),
            Value::Ns(ns) => {
                let p: *const crate::value::Namespace<'a> = ns;
                if let Some(i) = self.ns_seen.iter().position(|q| *q == p) {
                    return Ok(Saved::Ns(i));
                }
                let i = self.ns_seen.len();
                self.ns_seen.push(p);
                self.namespaces.push(Vec::new());
                let attrs: Vec<(&'a str, Value<'a>)> = ns.attrs.borrow().iter().copied().collect();
                let mut saved = Vec::with_capacity(attrs.len());
                for (k, v) in attrs {
                    saved.push((k.to_string(), self.save(&v, d)?));
                }
                self.namespaces[i] = saved;
                Saved::Ns(i)
            }
            Value::Callable(c) => match *c {
                // A macro defined in a macro reads that call's variables, which a checkpoint
                // does not keep.
                Callable::Macro { env, .. } if env != 0 => {
                    return Err("a macro defined inside a macro")
                }
                Callable::Macro { id, env, name } => Saved::Macro(id, env, name.map(Box::from)),
                Callable::Method { recv, name } => {
                    Saved::Method(Box::new(self.save(&recv, d)?), name.to_string())
                }
                Callable::Global(g) => Saved::Global(g),
                Callable::Cycle(_) => return Err("a loop.cycle value"),
            },
            Value::Loop(l) if std::ptr::eq(l, self.main_loop) => Saved::MainLoop,
            Value::Loop(_) => return Err("the loop object of another loop"),
        })
    }

    fn save_all(&mut self, items: &[Value<'a>], depth: usize) -> Result<Vec<Saved>, &'static str> {
        items.iter().map(|v| self.save(v, depth)).collect()
    }

    /// Request JSON by reference when it is a message, the messages or a top-level request
    /// value; anything else (a part of a message) is copied.
    fn save_json(&mut self, j: &'a serde_json::Value) -> Saved {
        if std::ptr::eq(j, self.sources.messages) {
            return Saved::Messages;
        }
        // A message is found by its address in the array, in constant time.
        let items = self.sources.items();
        let size = std::mem::size_of::<serde_json::Value>();
        let (base, at) = (
            items.as_ptr() as usize,
            j as *const serde_json::Value as usize,
        );
        if at >= base && (at - base) % size == 0 && (at - base) / size < items.len() {
            return Saved::Message((at - base) / size);
        }
        for (extra, map) in [
            (false, Some(self.sources.request)),
            (true, self.sources.extra),
        ] {
            if let Some((k, _)) = map.and_then(|m| m.iter().find(|(_, v)| std::ptr::eq(*v, j))) {
                return Saved::Request(extra, k.clone());
            }
        }
        self.json.push(j.clone());
        Saved::Json(self.json.len() - 1)
    }
}

impl<'a, 'o> Vm<'a, 'o> {
    /// Records the checkpoint of the watched loop, which has just run out of items.
    pub(super) fn checkpoint(&mut self, pc: usize) {
        let Some(watch) = self.watch.take() else {
            return;
        };
        watch.saved = Some(self.save_state(pc, watch));
        watch.out_at = Some(self.out.len());
        self.watch = Some(watch);
    }

    fn save_state(&self, pc: usize, watch: &Watch<'a>) -> Result<Checkpoint, &'static str> {
        if self.frames.len() != 1 || self.loops.len() != 1 {
            return Err("the message loop runs inside a macro or another loop");
        }
        if self.autoescape {
            return Err("the message loop runs under {% autoescape %}");
        }
        if !(self.stack.is_empty()
            && self.captures.is_empty()
            && self.collects.is_empty()
            && self.gen_open.is_empty())
        {
            return Err("the message loop runs inside an expression or a block");
        }
        let lp = &self.loops[0];
        let Some(state) = lp.state else {
            return Err("the message loop has no loop object");
        };
        // The items must be the conversation's last messages, each read in place, and
        // there must be at least one (an empty loop does not say where it starts).
        let messages = watch.sources.items();
        let total = lp.base + lp.items.len();
        if messages.len() < watch.min_messages {
            return Err("too few messages for what the template reads");
        }
        if lp.items.is_empty() || total > messages.len() {
            return Err("the loop does not iterate the conversation");
        }
        let offset = messages.len() - total;
        let window = &messages[offset + lp.base..];
        let in_place = lp
            .items
            .iter()
            .zip(window)
            .all(|(v, m)| matches!(v, Value::Json(j) if std::ptr::eq(*j, m)));
        if !in_place {
            return Err("the loop does not iterate the conversation");
        }
        let mut saver = Saver {
            sources: watch.sources,
            main_loop: state,
            ctx: self.ctx,
            ns_seen: Vec::new(),
            namespaces: Vec::new(),
            json: Vec::new(),
        };
        let mut slots = Vec::with_capacity(self.slots.len());
        for (i, v) in self.slots.iter().enumerate() {
            let dead = u16::try_from(i).is_ok_and(|i| watch.dead_slots.contains(&i));
            slots.push(if dead {
                Saved::Undefined(None)
            } else {
                saver.save(v, 0)?
            });
        }
        Ok(Checkpoint {
            pc,
            slots,
            namespaces: saver.namespaces,
            json: saver.json,
            done: lp.base + lp.next,
            offset,
        })
    }
}

/// Rebuilds saved values in a render's arena.
struct Loader<'s, 'a> {
    ctx: &'s Ctx<'a>,
    sources: Sources<'a>,
    cp: &'a Checkpoint,
    namespaces: Vec<&'a crate::value::Namespace<'a>>,
    main_loop: Value<'a>,
}

impl<'a> Loader<'_, 'a> {
    fn load(&self, s: &'a Saved) -> Value<'a> {
        let ctx = self.ctx;
        match s {
            Saved::Undefined(None) => Value::UNDEFINED,
            Saved::Undefined(Some(info)) => {
                let info = match &**info {
                    SavedUndef::Name(n) => UndefInfo::Name(n),
                    SavedUndef::Attr(obj, name) => UndefInfo::Attr { obj, name },
                    SavedUndef::Item(obj, key) => UndefInfo::Item {
                        obj,
                        key: self.load(key),
                    },
                };
                Value::Undefined(Some(ctx.arena.alloc(info)))
            }
            Saved::None => Value::None,
            Saved::Bool(b) => Value::Bool(*b),
            Saved::Int(i) => Value::Int(*i),
            Saved::Big(neg, digits) => ctx.big_from_digits(*neg, digits),
            Saved::Float(f) => Value::Float(*f),
            Saved::Str(s) => Value::Str(s),
            Saved::Markup(s) => Value::Markup(s),
            Saved::List(l) => Value::List(self.load_all(l)),
            Saved::Tuple(t) => Value::Tuple(self.load_all(t)),
            Saved::GroupTuple(t) => {
                let t = self.load_all(t);
                ctx.mark_group_tuple(t);
                Value::Tuple(t)
            }
            Saved::Dict(pairs) => Value::Dict(
                ctx.arena
                    .alloc_slice_fill_iter(pairs.iter().map(|(k, v)| (self.load(k), self.load(v)))),
            ),
            Saved::Messages => Value::Json(self.sources.messages),
            Saved::Message(i) => self
                .sources
                .items()
                .get(*i)
                .map_or(Value::None, Value::from_json),
            Saved::Request(extra, key) => {
                let map = if *extra {
                    self.sources.extra
                } else {
                    Some(self.sources.request)
                };
                map.and_then(|m| m.get(key))
                    .map_or(Value::None, Value::from_json)
            }
            Saved::Json(i) => self.cp.json.get(*i).map_or(Value::None, Value::from_json),
            Saved::Iter(kind, items) => ctx.iter(*kind, self.load_all(items)),
            Saved::FailedGen(gen, kind, class, message) => ctx.failed_generator(
                *gen,
                &crate::error::Error::new(*kind, message.as_str()).with_class(*class),
            ),
            Saved::Ns(i) => self
                .namespaces
                .get(*i)
                .map_or(Value::UNDEFINED, |ns| Value::Ns(ns)),
            Saved::Macro(id, env, name) => ctx.callable(Callable::Macro {
                id: *id,
                env: *env,
                name: name.as_deref().map(|n| &*ctx.arena.alloc_str(n)),
            }),
            Saved::Method(recv, name) => ctx.callable(Callable::Method {
                recv: self.load(recv),
                name,
            }),
            Saved::Global(g) => ctx.callable(Callable::Global(*g)),
            Saved::MainLoop => self.main_loop,
        }
    }

    fn load_all(&self, items: &'a [Saved]) -> &'a [Value<'a>] {
        self.ctx
            .arena
            .alloc_slice_fill_iter(items.iter().map(|s| self.load(s)))
    }
}

/// Continues a render from `cp` over `sources.messages`, which holds the messages of the
/// checkpoint's render and more: runs the loop body for each new message, then the rest of
/// the template, appending to `out`. With `watch`, records the next checkpoint.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resume<'a>(
    prog: &'a Program,
    ctx: &Ctx<'a>,
    globals: &[Value<'a>],
    out: &mut String,
    limits: &Limits,
    cp: &'a Checkpoint,
    sources: Sources<'a>,
    watch: Option<&mut Watch<'a>>,
) -> Result<(), Error> {
    let messages = sources.items();
    let window = messages.get(cp.offset + cp.done..).unwrap_or(&[]);
    let items: &'a [Value<'a>] = ctx
        .arena
        .alloc_slice_fill_iter(window.iter().map(Value::from_json));
    let state: &'a LoopState<'a> = ctx.arena.alloc(LoopState {
        items,
        index0: Cell::new(cp.done),
        depth: 1,
        changed: Cell::new(None),
    });
    let mut loader = Loader {
        ctx,
        sources,
        cp,
        namespaces: cp.namespaces.iter().map(|_| ctx.namespace()).collect(),
        main_loop: Value::Loop(state),
    };
    for (ns, attrs) in loader.namespaces.iter().zip(&cp.namespaces) {
        let values: Vec<(&'a str, Value<'a>)> = attrs
            .iter()
            .map(|(k, v)| (k.as_str(), loader.load(v)))
            .collect();
        ns.attrs.borrow_mut().extend(values);
    }
    let slots =
        bumpalo::collections::Vec::from_iter_in(cp.slots.iter().map(|s| loader.load(s)), ctx.arena);
    loader.namespaces.clear();
    let mut vm = Vm::new(prog, ctx, globals, out, limits);
    if vm.slots.len() != slots.len() {
        return Err(crate::error::err!(
            Runtime,
            "internal: a checkpoint of another program"
        ));
    }
    vm.slots = slots;
    vm.loops.push(LoopRun {
        items,
        next: 0,
        base: cp.done,
        state: Some(state),
        recurse: None,
    });
    if let Some(w) = watch {
        vm.watch_pc = w.pc;
        vm.watch = Some(w);
    }
    vm.finish(cp.pc).map(|_| ())
}

/// Renders `prog` from the start, recording the checkpoint of the loop `watch` names.
pub(crate) fn run_watched<'a>(
    prog: &'a Program,
    ctx: &Ctx<'a>,
    globals: &[Value<'a>],
    out: &mut String,
    limits: &Limits,
    watch: &mut Watch<'a>,
) -> Result<(), Error> {
    let mut vm = Vm::new(prog, ctx, globals, out, limits);
    vm.watch_pc = watch.pc;
    vm.watch = Some(watch);
    vm.finish(0).map(|_| ())
}
