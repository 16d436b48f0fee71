//! The dispatch loop.

use smallvec::SmallVec;

use crate::builtins::strfast::{self, StrMeth};
use crate::compile::{Const, Instr, LoopField, Program, NONE16};
use crate::error::{err, Error, ErrorKind, ExceptionClass, Limit};
use crate::limits::Limits;
use crate::value::{budget, fmt, ops, Callable, Ctx, LoopState, VResult, Value};

/// Instructions' fuel is taken from the render's budget this many units at a time.
const FUEL_SLICE: u64 = 1024;

/// A running for loop.
pub(super) struct LoopRun<'a> {
    pub(super) items: &'a [Value<'a>],
    pub(super) next: usize,
    /// Iterations run before `items[0]` (a loop resumed from a checkpoint): `loop.index0`
    /// is `base + next`.
    pub(super) base: usize,
    pub(super) state: Option<&'a LoopState<'a>>,
    /// A recursive loop's function (called with the items and the depth), which calling
    /// the loop object runs one level deeper; None for a loop that is not recursive.
    pub(super) recurse: Option<Value<'a>>,
}

/// A macro call in progress (the template body is frame 0).
pub(super) struct Frame {
    /// First slot of this frame.
    pub(super) base: u32,
    /// First slot of the frame that defined the macro.
    pub(super) env: u32,
    /// This call's number (0 for the template body): what a macro defined in it records.
    pub(super) id: u32,
    /// Where the slots are cut back to on return: `base`, or below it when the defining
    /// frame's slots were copied in for this call (see [`Vm::closed`]).
    pub(super) keep: u32,
    /// A macro was defined in this call: its slots outlive it (see [`Vm::closed`]).
    pub(super) made_macros: bool,
    /// Where to continue after `Return`.
    pub(super) ret_pc: u32,
    /// Output length when the call began: the macro's output is what follows.
    pub(super) capture: u32,
    /// Bit `i`: parameter `i` was passed.
    pub(super) bound: u64,
    /// Loops running when the call began.
    pub(super) loops: u32,
    /// [`Vm::autoescape`] when the call began: the result is `Markup` then.
    pub(super) markup: bool,
}

/// The machine state of one render.
pub(super) struct Vm<'a, 'o> {
    pub(super) prog: &'a Program,
    pub(super) ctx: &'o Ctx<'a>,
    pub(super) globals: &'o [Value<'a>],
    pub(super) out: &'o mut String,
    /// The value stack and the slots live in the render's arena: no heap allocation to set
    /// up a render.
    pub(super) stack: bumpalo::collections::Vec<'a, Value<'a>>,
    pub(super) slots: bumpalo::collections::Vec<'a, Value<'a>>,
    pub(super) frames: SmallVec<[Frame; 8]>,
    /// First slot of the current frame (the top of `frames`), kept at hand for slot access.
    pub(super) base: usize,
    pub(super) loops: bumpalo::collections::Vec<'a, LoopRun<'a>>,
    pub(super) collects: Vec<Vec<Value<'a>>>,
    pub(super) captures: Vec<usize>,
    /// The last call number given (see [`Frame::id`]).
    pub(super) calls: u32,
    /// The slots of returned calls that defined macros, by call number: a macro defined in
    /// a macro reads its definer's variables as they were when that call returned (Python's
    /// closures), after the call's own slots are gone.
    pub(super) closed: Vec<(u32, &'a [Value<'a>])>,
    pub(super) generation: Vec<(usize, usize)>,
    pub(super) gen_open: Vec<usize>,
    /// Generation spans in code points (Python string indices) instead of bytes, with the
    /// output's code points counted up to a committed byte offset (see [`Vm::gen_span`]).
    pub(super) count_chars: Option<(usize, usize)>,
    pub(super) limits: &'o Limits,
    pub(super) out_start: usize,
    /// The `Iter` instruction whose exhaustion records a checkpoint (`usize::MAX`: none).
    pub(super) watch_pc: usize,
    /// Where that checkpoint goes.
    pub(super) watch: Option<&'o mut super::resume::Watch<'a>>,
    /// Macro calls return `Markup` (the render is under `{% autoescape true %}`).
    pub(super) autoescape: bool,
    /// The states `Autoescape` saved, innermost in bit 0 (64 deep; deeper nesting, which
    /// only a `break` out of the block repeated 64 times makes, forgets the oldest).
    pub(super) autoescape_saved: u64,
}

/// Runs `prog`; returns the `{% generation %}` spans in bytes (see [`run_spans`]).
pub(crate) fn run<'a>(
    prog: &'a Program,
    ctx: &Ctx<'a>,
    globals: &[Value<'a>],
    out: &mut String,
    limits: &Limits,
) -> Result<Vec<(usize, usize)>, Error> {
    run_spans(prog, ctx, globals, out, limits, false)
}

