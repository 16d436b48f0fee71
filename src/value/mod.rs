//! Values: the caller's JSON read in place, plus what a render computes, allocated in a
//! per-render arena. Every variant is `Copy`; containers are immutable (the transformers
//! sandbox forbids mutating lists and dicts), and only a namespace has interior mutability.
//!
//! Python semantics live beside: [`ops`] (arithmetic, comparison, attribute and item
//! access, iteration), [`fmt`] (`str()` and `repr()`), [`json`] (`json.dumps`).

pub(crate) mod bigint;
pub(crate) mod budget;
pub(crate) mod fmt;
pub(crate) mod format;
pub(crate) mod json;
pub(crate) mod markup;
pub(crate) mod methods;
pub(crate) mod ops;
pub(crate) mod pprint;
#[cfg(test)]
pub(crate) mod testutil;

use std::cell::{Cell, RefCell};

use bumpalo::Bump;

use crate::clock::DateTime;
use crate::error::{Error, ErrorKind, ExceptionClass, Limit};

/// A template value. 24 bytes, `Copy`; everything it points to lives at least as long as the
/// render (`'a`): the caller's JSON, the compiled template's constants, or the render arena.
///
/// The tag is a whole word (`repr(u64)`) and every payload starts at byte 8. With a one-byte
/// tag, `Bool`'s payload sat at byte 1, so every copy of a value moved bytes 1-7 with two
/// overlapping 4-byte loads and stores, and the next read of them could not be forwarded
/// from the store buffer: a stall of some 15 cycles on most pushes, pops and returns (a
/// quarter of the render time). A value is now copied as three words.
#[derive(Clone, Copy)]
#[repr(u64)]
pub(crate) enum Value<'a> {
    /// jinja2's `Undefined`, with what was missing for the error message.
    Undefined(Option<&'a UndefInfo<'a>>),
    /// Python `None`.
    None,
    /// Python `bool`.
    Bool(bool),
    /// Python `int` that fits in 64 bits.
    Int(i64),
    /// Python `int` outside the 64-bit range, of any size up to [`bigint::MAX_DIGITS`]
    /// digits (never one that fits in an `i64`: [`Ctx::big`] normalizes).
    Big(&'a bigint::Big<'a>),
    /// Python `float`.
    Float(f64),
    /// Python `str`.
    Str(&'a str),
    /// markupsafe's `Markup` (a `str` subclass) made by `|safe` and `|escape`: it prints
    /// as its text but HTML-escapes the plain strings it is combined with (see [`markup`]).
    Markup(&'a str),
    /// Python `list`.
    List(&'a [Value<'a>]),
    /// Python `tuple`.
    Tuple(&'a [Value<'a>]),
    /// Python `dict` built by the template: insertion-ordered, unique keys.
    Dict(&'a [(Value<'a>, Value<'a>)]),
    /// A JSON array or object of the caller's, read in place. Never a JSON scalar: scalars
    /// are converted by [`Value::from_json`].
    Json(&'a serde_json::Value),
    /// A Python iterable that is not a list: a generator (`map`, `select`, ...) or a dict view
    /// (`items()`, `keys()`, `values()`). Items are materialized; the kind decides how it
    /// prints, what `length` says and whether `tojson` accepts it.
    Iter(&'a Seq<'a>),
    /// A `namespace()` object: the one mutable value.
    Ns(&'a Namespace<'a>),
    /// Something callable: a macro, a bound method, a global function, `loop.cycle`.
    Callable(&'a Callable<'a>),
    /// The `loop` object of a for loop.
    Loop(&'a LoopState<'a>),
}

/// What an undefined value stands for, for jinja2's error messages.
#[derive(Clone, Copy)]
pub(crate) enum UndefInfo<'a> {
    /// A name that is not defined: `'x' is undefined`.
    Name(&'a str),
    /// A missing attribute: `'dict object' has no attribute 'x'`.
    Attr { obj: &'static str, name: &'a str },
    /// A missing item: `'dict object' has no attribute 'x'` for string keys, else
    /// `list object has no element 3`.
    Item { obj: &'static str, key: Value<'a> },
}

/// What a reverse iterator reverses: Python names its type after it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RevOf {
    /// A list: `list_reverseiterator`.
    List,
    /// A tuple, bytes or anything reversed by index: `reversed`.
    Sequence,
    /// A dict or its keys: `dict_reversekeyiterator`.
    DictKeys,
    /// A dict's values: `dict_reversevalueiterator`.
    DictValues,
    /// A dict's items: `dict_reverseitemiterator`.
    DictItems,
}

