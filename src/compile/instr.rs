//! The instruction set: a stack machine with frame-relative slots for variables.

use crate::builtins::strfast::StrMeth;
use crate::value::ops::{BinOp, CmpOp};

/// "No slot" / "no keyword names".
pub(crate) const NONE16: u16 = u16::MAX;

/// A non-string constant.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Const {
    None,
    Bool(bool),
    Int(i64),
    Big(i128),
    /// An int literal beyond 128 bits: `strs[i]` is its text as written.
    BigText(u32),
    Float(f64),
}

/// Attributes of `loop` read by [`Instr::LoopAttr`] without a lookup by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoopField {
    Index,
    Index0,
    First,
    Last,
    Length,
    RevIndex,
    RevIndex0,
}

/// One instruction. Operands are indexes into the program's tables.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Instr {
    /// Output `source[start..end]`.
    EmitRaw(u32, u32),
    /// Output string constant `strs[i]`.
    EmitStr(u32),
    /// Pop a value and output `str()` of it.
    Emit,
    /// Pop a value and output it HTML-escaped (a `Markup` as it is): `{{ }}` under
    /// `{% autoescape true %}`.
    EmitEscaped,
    /// Replace the top of the stack, a string, by the same text as `Markup`.
    MarkSafe,
    /// Save the render's autoescape state and set it (entering `{% autoescape %}`): macro
    /// calls return `Markup` while it is on. jinja2 keeps this state at run time, for the
    /// whole render: a macro called under it inherits it, and a `break` out of the block
    /// skips the revert.
    Autoescape(bool),
    /// Restore the state the innermost `Autoescape` saved (leaving `{% autoescape %}`).
    AutoescapeRevert,
    /// Push `consts[i]`.
    Const(u32),
    /// Push string constant `strs[i]`.
    Str(u32),
    /// Push the undefined value.
    Undefined,
    /// Push slot `i` of the current frame.
    Load(u16),
    /// Pop into slot `i` of the current frame.
    Store(u16),
    /// Push slot `i` of the frame that defined the current macro.
    LoadUp(u16),
    /// Push slot `i` of the template body's frame.
    LoadRoot(u16),
    /// Push resolved global `i`.
    LoadGlobal(u16),
    /// `loop.<field>` of the loop object in slot `i`.
    LoopAttr(u16, LoopField),
    /// Pop `x`, push `x.<strs[i]>`.
    Attr(u32),
    /// `Attr` for a name that no dict attribute has: a dict's key is read directly.
    AttrKey(u32),
    /// Push `slot.strs[key]` (or `slot[strs[key]]` when `item`) of a local variable, reading
    /// a dict's key directly when no dict attribute has that name.
    LoadKey { slot: u16, key: u32, item: bool },
    /// `LoadKey` as the third or later operand of a sum: an undefined variable is pushed
    /// as it is (the sum raises its error when it reaches it, after the operands before).
    LoadKeyInSum { slot: u16, key: u32, item: bool },
    /// Pop `x`; push `x == strs[i]` (negated when the flag is set).
    EqStr(u32, bool),
    /// Pop `key`, `x`; push `x[key]`.
    Item,
    /// Pop `x`; push `x[strs[i]]`.
    ItemStr(u32),
    /// Pop the present bounds (bit 0 start, 1 stop, 2 step) and `x`; push the slice.
    Slice(u8),
    /// Pop `b`, `a`; push `a <op> b`.
    Bin(BinOp),
    /// `a ~ b` under `{% autoescape true %}` (jinja2's `markup_join`): `Markup` when either
    /// operand is, the other escaped.
    MarkupConcat,
    /// Pop `b`, `a`; push `a <op> b`.
    Cmp(CmpOp),
    /// Pop `n` values, push their sum left to right (`a + b + c`): one allocation when all
    /// are strings.
    AddN(u32),
    /// Pop `n` values and output their sum left to right: strings are written directly.
    EmitAddN(u32),
    /// Pop `n` values, push `str()` of each joined (`a ~ b ~ c` without autoescape): one
    /// allocation.
    ConcatN(u32),
    /// Pop `n` values and output `str()` of each (`{{ a ~ b ~ c }}`).
    EmitConcatN(u32),
    /// Pop `b`, `a`; push `a == b`.
    Eq,
    /// Pop `b`, `a`; push `a != b`.
    Ne,
    /// Pop `b`, `a`; push `a in b` (negated when the flag is set).
    In(bool),
    /// Pop `x`, push `not x`.
    Not,
    /// Pop `x`, push `-x`.
    Neg,
    /// Pop `x`, push `+x`.
    Pos,
    /// Duplicate the top of the stack.
    Dup,
    /// Drop the top of the stack.
    Pop,
    /// Jump to `pc`.
    Jump(u32),
    /// Pop `x`; jump if it is falsy.
    JumpIfFalse(u32),
    /// If the top is falsy jump (keeping it), else pop it.
    JumpIfFalseOrPop(u32),
    /// If the top is truthy jump (keeping it), else pop it.
    JumpIfTrueOrPop(u32),
    /// Pop `n` values, push a list of them.
    List(u32),
    /// Pop `n` values, push a tuple of them.
    Tuple(u32),
    /// Pop `n` key/value pairs, push a dict.
    Dict(u32),
    /// Pop `argc` args (and one value per keyword name of `kwnames[kw]`) and the value; push
    /// `filters[f](value, args, kwargs)`.
    Filter { f: u16, argc: u8, kw: u16 },
    /// Pop an iterable and a list; push the list extended by the iterable's items.
    Extend,
    /// Pop a mapping (if `dstar`), the keyword values of `kwnames[kw]`, a list of positional
    /// arguments and the callable; push the call's result.
    CallSplat { kw: u16, dstar: bool },
    /// Pop `argc` args and the value; push `tests[t](value, args)`, negated if `neg`.
    Test { t: u16, argc: u8, neg: bool },
    /// Pop args and the callable; push the call's result.
    Call { argc: u8, kw: u16 },
    /// Pop args and the receiver; push `recv.<strs[name]>(args)`. `m` is the `str` method of
    /// that name ([`StrMeth::Other`] when there are keyword arguments): a string receiver
    /// with plain arguments calls it directly.
    CallMethod {
        name: u32,
        argc: u8,
        kw: u16,
        m: StrMeth,
    },
    /// Pop `x` and push its `n` items, first item on top; fails unless there are exactly `n`.
    Unpack(u16),
    /// Pop an iterable and start a loop over it; store the loop object in slot `i` unless
    /// [`NONE16`].
    IterInit(u16),
    /// Pop a depth, the loop's function and an iterable: `IterInit` for a recursive loop's
    /// level `depth`.
    IterInitAt(u16),
    /// Push the next item of the innermost loop, or jump to `pc` when it is exhausted.
    Iter(u32),
    /// End the innermost loop; jump to `pc` if it ran at least once (past the `else` body).
    LoopEnd(u32),
    /// Start collecting values (a filtered loop's items).
    CollectStart,
    /// Pop a value into the innermost collection.
    CollectPush,
    /// End the innermost collection, push it as a list.
    CollectEnd,
    /// Start capturing output.
    CaptureStart,
    /// End the innermost capture, push the captured text.
    CaptureEnd,
    /// Push macro `id` as a callable, defined in the current frame.
    MakeMacro(u32),
    /// Jump to `pc` if parameter `i` of the current macro call was passed.
    JumpIfBound(u16, u32),
    /// End a macro call: push its output to the caller.
    Return,
    /// Pop a value and a namespace; set attribute `strs[i]`.
    SetAttr(u32),
    /// Like `SetAttr`, with the namespace on top of the value (a namespace attribute inside
    /// an unpacking target).
    SetAttrOnTop(u32),
    /// Fail with message `strs[i]`, raised as the given class (a filter or test that does not
    /// exist, reached; a call jinja2 refuses at run time).
    Fail(u32, crate::error::ExceptionClass),
    /// Start of a `{% generation %}` block.
    GenStart,
    /// End of a `{% generation %}` block.
    GenEnd,
    /// End of the template.
    Halt,
}

/// A compiled macro (or `{% call %}` body).
#[derive(Debug, Clone)]
pub(crate) struct MacroInfo {
    /// Its name, for errors.
    pub(crate) name: Box<str>,
    /// First instruction.
    pub(crate) entry: u32,
    /// Slots its frame needs.
    pub(crate) slots: u32,
    /// Parameter names (`strs` indexes); parameter `i` lives in slot `i`.
    pub(crate) params: Box<[u32]>,
    /// The slot of `caller`, when the body uses it.
    pub(crate) caller_slot: u16,
    /// The slot of `varargs` (extra positional arguments), when the body reads it.
    pub(crate) varargs_slot: u16,
    /// The slot of `kwargs` (extra keyword arguments), when the body reads it.
    pub(crate) kwargs_slot: u16,
}

#[cfg(test)]
mod tests {
    #[test]
    fn instructions_stay_small() {
        assert!(std::mem::size_of::<super::Instr>() <= 12);
    }
}