/// Runs `prog`; returns the `{% generation %}` spans as transformers computes them, relative
/// to where the output starts in `out`: in bytes, or in code points (Python string indices)
/// with `chars`. A block's start is the length of the output handed out when the block
/// ends, which leaves out any text still held in a buffer (a macro's output, a `set` or
/// filter block's, an enclosing generation block's: jinja2 yields those only when they end);
/// its end is that start plus the block's own length. For a block outside every buffer (the
/// usual case) that is exactly where its text is in the output.
pub(crate) fn run_spans<'a>(
    prog: &'a Program,
    ctx: &Ctx<'a>,
    globals: &[Value<'a>],
    out: &mut String,
    limits: &Limits,
    chars: bool,
) -> Result<Vec<(usize, usize)>, Error> {
    let mut vm = Vm::new(prog, ctx, globals, out, limits);
    if chars {
        vm.count_chars = Some((vm.out_start, 0));
    }
    vm.finish(0)
}

impl<'a, 'o> Vm<'a, 'o> {
    /// A machine at the start of `prog`, appending to `out`.
    pub(super) fn new(
        prog: &'a Program,
        ctx: &'o Ctx<'a>,
        globals: &'o [Value<'a>],
        out: &'o mut String,
        limits: &'o Limits,
    ) -> Vm<'a, 'o> {
        let out_start = out.len();
        Vm {
            prog,
            ctx,
            globals,
            out,
            stack: bumpalo::collections::Vec::with_capacity_in(32, ctx.arena),
            slots: bumpalo::vec![in ctx.arena; Value::UNDEFINED; prog.root_slots as usize],
            frames: smallvec::smallvec![Frame {
                base: 0,
                env: 0,
                id: 0,
                keep: 0,
                made_macros: false,
                ret_pc: 0,
                capture: 0,
                bound: 0,
                loops: 0,
                markup: false,
            }],
            base: 0,
            loops: bumpalo::collections::Vec::with_capacity_in(4, ctx.arena),
            collects: Vec::new(),
            captures: Vec::new(),
            calls: 0,
            closed: Vec::new(),
            generation: Vec::new(),
            gen_open: Vec::new(),
            count_chars: None,
            limits,
            out_start,
            watch_pc: usize::MAX,
            watch: None,
            autoescape: false,
            autoescape_saved: 0,
        }
    }

    /// Runs from instruction `pc` to the end; on error, the output is cut back to where this
    /// machine started and the error gets its source location.
    pub(super) fn finish(mut self, pc: usize) -> Result<Vec<(usize, usize)>, Error> {
        let mut pc = pc;
        let _budget = budget::start(self.limits.fuel);
        let mut result = self.exec(&mut pc);
        // An operation that ran out of fuel may have stopped early with a meaningless result;
        // whatever followed, the render failed for want of fuel.
        if budget::exhausted()
            && !matches!(&result, Err(e) if e.kind() == ErrorKind::Limit(Limit::Fuel))
        {
            result = Err(budget::fuel_error());
        }
        // Likewise a builtin refused a value past the size limit and went on with less.
        if self.ctx.oversized()
            && !matches!(&result, Err(e) if matches!(e.kind(), ErrorKind::Limit(_)))
        {
            result = Err(self.ctx.too_large());
        }
        match result {
            Ok(()) => Ok(self.generation),
            Err(e) => {
                // A watched render keeps what it produced up to its checkpoint.
                let keep = self.watch.as_ref().and_then(|w| w.out_at);
                self.out.truncate(keep.unwrap_or(self.out_start));
                Err(e.with_offset(&self.prog.source, self.prog.offset_of(pc)))
            }
        }
    }
}