impl RevOf {
    /// The iterator's Python type name.
    pub(crate) fn type_name(self) -> &'static str {
        match self {
            RevOf::List => "list_reverseiterator",
            RevOf::Sequence => "reversed",
            RevOf::DictKeys => "dict_reversekeyiterator",
            RevOf::DictValues => "dict_reversevalueiterator",
            RevOf::DictItems => "dict_reverseitemiterator",
        }
    }

    /// jinja2's `object_type_repr` of the iterator.
    pub(crate) fn object_repr(self) -> &'static str {
        match self {
            RevOf::List => "list_reverseiterator object",
            RevOf::Sequence => "reversed object",
            RevOf::DictKeys => "dict_reversekeyiterator object",
            RevOf::DictValues => "dict_reversevalueiterator object",
            RevOf::DictItems => "dict_reverseitemiterator object",
        }
    }
}

/// The kinds of non-list iterables.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum IterKind {
    /// A Python generator, made by the filter function it names.
    Generator(Gen),
    /// `dict.items()`.
    DictItems,
    /// `dict.keys()`.
    DictKeys,
    /// `dict.values()`.
    DictValues,
    /// `reversed(x)`: an iterator whose type depends on what it reverses.
    Reverse(RevOf),
    /// A `range(start, stop, step)` object (its items materialized).
    Range {
        /// First value.
        start: i64,
        /// The bound.
        stop: i64,
        /// The step (never zero).
        step: i64,
    },
    /// `reversed(range)`.
    RangeReverse,
    /// A `bytes` object (`str.encode()`): its items are the byte values, as ints.
    Bytes,
}

/// The jinja2 function whose generator a filter returns: its name shows in the generator's
/// repr (`<generator object do_items at ...>`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Gen {
    /// `map`.
    Map,
    /// `select`, `reject`, `selectattr`, `rejectattr`.
    SelectOrReject,
    /// `items`.
    Items,
    /// `unique`.
    Unique,
    /// `batch`.
    Batch,
    /// `slice`.
    Slice,
}

impl Gen {
    /// The generator function's name, as Python's repr shows it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Gen::Map => "sync_do_map",
            Gen::SelectOrReject => "select_or_reject",
            Gen::Items => "do_items",
            Gen::Unique => "sync_do_unique",
            Gen::Batch => "do_batch",
            Gen::Slice => "sync_do_slice",
        }
    }
}

/// A materialized non-list iterable.
pub(crate) struct Seq<'a> {
    /// What Python type it stands for.
    pub(crate) kind: IterKind,
    /// Its items, in order.
    pub(crate) items: &'a [Value<'a>],
    /// For a generator whose body failed: the error it raises when iterated (jinja2 runs a
    /// generator filter's body only then, so `{{ 5|map('upper') }}` prints the generator).
    pub(crate) failed: Option<(ErrorKind, ExceptionClass, &'a str)>,
}

impl<'a> Seq<'a> {
    /// Its items, as iterating it yields them; the error a generator raises when iterated.
    #[inline]
    pub(crate) fn values(&self) -> Result<&'a [Value<'a>], Error> {
        match self.failed {
            Some((kind, class, message)) => Err(Error::new(kind, message).with_class(class)),
            None => Ok(self.items),
        }
    }
}

/// A `namespace()`: attributes set with `{% set ns.x = ... %}` survive loop scopes.
pub(crate) struct Namespace<'a> {
    /// Attributes in insertion order.
    pub(crate) attrs: RefCell<bumpalo::collections::Vec<'a, (&'a str, Value<'a>)>>,
}

impl<'a> Namespace<'a> {
    /// Reads attribute `name`.
    pub(crate) fn get(&self, name: &str) -> Option<Value<'a>> {
        self.attrs
            .borrow()
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| *v)
    }

    /// Sets attribute `name`, keeping the first insertion position.
    pub(crate) fn set(&self, name: &'a str, value: Value<'a>) {
        let mut attrs = self.attrs.borrow_mut();
        match attrs.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = value,
            None => attrs.push((name, value)),
        }
    }
}

/// Global functions of the transformers environment.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Global {
    Range,
    Namespace,
    Dict,
    RaiseException,
    StrftimeNow,
    Lipsum,
    Cycler,
    Joiner,
    /// `self`: jinja2's reference to the template's blocks (none in a chat template).
    SelfRef,
}

