//! Code generation: walks the AST once, resolving names to slots, filters and tests to
//! function pointers, and recording a span for every instruction that can fail.

use smallvec::SmallVec;

use crate::builtins::strfast::StrMeth;
use crate::compile::instr::{Const, Instr, LoopField, MacroInfo, NONE16};
use crate::compile::intern::Interner;
use crate::compile::scope::{
    name_bit, same_name, stored_names, target_names, AVec, Name, NameMap, Scope,
};
use crate::compile::{Program, StrPool};
use crate::error::{err, Error, ErrorKind, ExceptionClass, Limit};
use crate::syntax::ast::{Args, Cmp, Expr, ExprKind, Lit, MacroDef, Stmt, Target, UnOp};
use crate::syntax::{IntLit, Span};
use crate::value::ops::{BinOp, CmpOp};

/// How many global names are searched in order before they are indexed.
const GLOBALS_SEARCHED: usize = 16;

/// Names a template cannot spell, bound by recursive loops: the loop's function (in the
/// enclosing scope), its two parameters, and a mark in the loop's own scope.
const REC_FUNC: &str = "loop()";
const REC_ITEMS: &str = "loop(items)";
const REC_DEPTH: &str = "loop(depth)";
const REC_MARK: &str = "loop(recursive)";
/// A name a template cannot spell: whether an item of a lazily filtered loop passed.
const PASSED: &str = "loop(passed)";

/// Generates the program for `ast`; `source` is the normalized source (for errors).
pub(super) fn generate<'a>(
    ast: &[Stmt<'a>],
    source: &str,
    max_nesting: usize,
    arena: &'a bumpalo::Bump,
) -> Result<Program, Error> {
    let mut g = Gen {
        p: Program {
            source: String::new(),
            code: Vec::with_capacity(source.len() / 6 + 16),
            consts: Vec::new(),
            strs: StrPool::with_capacity(source.len() / 2),
            // Room for the names, filters and tests of most templates without regrowing.
            globals: Vec::with_capacity(16),
            global_builtins: std::sync::OnceLock::new(),
            filters: Vec::new(),
            tests: Vec::new(),
            kwnames: Vec::new(),
            macros: Vec::new(),
            root_slots: 0,
            spans: Vec::with_capacity(source.len() / 12 + 8),
        },
        source,
        arena,
        // Sized from the source so that the tables rarely grow while compiling.
        strs: Interner::new(arena, (source.len() / 48).clamp(16, 4096)),
        globals: NameMap::default(),
        global_list: SmallVec::new(),
        filters: SmallVec::new(),
        tests: SmallVec::new(),
        scopes: SmallVec::new(),
        bound: 0,
        funcs: smallvec::smallvec![Func {
            id: 0,
            next_slot: 0,
            definer: None,
            uses_varargs: false,
            uses_caller: false,
            uses_kwargs: false,
        }],
        loops: SmallVec::new(),
        soft: 0,
        autoescape: false,
        volatile_escapes: 0,
        depth: 0,
        max_depth: max_nesting,
    };
    let mut names = AVec::new_in(arena);
    stored_names(ast, &mut names);
    g.push_scope(&names)?;
    // Names the template body assigns start from the render's variables.
    for name in names {
        let gi = g.global(name);
        g.emit(Instr::LoadGlobal(gi));
        let slot = g.scopes[0].lookup(name).unwrap_or(0);
        g.emit(Instr::Store(slot));
    }
    g.block(ast)?;
    g.emit(Instr::Halt);
    g.p.root_slots = u32::from(g.funcs[0].next_slot);
    Ok(g.p)
}

struct Func {
    id: u32,
    next_slot: u16,
    definer: Option<u32>,
    /// The body reads `varargs` / `kwargs`.
    uses_varargs: bool,
    /// Whether the body (or a call block inside it) reads `caller`: jinja2's
    /// `Macro.caller`, and whether a call block may pass one.
    uses_caller: bool,
    uses_kwargs: bool,
}

struct LoopCtx {
    top: u32,
    breaks: Vec<usize>,
}

enum Resolved {
    Local(u16),
    Up(u16),
    Root(u16),
    Global(u16),
}