impl<'a, 'o> Vm<'a, 'o> {
    #[inline]
    pub(super) fn pop(&mut self) -> Value<'a> {
        self.stack.pop().unwrap_or(Value::UNDEFINED)
    }

    #[inline]
    fn push(&mut self, v: Value<'a>) {
        self.stack.push(v);
    }

    #[inline]
    fn base(&self) -> usize {
        self.base
    }

    #[inline]
    fn slot(&self, i: u16) -> Value<'a> {
        self.slots
            .get(self.base() + usize::from(i))
            .copied()
            .unwrap_or(Value::UNDEFINED)
    }

    fn check_output(&self) -> Result<(), Error> {
        if self.out.len() - self.out_start > self.limits.max_output {
            return Err(Error::new(
                ErrorKind::Limit(Limit::Output),
                format!("output larger than {} bytes", self.limits.max_output),
            ));
        }
        Ok(())
    }

    fn check_size(&self, v: &Value<'a>) -> Result<(), Error> {
        let big = match v {
            Value::Str(s) => s.len() > self.limits.max_output,
            Value::List(l) | Value::Tuple(l) => l.len() > self.limits.max_output / 8,
            _ => false,
        };
        if big
            || self.ctx.oversized()
            || self.ctx.arena.allocated_bytes() > self.limits.max_output.saturating_mul(4)
        {
            return Err(Error::new(
                ErrorKind::Limit(Limit::Output),
                format!(
                    "a value larger than the output limit ({} bytes)",
                    self.limits.max_output
                ),
            ));
        }
        Ok(())
    }

    /// The dispatch loop. `pc` is kept up to date with the instruction being executed (for
    /// error locations); the loop itself counts in a local.
    fn exec(&mut self, pc: &mut usize) -> Result<(), Error> {
        let prog = self.prog;
        let ctx = self.ctx;
        let code = &prog.code[..];
        // Fuel for instructions is taken from the render's budget in slices, which the work
        // inside instructions also draws from (see `budget`).
        let mut fuel = 0u64;
        let mut ip = *pc;
        // Fused sequences: an instruction that sees the next one is a `JumpIfFalse` (or a
        // `Store`, ...) does its work too, without a push and a pop, and skips it. Each
        // instruction so run still takes its unit of fuel, and only while fuel is left in
        // the slice, so the accounting is the same as one dispatch per instruction.
        macro_rules! branch_or_push {
            ($r:expr) => {{
                let r: bool = $r;
                if fuel > 0 {
                    if let Some(&Instr::JumpIfFalse(t)) = code.get(ip) {
                        fuel -= 1;
                        ip = if r { ip + 1 } else { t as usize };
                        continue;
                    }
                }
                self.push(Value::Bool(r));
            }};
        }
        macro_rules! push_or_store {
            ($v:expr) => {{
                let v: Value<'a> = $v;
                if fuel > 0 {
                    if let Some(&Instr::Store(i)) = code.get(ip) {
                        fuel -= 1;
                        ip += 1;
                        let at = self.base + usize::from(i);
                        if let Some(slot) = self.slots.get_mut(at) {
                            *slot = v;
                        }
                        continue;
                    }
                }
                self.push(v);
            }};
        }
        // `Iter(t)` at `at`: the next item (stored by a `Store` that follows), or the exit.
        macro_rules! iter_step {
            ($at:expr, $t:expr) => {{
                let Some(lp) = self.loops.last_mut() else {
                    return Err(err!(Runtime, "internal: no loop"));
                };
                match lp.items.get(lp.next) {
                    Some(&item) => {
                        if let Some(st) = lp.state {
                            st.index0.set(lp.base + lp.next);
                        }
                        lp.next += 1;
                        push_or_store!(item);
                    }
                    None => {
                        if $at == self.watch_pc {
                            self.checkpoint($at);
                        }
                        ip = $t as usize;
                    }
                }
            }};
        }
        loop {
            *pc = ip;
            let Some(&instr) = code.get(ip) else {
                return Err(err!(Runtime, "internal: jump out of the program"));
            };
            if fuel == 0 {
                fuel = budget::take(FUEL_SLICE);
                if fuel == 0 {
                    return Err(budget::fuel_error());
                }
            }
            fuel -= 1;
            ip += 1;
            match instr {
                Instr::EmitRaw(s, e) => {
                    self.out
                        .push_str(prog.source.get(s as usize..e as usize).unwrap_or(""));
                    self.check_output()?;
                }
                Instr::EmitStr(i) => {
                    self.out.push_str(&prog.strs[i as usize]);
                    self.check_output()?;
                }
                Instr::Emit => {
                    let v = self.pop();
                    fmt::write_str(self.out, &v);
                    self.check_output()?;
                }
                Instr::EmitEscaped => {
                    match self.pop() {
                        Value::Markup(s) => self.out.push_str(s),
                        v => {
                            let mut text = String::new();
                            fmt::write_str(&mut text, &v);
                            crate::value::markup::escape_into(self.out, &text);
                        }
                    }
                    self.check_output()?;
                }
                Instr::MarkSafe => {
                    let v = self.pop();
                    self.push(crate::value::markup::mark_safe(ctx, v));
                }
                Instr::Autoescape(on) => {
                    self.autoescape_saved = self.autoescape_saved << 1 | u64::from(self.autoescape);
                    self.autoescape = on;
                }
                Instr::AutoescapeRevert => {
                    self.autoescape = self.autoescape_saved & 1 == 1;
                    self.autoescape_saved >>= 1;
                }
                Instr::Const(i) => {
                    let v = match prog.consts[i as usize] {
                        Const::None => Value::None,
                        Const::Bool(b) => Value::Bool(b),
                        Const::Int(i) => Value::Int(i),
                        Const::Big(i) => ctx.int(i),
                        Const::BigText(i) => ctx.big_literal(&prog.strs[i as usize])?,
                        Const::Float(f) => Value::Float(f),
                    };
                    self.push(v);
                }
                Instr::Str(i) => self.push(Value::Str(&prog.strs[i as usize])),
                Instr::Undefined => self.push(Value::UNDEFINED),
                Instr::Load(i) => {
                    let v = self.slot(i);
                    self.push(v);
                }
                Instr::Store(i) => {
                    let v = self.pop();
                    let at = self.base() + usize::from(i);
                    if let Some(slot) = self.slots.get_mut(at) {
                        *slot = v;
                    }
                }
                Instr::LoadUp(i) => {
                    let env = self.frames.last().map_or(0, |f| f.env as usize);
                    let v = self
                        .slots
                        .get(env + usize::from(i))
                        .copied()
                        .unwrap_or(Value::UNDEFINED);
                    self.push(v);
                }
                Instr::LoadRoot(i) => {
                    let v = self
                        .slots
                        .get(usize::from(i))
                        .copied()
                        .unwrap_or(Value::UNDEFINED);
                    self.push(v);
                }
                Instr::LoadGlobal(i) => {
                    let v = self
                        .globals
                        .get(usize::from(i))
                        .copied()
                        .unwrap_or(Value::UNDEFINED);
                    push_or_store!(v);
                }
                Instr::LoopAttr(slot, field) => {
                    let v = match self.slot(slot) {
                        Value::Loop(l) => loop_attr(l, field),
                        other => ops::getattr(ctx, other, field_name(field))?,
                    };
                    self.push(v);
                }
                Instr::Attr(i) => {
                    let obj = self.pop();
                    let v = attr(ctx, prog, obj, &prog.strs[i as usize])?;
                    self.push(v);
                }
                Instr::AttrKey(i) | Instr::ItemStr(i) => {
                    let obj = self.pop();
                    let v = key_read(ctx, prog, obj, i, matches!(instr, Instr::ItemStr(_)))?;
                    self.push(v);
                }
                Instr::LoadKey { slot, key, item } => {
                    let obj = self.slot(slot);
                    let v = key_read(ctx, prog, obj, key, item)?;
                    // `message.role == 'user'`, and the jump of an `if` on it.
                    if fuel > 0 {
                        if let Some(&Instr::EqStr(i, negated)) = code.get(ip) {
                            fuel -= 1;
                            ip += 1;
                            branch_or_push!(eq_str(v, &prog.strs[i as usize]) != negated);
                            continue;
                        }
                    }
                    self.push(v);
                }
                Instr::LoadKeyInSum { slot, key, item } => {
                    let obj = self.slot(slot);
                    let v = if obj.is_undefined() {
                        obj
                    } else {
                        key_read(ctx, prog, obj, key, item)?
                    };
                    self.push(v);
                }
                Instr::EqStr(i, negated) => {
                    let a = self.pop();
                    branch_or_push!(eq_str(a, &prog.strs[i as usize]) != negated);
                }
                Instr::Item => {
                    let key = self.pop();
                    let obj = self.pop();
                    let v = ops::getitem(ctx, obj, key)?;
                    self.push(v);
                }
                Instr::Slice(flags) => {
                    let mut parts = [Value::None; 3];
                    for i in (0..3).rev() {
                        if flags & (1 << i) != 0 {
                            parts[i] = self.pop();
                        }
                    }
                    let obj = self.pop();
                    let v = ops::slice(ctx, obj, parts[0], parts[1], parts[2])?;
                    self.push(v);
                }
                Instr::MarkupConcat => {
                    let b = self.pop();
                    let a = self.pop();
                    let v = crate::value::markup::join(ctx, a, b)?;
                    self.check_size(&v)?;
                    self.push(v);
                }
                Instr::Bin(op) => {
                    let b = self.pop();
                    let a = self.pop();
                    if let (Value::Int(x), Value::Int(y)) = (a, b) {
                        if let Some(r) = int_binop(op, x, y) {
                            push_or_store!(Value::Int(r));
                            continue;
                        }
                    }
                    let v = ops::binop(ctx, op, a, b)?;
                    self.check_size(&v)?;
                    push_or_store!(v);
                }
                Instr::AddN(n) => {
                    let v = self.add_n(n as usize)?;
                    self.check_size(&v)?;
                    self.push(v);
                }
                Instr::EmitAddN(n) => {
                    let at = self.stack.len().saturating_sub(n as usize);
                    if self.stack[at..].iter().all(|v| matches!(v, Value::Str(_))) {
                        for v in &self.stack[at..] {
                            if let Value::Str(s) = v {
                                self.out.push_str(s);
                            }
                        }
                        self.stack.truncate(at);
                    } else {
                        let v = self.add_n(n as usize)?;
                        fmt::write_str(self.out, &v);
                    }
                    self.check_output()?;
                }
                Instr::ConcatN(n) => {
                    let at = self.stack.len().saturating_sub(n as usize);
                    let v = concat_n(ctx, self.stack.get(at..).unwrap_or(&[]));
                    self.stack.truncate(at);
                    self.check_size(&v)?;
                    push_or_store!(v);
                }
                Instr::EmitConcatN(n) => {
                    let at = self.stack.len().saturating_sub(n as usize);
                    for v in self.stack.get(at..).unwrap_or(&[]) {
                        fmt::write_str(self.out, v);
                    }
                    self.stack.truncate(at);
                    self.check_output()?;
                }
                Instr::Cmp(op) => {
                    let b = self.pop();
                    let a = self.pop();
                    let r = match (a, b) {
                        (Value::Int(x), Value::Int(y)) => match op {
                            ops::CmpOp::Lt => x < y,
                            ops::CmpOp::Le => x <= y,
                            ops::CmpOp::Gt => x > y,
                            ops::CmpOp::Ge => x >= y,
                        },
                        _ => ops::compare(op, &a, &b)?,
                    };
                    branch_or_push!(r);
                }
                Instr::Eq => {
                    let b = self.pop();
                    let a = self.pop();
                    branch_or_push!(ops::eq(&a, &b));
                }
                Instr::Ne => {
                    let b = self.pop();
                    let a = self.pop();
                    branch_or_push!(!ops::eq(&a, &b));
                }
                Instr::In(negated) => {
                    let b = self.pop();
                    let a = self.pop();
                    let r = ops::contains(ctx, b, a)?;
                    branch_or_push!(r != negated);
                }
                Instr::Not => {
                    let v = self.pop();
                    branch_or_push!(!v.is_true());
                }
                Instr::Neg => {
                    let v = self.pop();
                    let r = ops::neg(ctx, v)?;
                    self.push(r);
                }
                Instr::Pos => {
                    let v = self.pop();
                    let r = ops::pos(ctx, v)?;
                    self.push(r);
                }
                Instr::Dup => {
                    let v = self.stack.last().copied().unwrap_or(Value::UNDEFINED);
                    self.push(v);
                }
                Instr::Pop => {
                    self.pop();
                }
                Instr::Jump(t) => {
                    ip = t as usize;
                    // A loop's jump back to its `Iter`, or a jump to a jump.
                    if fuel > 0 {
                        match code.get(ip) {
                            Some(&Instr::Iter(e)) => {
                                fuel -= 1;
                                ip += 1;
                                iter_step!(ip - 1, e);
                            }
                            Some(&Instr::Jump(t)) => {
                                fuel -= 1;
                                ip = t as usize;
                            }
                            _ => {}
                        }
                    }
                }
                Instr::JumpIfFalse(t) => {
                    if !self.pop().is_true() {
                        ip = t as usize;
                    }
                }
                Instr::JumpIfFalseOrPop(t) => {
                    if self.stack.last().is_some_and(|v| !v.is_true()) {
                        ip = t as usize;
                    } else {
                        self.pop();
                    }
                }
                Instr::JumpIfTrueOrPop(t) => {
                    if self.stack.last().is_some_and(|v| v.is_true()) {
                        ip = t as usize;
                    } else {
                        self.pop();
                    }
                }
                Instr::List(n) | Instr::Tuple(n) => {
                    let at = self.stack.len().saturating_sub(n as usize);
                    let items = ctx.arena.alloc_slice_copy(&self.stack[at..]);
                    self.stack.truncate(at);
                    self.push(if matches!(instr, Instr::List(_)) {
                        Value::List(items)
                    } else {
                        Value::Tuple(items)
                    });
                }
                Instr::Dict(n) => {
                    let at = self.stack.len().saturating_sub(2 * n as usize);
                    let mut pairs: bumpalo::collections::Vec<'a, (Value<'a>, Value<'a>)> =
                        bumpalo::collections::Vec::with_capacity_in(n as usize, ctx.arena);
                    for kv in self.stack[at..].chunks_exact(2) {
                        let (k, v) = (kv[0], kv[1]);
                        // `{[1]: 2}` is Python's TypeError, as in jinja2.
                        crate::builtins::check_hashable(&k)?;
                        match pairs.iter_mut().find(|(pk, _)| ops::eq(pk, &k)) {
                            Some(p) => p.1 = v,
                            None => pairs.push((k, v)),
                        }
                    }
                    self.stack.truncate(at);
                    self.push(Value::Dict(pairs.into_bump_slice()));
                }
                Instr::Filter { f, argc, kw } if kw == NONE16 => {
                    // The value and its positional arguments are read where they are on the
                    // stack, then dropped.
                    let (at, value, args) = self.operands(argc);
                    budget::charge_call(&value, args, &[])?;
                    let v = (prog.filters[usize::from(f)])(ctx, value, args, &[])?;
                    self.check_size(&v)?;
                    self.stack.truncate(at);
                    self.push(v);
                }
                Instr::Filter { f, argc, kw } => {
                    let (args, kwargs) = self.take_args(argc, kw);
                    let value = self.pop();
                    budget::charge_call(&value, &args, &kwargs)?;
                    let v = (prog.filters[usize::from(f)])(ctx, value, &args, &kwargs)?;
                    self.check_size(&v)?;
                    self.push(v);
                }
                Instr::Test { t, argc, neg } => {
                    let (at, value, args) = self.operands(argc);
                    budget::charge_call(&value, args, &[])?;
                    let r = (prog.tests[usize::from(t)])(ctx, value, args)?;
                    self.stack.truncate(at);
                    branch_or_push!(r != neg);
                }
                Instr::Call { argc, kw } => {
                    let (args, kwargs) = self.take_args(argc, kw);
                    let callee = self.pop();
                    {
                        let mut next = ip;
                        self.call(callee, &args, &kwargs, &mut next)?;
                        ip = next;
                    }
                }
                Instr::Extend => {
                    let more = self.pop();
                    let list = self.pop();
                    let mut items = ops::iterate(ctx, list)?.to_vec();
                    items.extend_from_slice(ops::iterate(ctx, more)?);
                    self.push(ctx.list(items));
                }
                Instr::CallSplat { kw, dstar } => {
                    let mapping = if dstar { Some(self.pop()) } else { None };
                    let (_, mut kwargs) = self.take_args(0, kw);
                    let list = self.pop();
                    let callee = self.pop();
                    let args: SmallVec<[Value<'a>; 4]> =
                        SmallVec::from_slice(ops::iterate(ctx, list)?);
                    if let Some(m) = mapping {
                        for key in ops::iterate(ctx, m)? {
                            let Value::Str(k) = *key else {
                                return Err(err!(Type, "keywords must be strings"));
                            };
                            kwargs.push((k, ops::getitem(ctx, m, *key)?));
                        }
                    }
                    {
                        let mut next = ip;
                        self.call(callee, &args, &kwargs, &mut next)?;
                        ip = next;
                    }
                }
                Instr::CallMethod { name, argc, kw, m } => {
                    if m != StrMeth::Other {
                        let at = self.stack.len().wrapping_sub(usize::from(argc) + 1);
                        let fast = match self.stack.get(at) {
                            Some(&Value::Str(s)) => {
                                strfast::call(ctx, m, s, self.stack.get(at + 1..).unwrap_or(&[]))
                            }
                            Some(&d) if m == StrMeth::Get => {
                                strfast::dict_get(ctx, d, self.stack.get(at + 1..).unwrap_or(&[]))
                            }
                            _ => None,
                        };
                        if let Some(r) = fast {
                            let v = r?;
                            self.stack.truncate(at);
                            self.push(v);
                            continue;
                        }
                    }
                    let (args, kwargs) = self.take_args(argc, kw);
                    let recv = self.pop();
                    let name: &'a str = &prog.strs[name as usize];
                    {
                        let mut next = ip;
                        self.call_method(recv, name, &args, &kwargs, &mut next)?;
                        ip = next;
                    }
                }
                Instr::Unpack(n) => {
                    let v = self.pop();
                    let items = ops::iterate(ctx, v)?;
                    let n = usize::from(n);
                    if items.len() != n {
                        return Err(if items.len() > n {
                            err!(Value, "too many values to unpack (expected {n})")
                        } else {
                            err!(
                                Value,
                                "not enough values to unpack (expected {n}, got {})",
                                items.len()
                            )
                        });
                    }
                    self.stack.extend(items.iter().rev().copied());
                }
                Instr::IterInit(slot) | Instr::IterInitAt(slot) => {
                    let (depth, recurse) = match instr {
                        Instr::IterInitAt(_) => {
                            let depth = match self.pop() {
                                Value::Int(d) => usize::try_from(d).unwrap_or(1),
                                _ => 1,
                            };
                            (depth, Some(self.pop()))
                        }
                        _ => (1, None),
                    };
                    let v = self.pop();
                    let items = ops::iterate(ctx, v)?;
                    let state = (slot != NONE16).then(|| {
                        &*ctx.arena.alloc(LoopState {
                            items,
                            index0: std::cell::Cell::new(0),
                            depth,
                            changed: std::cell::Cell::new(None),
                        })
                    });
                    if let Some(st) = state {
                        let at = self.base() + usize::from(slot);
                        if let Some(s) = self.slots.get_mut(at) {
                            *s = Value::Loop(st);
                        }
                    }
                    self.loops.push(LoopRun {
                        items,
                        next: 0,
                        base: 0,
                        state,
                        recurse,
                    });
                }
                Instr::Iter(t) => iter_step!(ip - 1, t),
                Instr::LoopEnd(t) => {
                    if let Some(lp) = self.loops.pop() {
                        if lp.base + lp.next > 0 {
                            ip = t as usize;
                        }
                    }
                }
                Instr::CollectStart => self.collects.push(Vec::new()),
                Instr::CollectPush => {
                    let v = self.pop();
                    if let Some(c) = self.collects.last_mut() {
                        c.push(v);
                    }
                }
                Instr::CollectEnd => {
                    let items = self.collects.pop().unwrap_or_default();
                    let v = Value::List(ctx.arena.alloc_slice_copy(&items));
                    self.push(v);
                }
                Instr::CaptureStart => self.captures.push(self.out.len()),
                Instr::CaptureEnd => {
                    let start = self.captures.pop().unwrap_or(self.out.len());
                    let text = ctx.arena.alloc_str(self.out.get(start..).unwrap_or(""));
                    self.out.truncate(start);
                    self.push(Value::Str(text));
                }
                Instr::MakeMacro(id) => {
                    // The defining call, by number: its slots may be gone when the macro runs.
                    let env = match self.frames.last_mut() {
                        Some(f) => {
                            f.made_macros |= f.id != 0;
                            f.id
                        }
                        None => 0,
                    };
                    let name = prog
                        .macros
                        .get(id as usize)
                        .map(|m| &*m.name)
                        .filter(|n| *n != "caller");
                    let v = ctx.callable(Callable::Macro { id, env, name });
                    self.push(v);
                }
                Instr::JumpIfBound(i, t) => {
                    let bound = self.frames.last().map_or(0, |f| f.bound);
                    if bound & (1u64 << (i & 63)) != 0 {
                        ip = t as usize;
                    }
                }
                Instr::Return => {
                    let mut next = ip;
                    self.ret(&mut next)?;
                    ip = next;
                }
                Instr::SetAttr(i) | Instr::SetAttrOnTop(i) => {
                    let name: &'a str = &prog.strs[i as usize];
                    let (value, ns) = if matches!(instr, Instr::SetAttr(_)) {
                        let value = self.pop();
                        (value, self.pop())
                    } else {
                        let ns = self.pop();
                        (self.pop(), ns)
                    };
                    match ns {
                        Value::Ns(_) if name.starts_with('_') => {
                            return Err(err!(
                                Security,
                                "Chat templates cannot store underscore-prefixed attributes on a namespace, but got '{name}'. Please rename the attribute."
                            ));
                        }
                        Value::Ns(ns) => ns.set(name, value),
                        _ => {
                            return Err(err!(
                                Runtime,
                                "cannot assign attribute on non-namespace object"
                            ))
                        }
                    }
                }
                Instr::Fail(i, class) => {
                    // A filter or test that does not exist, or a call jinja2 refuses.
                    let kind = match class {
                        ExceptionClass::TypeError => ErrorKind::Type,
                        _ => ErrorKind::Unknown,
                    };
                    let msg = prog.strs[i as usize].to_string();
                    return Err(Error::new(kind, msg).with_class(class));
                }
                Instr::GenStart => self.gen_open.push(self.out.len()),
                Instr::GenEnd => {
                    if let Some(s) = self.gen_open.pop() {
                        let span = self.gen_span(s);
                        self.generation.push(span);
                    }
                }
                Instr::Halt => return Ok(()),
            }
        }
    }

    /// The span of the generation block that started at byte `s` of the output and ends
    /// here (see [`run_spans`]).
    fn gen_span(&mut self, s: usize) -> (usize, usize) {
        // Where the output handed out so far ends: the start of the outermost open buffer.
        let macros = self.frames.get(1).map(|f| f.capture as usize);
        let held = [
            macros,
            self.captures.first().copied(),
            self.gen_open.first().copied(),
        ];
        let start = held.into_iter().flatten().fold(s, usize::min);
        let text = self.out.get(s..).unwrap_or("");
        let Some((at, chars)) = self.count_chars else {
            let start = start - self.out_start;
            return (start, start + text.len());
        };
        // Output before a buffer is never cut again, so the count so far carries on from
        // the last such offset (they only grow; counted afresh otherwise).
        let (from, base) = if at <= start {
            (at, chars)
        } else {
            (self.out_start, 0)
        };
        let before = base + self.out.get(from..start).map_or(0, |t| t.chars().count());
        self.count_chars = Some((start, before));
        (before, before + text.chars().count())
    }

    /// Pops `n` values and adds them left to right, as `a + b + c` does.
    fn add_n(&mut self, n: usize) -> Result<Value<'a>, Error> {
        let ctx = self.ctx;
        let at = self.stack.len().saturating_sub(n);
        let parts = &self.stack[at..];
        let v = if parts.iter().all(|v| matches!(v, Value::Str(_))) {
            let len = parts
                .iter()
                .map(|v| if let Value::Str(s) = v { s.len() } else { 0 })
                .sum();
            let mut s = bumpalo::collections::String::with_capacity_in(len, ctx.arena);
            for v in parts {
                if let Value::Str(p) = v {
                    s.push_str(p);
                }
            }
            Value::Str(s.into_bump_str())
        } else {
            let mut acc = parts.first().copied().unwrap_or(Value::UNDEFINED);
            for v in &parts[1..] {
                acc = ops::binop(ctx, ops::BinOp::Add, acc, *v)?;
                self.check_size(&acc)?;
            }
            acc
        };
        self.stack.truncate(at);
        Ok(v)
    }

    /// The operand of a filter or test and its `argc` positional arguments, read in place from
    /// the top of the stack, with the stack length to truncate to once they are used.
    #[inline]
    fn operands(&self, argc: u8) -> (usize, Value<'a>, &[Value<'a>]) {
        let at = self.stack.len().saturating_sub(usize::from(argc) + 1);
        match self.stack[at..].split_first() {
            Some((value, args)) => (at, *value, args),
            None => (at, Value::UNDEFINED, &[]),
        }
    }

    /// Pops `argc` positional arguments and the keyword arguments of `kwnames[kw]`. Up to
    /// two keyword arguments stay inline; more (`namespace(...)` with three to six of them
    /// is in one template of ten) are gathered in one allocation of the exact size.
    #[allow(clippy::type_complexity)]
    fn take_args(
        &mut self,
        argc: u8,
        kw: u16,
    ) -> (
        SmallVec<[Value<'a>; 4]>,
        SmallVec<[(&'a str, Value<'a>); 2]>,
    ) {
        let prog = self.prog;
        let mut kwargs = SmallVec::new();
        if kw != NONE16 {
            let names = &prog.kwnames[usize::from(kw)];
            let at = self.stack.len().saturating_sub(names.len());
            kwargs.reserve_exact(names.len());
            for (n, v) in names.iter().zip(&self.stack[at..]) {
                kwargs.push((&prog.strs[*n as usize], *v));
            }
            self.stack.truncate(at);
        }
        let at = self.stack.len().saturating_sub(usize::from(argc));
        let args = SmallVec::from_slice(&self.stack[at..]);
        self.stack.truncate(at);
        (args, kwargs)
    }
}

