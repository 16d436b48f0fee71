//! The parser: tokens to an AST in an arena, by recursive descent with jinja2's grammar and
//! precedence. Nesting is bounded, so hostile sources end in an error, not a stack overflow.

use bumpalo::Bump;

/// A vector in the AST arena.
type AVec<'a, T> = bumpalo::collections::Vec<'a, T>;

use crate::error::{err, Error, ErrorKind, ExceptionClass, Limit};
use crate::syntax::ast::{
    Args, Cmp, Expr, ExprKind, ForLoop, Lit, MacroDef, Stmt, Target, UnOp, NO_ARGS,
};
use crate::syntax::lexer::{Op, Tok, Token};
use crate::syntax::Span;
use crate::value::ops::{short_eq, BinOp};

/// Parses normalized `src` into statements allocated in `arena`.
pub(crate) fn parse<'a>(
    src: &'a str,
    arena: &'a Bump,
    max_nesting: usize,
) -> Result<&'a [Stmt<'a>], Error> {
    let toks = crate::syntax::lexer::tokenize(src, arena)?;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        arena,
        depth: 0,
        max_depth: max_nesting,
        blocks: Vec::new(),
        in_block: Vec::new(),
        has_extends: false,
        stmts: AVec::with_capacity_in(64, arena),
    };
    let (body, _) = p.body(&[])?;
    if p.has_extends {
        let in_blocks = p.blocks.iter().find_map(|b| nested_extends(b.body, false));
        if let Some(at) = nested_extends(body, true).or(in_blocks) {
            return Err(err!(Syntax, "cannot use extend from a non top-level scope")
                .with_offset(src, at.start as usize)
                .with_class(ExceptionClass::TemplateAssertionError));
        }
    }
    if p.blocks.is_empty() {
        return Ok(body);
    }
    // Blocks are functions of the template, defined before anything runs (jinja2 renders
    // them with the template's context, so `self.name()` works before the block itself).
    let mut all = p.vec();
    for b in &p.blocks {
        all.push(Stmt::Macro(b));
    }
    all.extend(body.iter().copied());
    Ok(p.slice(all))
}

/// The hidden name of block `name`'s function (a space: no template can spell it).
fn block_fn_name<'a>(arena: &'a Bump, name: &str) -> &'a str {
    arena.alloc_str(&format!("block {name}"))
}

/// Where an `{% extends %}` sits inside anything but `{% if %}`s (`top` while only inside
/// those), which jinja2 refuses when it compiles the template.
fn nested_extends(stmts: &[Stmt<'_>], top: bool) -> Option<Span> {
    stmts.iter().find_map(|s| match s {
        Stmt::NoLoader {
            extends: true,
            span,
            ..
        } if !top => Some(*span),
        Stmt::If {
            branches,
            otherwise,
        } => branches
            .iter()
            .find_map(|(_, b)| nested_extends(b, top))
            .or_else(|| otherwise.and_then(|b| nested_extends(b, top))),
        Stmt::For(f) => nested_extends(f.body, false)
            .or_else(|| f.otherwise.and_then(|b| nested_extends(b, false))),
        Stmt::Autoescape { body, .. }
        | Stmt::SetBlock { body, .. }
        | Stmt::FilterBlock { body, .. }
        | Stmt::Generation(body)
        | Stmt::With { body, .. } => nested_extends(body, false),
        Stmt::Macro(m) | Stmt::CallBlock { caller: m, .. } => nested_extends(m.body, false),
        _ => None,
    })
}

struct Parser<'a> {
    src: &'a str,
    toks: crate::syntax::lexer::Tokens<'a>,
    pos: usize,
    arena: &'a Bump,
    depth: usize,
    max_depth: usize,
    /// The `{% block %}`s seen so far, as the functions the template defines first.
    blocks: Vec<&'a MacroDef<'a>>,
    /// The names of the blocks being parsed, innermost last (`super` inside one).
    in_block: Vec<&'a str>,
    /// Whether an `{% extends %}` was parsed (only then is its place checked).
    has_extends: bool,
    /// The statements of the bodies being parsed, outermost first: a body pushes its
    /// statements here and copies them to the arena once, when it ends (a list per body
    /// would regrow, copying its statements each time).
    stmts: AVec<'a, Stmt<'a>>,
}

type PResult<T> = Result<T, Error>;

impl<'a> Parser<'a> {
    // ---- token helpers ----

    fn peek(&self) -> Option<&Tok<'a>> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, n: usize) -> Option<&Tok<'a>> {
        self.toks.get(self.pos + n).map(|t| &t.tok)
    }

    fn span(&self) -> Span {
        match self.toks.get(self.pos) {
            Some(t) => t.span,
            None => Span::new(self.src.len(), self.src.len()),
        }
    }

    fn prev_span(&self) -> Span {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or_else(|| self.span(), |t| t.span)
    }

