//! AST to bytecode. A [`Program`] owns everything a render needs: the normalized source (data
//! instructions point into it), the instructions, constants, the names resolved per render,
//! the filter and test functions resolved at compile time, and the span side table.

mod codegen;
mod content;
mod inspect;
mod instr;
mod intern;
mod mentions;
mod scope;

pub(crate) use content::reads_content_parts;
pub(crate) use instr::{Const, Instr, LoopField, MacroInfo, NONE16};

use crate::builtins::{FilterFn, TestFn};
use crate::error::Error;
use crate::limits::Limits;

/// A compiled template.
pub(crate) struct Program {
    /// The newline-normalized source; `EmitRaw` ranges index it.
    pub(crate) source: String,
    /// The code of the template body, then of each macro.
    pub(crate) code: Vec<Instr>,
    /// Constants other than strings.
    pub(crate) consts: Vec<Const>,
    /// String constants, attribute names and keyword names.
    pub(crate) strs: StrPool,
    /// Names looked up in the render's variables (then the builtin globals) once per render;
    /// the common ones are static (no allocation per name).
    pub(crate) globals: Vec<std::borrow::Cow<'static, str>>,
    /// The builtin global function each of `globals` names, if any (what the name is when the
    /// render's variables do not define it): found at the first render (compiling does not
    /// pay for it), then read by every render without comparing names.
    /// Read through [`Program::global_builtins`].
    pub(super) global_builtins: std::sync::OnceLock<Vec<Option<crate::value::Global>>>,
    /// Filters by index.
    pub(crate) filters: Vec<FilterFn>,
    /// Tests by index.
    pub(crate) tests: Vec<TestFn>,
    /// Keyword-name lists of calls (indexes into `strs`).
    pub(crate) kwnames: Vec<Box<[u32]>>,
    /// Macros and `{% call %}` bodies by id.
    pub(crate) macros: Vec<MacroInfo>,
    /// Slots the template body needs.
    pub(crate) root_slots: u32,
    /// `(first instruction, source offset)`, sorted: where each instruction came from.
    pub(crate) spans: Vec<(u32, u32)>,
}

impl Program {
    /// The builtin global function each of [`Program::globals`] names, if any.
    pub(crate) fn global_builtins(&self) -> &[Option<crate::value::Global>] {
        self.global_builtins.get_or_init(|| {
            self.globals
                .iter()
                .map(|n| crate::builtins::global(n))
                .collect()
        })
    }

    /// Whether a render may read the clock: the template names `strftime_now`.
    pub(crate) fn reads_clock(&self) -> bool {
        self.global_builtins()
            .contains(&Some(crate::value::Global::StrftimeNow))
    }

    /// The source offset of the instruction at `pc`, for error messages.
    pub(crate) fn offset_of(&self, pc: usize) -> usize {
        let i = self.spans.partition_point(|(p, _)| *p as usize <= pc);
        i.checked_sub(1).map_or(0, |i| self.spans[i].1 as usize)
    }
}

/// String constants in one buffer: one allocation for all of a template's names and literals.
#[derive(Default)]
pub(crate) struct StrPool {
    text: String,
    ends: Vec<u32>,
}

impl StrPool {
    /// An empty pool with room for about `bytes` of text.
    pub(crate) fn with_capacity(bytes: usize) -> StrPool {
        StrPool {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(bytes / 8),
        }
    }

    /// Adds `s`; returns its index.
    pub(crate) fn push(&mut self, s: &str) -> u32 {
        self.push_concat(s, "")
    }

    /// Adds `a` followed by `b` as one string; returns its index.
    pub(crate) fn push_concat(&mut self, a: &str, b: &str) -> u32 {
        self.text.push_str(a);
        self.text.push_str(b);
        self.ends.push(self.text.len() as u32);
        self.ends.len() as u32 - 1
    }
}

impl std::ops::Index<usize> for StrPool {
    type Output = str;

    /// The string at `i` (empty when there is none). Read by the VM for every string
    /// constant it pushes, so inline and without re-checking character boundaries.
    #[inline]
    fn index(&self, i: usize) -> &str {
        let end = self.ends.get(i).copied().unwrap_or(0) as usize;
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p).copied().unwrap_or(0) as usize,
            None => 0,
        };
        match self.text.as_bytes().get(start..end) {
            // SAFETY: `text` is only ever extended by whole `&str`s (`push_concat`) and
            // `ends` records the length after each, so every recorded end, and 0, is a
            // character boundary of `text`; `start..end` is in bounds (checked by `get`).
            Some(bytes) => unsafe { std::str::from_utf8_unchecked(bytes) },
            None => "",
        }
    }
}