/// `obj.strs[key]` (or `obj[strs[key]]` when `item`) for a key no dict attribute has: a JSON
/// object's key directly, anything else by the general rules.
#[inline(always)]
fn key_read<'a>(
    ctx: &Ctx<'a>,
    prog: &'a Program,
    obj: Value<'a>,
    key: u32,
    item: bool,
) -> VResult<'a> {
    let name: &'a str = &prog.strs[key as usize];
    match obj {
        Value::Json(serde_json::Value::Object(o)) => {
            if let Some(j) = ops::json_get(o, name) {
                return Ok(Value::from_json_in(j, ctx));
            }
        }
        // A dict built by a language binding from its own objects, by the request
        // preparation (a message whose reasoning was aliased) or by the template: only a
        // string key can equal `name`.
        Value::Dict(d) => {
            if let Some(v) = ops::dict_str_get(d, name) {
                return Ok(v);
            }
        }
        _ => return key_read_other(ctx, prog, obj, name, item),
    }
    // A key the dict does not have. `obj.name` (a name no dict attribute has) is undefined;
    // `obj['name']` may still be an attribute (`d['items']`).
    if item {
        key_read_other(ctx, prog, obj, name, item)
    } else {
        Ok(ops::missing_attr(ctx, &obj, name))
    }
}