    /// Takes the next token.
    fn next(&mut self) -> Option<Token<'a>> {
        let t = self.toks.get(self.pos).copied();
        self.pos += 1;
        t
    }

    fn is_op(&self, op: Op) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    fn is_name(&self, name: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(n)) if *n == name)
    }

    fn eat_op(&mut self, op: Op) -> bool {
        let hit = self.is_op(op);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn eat_name(&mut self, name: &str) -> bool {
        let hit = self.is_name(name);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn fail<T>(&self, what: &str) -> PResult<T> {
        let found = describe(self.peek());
        Err(err!(Syntax, "expected {what}, found {found}")
            .with_offset(self.src, self.span().start as usize))
    }

    fn expect_op(&mut self, op: Op) -> PResult<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            self.fail(&format!("'{}'", op.as_str()))
        }
    }

    fn expect_name(&mut self) -> PResult<&'a str> {
        match self.peek() {
            Some(Tok::Name(n)) => {
                let n = *n;
                self.pos += 1;
                Ok(n)
            }
            _ => self.fail("a name"),
        }
    }

    fn expect_block_end(&mut self) -> PResult<()> {
        if matches!(self.peek(), Some(Tok::BlockEnd)) {
            self.pos += 1;
            Ok(())
        } else {
            self.fail("end of statement '%}'")
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(Error::new(
                ErrorKind::Limit(Limit::Nesting),
                format!("template nesting deeper than {}", self.max_depth),
            )
            .with_offset(self.src, self.span().start as usize));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn alloc<T>(&self, v: T) -> &'a T {
        self.arena.alloc(v)
    }

    /// A growable list in the AST arena (no heap allocation to copy from later).
    fn vec<T>(&self) -> AVec<'a, T> {
        AVec::new_in(self.arena)
    }

    /// A list of one item in the AST arena.
    fn vec_of<T>(&self, first: T) -> AVec<'a, T> {
        let mut v = AVec::with_capacity_in(4, self.arena);
        v.push(first);
        v
    }

    fn slice<T>(&self, v: AVec<'a, T>) -> &'a [T] {
        v.into_bump_slice()
    }

    /// A node in the arena. Expression parsers return nodes by reference: a reference moves
    /// in a register, where an `Expr` returned by value is copied at every level.
    fn node(&self, kind: ExprKind<'a>, span: Span) -> &'a Expr<'a> {
        self.arena.alloc(Expr { kind, span })
    }

    // ---- statements ----

    /// Parses statements until one of the `ends` block tags (whose name is consumed and
    /// returned) or the end of input (only when `ends` is empty).
    fn body(&mut self, ends: &[&str]) -> PResult<(&'a [Stmt<'a>], &'a str)> {
        self.enter()?;
        let base = self.stmts.len();
        loop {
            let Some(tok) = self.next() else {
                self.leave();
                if ends.is_empty() {
                    return Ok((self.body_slice(base), ""));
                }
                let want = one_of(ends);
                return Err(err!(Syntax, "unexpected end of template, expected {want}")
                    .with_offset(self.src, self.src.len()));
            };
            match tok.tok {
                Tok::Data | Tok::Raw => self.stmts.push(Stmt::Data(tok.span)),
                Tok::VarStart => {
                    let e = self.tuple(true)?;
                    if !matches!(self.peek(), Some(Tok::VarEnd)) {
                        return self.fail("end of print statement '}}'");
                    }
                    self.pos += 1;
                    self.stmts.push(Stmt::Print(e));
                }
                Tok::BlockStart => {
                    let name_span = self.span();
                    let name = self.expect_name()?;
                    if ends.iter().any(|e| short_eq(e.as_bytes(), name.as_bytes())) {
                        self.leave();
                        return Ok((self.body_slice(base), name));
                    }
                    if name.starts_with("end") || matches!(name, "elif" | "else") {
                        let want = if ends.is_empty() {
                            "a statement (no block is open)".to_string()
                        } else {
                            one_of(ends)
                        };
                        return Err(err!(Syntax, "unexpected '{name}', expected {want}")
                            .with_offset(self.src, name_span.start as usize));
                    }
                    let stmt = self.statement(name, name_span)?;
                    self.stmts.push(stmt);
                }
                _ => {
                    return Err(err!(Syntax, "unexpected {}", describe(Some(&tok.tok)))
                        .with_offset(self.src, tok.span.start as usize))
                }
            }
        }
    }

    /// The statements pushed since `base`, moved to the arena.
    fn body_slice(&mut self, base: usize) -> &'a [Stmt<'a>] {
        let body = self.arena.alloc_slice_copy(&self.stmts[base..]);
        self.stmts.truncate(base);
        body
    }

    fn statement(&mut self, name: &'a str, span: Span) -> PResult<Stmt<'a>> {
        match name {
            "for" => self.for_stmt(span),
            "if" => self.if_stmt(),
            "set" => self.set_stmt(),
            "macro" => self.macro_stmt(span),
            "call" => self.call_stmt(span),
            "filter" => self.filter_stmt(),
            "break" | "continue" => {
                self.expect_block_end()?;
                Ok(if name == "break" {
                    Stmt::Break(span)
                } else {
                    Stmt::Continue(span)
                })
            }
            "generation" => {
                self.expect_block_end()?;
                let (body, _) = self.body(&["endgeneration"])?;
                self.expect_block_end()?;
                Ok(Stmt::Generation(body))
            }
            "with" => self.with_stmt(),
            "block" => self.block_stmt(span),
            "autoescape" => {
                let on = self.expression(true)?;
                self.expect_block_end()?;
                let (body, _) = self.body(&["endautoescape"])?;
                self.expect_block_end()?;
                Ok(Stmt::Autoescape { on, body })
            }
            "include" | "import" | "from" | "extends" => self.loader_stmt(name, span),
            "do" => Err(err!(
                Syntax,
                "the '{name}' statement is not supported (no chat template uses it)"
            )
            .with_offset(self.src, span.start as usize)),
            _ => Err(err!(Syntax, "unknown statement '{name}'")
                .with_offset(self.src, span.start as usize)),
        }
    }

    /// `{% extends t %}`, `{% include t [ignore missing] [with|without context] %}`,
    /// `{% import t as m [with|without context] %}` and
    /// `{% from t import a [as b], ... [with|without context] %}`, in jinja2's grammar. They
    /// load templates, and the environment has no loader: reached, they fail as jinja2's do.
    fn loader_stmt(&mut self, name: &str, span: Span) -> PResult<Stmt<'a>> {
        let template = self.expression(true)?;
        match name {
            "include" => {
                if self.is_name("ignore") && matches!(self.peek_at(1), Some(Tok::Name("missing"))) {
                    self.pos += 2;
                }
                self.import_context();
            }
            "import" => {
                if !self.eat_name("as") {
                    return self.fail("'as'");
                }
                self.import_target()?;
                self.import_context();
            }
            "from" => {
                if !self.eat_name("import") {
                    return self.fail("'import'");
                }
                let mut first = true;
                loop {
                    if !first {
                        self.expect_op(Op::Comma)?;
                    }
                    first = false;
                    if !matches!(self.peek(), Some(Tok::Name(_))) {
                        return self.fail("a name");
                    }
                    if self.import_context() {
                        break;
                    }
                    let at = self.span().start as usize;
                    if self.import_target()?.starts_with('_') {
                        return Err(err!(
                            Syntax,
                            "names starting with an underline can not be imported"
                        )
                        .with_offset(self.src, at)
                        .with_class(ExceptionClass::TemplateAssertionError));
                    }
                    if self.eat_name("as") {
                        self.import_target()?;
                    }
                    if self.import_context() || !self.is_op(Op::Comma) {
                        break;
                    }
                }
            }
            _ => {}
        }
        self.expect_block_end()?;
        self.has_extends |= name == "extends";
        Ok(Stmt::NoLoader {
            template,
            span,
            extends: name == "extends",
        })
    }

    /// `with context` / `without context` after an import or include, when there.
    fn import_context(&mut self) -> bool {
        let here = self.is_name("with") || self.is_name("without");
        let hit = here && matches!(self.peek_at(1), Some(Tok::Name("context")));
        if hit {
            self.pos += 2;
        }
        hit
    }

    /// The name an import binds (not a constant's).
    fn import_target(&mut self) -> PResult<&'a str> {
        let at = self.span().start as usize;
        let n = self.expect_name()?;
        if matches!(n, "true" | "false" | "none" | "True" | "False" | "None") {
            return Err(err!(Syntax, "can't assign to '{n}'").with_offset(self.src, at));
        }
        Ok(n)
    }

    fn for_stmt(&mut self, span: Span) -> PResult<Stmt<'a>> {
        let target = self.target(false)?;
        if !self.eat_name("in") {
            return self.fail("'in'");
        }
        let iter = *self.tuple(false)?;
        let filter = if self.eat_name("if") {
            Some(*self.expression(true)?)
        } else {
            None
        };
        let recursive = self.eat_name("recursive");
        self.expect_block_end()?;
        let (body, end) = self.body(&["endfor", "else"])?;
        let otherwise = if end == "else" {
            self.expect_block_end()?;
            Some(self.body(&["endfor"])?.0)
        } else {
            None
        };
        self.expect_block_end()?;
        Ok(Stmt::For(self.alloc(ForLoop {
            target,
            iter,
            filter,
            body,
            otherwise,
            recursive,
            span,
        })))
    }

    fn if_stmt(&mut self) -> PResult<Stmt<'a>> {
        let mut branches = self.vec();
        let mut otherwise = None;
        loop {
            let cond = self.tuple(true)?;
            self.expect_block_end()?;
            let (body, end) = self.body(&["elif", "else", "endif"])?;
            branches.push((cond, body));
            match end {
                "elif" => continue,
                "else" => {
                    self.expect_block_end()?;
                    otherwise = Some(self.body(&["endif"])?.0);
                    break;
                }
                _ => break,
            }
        }
        self.expect_block_end()?;
        Ok(Stmt::If {
            branches: self.slice(branches),
            otherwise,
        })
    }

    fn set_stmt(&mut self) -> PResult<Stmt<'a>> {
        let target = self.target(true)?;
        let target = self.alloc(target);
        if self.eat_op(Op::Assign) {
            let value = self.tuple(true)?;
            self.expect_block_end()?;
            return Ok(Stmt::Set { target, value });
        }
        let filter = if self.is_op(Op::Pipe) {
            let hole = self.node(ExprKind::Hole, self.span());
            Some(self.filters(hole)?)
        } else {
            None
        };
        self.expect_block_end()?;
        let (body, _) = self.body(&["endset"])?;
        self.expect_block_end()?;
        Ok(Stmt::SetBlock {
            target,
            filter,
            body,
        })
    }

    fn params(&mut self) -> PResult<&'a [(&'a str, Option<Expr<'a>>)]> {
        let mut params = self.vec();
        self.expect_op(Op::LParen)?;
        // No trailing comma, unlike a call.
        while !self.eat_op(Op::RParen) {
            if !params.is_empty() {
                self.expect_op(Op::Comma)?;
            }
            let at = self.span();
            let name = self.expect_name()?;
            let default = if self.eat_op(Op::Assign) {
                Some(*self.expression(true)?)
            } else {
                None
            };
            if default.is_none()
                && params
                    .iter()
                    .any(|(_, d): &(&str, Option<Expr<'a>>)| d.is_some())
            {
                return Err(
                    err!(Syntax, "non-default argument follows default argument")
                        .with_offset(self.src, at.start as usize),
                );
            }
            if params.iter().any(|(n, _)| *n == name) {
                return Err(
                    // jinja2 makes Python code of it that does not compile.
                    err!(Syntax, "duplicate argument '{name}' in macro definition")
                        .with_offset(self.src, at.start as usize)
                        .with_class(ExceptionClass::SyntaxError),
                );
            }
            params.push((name, default));
        }
        Ok(self.slice(params))
    }

    fn macro_stmt(&mut self, span: Span) -> PResult<Stmt<'a>> {
        let name = self.expect_name()?;
        let params = self.params()?;
        self.expect_block_end()?;
        let (body, _) = self.body(&["endmacro"])?;
        if matches!(self.peek(), Some(Tok::Name(_))) {
            self.pos += 1;
        }
        self.expect_block_end()?;
        Ok(Stmt::Macro(self.alloc(MacroDef {
            name,
            params,
            body,
            span,
        })))
    }

    /// `{% block name [scoped] %}body{% endblock [name] %}` in a template without `extends`:
    /// the block renders in place, through a function of the template (jinja2's block
    /// function, which `self.name()` calls too). An unscoped block sees the template's
    /// variables, not the loop or macro around it; a scoped one is defined where it stands.
    fn block_stmt(&mut self, span: Span) -> PResult<Stmt<'a>> {
        let name_span = self.span();
        let name = self.expect_name()?;
        let scoped = self.eat_name("scoped");
        let required = self.eat_name("required");
        self.expect_block_end()?;
        if self
            .blocks
            .iter()
            .any(|b| b.name.strip_prefix("block ") == Some(name))
        {
            return Err(err!(Syntax, "block '{name}' defined twice")
                .with_offset(self.src, name_span.start as usize)
                .with_class(ExceptionClass::TemplateAssertionError));
        }
        self.in_block.push(name);
        let (mut body, _) = self.body(&["endblock"])?;
        self.in_block.pop();
        if required {
            // Nothing extends this template, so no child fills the block: rendering it fails.
            let blank = body.iter().all(|s| {
                matches!(s, Stmt::Data(d) if self.src[d.start as usize..d.end as usize].trim().is_empty())
            });
            if !blank {
                return Err(err!(
                    Syntax,
                    "Required blocks can only contain comments or whitespace"
                )
                .with_offset(self.src, name_span.start as usize));
            }
            body = self.slice(self.vec_of(Stmt::RequiredBlock {
                name,
                span: name_span,
            }));
        }
        if let Some(&Tok::Name(end)) = self.peek() {
            if end != name {
                return self.fail("'end of statement block'");
            }
            self.pos += 1;
        }
        self.expect_block_end()?;
        let fn_name = block_fn_name(self.arena, name);
        let def = self.alloc(MacroDef {
            name: fn_name,
            params: &[],
            body,
            span,
        });
        self.blocks.push(def);
        let callee_name = if scoped {
            self.arena.alloc_str(&format!("scoped block {name}"))
        } else {
            fn_name
        };
        let callee = self.node(ExprKind::Name(callee_name), span);
        let call = self.node(
            ExprKind::Call(
                callee,
                self.alloc(Args {
                    pos: &[],
                    kw: &[],
                    star: None,
                    dstar: None,
                }),
            ),
            span,
        );
        if !scoped {
            return Ok(Stmt::Print(call));
        }
        // A scoped block: the same body, defined here (it reads the names around it).
        let here = self.alloc(MacroDef {
            name: callee_name,
            params: &[],
            body,
            span,
        });
        let stmts = self
            .arena
            .alloc_slice_copy(&[Stmt::Macro(here), Stmt::Print(call)]);
        Ok(Stmt::With {
            assigns: &[],
            body: stmts,
        })
    }

    fn call_stmt(&mut self, span: Span) -> PResult<Stmt<'a>> {
        let params = if self.is_op(Op::LParen) {
            self.params()?
        } else {
            &[]
        };
        let call = self.expression(true)?;
        if !matches!(call.kind, ExprKind::Call(..)) {
            return Err(err!(Syntax, "expected a call after 'call'")
                .with_offset(self.src, call.span.start as usize));
        }
        self.expect_block_end()?;
        let (body, _) = self.body(&["endcall"])?;
        self.expect_block_end()?;
        Ok(Stmt::CallBlock {
            caller: self.alloc(MacroDef {
                name: "caller",
                params,
                body,
                span,
            }),
            call,
        })
    }

    fn filter_stmt(&mut self) -> PResult<Stmt<'a>> {
        let hole = self.node(ExprKind::Hole, self.span());
        let filter = self.filter_chain(hole, true)?;
        self.expect_block_end()?;
        let (body, _) = self.body(&["endfilter"])?;
        self.expect_block_end()?;
        Ok(Stmt::FilterBlock { filter, body })
    }

    fn with_stmt(&mut self) -> PResult<Stmt<'a>> {
        let mut assigns = self.vec();
        while !matches!(self.peek(), Some(Tok::BlockEnd)) {
            if !assigns.is_empty() {
                self.expect_op(Op::Comma)?;
            }
            let target = self.target(false)?;
            self.expect_op(Op::Assign)?;
            assigns.push((target, *self.expression(true)?));
        }
        self.expect_block_end()?;
        let (body, _) = self.body(&["endwith"])?;
        self.expect_block_end()?;
        Ok(Stmt::With {
            assigns: self.slice(assigns),
            body,
        })
    }

    /// An assignment target: a name, `ns.attr` (when `attr_ok`), or a tuple of names.
    fn target(&mut self, attr_ok: bool) -> PResult<Target<'a>> {
        let start = self.span();
        let one = |p: &mut Self| -> PResult<Target<'a>> {
            let s = p.span();
            if p.eat_op(Op::LParen) {
                let t = p.target(attr_ok)?;
                p.expect_op(Op::RParen)?;
                return Ok(t);
            }
            let name = p.expect_name()?;
            if matches!(name, "true" | "false" | "none" | "True" | "False" | "None") {
                return Err(
                    err!(Syntax, "can't assign to 'const'").with_offset(p.src, s.start as usize)
                );
            }
            if attr_ok && p.eat_op(Op::Dot) {
                let attr = p.expect_name()?;
                return Ok(Target::Attr(name, attr, s.to(p.prev_span())));
            }
            Ok(Target::Name(name))
        };
        let first = one(self)?;
        if !self.is_op(Op::Comma) {
            return Ok(first);
        }
        let mut items = self.vec_of(first);
        while self.eat_op(Op::Comma) {
            if !matches!(self.peek(), Some(Tok::Name(_))) && !self.is_op(Op::LParen) {
                break;
            }
            items.push(one(self)?);
        }
        Ok(Target::Tuple(self.slice(items), start.to(self.prev_span())))
    }

    // ---- expressions ----

    /// Comma-separated expressions: a tuple if there is a comma, else the one expression.
    fn tuple(&mut self, condexpr: bool) -> PResult<&'a Expr<'a>> {
        let start = self.span();
        let first = self.expression(condexpr)?;
        if !self.is_op(Op::Comma) {
            return Ok(first);
        }
        let mut items = self.vec_of(*first);
        while self.eat_op(Op::Comma) {
            if self.at_expr_end() {
                break;
            }
            items.push(*self.expression(condexpr)?);
        }
        Ok(self.node(
            ExprKind::Tuple(self.slice(items)),
            start.to(self.prev_span()),
        ))
    }

    fn at_expr_end(&self) -> bool {
        matches!(
            self.peek(),
            None | Some(
                Tok::VarEnd
                    | Tok::BlockEnd
                    | Tok::Op(Op::RParen | Op::RBracket | Op::RBrace | Op::Assign)
                    | Tok::Name("in" | "if")
            )
        )
    }

    fn expression(&mut self, condexpr: bool) -> PResult<&'a Expr<'a>> {
        if self.lone_operand() {
            return self.primary();
        }
        self.enter()?;
        let e = if condexpr { self.condexpr() } else { self.or() };
        self.leave();
        e
    }

    /// Whether the next token is a name or a literal followed by the end of the expression
    /// (`}}`, `%}`, `)`, `]`, `}`, `,` or `:`): then it is the whole expression, and the
    /// precedence levels, which would each look at the end and return, are skipped. (`not`
    /// is an operator; and when the levels' nesting check would fail, they run.)
    fn lone_operand(&self) -> bool {
        let operand = match self.peek() {
            Some(Tok::Name(n)) => *n != "not",
            Some(Tok::Str(_) | Tok::Int(_) | Tok::BigInt(_) | Tok::Float(_)) => true,
            _ => false,
        };
        operand
            && matches!(
                self.peek_at(1),
                Some(
                    Tok::VarEnd
                        | Tok::BlockEnd
                        | Tok::Op(Op::RParen | Op::RBracket | Op::RBrace | Op::Comma | Op::Colon)
                )
            )
            // `expression`, `binary` and `unary` each enter one level.
            && self.depth + 3 <= self.max_depth
    }

    fn condexpr(&mut self) -> PResult<&'a Expr<'a>> {
        let mut then = self.or()?;
        while self.eat_name("if") {
            let cond = self.or()?;
            let otherwise = if self.eat_name("else") {
                self.enter()?;
                let e = self.condexpr()?;
                self.leave();
                Some(e)
            } else {
                None
            };
            let span = then.span.to(self.prev_span());
            then = self.node(
                ExprKind::Cond {
                    cond,
                    then,
                    otherwise,
                },
                span,
            );
        }
        Ok(then)
    }

    fn or(&mut self) -> PResult<&'a Expr<'a>> {
        self.binary(OR)
    }

    /// Binary operators by precedence climbing (jinja2's levels, lowest first: `or`, `and`,
    /// `not`, comparisons, `+ -`, `~`, `* / // %`, `**`; all left-associative). An operand at
    /// the `not` level or below may start with `not`, which applies to a whole comparison.
    fn binary(&mut self, min: u8) -> PResult<&'a Expr<'a>> {
        self.enter()?;
        let mut left = if min <= NOT && self.is_name("not") {
            let span = self.span();
            self.pos += 1;
            let inner = self.binary(NOT)?;
            let span = span.to(inner.span);
            self.node(ExprKind::Unary(UnOp::Not, inner), span)
        } else {
            self.unary(true)?
        };
        loop {
            let (prec, op) = match self.peek() {
                Some(Tok::Name("or")) => (OR, None),
                Some(Tok::Name("and")) => (AND, None),
                Some(Tok::Name("in")) => (CMP, None),
                Some(Tok::Name("not")) if matches!(self.peek_at(1), Some(Tok::Name("in"))) => {
                    (CMP, None)
                }
                Some(Tok::Op(o)) => match o {
                    Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => (CMP, None),
                    Op::Add => (SUM, Some(BinOp::Add)),
                    Op::Sub => (SUM, Some(BinOp::Sub)),
                    Op::Tilde => (CONCAT, Some(BinOp::Concat)),
                    Op::Mul => (PRODUCT, Some(BinOp::Mul)),
                    Op::Div => (PRODUCT, Some(BinOp::Div)),
                    Op::FloorDiv => (PRODUCT, Some(BinOp::FloorDiv)),
                    Op::Mod => (PRODUCT, Some(BinOp::Mod)),
                    Op::Pow => (POW, Some(BinOp::Pow)),
                    _ => break,
                },
                _ => break,
            };
            if prec < min {
                break;
            }
            if prec == CMP {
                left = self.comparisons(left)?;
                continue;
            }
            // Only `or` is at the `or` level.
            let is_or = prec == OR;
            self.pos += 1;
            let right = self.binary(prec + 1)?;
            let span = left.span.to(right.span);
            let (l, r) = (left, right);
            left = self.node(
                match op {
                    Some(op) => ExprKind::Bin(op, l, r),
                    None if is_or => ExprKind::Or(l, r),
                    None => ExprKind::And(l, r),
                },
                span,
            );
        }
        self.leave();
        Ok(left)
    }

    /// A chain of comparisons after `left`, each operand at the `+ -` level.
    fn comparisons(&mut self, left: &'a Expr<'a>) -> PResult<&'a Expr<'a>> {
        let mut ops = self.vec();
        loop {
            let op = match self.peek() {
                Some(Tok::Op(Op::Eq)) => Cmp::Eq,
                Some(Tok::Op(Op::Ne)) => Cmp::Ne,
                Some(Tok::Op(Op::Lt)) => Cmp::Lt,
                Some(Tok::Op(Op::Le)) => Cmp::Le,
                Some(Tok::Op(Op::Gt)) => Cmp::Gt,
                Some(Tok::Op(Op::Ge)) => Cmp::Ge,
                Some(Tok::Name("in")) => Cmp::In,
                Some(Tok::Name("not")) if matches!(self.peek_at(1), Some(Tok::Name("in"))) => {
                    self.pos += 1;
                    Cmp::NotIn
                }
                _ => break,
            };
            self.pos += 1;
            ops.push((op, *self.binary(SUM)?));
        }
        let span = left.span.to(self.prev_span());
        Ok(self.node(ExprKind::Compare(left, self.slice(ops)), span))
    }

    fn unary(&mut self, with_filter: bool) -> PResult<&'a Expr<'a>> {
        self.enter()?;
        let span = self.span();
        let sign = match self.peek() {
            Some(Tok::Op(Op::Sub)) => Some(UnOp::Neg),
            Some(Tok::Op(Op::Add)) => Some(UnOp::Pos),
            _ => None,
        };
        let node = if let Some(op) = sign {
            self.pos += 1;
            let inner = self.unary(false)?;
            let span = span.to(inner.span);
            self.node(ExprKind::Unary(op, inner), span)
        } else {
            self.primary()?
        };
        let node = self.postfix(node)?;
        let node = if with_filter {
            self.filter_expr(node)?
        } else {
            node
        };
        self.leave();
        Ok(node)
    }

    fn primary(&mut self) -> PResult<&'a Expr<'a>> {
        let span = self.span();
        let Some(tok) = self.next() else {
            return Err(
                err!(Syntax, "unexpected end of template").with_offset(self.src, self.src.len())
            );
        };
        let kind = match tok.tok {
            Tok::Name("true" | "True") => ExprKind::Lit(Lit::Bool(true)),
            Tok::Name("false" | "False") => ExprKind::Lit(Lit::Bool(false)),
            Tok::Name("none" | "None") => ExprKind::Lit(Lit::None),
            Tok::Name("super") if !self.in_block.is_empty() => {
                // A template without `extends` has no parent block: `super()` is undefined.
                let name = self.in_block.last().copied().unwrap_or_default();
                ExprKind::Name(self.arena.alloc_str(&format!("no parent block {name}")))
            }
            Tok::Name(n) => ExprKind::Name(n),
            // A literal without escapes is a slice of the source: no copy.
            Tok::Str(s) if !matches!(self.peek(), Some(Tok::Str(_))) => ExprKind::Lit(Lit::Str(s)),
            Tok::Str(s) => {
                // Adjacent literals are one string, as in Python.
                let mut text = s.to_string();
                while let Some(Tok::Str(more)) = self.peek() {
                    text.push_str(more);
                    self.pos += 1;
                }
                ExprKind::Lit(Lit::Str(self.arena.alloc_str(&text)))
            }
            Tok::Int(i) => ExprKind::Lit(Lit::Int(i)),
            Tok::BigInt(t) => ExprKind::Lit(Lit::BigInt(t)),
            Tok::Float(f) => ExprKind::Lit(Lit::Float(f)),
            Tok::Op(Op::LParen) => {
                if self.eat_op(Op::RParen) {
                    ExprKind::Tuple(&[])
                } else {
                    let first = self.expression(true)?;
                    if self.eat_op(Op::RParen) {
                        return Ok(first);
                    }
                    let mut items = self.vec_of(*first);
                    while self.eat_op(Op::Comma) {
                        if self.is_op(Op::RParen) {
                            break;
                        }
                        items.push(*self.expression(true)?);
                    }
                    self.expect_op(Op::RParen)?;
                    ExprKind::Tuple(self.slice(items))
                }
            }
            Tok::Op(Op::LBracket) => {
                let mut items = self.vec();
                while !self.eat_op(Op::RBracket) {
                    if !items.is_empty() {
                        self.expect_op(Op::Comma)?;
                        if self.eat_op(Op::RBracket) {
                            break;
                        }
                    }
                    items.push(*self.expression(true)?);
                }
                ExprKind::List(self.slice(items))
            }
            Tok::Op(Op::LBrace) => {
                let mut items = self.vec();
                while !self.eat_op(Op::RBrace) {
                    if !items.is_empty() {
                        self.expect_op(Op::Comma)?;
                        if self.eat_op(Op::RBrace) {
                            break;
                        }
                    }
                    let k = *self.expression(true)?;
                    self.expect_op(Op::Colon)?;
                    items.push((k, *self.expression(true)?));
                }
                ExprKind::Dict(self.slice(items))
            }
            other => {
                return Err(err!(
                    Syntax,
                    "expected an expression, found {}",
                    describe(Some(&other))
                )
                .with_offset(self.src, span.start as usize))
            }
        };
        Ok(self.node(kind, span.to(self.prev_span())))
    }

    fn postfix(&mut self, mut node: &'a Expr<'a>) -> PResult<&'a Expr<'a>> {
        loop {
            // One look at the next token decides (three `is_op` tests would load it thrice).
            let Some(&Tok::Op(op @ (Op::Dot | Op::LBracket | Op::LParen))) = self.peek() else {
                return Ok(node);
            };
            if op == Op::Dot {
                self.pos += 1;
                let kind = match self.peek() {
                    Some(&Tok::Name(n)) => {
                        self.pos += 1;
                        if matches!(node.kind, ExprKind::Name("self")) && !n.starts_with('_') {
                            // `self.name`: block `name`'s function (jinja2's
                            // TemplateReference); an undefined when there is no such block.
                            // `self.__init__` stays an attribute, which the sandbox refuses.
                            ExprKind::Name(block_fn_name(self.arena, n))
                        } else {
                            ExprKind::Attr(node, n)
                        }
                    }
                    Some(&Tok::Int(i)) => {
                        self.pos += 1;
                        let key = self.node(ExprKind::Lit(Lit::Int(i)), self.prev_span());
                        ExprKind::Item(node, key)
                    }
                    _ => return self.fail("an attribute name"),
                };
                node = self.node(kind, node.span.to(self.prev_span()));
            } else if op == Op::LBracket {
                self.pos += 1;
                node = self.subscript(node)?;
            } else {
                node = self.call(node)?;
            }
        }
    }

    /// `node[...]`, as jinja2 parses it: comma-separated keys or slices, no trailing comma;
    /// one key is the key, none or several are a tuple (`a[]` is `a[()]`).
    fn subscript(&mut self, node: &'a Expr<'a>) -> PResult<&'a Expr<'a>> {
        // Nearly every subscript has one key: a list only from the second on.
        let mut first: Option<Subscribed<'a>> = None;
        let mut rest = self.vec();
        while !self.is_op(Op::RBracket) {
            if first.is_some() {
                self.expect_op(Op::Comma)?;
            }
            let item = self.subscribed()?;
            match first {
                None => first = Some(item),
                Some(_) => rest.push(item),
            }
        }
        self.pos += 1;
        let span = node.span.to(self.prev_span());
        let kind = match (first, rest.is_empty()) {
            (Some(Subscribed::Key(k)), true) => ExprKind::Item(node, k),
            (Some(Subscribed::Slice(parts)), true) => ExprKind::Slice(node, parts),
            (None, _) => ExprKind::Item(node, self.node(ExprKind::Tuple(&[]), span)),
            (Some(k), false) => {
                let mut items = self.vec();
                for item in std::iter::once(&k).chain(rest.iter()) {
                    match *item {
                        Subscribed::Key(k) => items.push(*k),
                        // jinja2 makes Python code of it that does not compile.
                        Subscribed::Slice(_) => {
                            return Err(err!(
                                Syntax,
                                "invalid syntax: a slice inside a tuple subscript"
                            )
                            .with_offset(self.src, span.start as usize)
                            .with_class(ExceptionClass::SyntaxError))
                        }
                    }
                }
                ExprKind::Item(node, self.node(ExprKind::Tuple(self.slice(items)), span))
            }
        };
        Ok(self.node(kind, span))
    }

    /// One item of a subscript: an expression, or `start:stop:step` with each part optional.
    fn subscribed(&mut self) -> PResult<Subscribed<'a>> {
        let mut parts: [Option<&'a Expr<'a>>; 3] = [None; 3];
        if !self.eat_op(Op::Colon) {
            let e = self.expression(true)?;
            if !self.eat_op(Op::Colon) {
                return Ok(Subscribed::Key(e));
            }
            parts[0] = Some(e);
        }
        let ends = |p: &Self| p.is_op(Op::RBracket) || p.is_op(Op::Comma);
        if !self.is_op(Op::Colon) && !ends(self) {
            parts[1] = Some(self.expression(true)?);
        }
        if self.eat_op(Op::Colon) && !ends(self) {
            parts[2] = Some(self.expression(true)?);
        }
        Ok(Subscribed::Slice(parts))
    }

    fn args(&mut self) -> PResult<&'a Args<'a>> {
        self.expect_op(Op::LParen)?;
        let mut pos = self.vec();
        let mut kw = self.vec();
        let mut star = None;
        let mut dstar = None;
        while !self.eat_op(Op::RParen) {
            if !pos.is_empty() || !kw.is_empty() || star.is_some() || dstar.is_some() {
                self.expect_op(Op::Comma)?;
                if self.eat_op(Op::RParen) {
                    break;
                }
            }
            // jinja2's order: positional arguments, `*args`, keywords, `**kwargs` (keywords
            // may also come before `*args`), each splat once.
            let at = self.span();
            let order = |ok: bool| -> PResult<()> {
                if ok {
                    Ok(())
                } else {
                    Err(err!(Syntax, "invalid syntax for function call expression")
                        .with_offset(self.src, at.start as usize))
                }
            };
            if self.eat_op(Op::Mul) {
                order(star.is_none() && dstar.is_none())?;
                star = Some(self.expression(true)?);
                continue;
            }
            if self.eat_op(Op::Pow) {
                order(dstar.is_none())?;
                dstar = Some(self.expression(true)?);
                continue;
            }
            if let (Some(Tok::Name(n)), Some(Tok::Op(Op::Assign))) = (self.peek(), self.peek_at(1))
            {
                let n = *n;
                order(dstar.is_none())?;
                if kw.iter().any(|(k, _)| *k == n) {
                    // Python refuses the call when it compiles it, as jinja2 does.
                    return Err(err!(Syntax, "keyword argument repeated: {n}")
                        .with_offset(self.src, self.span().start as usize)
                        .with_class(ExceptionClass::SyntaxError));
                }
                self.pos += 2;
                kw.push((n, *self.expression(true)?));
            } else {
                order(star.is_none() && dstar.is_none() && kw.is_empty())?;
                pos.push(*self.expression(true)?);
            }
        }
        if pos.is_empty() && kw.is_empty() && star.is_none() && dstar.is_none() {
            return Ok(&NO_ARGS);
        }
        Ok(self.alloc(Args {
            pos: self.slice(pos),
            kw: self.slice(kw),
            star,
            dstar,
        }))
    }

    fn call(&mut self, node: &'a Expr<'a>) -> PResult<&'a Expr<'a>> {
        let args = self.args()?;
        let span = node.span.to(self.prev_span());
        Ok(self.node(ExprKind::Call(node, args), span))
    }

    fn filter_expr(&mut self, mut node: &'a Expr<'a>) -> PResult<&'a Expr<'a>> {
        loop {
            node = match self.peek() {
                Some(Tok::Op(Op::Pipe)) => self.filters(node)?,
                Some(Tok::Name("is")) => self.test(node)?,
                Some(Tok::Op(Op::LParen)) => self.call(node)?,
                _ => return Ok(node),
            };
        }
    }

    /// `|f(args)|g ...` applied to `node`.
    fn filters(&mut self, mut node: &'a Expr<'a>) -> PResult<&'a Expr<'a>> {
        while self.eat_op(Op::Pipe) {
            node = self.filter_chain(node, false)?;
        }
        Ok(node)
    }

    /// One filter (`first` = the `{% filter %}` tag's form), then any `|more`.
    fn filter_chain(&mut self, node: &'a Expr<'a>, first: bool) -> PResult<&'a Expr<'a>> {
        let mut name_span = self.span();
        let mut name = self.expect_name()?;
        while self.eat_op(Op::Dot) {
            let part = self.expect_name()?;
            name_span = name_span.to(self.prev_span());
            name = self.arena.alloc_str(&format!("{name}.{part}"));
        }
        let args = if self.is_op(Op::LParen) {
            self.args()?
        } else {
            &NO_ARGS
        };
        let span = node.span.to(name_span).to(self.prev_span());
        let node = self.node(ExprKind::Filter(node, name, args), span);
        if first {
            self.filters(node)
        } else {
            Ok(node)
        }
    }

    fn test(&mut self, value: &'a Expr<'a>) -> PResult<&'a Expr<'a>> {
        self.pos += 1; // `is`
        let negated = self.eat_name("not");
        let mut name = self.expect_name()?;
        while self.eat_op(Op::Dot) {
            let part = self.expect_name()?;
            name = self.arena.alloc_str(&format!("{name}.{part}"));
        }
        let args = if self.is_op(Op::LParen) {
            self.args()?
        } else if self.is_name("is") {
            // `x is a is b`: jinja2 refuses a test name followed by another `is`.
            return Err(err!(Syntax, "You cannot chain multiple tests with is")
                .with_offset(self.src, self.span().start as usize));
        } else if self.test_arg_follows() {
            let arg = self.primary()?;
            let arg = self.postfix(arg)?;
            self.alloc(Args {
                pos: self.slice(self.vec_of(*arg)),
                ..NO_ARGS
            })
        } else {
            &NO_ARGS
        };
        let span = value.span.to(self.prev_span());
        Ok(self.node(
            ExprKind::Test {
                value,
                name,
                args,
                negated,
            },
            span,
        ))
    }

    /// jinja2 takes one argument without parentheses after a test name when a primary follows.
    fn test_arg_follows(&self) -> bool {
        match self.peek() {
            Some(Tok::Name(n)) => !matches!(*n, "else" | "or" | "and"),
            Some(Tok::Str(_) | Tok::Int(_) | Tok::BigInt(_) | Tok::Float(_)) => true,
            Some(Tok::Op(Op::LBracket | Op::LBrace)) => true,
            _ => false,
        }
    }
}