/// Compiles `source`.
pub(crate) fn compile(source: &str, limits: &Limits) -> Result<Program, Error> {
    if source.len() > limits.max_source {
        return Err(Error::new(
            crate::error::ErrorKind::Limit(crate::error::Limit::Source),
            format!(
                "the template is {} bytes, more than Limits::max_source ({} bytes)",
                source.len(),
                limits.max_source
            ),
        ));
    }
    let source = crate::syntax::lexer::normalize(source);
    // The AST lives only while compiling: a per-thread arena, reset after each compile.
    let mut program = with_ast_arena(|arena| {
        let ast = crate::syntax::parser::parse(&source, arena, limits.max_nesting)?;
        codegen::generate(ast, &source, limits.max_nesting, arena)
    })?;
    program.source = source;
    Ok(program)
}

/// Runs `f` with this thread's AST arena (a fresh one if it is in use), then resets it.
fn with_ast_arena<R>(f: impl FnOnce(&bumpalo::Bump) -> R) -> R {
    thread_local! {
        static ARENA: std::cell::Cell<Option<Box<bumpalo::Bump>>> = const { std::cell::Cell::new(None) };
    }
    let mut arena = ARENA.with(|a| a.take()).unwrap_or_default();
    let r = f(&arena);
    if arena.allocated_bytes() <= 16 << 20 {
        arena.reset();
        ARENA.with(|a| a.set(Some(arena)));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::Instr;
    use crate::template::Template;

    #[test]
    fn literal_only_expressions_are_folded() {
        let src =
            "{{ 'a' + 'b' }}|{{ 'c' ~ 'd' }}|{{ 'e' + 'f' + x }}|{{ -2 }}|{{ +3 }}|{{ -1.5 }}\
                   |{{ x ~ y[-1] }}|{{ 2 ** -1 }}|{{ -9223372036854775808 }}";
        let t = Template::new(src).expect("compiles");
        let out = t
            .render(&serde_json::json!({"x": "X", "y": [1, 2]}))
            .expect("renders");
        // Expected text from jinja2 3.1.6.
        assert_eq!(out, "ab|cd|efX|-2|3|-1.5|X2|0.5|-9223372036854775808");
        let code = &t.program.code;
        let negs = code.iter().filter(|i| matches!(i, Instr::Neg)).count();
        // Only the literal past the 64-bit range is negated at run time.
        assert_eq!(negs, 1, "{code:?}");
        assert!(!code.iter().any(|i| matches!(i, Instr::Pos)));
        // `2 ** -1` only: the string pairs are constants, and the printed `x ~ y[-1]` is
        // written operand by operand.
        let bins = code.iter().filter(|i| matches!(i, Instr::Bin(_))).count();
        assert_eq!(bins, 1, "{code:?}");
    }

    #[test]
    fn concat_chains_and_str_methods() {
        let src = "{{ a ~ 1 ~ none ~ u ~ [1, 'x'] }}|{% set s = a ~ b ~ 2.5 ~ u ~ true %}{{ s }}\
                   |{{ 'p' ~ 'q' ~ a }}|{{ (a ~ b ~ c) | length }}|{{ a ~ c ~ (b | safe) }}\
                   |{{ x.lower().replace('b', 'X').capitalize() ~ x.title() ~ x.split(' ') }}";
        let t = Template::new(src).expect("compiles");
        let out = t
            .render(&serde_json::json!({"a": "A", "b": "B", "c": {"k": "v"}, "x": "aBc bcd"}))
            .expect("renders");
        // Expected text from jinja2 3.1.6's ImmutableSandboxedEnvironment.
        assert_eq!(
            out,
            "A1None[1, 'x']|AB2.5True|pqA|12|A{'k': 'v'}B|Axc xcdAbc Bcd['aBc', 'bcd']"
        );
        let code = &t.program.code;
        assert!(!code.iter().any(|i| matches!(i, Instr::Bin(_))), "{code:?}");
    }
}