/// A callable value.
pub(crate) enum Callable<'a> {
    /// A macro of the template, by index into the compiled template's macro table, with the
    /// base of the frame that defined it (whose variables it reads).
    Macro {
        /// Index into the macro table.
        id: u32,
        /// Base of the defining frame.
        env: u32,
        /// The macro's name (`None` for a call block's `caller`), for its repr.
        name: Option<&'a str>,
    },
    /// A method bound to its receiver: `s.split`, `d.items`.
    Method { recv: Value<'a>, name: &'a str },
    /// A global function.
    Global(Global),
    /// `loop.cycle`.
    Cycle(&'a LoopState<'a>),
}

/// The state behind `loop`: the items are materialized so `length`, `revindex` and
/// `nextitem` are known.
pub(crate) struct LoopState<'a> {
    /// Everything the loop iterates, after any inline `if` filter.
    pub(crate) items: &'a [Value<'a>],
    /// The 0-based index of the current item.
    pub(crate) index0: Cell<usize>,
    /// 1 for a loop, 2 for a loop inside it, ...
    pub(crate) depth: usize,
    /// The arguments of the last `loop.changed(...)` call.
    pub(crate) changed: Cell<Option<Value<'a>>>,
}

/// What builtins need from the render: the arena, the clock and the value size limit.
pub(crate) struct Ctx<'a> {
    /// Where computed values live until the render ends.
    pub(crate) arena: &'a Bump,
    /// The time `strftime_now` formats.
    pub(crate) now: DateTime,
    /// The largest value a builtin may build: bytes of a string, 8 times the items of a
    /// container (the render's `Limits::max_output`, which the VM applies the same way).
    pub(crate) max_value: usize,
    /// The `(grouper, list)` tuples `groupby` made in this render (by address): jinja2's
    /// `_GroupTuple`, a tuple with `.grouper` and `.list`.
    pub(crate) group_tuples: RefCell<Vec<usize>>,
    /// A builtin was refused a value larger than the limit (see [`Ctx::slice`]).
    oversized: Cell<bool>,
}