/// Precedence levels of [`Parser::binary`], lowest first.
const OR: u8 = 1;
const AND: u8 = 2;
const NOT: u8 = 3;
const CMP: u8 = 4;
const SUM: u8 = 5;
const CONCAT: u8 = 6;
const PRODUCT: u8 = 7;
const POW: u8 = 8;

/// `'a' or 'b' or 'c'`: the end tags a block accepts, for error messages.
fn one_of(ends: &[&str]) -> String {
    ends.iter()
        .map(|e| format!("'{e}'"))
        .collect::<Vec<_>>()
        .join(" or ")
}

fn describe(tok: Option<&Tok<'_>>) -> String {
    match tok {
        None => "end of template".into(),
        Some(Tok::Data) | Some(Tok::Raw) => "template text".into(),
        Some(Tok::VarStart) => "'{{'".into(),
        Some(Tok::VarEnd) => "'}}'".into(),
        Some(Tok::BlockStart) => "'{%'".into(),
        Some(Tok::BlockEnd) => "'%}'".into(),
        Some(Tok::Name(n)) => format!("'{n}'"),
        Some(Tok::Str(_)) => "a string".into(),
        Some(Tok::Int(i)) => format!("'{}'", i.get()),
        Some(Tok::BigInt(t)) => format!("'{t}'"),
        Some(Tok::Float(f)) => format!("'{f}'"),
        Some(Tok::Op(o)) => format!("'{}'", o.as_str()),
    }
}

/// One item of a subscript (see `Parser::subscribed`).
#[derive(Clone, Copy)]
enum Subscribed<'a> {
    /// `a[key]`.
    Key(&'a Expr<'a>),
    /// `a[start:stop:step]`, each part optional.
    Slice([Option<&'a Expr<'a>>; 3]),
}

#[cfg(test)]
mod tests {
    #[test]
    fn lone_operands_keep_the_nesting_limit() {
        // A lone operand skips the three expression levels, but fails the limit exactly
        // where they would: the least `max_nesting` each source needs is the one the parser
        // needed before the shortcut.
        for (src, needs) in [
            ("{{ x }}", 4),
            ("{{ f(x) }}", 7),
            ("{{ x + 1 }}", 5),
            ("{{ a[b] }}", 7),
            ("{% if x %}{{ y }}{% endif %}", 5),
        ] {
            for max in 0..8 {
                let arena = bumpalo::Bump::new();
                let ok = super::parse(src, &arena, max).is_ok();
                assert_eq!(ok, max >= needs, "{src} with max_nesting {max}");
            }
        }
    }
}