/// [`key_read`] of anything but a key present in a JSON object.
#[inline(never)]
fn key_read_other<'a>(
    ctx: &Ctx<'a>,
    prog: &'a Program,
    obj: Value<'a>,
    name: &'a str,
    item: bool,
) -> VResult<'a> {
    if item {
        ops::getitem(ctx, obj, Value::Str(name))
    } else {
        attr(ctx, prog, obj, name)
    }
}

/// `str(a) + str(b) + ...` of `parts` (what `a ~ b ~ ...` computes left to right), written
/// once into the arena.
fn concat_n<'a>(ctx: &Ctx<'a>, parts: &[Value<'a>]) -> Value<'a> {
    let len = parts
        .iter()
        .map(|v| match v {
            Value::Str(s) => s.len(),
            _ => 0,
        })
        .sum();
    let mut out = bumpalo::collections::String::with_capacity_in(len, ctx.arena);
    let mut tmp = String::new();
    for v in parts {
        match v {
            Value::Str(s) => out.push_str(s),
            other => {
                tmp.clear();
                fmt::write_str(&mut tmp, other);
                out.push_str(&tmp);
            }
        }
    }
    Value::Str(out.into_bump_str())
}

/// `x <op> y` for two ints whose result is an int that fits in 64 bits (Python's floor
/// division and modulo); None for anything else, which the general path computes.
#[inline]
fn int_binop(op: ops::BinOp, x: i64, y: i64) -> Option<i64> {
    match op {
        ops::BinOp::Add => x.checked_add(y),
        ops::BinOp::Sub => x.checked_sub(y),
        ops::BinOp::Mul => x.checked_mul(y),
        ops::BinOp::Mod => {
            let r = x.checked_rem(y)?;
            Some(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            })
        }
        ops::BinOp::FloorDiv => {
            let q = x.checked_div(y)?;
            Some(if x % y != 0 && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            })
        }
        _ => None,
    }
}