struct Gen<'s, 'a> {
    p: Program,
    source: &'s str,
    /// The compile-time arena (the AST's), for scratch lists.
    arena: &'a bumpalo::Bump,
    strs: Interner<'a>,
    /// The global names by index while there are few ([`GLOBALS_SEARCHED`]), searched in
    /// order; past that, `globals` indexes them all.
    global_list: SmallVec<[&'a str; GLOBALS_SEARCHED]>,
    globals: NameMap<Name<'a>, u16>,
    /// Filters and tests used, by name: at most one per builtin, so a short list.
    filters: SmallVec<[(&'a str, u16); 8]>,
    tests: SmallVec<[(&'a str, u16); 8]>,
    /// Open scopes, functions and loops, innermost last (a few deep: kept inline).
    scopes: SmallVec<[Scope<'a>; 8]>,
    /// The [`name_bit`]s of every name a scope has bound: a name whose bit is clear is a
    /// global without a search of the scopes.
    bound: u64,
    funcs: SmallVec<[Func; 4]>,
    loops: SmallVec<[LoopCtx; 4]>,
    /// Inside an `if`: unknown filters and tests fail only when reached.
    soft: u32,
    /// Under `{% autoescape true %}` (lexically).
    autoescape: bool,
    /// How many non-constant `{% autoescape %}` are open (each compiles its body twice).
    volatile_escapes: u32,
    depth: usize,
    max_depth: usize,
}

type GResult = Result<(), Error>;

impl<'s, 'a> Gen<'s, 'a> {
    fn pc(&self) -> u32 {
        self.p.code.len() as u32
    }

    fn emit(&mut self, i: Instr) -> usize {
        self.p.code.push(i);
        self.p.code.len() - 1
    }

    /// Records that the next instruction comes from `span`.
    fn mark(&mut self, span: Span) {
        let pc = self.pc();
        match self.p.spans.last_mut() {
            Some(last) if last.0 == pc => last.1 = span.start,
            _ => self.p.spans.push((pc, span.start)),
        }
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.p.code[at] {
            Instr::Jump(t)
            | Instr::JumpIfFalse(t)
            | Instr::JumpIfFalseOrPop(t)
            | Instr::JumpIfTrueOrPop(t)
            | Instr::Iter(t)
            | Instr::LoopEnd(t)
            | Instr::JumpIfBound(_, t) => *t = target,
            _ => {}
        }
    }

    /// The index of string constant `s`. Names and short literals are shared; long literals
    /// (template text in quotes) are rarely repeated, so they skip the hashing.
    fn str_const(&mut self, s: &'a str) -> u32 {
        if s.len() > Interner::MAX_LEN {
            return self.p.strs.push(s);
        }
        // One probe of the table: found, or inserted where the search ended.
        let pool = &mut self.p.strs;
        self.strs.get_or_add(s, || pool.push(s))
    }

    fn owned_str(&mut self, s: String) -> u32 {
        self.p.strs.push(&s)
    }

    fn global(&mut self, name: &'a str) -> u16 {
        if self.globals.is_empty() {
            // Few names: a search in order costs less than hashing the name.
            if let Some(i) = self.global_list.iter().position(|g| same_name(g, name)) {
                return i as u16;
            }
            if self.global_list.len() < GLOBALS_SEARCHED {
                self.global_list.push(name);
                let globals = &mut self.p.globals;
                globals
                    .push(common_global(name).map_or_else(|| name.to_string().into(), Into::into));
                return globals.len() as u16 - 1;
            }
            for (i, g) in self.global_list.iter().enumerate() {
                self.globals.insert(Name(g), i as u16);
            }
        }
        let globals = &mut self.p.globals;
        *self.globals.entry(Name(name)).or_insert_with(|| {
            globals.push(common_global(name).map_or_else(|| name.to_string().into(), Into::into));
            globals.len() as u16 - 1
        })
    }

    fn error(&self, span: Span, e: Error) -> Error {
        e.with_offset(self.source, span.start as usize)
    }

    /// What jinja2's compiler refuses with `TemplateAssertionError`, at `span`.
    fn assertion(&self, span: Span, msg: &str) -> Error {
        self.error(
            span,
            Error::new(ErrorKind::Syntax, msg).with_class(ExceptionClass::TemplateAssertionError),
        )
    }

    fn too_big(&self, span: Span, what: &str) -> Error {
        self.error(span, err!(Overflow, "too many {what} in one template"))
    }

    fn enter(&mut self, span: Span) -> GResult {
        self.depth += 1;
        if self.depth > self.max_depth * 2 {
            return Err(self.error(
                span,
                Error::new(
                    ErrorKind::Limit(Limit::Nesting),
                    "template nesting too deep",
                ),
            ));
        }
        Ok(())
    }

    // ---- scopes ----

    fn cur_func(&self) -> &Func {
        &self.funcs[self.funcs.len() - 1]
    }

    fn push_scope(&mut self, names: &[&'a str]) -> GResult {
        let func = self.cur_func().id;
        let mut slots = AVec::with_capacity_in(names.len(), self.arena);
        for n in names {
            let f = self
                .funcs
                .last_mut()
                .ok_or_else(|| err!(Runtime, "no function"))?;
            let slot = f.next_slot;
            let Some(next) = slot.checked_add(1).filter(|s| *s < NONE16) else {
                let e = err!(
                    Overflow,
                    "too many variables in one scope (at most {} in a template body or \
                     macro); '{n}' is one too many",
                    NONE16 - 1
                );
                // Names are slices of the source: the error points at this one.
                let at = (n.as_ptr() as usize).wrapping_sub(self.source.as_ptr() as usize);
                return Err(if at < self.source.len() {
                    e.with_offset(self.source, at)
                } else {
                    e
                });
            };
            f.next_slot = next;
            self.bound |= name_bit(n);
            slots.push((*n, slot));
        }
        self.scopes.push(Scope::new(func, slots.into_bump_slice()));
        Ok(())
    }

    fn resolve(&mut self, name: &'a str) -> Resolved {
        if self.bound & name_bit(name) == 0 {
            return Resolved::Global(self.global(name));
        }
        let cur = self.cur_func().id;
        let definer = self.cur_func().definer;
        for scope in self.scopes.iter().rev() {
            if let Some(slot) = scope.lookup(name) {
                if scope.func == cur {
                    return Resolved::Local(slot);
                }
                if Some(scope.func) == definer {
                    return Resolved::Up(slot);
                }
                if scope.func == 0 {
                    // The template body's frame is always at the bottom of the slot stack.
                    return Resolved::Root(slot);
                }
                continue;
            }
        }
        Resolved::Global(self.global(name))
    }

    fn load_name(&mut self, name: &'a str) {
        if name == "caller" {
            for f in &mut self.funcs {
                f.uses_caller = true;
            }
        }
        if matches!(name, "varargs" | "kwargs") {
            if let Some(f) = self.funcs.last_mut() {
                f.uses_varargs |= name == "varargs";
                f.uses_kwargs |= name == "kwargs";
            }
        }
        let i = match self.resolve(name) {
            Resolved::Local(s) => Instr::Load(s),
            Resolved::Up(s) => Instr::LoadUp(s),
            Resolved::Root(s) => Instr::LoadRoot(s),
            Resolved::Global(g) => Instr::LoadGlobal(g),
        };
        self.emit(i);
    }

    /// The slot `name` has in the innermost scope (which must bind it).
    fn local_slot(&self, name: &str) -> u16 {
        self.scopes.last().and_then(|s| s.lookup(name)).unwrap_or(0)
    }

    /// Gives the stored names of the new innermost scope their value from the enclosing scope.
    fn init_from_outer(&mut self, names: &[&'a str]) {
        for name in names {
            let slot = self.local_slot(name);
            let scope = self.scopes.pop();
            self.load_name(name);
            if let Some(scope) = scope {
                self.scopes.push(scope);
            }
            self.emit(Instr::Store(slot));
        }
    }

    // ---- statements ----

    fn block(&mut self, body: &[Stmt<'a>]) -> GResult {
        body.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, stmt: &Stmt<'a>) -> GResult {
        match *stmt {
            Stmt::Data(span) => {
                if span.end > span.start {
                    self.emit(Instr::EmitRaw(span.start, span.end));
                }
            }
            Stmt::Print(e) => {
                if let ExprKind::Lit(Lit::Str(s)) = e.kind {
                    let i = if self.autoescape {
                        let mut escaped = String::new();
                        crate::value::markup::escape_into(&mut escaped, s);
                        self.owned_str(escaped)
                    } else {
                        self.str_const(s)
                    };
                    self.emit(Instr::EmitStr(i));
                } else if self.autoescape {
                    self.expr(e)?;
                    self.mark(e.span);
                    self.emit(Instr::EmitEscaped);
                } else if let Some((a, b)) = str_pair(e) {
                    let i = self.p.strs.push_concat(a, b);
                    self.emit(Instr::EmitStr(i));
                } else if matches!(e.kind, ExprKind::Bin(BinOp::Add, _, _)) {
                    // `{{ a + b + c }}`: strings go straight to the output, no temporary.
                    let n = self.add_chain(e)?;
                    self.mark(e.span);
                    self.emit(Instr::EmitAddN(n));
                } else if matches!(e.kind, ExprKind::Bin(BinOp::Concat, _, _)) {
                    // `{{ a ~ b ~ c }}`: each operand goes straight to the output.
                    let n = self.op_chain(e, BinOp::Concat)?;
                    self.mark(e.span);
                    self.emit(Instr::EmitConcatN(n));
                } else {
                    self.expr(e)?;
                    self.mark(e.span);
                    self.emit(Instr::Emit);
                }
            }
            Stmt::If {
                branches,
                otherwise,
            } => {
                self.soft += 1;
                let mut ends = AVec::new_in(self.arena);
                for (cond, body) in branches {
                    self.expr(cond)?;
                    let skip = self.emit(Instr::JumpIfFalse(0));
                    self.block(body)?;
                    ends.push(self.emit(Instr::Jump(0)));
                    let here = self.pc();
                    self.patch(skip, here);
                }
                if let Some(body) = otherwise {
                    self.block(body)?;
                }
                let end = self.pc();
                for j in ends {
                    self.patch(j, end);
                }
                self.soft -= 1;
            }
            Stmt::For(f)
                if super::mentions::target_has(&f.target, "loop")
                    || super::mentions::stores(f.body, "loop")
                    || f.otherwise
                        .is_some_and(|b| super::mentions::stores(b, "loop")) =>
            {
                return Err(self.assertion(
                    f.span,
                    "Can't assign to special loop variable in for-loop target",
                ));
            }
            Stmt::For(f) if !f.recursive => self.for_loop(
                &f.target,
                &f.iter,
                f.filter.as_ref(),
                f.body,
                f.otherwise,
                f.span,
            )?,
            Stmt::For(f) => self.recursive_loop(
                &f.target,
                &f.iter,
                f.filter.as_ref(),
                f.body,
                f.otherwise,
                f.span,
            )?,
            Stmt::Set { target, value } => {
                if let Target::Attr(ns, attr, span) = *target {
                    self.load_name(ns);
                    self.expr(value)?;
                    let a = self.str_const(attr);
                    self.mark(span);
                    self.emit(Instr::SetAttr(a));
                } else {
                    self.expr(value)?;
                    self.store(target)?;
                }
            }
            Stmt::SetBlock {
                target,
                filter,
                body,
            } => {
                // A namespace target is loaded first (loading a name has no effect), so the
                // captured value lands above it as `SetAttr` expects.
                if let Target::Attr(ns, _, _) = target {
                    self.load_name(ns);
                }
                self.emit(Instr::CaptureStart);
                self.hard(|c| c.scoped_block(body))?;
                self.emit(Instr::CaptureEnd);
                if self.autoescape {
                    self.emit(Instr::MarkSafe);
                }
                if let Some(f) = filter {
                    self.hard(|c| c.expr(f))?;
                }
                if let Target::Attr(_, attr, span) = *target {
                    let a = self.str_const(attr);
                    self.mark(span);
                    self.emit(Instr::SetAttr(a));
                } else {
                    self.store(target)?;
                }
            }
            Stmt::Macro(m) => {
                let id = self.macro_def(m)?;
                self.emit(Instr::MakeMacro(id));
                let slot = self.local_slot(m.name);
                self.emit(Instr::Store(slot));
            }
            Stmt::CallBlock { caller, call } => {
                let id = self.macro_def(caller)?;
                let ExprKind::Call(f, args) = call.kind else {
                    return Err(self.error(call.span, err!(Syntax, "expected a call")));
                };
                self.call(f, args, call.span, Some(id))?;
                self.mark(call.span);
                self.emit(self.emit_instr());
            }
            Stmt::FilterBlock { filter, body } => self.hard(|c| {
                c.emit(Instr::CaptureStart);
                c.scoped_block(body)?;
                c.emit(Instr::CaptureEnd);
                if c.autoescape {
                    c.emit(Instr::MarkSafe);
                }
                c.expr(filter)?;
                c.emit(c.emit_instr());
                Ok(())
            })?,
            Stmt::Break(span) | Stmt::Continue(span) => {
                let is_break = matches!(stmt, Stmt::Break(_));
                let Some(lp) = self.loops.last() else {
                    let what = if is_break { "break" } else { "continue" };
                    // jinja2 makes Python code of it that does not compile.
                    return Err(self.error(
                        span,
                        err!(Syntax, "'{what}' outside loop")
                            .with_class(ExceptionClass::SyntaxError),
                    ));
                };
                let top = lp.top;
                if is_break {
                    let at = self.emit(Instr::Jump(0));
                    if let Some(lp) = self.loops.last_mut() {
                        lp.breaks.push(at);
                    }
                } else {
                    self.emit(Instr::Jump(top));
                }
            }
            Stmt::RequiredBlock { name, span } => self.fail(
                span,
                format!("Required block '{name}' not found"),
                ExceptionClass::TemplateRuntimeError,
            ),
            Stmt::NoLoader { template, span, .. } => {
                // jinja2 evaluates the template name, then asks the (missing) loader.
                self.expr(template)?;
                self.emit(Instr::Pop);
                self.fail(
                    span,
                    "no loader for this environment specified".to_string(),
                    ExceptionClass::TypeError,
                );
            }
            Stmt::Generation(body) => {
                // transformers' extension makes the block a call block: a frame of its own.
                self.emit(Instr::GenStart);
                self.hard(|c| c.block(body))?;
                self.emit(Instr::GenEnd);
            }
            Stmt::Autoescape { on, body } => self.autoescape_block(on, body)?,
            Stmt::With { assigns, body } => {
                let mut names = AVec::new_in(self.arena);
                for (t, _) in assigns {
                    target_names(t, &mut names);
                }
                stored_names(body, &mut names);
                for (_, value) in assigns {
                    self.expr(value)?;
                }
                self.push_scope(&names)?;
                self.init_from_outer(&names);
                for (t, _) in assigns.iter().rev() {
                    self.store(t)?;
                }
                self.hard(|c| c.block(body))?;
                self.scopes.pop();
            }
        }
        Ok(())
    }

    /// How `{{ }}` output is written here.
    fn emit_instr(&self) -> Instr {
        if self.autoescape {
            Instr::EmitEscaped
        } else {
            Instr::Emit
        }
    }

    /// `{% autoescape on %}body{% endautoescape %}`, a scope of its own. The state is
    /// lexical, as jinja2 compiles it: a constant `on` compiles the body once; any other
    /// expression compiles it twice, escaping and not, and chooses when the render gets there.
    fn autoescape_block(&mut self, on: &Expr<'a>, body: &[Stmt<'a>]) -> GResult {
        let outer = self.autoescape;
        let constant = match on.kind {
            ExprKind::Lit(Lit::Bool(b)) => Some(b),
            ExprKind::Lit(Lit::None) => Some(false),
            ExprKind::Lit(Lit::Int(i)) => Some(i.get() != 0),
            ExprKind::Lit(Lit::Str(s)) => Some(!s.is_empty()),
            _ => None,
        };
        let under = |g: &mut Self, state: bool| -> GResult {
            g.emit(Instr::Autoescape(state));
            g.autoescape = state;
            let r = g.scoped_block(body);
            g.autoescape = outer;
            r?;
            g.emit(Instr::AutoescapeRevert);
            Ok(())
        };
        if let Some(state) = constant {
            return under(self, state);
        }
        if self.volatile_escapes >= 4 {
            return Err(self.error(
                on.span,
                err!(
                    Syntax,
                    "more than 4 nested {{% autoescape %}} with a computed value"
                ),
            ));
        }
        self.volatile_escapes += 1;
        self.expr(on)?;
        let to_plain = self.emit(Instr::JumpIfFalse(0));
        under(self, true)?;
        let to_end = self.emit(Instr::Jump(0));
        let plain = self.pc();
        self.patch(to_plain, plain);
        under(self, false)?;
        let end = self.pc();
        self.patch(to_end, end);
        self.volatile_escapes -= 1;
        Ok(())
    }

    /// A block that is a scope of its own (the body of a set block or a filter block).
    fn scoped_block(&mut self, body: &[Stmt<'a>]) -> GResult {
        let mut names = AVec::new_in(self.arena);
        stored_names(body, &mut names);
        self.push_scope(&names)?;
        self.init_from_outer(&names);
        self.block(body)?;
        self.scopes.pop();
        Ok(())
    }

    fn store(&mut self, target: &Target<'a>) -> GResult {
        match *target {
            Target::Name(n) => {
                let slot = match self.resolve_store(n) {
                    Some(s) => s,
                    None => return Err(err!(Runtime, "internal: unbound store of {n}")),
                };
                self.emit(Instr::Store(slot));
            }
            Target::Tuple(items, span) => {
                self.mark(span);
                self.emit(Instr::Unpack(items.len() as u16));
                for t in items {
                    self.store(t)?;
                }
            }
            Target::Attr(ns, attr, span) => {
                self.load_name(ns);
                let a = self.str_const(attr);
                self.mark(span);
                self.emit(Instr::SetAttrOnTop(a));
            }
        }
        Ok(())
    }

    /// The slot a store to `name` writes: the innermost scope of the current function that
    /// binds it.
    fn resolve_store(&self, name: &str) -> Option<u16> {
        let cur = self.cur_func().id;
        self.scopes
            .iter()
            .rev()
            .take_while(|s| s.func == cur)
            .find_map(|s| s.lookup(name))
    }

    fn for_loop(
        &mut self,
        target: &Target<'a>,
        iter: &Expr<'a>,
        filter: Option<&Expr<'a>>,
        body: &[Stmt<'a>],
        otherwise: Option<&[Stmt<'a>]>,
        span: Span,
    ) -> GResult {
        self.enter(span)?;
        // The loop inside a recursive loop's function iterates that function's parameter,
        // a name no template can spell.
        let recursive = matches!(iter.kind, ExprKind::Name(REC_ITEMS));
        let mut names = AVec::new_in(self.arena);
        target_names(target, &mut names);
        let loop_var_count = names.len();
        names.push("loop");
        if recursive {
            names.push(REC_MARK);
        }
        stored_names(body, &mut names);
        let inner = &names[loop_var_count + 1 + usize::from(recursive)..];

        self.expr(iter)?;
        if let Some(cond) = filter {
            if !recursive && !super::mentions::stmts(body, "loop") {
                return self.lazily_filtered_loop(target, cond, body, otherwise, &names, span);
            }
        }
        self.push_scope(&names)?;
        if let Some(cond) = filter {
            // Materialize the items that pass the filter first: loop.length counts them.
            // The filter, the body and `else` are each a frame of their own in jinja2.
            let soft = std::mem::take(&mut self.soft);
            self.emit(Instr::CollectStart);
            self.mark(span);
            self.emit(Instr::IterInit(NONE16));
            let top = self.pc();
            let exit = self.emit(Instr::Iter(0));
            self.emit(Instr::Dup);
            self.store(target)?;
            self.expr(cond)?;
            let reject = self.emit(Instr::JumpIfFalse(0));
            self.emit(Instr::CollectPush);
            self.emit(Instr::Jump(top));
            let here = self.pc();
            self.patch(reject, here);
            self.emit(Instr::Pop);
            self.emit(Instr::Jump(top));
            let here = self.pc();
            self.patch(exit, here);
            self.emit(Instr::LoopEnd(here + 1));
            self.emit(Instr::CollectEnd);
            self.soft = soft;
        }
        let loop_slot = self.local_slot("loop");
        if recursive {
            // The function the loop compiles to (calling the loop object calls it) and the
            // loop's depth, a parameter of that function.
            self.load_name(REC_FUNC);
            self.load_name(REC_DEPTH);
            self.mark(span);
            self.emit(Instr::IterInitAt(loop_slot));
        } else {
            self.mark(span);
            self.emit(Instr::IterInit(loop_slot));
        }
        let top = self.pc();
        let exit = self.emit(Instr::Iter(0));
        self.store(target)?;
        self.init_from_outer(inner);
        self.loop_body(top, body)?;
        let loop_end = self.loop_exit(exit);
        self.scopes.pop();
        if let Some(body) = otherwise {
            self.hard(|c| c.block(body))?;
        }
        let after = self.pc();
        self.patch(loop_end, after);
        self.depth -= 1;
        Ok(())
    }

    /// A loop's body, which `continue` re-enters at `top` (the `Iter`), then the jump back
    /// there. The loop stays open for [`Gen::loop_exit`].
    fn loop_body(&mut self, top: u32, body: &[Stmt<'a>]) -> GResult {
        self.loops.push(LoopCtx {
            top,
            breaks: Vec::new(),
        });
        self.hard(|c| c.block(body))?;
        self.emit(Instr::Jump(top));
        Ok(())
    }

    /// Closes the loop [`Gen::loop_body`] opened: its `Iter` at `exit` and its `break`s jump
    /// here, to the `LoopEnd` this emits (returned, to be patched to what follows).
    fn loop_exit(&mut self, exit: usize) -> usize {
        let end = self.pc();
        self.patch(exit, end);
        let lp = self.loops.pop();
        for b in lp.map(|l| l.breaks).unwrap_or_default() {
            self.patch(b, end);
        }
        self.emit(Instr::LoopEnd(0))
    }

    /// `{% for target in items if cond %}` whose body never reads `loop` (the iterable is on
    /// the stack): as jinja2 runs it, the filter is asked for each item just before that
    /// item's turn, so the body's effects (a namespace it changes) reach the filter of the
    /// items after it, and an item is unpacked only when its turn comes. The filter is a
    /// frame of its own: the target's names are its locals, any other name is the enclosing
    /// scope's (not a name the body assigns). `names` are the loop scope's names.
    fn lazily_filtered_loop(
        &mut self,
        target: &Target<'a>,
        cond: &Expr<'a>,
        body: &[Stmt<'a>],
        otherwise: Option<&[Stmt<'a>]>,
        names: &[&'a str],
        span: Span,
    ) -> GResult {
        let mut filter_names = AVec::new_in(self.arena);
        target_names(target, &mut filter_names);
        let loop_var_count = filter_names.len();
        // Whether an item passed, for `else`.
        filter_names.push(PASSED);
        self.push_scope(&filter_names)?;
        let passed = self.local_slot(PASSED);
        if otherwise.is_some() {
            self.lit(Lit::Bool(false));
            self.emit(Instr::Store(passed));
        }
        self.push_scope(names)?;
        let loop_slot = self.local_slot("loop");
        self.mark(span);
        self.emit(Instr::IterInit(loop_slot));
        let top = self.pc();
        let exit = self.emit(Instr::Iter(0));
        self.emit(Instr::Dup);
        // The filter's frame: the loop scope set aside.
        let scope = self.scopes.pop();
        let soft = std::mem::take(&mut self.soft);
        let filtered = self.store(target).and_then(|()| self.expr(cond));
        self.soft = soft;
        if let Some(scope) = scope {
            self.scopes.push(scope);
        }
        filtered?;
        let reject = self.emit(Instr::JumpIfFalse(0));
        if otherwise.is_some() {
            self.lit(Lit::Bool(true));
            self.emit(Instr::Store(passed));
        }
        self.store(target)?;
        self.init_from_outer(&names[loop_var_count + 1..]);
        self.loop_body(top, body)?;
        let rejected = self.pc();
        self.patch(reject, rejected);
        self.emit(Instr::Pop);
        self.emit(Instr::Jump(top));
        // Ends the iteration; `else` is skipped below when an item passed.
        let loop_end = self.loop_exit(exit);
        let after_end = self.pc();
        self.patch(loop_end, after_end);
        self.scopes.pop();
        if otherwise.is_some() {
            self.emit(Instr::Load(passed));
        }
        // `else` is in the enclosing scope.
        self.scopes.pop();
        if let Some(body) = otherwise {
            let skip = self.emit(Instr::JumpIfTrueOrPop(0));
            self.hard(|c| c.block(body))?;
            let to_pop = self.emit(Instr::Jump(0));
            let here = self.pc();
            self.patch(skip, here);
            self.emit(Instr::Pop);
            let after = self.pc();
            self.patch(to_pop, after);
        }
        self.depth -= 1;
        Ok(())
    }

    /// `{% for ... recursive %}`: compiled as jinja2 does, to a function of the items and
    /// the depth that runs the whole loop (filter and `else` included) and returns its output;
    /// `loop(items)` in the body calls it again one level deeper. The template calls it once
    /// with the loop's iterable at depth 1 and outputs the result.
    fn recursive_loop(
        &mut self,
        target: &Target<'a>,
        iter: &Expr<'a>,
        filter: Option<&Expr<'a>>,
        body: &[Stmt<'a>],
        otherwise: Option<&[Stmt<'a>]>,
        span: Span,
    ) -> GResult {
        self.enter(span)?;
        // The function, in a slot of the enclosing scope, where the body finds it.
        self.push_scope(&[REC_FUNC])?;
        let func_slot = self.local_slot(REC_FUNC);
        let skip = self.emit(Instr::Jump(0));
        let id = self.p.macros.len() as u32;
        let entry = self.pc();
        let definer = self.cur_func().id;
        self.funcs.push(Func {
            id: id + 1,
            next_slot: 0,
            definer: Some(definer),
            uses_varargs: false,
            uses_kwargs: false,
            uses_caller: false,
        });
        self.push_scope(&[REC_ITEMS, REC_DEPTH])?;
        let params: Box<[u32]> = [REC_ITEMS, REC_DEPTH]
            .iter()
            .map(|n| self.str_const(n))
            .collect();
        self.p.macros.push(MacroInfo {
            name: "loop".into(),
            entry,
            slots: 0,
            params,
            caller_slot: NONE16,
            varargs_slot: NONE16,
            kwargs_slot: NONE16,
        });
        let items = Expr {
            kind: ExprKind::Name(REC_ITEMS),
            span: iter.span,
        };
        let saved_loops = std::mem::take(&mut self.loops);
        let compiled = self.for_loop(target, &items, filter, body, otherwise, span);
        self.loops = saved_loops;
        compiled?;
        self.emit(Instr::Return);
        self.scopes.pop();
        let f = self.funcs.pop();
        if let (Some(info), Some(f)) = (self.p.macros.get_mut(id as usize), f) {
            info.slots = u32::from(f.next_slot);
        }
        let here = self.pc();
        self.patch(skip, here);
        self.emit(Instr::MakeMacro(id));
        self.emit(Instr::Store(func_slot));
        self.emit(Instr::Load(func_slot));
        self.expr(iter)?;
        self.lit(Lit::Int(IntLit::new(1)));
        self.mark(span);
        self.emit(Instr::Call {
            argc: 2,
            kw: NONE16,
        });
        self.emit(Instr::Emit);
        self.scopes.pop();
        self.depth -= 1;
        Ok(())
    }

    /// `loop(items)` in the body of a recursive loop (the innermost loop): the loop's
    /// function called again one level deeper. False (nothing emitted) when the innermost
    /// `loop` is not a recursive loop's, whose call then fails as jinja2's does.
    fn recursive_call(&mut self, f: &Expr<'a>, args: &Args<'a>, span: Span) -> Result<bool, Error> {
        if !matches!(f.kind, ExprKind::Name("loop")) {
            return Ok(false);
        }
        let cur = self.cur_func().id;
        let innermost = self
            .scopes
            .iter()
            .rev()
            .take_while(|s| s.func == cur)
            .find(|s| s.lookup("loop").is_some());
        if !innermost.is_some_and(|s| s.lookup(REC_MARK).is_some()) {
            return Ok(false);
        }
        let [item] = args.pos else {
            let given = args.pos.len() + args.kw.len() + 1;
            let msg = format!(
                "LoopContext.__call__() takes 2 positional arguments but {given} were given"
            );
            self.fail(span, msg, ExceptionClass::TypeError);
            return Ok(true);
        };
        if !args.kw.is_empty() || args.star.is_some() || args.dstar.is_some() {
            self.fail(
                span,
                "LoopContext.__call__() got an unexpected keyword argument".to_string(),
                ExceptionClass::TypeError,
            );
            return Ok(true);
        }
        self.load_name(REC_FUNC);
        self.expr(item)?;
        self.load_name(REC_DEPTH);
        self.lit(Lit::Int(IntLit::new(1)));
        self.emit(Instr::Bin(BinOp::Add));
        self.mark(span);
        self.emit(Instr::Call {
            argc: 2,
            kw: NONE16,
        });
        Ok(true)
    }

    /// Compiles `f` as jinja2 compiles the inside of a new frame (a loop's body, a macro, a
    /// block whose output is captured): frames start "hard", so an unknown filter or test
    /// there fails at compile time even inside an `if` (only `if` and conditional expressions
    /// make their own frame soft).
    fn hard<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        let soft = std::mem::take(&mut self.soft);
        let r = f(self);
        self.soft = soft;
        r
    }

    /// A macro (or a call block's caller): a frame of its own, defaults included.
    fn macro_def(&mut self, m: &MacroDef<'a>) -> Result<u32, Error> {
        // A `caller` parameter without a default, in a body that reads `caller`.
        if m.params.iter().any(|(n, d)| *n == "caller" && d.is_none())
            && super::mentions::stmts(m.body, "caller")
        {
            return Err(self.assertion(
                m.span,
                "When defining macros or call blocks the special \"caller\" argument must be omitted or be given a default.",
            ));
        }
        self.hard(|c| c.macro_body(m))
    }

    fn macro_body(&mut self, m: &MacroDef<'a>) -> Result<u32, Error> {
        self.enter(m.span)?;
        let skip = self.emit(Instr::Jump(0));
        let id = self.p.macros.len() as u32;
        let entry = self.pc();
        let definer = self.cur_func().id;
        self.funcs.push(Func {
            id: id + 1,
            next_slot: 0,
            definer: Some(definer),
            uses_varargs: false,
            uses_caller: false,
            uses_kwargs: false,
        });
        let mut names = AVec::with_capacity_in(m.params.len() + 3, self.arena);
        names.extend(m.params.iter().map(|(n, _)| *n));
        let param_count = names.len();
        let uses_caller = !names.contains(&"caller");
        if uses_caller {
            names.push("caller");
        }
        for special in ["varargs", "kwargs"] {
            if !names.contains(&special) {
                names.push(special);
            }
        }
        let mut stored = AVec::new_in(self.arena);
        stored_names(m.body, &mut stored);
        stored.retain(|n| !names.contains(n));
        names.extend(stored.iter().copied());
        self.push_scope(&names)?;
        let params: Box<[u32]> = m.params.iter().map(|(n, _)| self.str_const(n)).collect();
        self.p.macros.push(MacroInfo {
            name: m.name.into(),
            entry,
            slots: 0,
            params,
            caller_slot: if uses_caller {
                param_count as u16
            } else {
                NONE16
            },
            varargs_slot: NONE16,
            kwargs_slot: NONE16,
        });
        for (i, (_, default)) in m.params.iter().enumerate() {
            if let Some(d) = default {
                let j = self.emit(Instr::JumpIfBound(i as u16, 0));
                self.expr(d)?;
                self.emit(Instr::Store(i as u16));
                let here = self.pc();
                self.patch(j, here);
            }
        }
        self.init_from_outer(&stored);
        let saved_loops = std::mem::take(&mut self.loops);
        self.block(m.body)?;
        self.loops = saved_loops;
        self.emit(Instr::Return);
        let varargs = self.local_slot("varargs");
        let kwargs = self.local_slot("kwargs");
        self.scopes.pop();
        let f = self.funcs.pop();
        if let (Some(info), Some(f)) = (self.p.macros.get_mut(id as usize), f) {
            info.slots = u32::from(f.next_slot);
            if f.uses_varargs && !m.params.iter().any(|(n, _)| *n == "varargs") {
                info.varargs_slot = varargs;
            }
            if f.uses_kwargs && !m.params.iter().any(|(n, _)| *n == "kwargs") {
                info.kwargs_slot = kwargs;
            }
            if !f.uses_caller {
                info.caller_slot = NONE16;
            }
        }
        let here = self.pc();
        self.patch(skip, here);
        self.depth -= 1;
        Ok(id)
    }

    // ---- expressions ----

    fn expr(&mut self, e: &Expr<'a>) -> GResult {
        self.enter(e.span)?;
        self.expr_inner(e)?;
        self.depth -= 1;
        Ok(())
    }

    fn lit(&mut self, lit: Lit<'a>) {
        let c = match lit {
            Lit::Str(s) => {
                let i = self.str_const(s);
                self.emit(Instr::Str(i));
                return;
            }
            Lit::None => Const::None,
            Lit::Bool(b) => Const::Bool(b),
            Lit::Int(i) => match i64::try_from(i.get()) {
                Ok(i) => Const::Int(i),
                Err(_) => Const::Big(i.get()),
            },
            Lit::BigInt(t) => Const::BigText(self.str_const(t)),
            Lit::Float(f) => Const::Float(f),
        };
        self.p.consts.push(c);
        let i = self.p.consts.len() as u32 - 1;
        self.emit(Instr::Const(i));
    }

    fn expr_inner(&mut self, e: &Expr<'a>) -> GResult {
        match e.kind {
            ExprKind::Lit(l) => self.lit(l),
            ExprKind::Name(n) => self.load_name(n),
            ExprKind::Hole => {}
            ExprKind::Attr(obj, name) => {
                if let (ExprKind::Name("loop"), Some(field)) = (obj.kind, loop_field(name)) {
                    if let Resolved::Local(slot) = self.resolve("loop") {
                        self.emit(Instr::LoopAttr(slot, field));
                        return Ok(());
                    }
                }
                if let Some(read) = self.local_key(e) {
                    self.load_key(read, e.span, false);
                    return Ok(());
                }
                // A name no dict attribute has reads a dict's key directly.
                let plain = plain_attr(name);
                self.expr(obj)?;
                let i = self.str_const(name);
                self.mark(e.span);
                self.emit(if plain {
                    Instr::AttrKey(i)
                } else {
                    Instr::Attr(i)
                });
            }
            ExprKind::Item(obj, key) => {
                if let Some(read) = self.local_key(e) {
                    self.load_key(read, e.span, false);
                    return Ok(());
                }
                self.expr(obj)?;
                if let ExprKind::Lit(Lit::Str(k)) = key.kind {
                    let i = self.str_const(k);
                    self.mark(e.span);
                    self.emit(Instr::ItemStr(i));
                } else {
                    self.expr(key)?;
                    self.mark(e.span);
                    self.emit(Instr::Item);
                }
            }
            ExprKind::Slice(obj, parts) => {
                self.expr(obj)?;
                let mut flags = 0u8;
                for (i, p) in parts.iter().enumerate() {
                    if let Some(p) = p {
                        self.expr(p)?;
                        flags |= 1 << i;
                    }
                }
                self.mark(e.span);
                self.emit(Instr::Slice(flags));
            }
            ExprKind::Unary(op, x) => {
                if let Some(lit) = fold_sign(op, x) {
                    self.lit(lit);
                    return Ok(());
                }
                self.expr(x)?;
                self.mark(e.span);
                self.emit(match op {
                    UnOp::Not => Instr::Not,
                    UnOp::Neg => Instr::Neg,
                    UnOp::Pos => Instr::Pos,
                });
            }
            ExprKind::Bin(BinOp::Add, _, _) if add_chain_len(e) > 2 => {
                let n = self.add_chain(e)?;
                self.mark(e.span);
                self.emit(Instr::AddN(n));
            }
            ExprKind::Bin(BinOp::Concat, _, _)
                if !self.autoescape && chain_len(e, BinOp::Concat) > 2 =>
            {
                let n = self.op_chain(e, BinOp::Concat)?;
                self.mark(e.span);
                self.emit(Instr::ConcatN(n));
            }
            ExprKind::Bin(..) if str_pair(e).is_some() => {
                if let Some((a, b)) = str_pair(e) {
                    let i = self.p.strs.push_concat(a, b);
                    self.emit(Instr::Str(i));
                }
            }
            ExprKind::Bin(op, a, b) => {
                self.expr(a)?;
                self.expr(b)?;
                self.mark(e.span);
                self.emit(if op == BinOp::Concat && self.autoescape {
                    Instr::MarkupConcat
                } else {
                    Instr::Bin(op)
                });
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                self.expr(a)?;
                let j = self.emit(if matches!(e.kind, ExprKind::And(..)) {
                    Instr::JumpIfFalseOrPop(0)
                } else {
                    Instr::JumpIfTrueOrPop(0)
                });
                self.expr(b)?;
                let here = self.pc();
                self.patch(j, here);
            }
            ExprKind::Compare(first, rest) => self.compare(first, rest, e.span)?,
            ExprKind::Cond {
                cond,
                then,
                otherwise,
            } => {
                self.soft += 1;
                self.expr(cond)?;
                let j = self.emit(Instr::JumpIfFalse(0));
                self.expr(then)?;
                let end = self.emit(Instr::Jump(0));
                let here = self.pc();
                self.patch(j, here);
                match otherwise {
                    Some(o) => self.expr(o)?,
                    None => {
                        self.emit(Instr::Undefined);
                    }
                }
                let here = self.pc();
                self.patch(end, here);
                self.soft -= 1;
            }
            ExprKind::List(items) | ExprKind::Tuple(items) => {
                for i in items {
                    self.expr(i)?;
                }
                let n = items.len() as u32;
                self.emit(if matches!(e.kind, ExprKind::List(_)) {
                    Instr::List(n)
                } else {
                    Instr::Tuple(n)
                });
            }
            ExprKind::Dict(items) => {
                for (k, v) in items {
                    self.expr(k)?;
                    self.expr(v)?;
                }
                self.mark(e.span);
                self.emit(Instr::Dict(items.len() as u32));
            }
            ExprKind::Call(f, args) => {
                if !self.recursive_call(f, args, e.span)? {
                    self.call(f, args, e.span, None)?;
                }
            }
            ExprKind::Filter(value, name, args) => {
                self.expr(value)?;
                let argc = self.args(args, e.span, None)?;
                let escaped = self
                    .autoescape
                    .then(|| crate::builtins::filter_autoescaped(name))
                    .flatten();
                let (key, found) = match escaped {
                    // Its own entry: the plain filter of the same name may be used too.
                    Some(func) => (
                        &*self.arena.alloc_str(&format!("{name} (autoescape)")),
                        Some(func),
                    ),
                    None => (name, crate::builtins::filter(name)),
                };
                match found {
                    Some(func) => {
                        let f = intern(&mut self.filters, &mut self.p.filters, key, func);
                        self.mark(e.span);
                        self.emit(Instr::Filter {
                            f,
                            argc: argc.0,
                            kw: argc.1,
                        });
                    }
                    None => self.unknown(e.span, "filter", name)?,
                }
            }
            ExprKind::Test {
                value,
                name,
                args,
                negated,
            } => {
                self.expr(value)?;
                let (argc, kw) = self.args(args, e.span, None)?;
                if kw != NONE16 {
                    return Err(self.error(e.span, err!(Syntax, "tests take no keyword arguments")));
                }
                match crate::builtins::test(name) {
                    Some(func) => {
                        let t = intern(&mut self.tests, &mut self.p.tests, name, func);
                        self.mark(e.span);
                        self.emit(Instr::Test {
                            t,
                            argc,
                            neg: negated,
                        });
                    }
                    None => self.unknown(e.span, "test", name)?,
                }
            }
        }
        Ok(())
    }

    /// A filter or test (`what`) that does not exist: a compile error (jinja2's
    /// `TemplateAssertionError`), or inside an `if` an error when reached (its
    /// `TemplateRuntimeError`), with jinja2's message for each.
    fn unknown(&mut self, span: Span, what: &str, name: &str) -> GResult {
        if self.soft == 0 {
            let e = Error::new(ErrorKind::Unknown, format!("No {what} named '{name}'."))
                .with_class(ExceptionClass::TemplateAssertionError);
            return Err(self.error(span, e));
        }
        self.fail(
            span,
            format!("No {what} named '{name}' found."),
            ExceptionClass::TemplateRuntimeError,
        );
        Ok(())
    }

    /// Emits an instruction that fails with `msg`, raised as `class`, when reached.
    fn fail(&mut self, span: Span, msg: String, class: ExceptionClass) {
        let i = self.owned_str(msg);
        self.mark(span);
        self.emit(Instr::Fail(i, class));
    }

    /// Pushes the arguments; returns the positional count and the keyword-names index.
    fn args(
        &mut self,
        args: &Args<'a>,
        span: Span,
        caller: Option<u32>,
    ) -> Result<(u8, u16), Error> {
        for a in args.pos {
            self.expr(a)?;
        }
        let argc = u8::try_from(args.pos.len()).map_err(|_| self.too_big(span, "arguments"))?;
        if args.kw.is_empty() && caller.is_none() {
            return Ok((argc, NONE16));
        }
        let mut names = Vec::with_capacity(args.kw.len() + 1);
        for (n, v) in args.kw {
            self.expr(v)?;
            names.push(self.str_const(n));
        }
        if let Some(id) = caller {
            self.emit(Instr::MakeMacro(id));
            names.push(self.str_const("caller"));
        }
        let kw = u16::try_from(self.p.kwnames.len())
            .ok()
            .filter(|k| *k < NONE16)
            .ok_or_else(|| self.too_big(span, "calls"))?;
        self.p.kwnames.push(names.into());
        Ok((argc, kw))
    }

    fn call(&mut self, f: &Expr<'a>, args: &Args<'a>, span: Span, caller: Option<u32>) -> GResult {
        if args.star.is_some() || args.dstar.is_some() {
            self.expr(f)?;
            let positional = Args {
                kw: &[],
                star: None,
                dstar: None,
                ..*args
            };
            let (argc, _) = self.args(&positional, span, None)?;
            self.emit(Instr::List(u32::from(argc)));
            if let Some(star) = args.star {
                self.expr(star)?;
                self.mark(star.span);
                self.emit(Instr::Extend);
            }
            let keywords = Args {
                pos: &[],
                star: None,
                dstar: None,
                ..*args
            };
            let (_, kw) = self.args(&keywords, span, caller)?;
            if let Some(dstar) = args.dstar {
                self.expr(dstar)?;
            }
            self.mark(span);
            self.emit(Instr::CallSplat {
                kw,
                dstar: args.dstar.is_some(),
            });
            return Ok(());
        }
        if let ExprKind::Attr(recv, name) = f.kind {
            self.expr(recv)?;
            let (argc, kw) = self.args(args, span, caller)?;
            let m = if kw == NONE16 {
                StrMeth::of(name)
            } else {
                StrMeth::Other
            };
            let name = self.str_const(name);
            self.mark(span);
            self.emit(Instr::CallMethod { name, argc, kw, m });
            return Ok(());
        }
        self.expr(f)?;
        let (argc, kw) = self.args(args, span, caller)?;
        self.mark(span);
        self.emit(Instr::Call { argc, kw });
        Ok(())
    }

    /// Pushes the operands of the left-leaning chain `a + b + c ...`; returns their count.
    fn add_chain(&mut self, e: &Expr<'a>) -> Result<u32, Error> {
        self.op_chain(e, BinOp::Add)
    }

    /// Pushes the operands of the left-leaning chain `a <op> b <op> c ...` (`+` or `~`);
    /// returns their count.
    fn op_chain(&mut self, e: &Expr<'a>, op: BinOp) -> Result<u32, Error> {
        if let Some((a, b)) = str_pair(e) {
            // A chain that starts with two literals starts with their concatenation.
            let i = self.p.strs.push_concat(a, b);
            self.emit(Instr::Str(i));
            return Ok(1);
        }
        match e.kind {
            ExprKind::Bin(o, a, b) if o == op && chain_len(e, op) < 250 => {
                let mut n = self.op_chain(a, op)?;
                // Python adds `a + b` before it evaluates `c`: when `c` can fail, the sum so
                // far is made first, so that a TypeError of `a + b` wins over `c`'s error, as
                // in jinja2. `~` cannot fail, nor can a literal or a name. A key of a local
                // variable (`message['content']`) fails only when the variable is undefined:
                // then it leaves that undefined value as the operand, whose error the sum
                // raises when it reaches it, after any error of the operands before.
                let deferred = if op == BinOp::Add && n >= 2 {
                    self.local_key(b)
                } else {
                    None
                };
                if op == BinOp::Add
                    && n >= 2
                    && deferred.is_none()
                    && !matches!(b.kind, ExprKind::Lit(_) | ExprKind::Name(_))
                {
                    self.mark(a.span);
                    self.emit(if n == 2 {
                        Instr::Bin(BinOp::Add)
                    } else {
                        Instr::AddN(n)
                    });
                    n = 1;
                }
                match deferred {
                    Some(read) => self.load_key(read, b.span, true),
                    None => self.expr(b)?,
                }
                Ok(n + 1)
            }
            _ => {
                self.expr(e)?;
                Ok(1)
            }
        }
    }

    /// `var.key` / `var['key']` of a local variable, when `e` is one that [`Gen::load_key`]
    /// reads in one instruction: its slot, the key and whether it is written as an item.
    fn local_key(&mut self, e: &Expr<'a>) -> Option<(u16, &'a str, bool)> {
        let (obj, key, item) = match e.kind {
            ExprKind::Attr(obj, name) if plain_attr(name) => (obj, name, false),
            ExprKind::Item(obj, key) => match key.kind {
                ExprKind::Lit(Lit::Str(k)) => (obj, k, true),
                _ => return None,
            },
            _ => return None,
        };
        let ExprKind::Name(n) = obj.kind else {
            return None;
        };
        // These names are loaded by `load_name`, which records that the function uses them.
        if matches!(n, "varargs" | "kwargs" | "loop" | "caller") {
            return None;
        }
        match self.resolve(n) {
            Resolved::Local(slot) => Some((slot, key, item)),
            _ => None,
        }
    }

    /// Emits the key read [`Gen::local_key`] found; as the third or later operand of a sum
    /// (`in_sum`), an undefined variable is left for the sum to raise (see
    /// [`Gen::op_chain`]).
    fn load_key(&mut self, (slot, key, item): (u16, &'a str, bool), span: Span, in_sum: bool) {
        let key = self.str_const(key);
        self.mark(span);
        self.emit(if in_sum {
            Instr::LoadKeyInSum { slot, key, item }
        } else {
            Instr::LoadKey { slot, key, item }
        });
    }

    fn compare(&mut self, first: &Expr<'a>, rest: &[(Cmp, Expr<'a>)], span: Span) -> GResult {
        if let [(op @ (Cmp::Eq | Cmp::Ne), rhs)] = rest {
            if let ExprKind::Lit(Lit::Str(s)) = rhs.kind {
                // `x == 'literal'`: the commonest test in chat templates, one instruction.
                self.expr(first)?;
                let i = self.str_const(s);
                self.emit(Instr::EqStr(i, *op == Cmp::Ne));
                return Ok(());
            }
        }
        self.expr(first)?;
        let mut exits = Vec::new();
        // One temporary slot per chain keeps each middle operand for the next comparison.
        let tmp_slot = if rest.len() > 1 {
            let f = self
                .funcs
                .last_mut()
                .ok_or_else(|| err!(Runtime, "no function"))?;
            let slot = f.next_slot;
            f.next_slot = slot
                .checked_add(1)
                .filter(|s| *s < NONE16)
                .ok_or_else(|| err!(Overflow, "too many variables in one template"))?;
            Some(slot)
        } else {
            None
        };
        for (i, (op, rhs)) in rest.iter().enumerate() {
            self.expr(rhs)?;
            let last = i + 1 == rest.len();
            let tmp = if last { None } else { tmp_slot };
            if let Some(slot) = tmp {
                self.emit(Instr::Dup);
                self.emit(Instr::Store(slot));
            }
            self.mark(span);
            self.emit(match op {
                Cmp::Eq => Instr::Eq,
                Cmp::Ne => Instr::Ne,
                Cmp::Lt => Instr::Cmp(CmpOp::Lt),
                Cmp::Le => Instr::Cmp(CmpOp::Le),
                Cmp::Gt => Instr::Cmp(CmpOp::Gt),
                Cmp::Ge => Instr::Cmp(CmpOp::Ge),
                Cmp::In => Instr::In(false),
                Cmp::NotIn => Instr::In(true),
            });
            if let Some(slot) = tmp {
                exits.push(self.emit(Instr::JumpIfFalseOrPop(0)));
                self.emit(Instr::Load(slot));
            }
        }
        let end = self.pc();
        for j in exits {
            self.patch(j, end);
        }
        Ok(())
    }
}

/// The index of builtin `name` in the program's table `list`, adding it on first use.
fn intern<'a, F>(
    index: &mut SmallVec<[(&'a str, u16); 8]>,
    list: &mut Vec<F>,
    name: &'a str,
    func: F,
) -> u16 {
    if let Some((_, i)) = index.iter().find(|(n, _)| same_name(n, name)) {
        return *i;
    }
    list.push(func);
    let i = list.len() as u16 - 1;
    index.push((name, i));
    i
}

/// Constant folding: `'a' + 'b'` and `'a' ~ 'b'` are the string `'ab'`.
fn str_pair<'a>(e: &Expr<'a>) -> Option<(&'a str, &'a str)> {
    match e.kind {
        ExprKind::Bin(BinOp::Add | BinOp::Concat, a, b) => match (a.kind, b.kind) {
            (ExprKind::Lit(Lit::Str(a)), ExprKind::Lit(Lit::Str(b))) => Some((a, b)),
            _ => None,
        },
        _ => None,
    }
}

/// Constant folding: `-5`, `+5`, `-1.5` are literals (integers only while the negation fits
/// in 64 bits, as the run-time `Neg` would compute it).
fn fold_sign<'a>(op: UnOp, x: &Expr<'a>) -> Option<Lit<'a>> {
    match (op, x.kind) {
        (UnOp::Neg, ExprKind::Lit(Lit::Int(i))) => {
            let v = i64::try_from(i.get()).ok()?.checked_neg()?;
            Some(Lit::Int(IntLit::new(i128::from(v))))
        }
        (UnOp::Neg, ExprKind::Lit(Lit::Float(f))) => Some(Lit::Float(-f)),
        (UnOp::Pos, ExprKind::Lit(l @ (Lit::Int(_) | Lit::Float(_)))) => Some(l),
        _ => None,
    }
}

/// Whether attribute `name` is one no dict attribute has, so that `x.name` of a dict reads
/// its key directly.
fn plain_attr(name: &str) -> bool {
    !name.starts_with('_')
        && !crate::value::methods::has_method(&crate::value::Value::Dict(&[]), name)
}

/// The number of operands of the left-leaning chain `a + b + c ...` at `e`.
fn add_chain_len(e: &Expr<'_>) -> usize {
    chain_len(e, BinOp::Add)
}

/// The number of operands of the left-leaning chain `a <op> b <op> c ...`.
fn chain_len(e: &Expr<'_>, op: BinOp) -> usize {
    let mut n = 1;
    let mut at = e;
    while let ExprKind::Bin(o, a, _) = at.kind {
        if o != op {
            break;
        }
        n += 1;
        at = a;
    }
    n
}

/// `name` as a static string when it is one of the globals chat templates commonly read
/// (the variables of a chat request, the builtins, the names templates assign at the top).
fn common_global(name: &str) -> Option<&'static str> {
    const COMMON: [&str; 40] = [
        "messages",
        "add_generation_prompt",
        "bos_token",
        "eos_token",
        "tools",
        "namespace",
        "raise_exception",
        "content",
        "ns",
        "system_message",
        "loop_messages",
        "enable_thinking",
        "role",
        "reasoning_content",
        "strftime_now",
        "custom_tools",
        "tools_in_user_message",
        "render_content",
        "documents",
        "tool_call",
        "range",
        "index",
        "date_string",
        "arguments",
        "thinking",
        "function",
        "first_user_message",
        "args",
        "reasoning_effort",
        "counter",
        "tool_calls",
        "user_messages",
        "dict",
        "builtin_tools",
        "tool_choice",
        "keep_cot",
        "message",
        "loop",
        "cycler",
        "joiner",
    ];
    COMMON.iter().copied().find(|c| same_name(c, name))
}

fn loop_field(name: &str) -> Option<LoopField> {
    Some(match name {
        "index" => LoopField::Index,
        "index0" => LoopField::Index0,
        "first" => LoopField::First,
        "last" => LoopField::Last,
        "length" => LoopField::Length,
        "revindex" => LoopField::RevIndex,
        "revindex0" => LoopField::RevIndex0,
        _ => return None,
    })
}