impl<'a> Ctx<'a> {
    /// A context over `arena` with the clock at the Unix epoch, for unit tests.
    #[cfg(test)]
    pub(crate) fn for_tests(arena: &'a Bump) -> Ctx<'a> {
        Ctx::new(
            arena,
            DateTime::from_unix(0, 0),
            crate::Limits::default().max_output,
        )
    }

    /// The context of one render over `arena`, at time `now`, whose output limit is
    /// `max_output` (also the size limit of any value it computes and prints).
    pub(crate) fn new(arena: &'a Bump, now: DateTime, max_output: usize) -> Ctx<'a> {
        Ctx {
            arena,
            now,
            max_value: Ctx::value_limit(max_output),
            group_tuples: RefCell::new(Vec::new()),
            oversized: Cell::new(false),
        }
    }

    /// Marks `t` (a 2-tuple) as one of `groupby`'s `(grouper, list)` tuples.
    pub(crate) fn mark_group_tuple(&self, t: &'a [Value<'a>]) {
        self.group_tuples.borrow_mut().push(t.as_ptr() as usize);
    }

    /// Whether `t` is one of `groupby`'s tuples of this render.
    pub(crate) fn is_group_tuple(&self, t: &[Value<'a>]) -> bool {
        t.len() == 2 && self.group_tuples.borrow().contains(&(t.as_ptr() as usize))
    }

    /// The value limit of a render whose output limit is `max_output`: `max_output` itself.
    /// It also becomes the print limit of this thread ([`fmt::set_print_limit`]), as the VM
    /// prints `{{ x }}` without a `Ctx`; every render sets it when it makes its `Ctx`.
    fn value_limit(max_output: usize) -> usize {
        fmt::set_print_limit(max_output);
        max_output
    }

    /// The error of a value that would be larger than the limit.
    #[cold]
    pub(crate) fn too_large(&self) -> Error {
        Error::new(
            ErrorKind::Limit(Limit::Output),
            format!(
                "a value larger than the output limit ({} bytes)",
                self.max_value
            ),
        )
    }

    /// Fails with `Limit(Output)` unless a string of `bytes` bytes fits the value limit.
    #[inline]
    pub(crate) fn check_bytes(&self, bytes: usize) -> Result<(), Error> {
        if bytes > self.max_value {
            return Err(self.too_large());
        }
        Ok(())
    }

    /// Fails with `Limit(Output)` unless a container of `items` items fits the value limit
    /// (8 bytes an item, as the VM counts), or the arena has grown past 4 times the limit.
    #[inline]
    pub(crate) fn check_items(&self, items: usize) -> Result<(), Error> {
        if items > self.max_value / 8 || self.arena_too_big() {
            return Err(self.too_large());
        }
        Ok(())
    }

    /// Whether the render's arena has grown past 4 times the value limit (the VM's rule).
    #[inline]
    pub(crate) fn arena_too_big(&self) -> bool {
        self.arena.allocated_bytes() > self.max_value.saturating_mul(4)
    }

    /// Whether `v` is larger than the value limit: a string longer than it, a container
    /// with more items than an eighth of it (the VM's rule, dicts and views included).
    #[inline]
    pub(crate) fn value_too_big(&self, v: &Value<'_>) -> bool {
        match v {
            Value::Str(s) | Value::Markup(s) => s.len() > self.max_value,
            Value::List(l) | Value::Tuple(l) => l.len() > self.max_value / 8,
            Value::Dict(d) => d.len() > self.max_value / 8,
            Value::Iter(s) => s.items.len() > self.max_value / 8,
            _ => false,
        }
    }

    /// Copies `s` into the arena.
    #[inline]
    pub(crate) fn str(&self, s: &str) -> Value<'a> {
        Value::Str(self.arena.alloc_str(s))
    }

    /// Moves `items` into the arena as a list.
    #[inline]
    pub(crate) fn list(&self, items: impl IntoIterator<Item = Value<'a>>) -> Value<'a> {
        Value::List(self.slice(items))
    }

    /// Moves `items` into the arena as a slice.
    #[inline]
    ///
    /// More items than the value limit allows are not built: the slice stops there and the
    /// render fails with `Limit(Output)` when its instruction ends ([`Ctx::oversized`]).
    pub(crate) fn slice(&self, items: impl IntoIterator<Item = Value<'a>>) -> &'a [Value<'a>] {
        let items = items.into_iter();
        let max = self.max_value / 8;
        if items.size_hint().0 > max {
            self.oversized.set(true);
            return &[];
        }
        let mut v = bumpalo::collections::Vec::new_in(self.arena);
        v.extend(items.take(max.saturating_add(1)));
        if v.len() > max {
            self.oversized.set(true);
            v.truncate(max);
        }
        v.into_bump_slice()
    }

    /// Whether a builtin was refused a value larger than the limit and went on with a
    /// shortened one (see [`Ctx::slice`]): the render has failed with `Limit(Output)`.
    pub(crate) fn oversized(&self) -> bool {
        self.oversized.get()
    }

    /// An iterable of `kind` over `items`.
    pub(crate) fn iter(&self, kind: IterKind, items: &'a [Value<'a>]) -> Value<'a> {
        Value::Iter(self.arena.alloc(Seq {
            kind,
            items,
            failed: None,
        }))
    }

    /// A generator made by `gen` whose body failed with `e`: iterating it raises `e`.
    pub(crate) fn failed_generator(&self, gen: Gen, e: &Error) -> Value<'a> {
        Value::Iter(self.arena.alloc(Seq {
            kind: IterKind::Generator(gen),
            items: &[],
            failed: Some((
                e.kind(),
                e.exception_class(),
                self.arena.alloc_str(e.message()),
            )),
        }))
    }

    /// An integer: a `Value::Int` when it fits in 64 bits, else a big int in the arena.
    pub(crate) fn int(&self, i: i128) -> Value<'a> {
        match i64::try_from(i) {
            Ok(small) => Value::Int(small),
            Err(_) => {
                let mag = i.unsigned_abs();
                let digits = [
                    mag as u32,
                    (mag >> 32) as u32,
                    (mag >> 64) as u32,
                    (mag >> 96) as u32,
                ];
                let len = digits.iter().rposition(|d| *d != 0).map_or(0, |p| p + 1);
                self.big_from_digits(i < 0, &digits[..len])
            }
        }
    }

    /// A new empty namespace.
    pub(crate) fn namespace(&self) -> &'a Namespace<'a> {
        self.namespace_with(0)
    }

    /// A new empty namespace with room for `n` attributes.
    pub(crate) fn namespace_with(&self, n: usize) -> &'a Namespace<'a> {
        self.arena.alloc(Namespace {
            attrs: RefCell::new(bumpalo::collections::Vec::with_capacity_in(n, self.arena)),
        })
    }

    /// A callable in the arena.
    pub(crate) fn callable(&self, c: Callable<'a>) -> Value<'a> {
        Value::Callable(self.arena.alloc(c))
    }
}