/// `a == c` for a string constant `c`.
#[inline]
fn eq_str(a: Value<'_>, c: &str) -> bool {
    match a {
        Value::Str(s) => crate::value::ops::short_eq(s.as_bytes(), c.as_bytes()),
        _ => ops::eq(&a, &Value::Str(c)),
    }
}

/// `obj.name`: the attributes of macros here, everything else by Python's rules.
fn attr<'a>(ctx: &Ctx<'a>, prog: &'a Program, obj: Value<'a>, name: &'a str) -> VResult<'a> {
    if let Value::Callable(Callable::Macro { id, name: own, .. }) = obj {
        if name == "name" {
            // A call block's `caller` is anonymous: its name is None.
            return Ok(own.map_or(Value::None, Value::Str));
        }
        if let Some(v) = super::call::macro_attr(ctx, prog, *id, name) {
            return Ok(v);
        }
    }
    ops::getattr(ctx, obj, name)
}

fn loop_attr<'a>(l: &LoopState<'a>, field: LoopField) -> Value<'a> {
    let i = l.index0.get();
    let n = l.items.len();
    match field {
        LoopField::Index => Value::Int(i as i64 + 1),
        LoopField::Index0 => Value::Int(i as i64),
        LoopField::First => Value::Bool(i == 0),
        LoopField::Last => Value::Bool(i + 1 == n),
        LoopField::Length => Value::Int(n as i64),
        LoopField::RevIndex => Value::Int((n - i) as i64),
        LoopField::RevIndex0 => Value::Int((n - i) as i64 - 1),
    }
}

fn field_name(f: LoopField) -> &'static str {
    match f {
        LoopField::Index => "index",
        LoopField::Index0 => "index0",
        LoopField::First => "first",
        LoopField::Last => "last",
        LoopField::Length => "length",
        LoopField::RevIndex => "revindex",
        LoopField::RevIndex0 => "revindex0",
    }
}

#[cfg(test)]
mod unit {
    use super::int_binop;
    use crate::value::ops::{self, BinOp};
    use crate::value::testutil::{show, with_ctx};
    use crate::value::Value;

    /// The int fast path gives what the general operator gives, wherever it answers.
    #[test]
    fn int_binop_is_the_general_operator() {
        let xs = [0, 1, -1, 2, -2, 7, -7, 50, i64::MAX, i64::MIN];
        let ops_ = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Mod,
            BinOp::FloorDiv,
        ];
        with_ctx(|ctx| {
            for x in xs {
                for y in xs {
                    for op in ops_ {
                        if let Some(r) = int_binop(op, x, y) {
                            let general = show(ops::binop(ctx, op, Value::Int(x), Value::Int(y)));
                            assert_eq!(show(Ok(Value::Int(r))), general, "{x} {op:?} {y}");
                        }
                    }
                }
            }
        });
    }
}