impl<'a> Value<'a> {
    /// The plain undefined value, with no hint.
    pub(crate) const UNDEFINED: Value<'a> = Value::Undefined(None);

    /// Converts a JSON value of the caller's: scalars become native, containers are borrowed.
    #[inline]
    pub(crate) fn from_json(v: &'a serde_json::Value) -> Value<'a> {
        match v {
            serde_json::Value::Null => Value::None,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i)
                } else if let Some(u) = n.as_u64() {
                    // A u64 beyond i64: kept exact through the 128-bit path, but that needs
                    // the arena; fall back to the float only if there is none.
                    Value::Float(u as f64)
                } else {
                    Value::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => Value::Str(s),
            serde_json::Value::Array(_) | serde_json::Value::Object(_) => Value::Json(v),
        }
    }

    /// Like [`Value::from_json`], exact for integers beyond 64 bits.
    #[inline]
    pub(crate) fn from_json_in(v: &'a serde_json::Value, ctx: &Ctx<'a>) -> Value<'a> {
        if let serde_json::Value::Number(n) = v {
            if n.as_i64().is_none() {
                if let Some(u) = n.as_u64() {
                    return ctx.int(u as i128);
                }
            }
        }
        Value::from_json(v)
    }

    /// Python truthiness (`bool(x)`); Undefined is falsy.
    pub(crate) fn is_true(&self) -> bool {
        match *self {
            Value::Undefined(_) | Value::None => false,
            Value::Bool(b) => b,
            Value::Int(i) => i != 0,
            // A big int is never zero.
            Value::Big(_) => true,
            Value::Float(f) => f != 0.0,
            Value::Str(s) | Value::Markup(s) => !s.is_empty(),
            Value::List(l) | Value::Tuple(l) => !l.is_empty(),
            Value::Dict(d) => !d.is_empty(),
            Value::Json(serde_json::Value::Array(a)) => !a.is_empty(),
            Value::Json(serde_json::Value::Object(o)) => !o.is_empty(),
            Value::Json(_) => true,
            Value::Iter(s) => match s.kind {
                // Generators and reverse iterators are always truthy in Python.
                IterKind::Generator(_) | IterKind::Reverse(_) | IterKind::RangeReverse => true,
                _ => !s.items.is_empty(),
            },
            Value::Ns(_) | Value::Callable(_) | Value::Loop(_) => true,
        }
    }

    /// The text of a `str` or a `Markup`.
    #[inline]
    pub(crate) fn as_str(&self) -> Option<&'a str> {
        match *self {
            Value::Str(s) | Value::Markup(s) => Some(s),
            _ => None,
        }
    }

    /// A `Markup` as the plain `str` of its text (for operations where markupsafe does not
    /// differ from `str`); any other value unchanged.
    #[inline]
    pub(crate) fn demark(self) -> Value<'a> {
        match self {
            Value::Markup(s) => Value::Str(s),
            other => other,
        }
    }

    /// Whether this is jinja2's `Undefined`.
    #[inline]
    pub(crate) fn is_undefined(&self) -> bool {
        matches!(self, Value::Undefined(_))
    }

    /// The Python type name, as `type(x).__name__` says it.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Value::Undefined(_) => "Undefined",
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::Big(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Markup(_) => "Markup",
            Value::List(_) | Value::Json(serde_json::Value::Array(_)) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) | Value::Json(_) => "dict",
            Value::Iter(s) => match s.kind {
                IterKind::Generator(_) => "generator",
                IterKind::DictItems => "dict_items",
                IterKind::DictKeys => "dict_keys",
                IterKind::DictValues => "dict_values",
                IterKind::Reverse(r) => r.type_name(),
                IterKind::Range { .. } => "range",
                IterKind::RangeReverse => "range_iterator",
                IterKind::Bytes => "bytes",
            },
            Value::Ns(_) => "TemplateNamespace",
            Value::Callable(c) => match c {
                Callable::Macro { .. } => "Macro",
                Callable::Method { .. } => "builtin_function_or_method",
                Callable::Global(Global::SelfRef) => "TemplateReference",
                Callable::Global(_) => "function",
                Callable::Cycle(_) => "method",
            },
            Value::Loop(_) => "LoopContext",
        }
    }
}

/// A result of a builtin or an operation.
pub(crate) type VResult<'a> = Result<Value<'a>, Error>;

/// Keyword arguments as the VM passes them, in call order.
pub(crate) type Kwargs<'k, 'a> = &'k [(&'a str, Value<'a>)];
