//! Template data built directly in a render's arena, for a language binding: the binding
//! walks its own objects once and makes engine values with a [`Builder`] (strings borrowed
//! from the caller or copied into the arena, containers allocated in the arena), then renders
//! them in the same arena. No intermediate tree ([`Data`]) is built, walked or freed.
//!
//! [`with_builder`] lends the calling thread's render arena for the duration of a closure;
//! every [`Val`] built in it, and every render made with it, ends with the closure.

use std::marker::PhantomData;

use bumpalo::Bump;
use num_bigint::{BigInt, BigUint, Sign};

use super::{Data, DataRequest, Extra};
use crate::error::{err, Error};
use crate::template::Template;
use crate::value::{Ctx, Value};

/// One value of template data in a [`Builder`]'s arena (cheap to copy).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Val<'a>(pub(crate) Value<'a>);

impl std::fmt::Debug for Val<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.to_data(), f)
    }
}

impl<'a> Val<'a> {
    /// `None`.
    pub fn none() -> Val<'a> {
        Val(Value::None)
    }

    /// An empty list.
    pub fn empty_list() -> Val<'a> {
        Val(Value::List(&[]))
    }

    /// A bool.
    pub fn bool(b: bool) -> Val<'a> {
        Val(Value::Bool(b))
    }

    /// An int that fits in 64 bits.
    pub fn int(i: i64) -> Val<'a> {
        Val(Value::Int(i))
    }

    /// A float.
    pub fn float(f: f64) -> Val<'a> {
        Val(Value::Float(f))
    }

    /// Whether it is a dict.
    pub fn is_dict(&self) -> bool {
        matches!(self.0, Value::Dict(_))
    }

    /// Whether it is a string.
    pub fn is_str(&self) -> bool {
        matches!(self.0, Value::Str(_))
    }

    /// Whether it is `None`.
    pub fn is_none(&self) -> bool {
        matches!(self.0, Value::None)
    }

    /// The items of a list or tuple (None for any other value).
    pub fn items(&self) -> Option<&'a [Val<'a>]> {
        match self.0 {
            // SAFETY: `Val` is a `repr(transparent)` wrapper of `Value`: the slices have the
            // same layout.
            Value::List(v) | Value::Tuple(v) => Some(unsafe { as_vals(v) }),
            _ => None,
        }
    }

    /// Python truth.
    pub fn is_true(&self) -> bool {
        self.0.is_true()
    }

    /// The value as [`Data`] (strings borrowed): to inspect it or to turn it into another
    /// form (JSON, the caller's objects).
    pub fn to_data(&self) -> Data<'a> {
        match self.0 {
            Value::None | Value::Undefined(_) => Data::None,
            Value::Bool(b) => Data::Bool(b),
            Value::Int(i) => Data::Int(i),
            Value::Big(b) => {
                let (sign, magnitude) = b.to_bigint().into_parts();
                Data::BigInt {
                    negative: sign == Sign::Minus,
                    magnitude_le: magnitude.to_bytes_le(),
                }
            }
            Value::Float(f) => Data::Float(f),
            Value::Str(s) | Value::Markup(s) => Data::Str(std::borrow::Cow::Borrowed(s)),
            Value::List(v) => Data::List(v.iter().map(|v| Val(*v).to_data()).collect()),
            Value::Tuple(v) => Data::Tuple(v.iter().map(|v| Val(*v).to_data()).collect()),
            Value::Dict(d) => Data::Dict(
                d.iter()
                    .map(|(k, v)| (Val(*k).to_data(), Val(*v).to_data()))
                    .collect(),
            ),
            // Never built by a `Builder`.
            _ => Data::None,
        }
    }
}

/// SAFETY: sound because `Val` is a `repr(transparent)` wrapper of `Value`.
unsafe fn as_vals<'a>(v: &'a [Value<'a>]) -> &'a [Val<'a>] {
    std::slice::from_raw_parts(v.as_ptr().cast::<Val<'a>>(), v.len())
}

/// Makes template values in the render arena of the current thread. `'s` is how long the
/// caller's borrowed strings live (at least as long as the builder).
pub struct Builder<'a, 's> {
    ctx: Ctx<'a>,
    _strings: PhantomData<&'a &'s ()>,
}

/// Lends `f` a [`Builder`] over this thread's render arena; the arena is reset when `f`
/// returns, so nothing built escapes it.
pub fn with_builder<'s, R>(f: impl for<'a> FnOnce(&'a Builder<'a, 's>) -> R) -> R {
    crate::vm::with_arena(|arena| {
        let builder = Builder {
            ctx: Ctx::new(arena, epoch(), crate::Limits::default().max_output),
            _strings: PhantomData,
        };
        f(&builder)
    })
}

/// The Unix epoch, computed once: the time of a context whose clock is never read.
pub(crate) fn epoch() -> crate::clock::DateTime {
    static EPOCH: std::sync::OnceLock<crate::clock::DateTime> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(|| crate::clock::DateTime::from_unix(0, 0))
}

/// A list or tuple being built.
pub struct Items<'a>(bumpalo::collections::Vec<'a, Value<'a>>);

impl<'a> Items<'a> {
    /// Appends an item.
    #[inline]
    pub fn push(&mut self, v: Val<'a>) {
        self.0.push(v.0);
    }

    /// The items as a list.
    #[inline]
    pub fn list(self) -> Val<'a> {
        Val(Value::List(self.0.into_bump_slice()))
    }

    /// The items as a tuple.
    #[inline]
    pub fn tuple(self) -> Val<'a> {
        Val(Value::Tuple(self.0.into_bump_slice()))
    }
}

/// A dict being built (insertion order; the caller gives each key once).
pub struct Pairs<'a>(bumpalo::collections::Vec<'a, (Value<'a>, Value<'a>)>);

impl<'a> Pairs<'a> {
    /// Appends a key and its value.
    #[inline]
    pub fn push(&mut self, k: Val<'a>, v: Val<'a>) {
        self.0.push((k.0, v.0));
    }

    /// The pairs as a dict.
    #[inline]
    pub fn dict(self) -> Val<'a> {
        Val(Value::Dict(self.0.into_bump_slice()))
    }
}

/// One conversation and the arguments of `render_jinja_template`, built with a [`Builder`]
/// (the counterpart of [`DataRequest`]).
#[derive(Clone, Debug)]
pub struct BuiltRequest<'a> {
    /// The messages: a list or tuple of dicts.
    pub messages: Val<'a>,
    /// `tools` (already schemas), `None` when absent.
    pub tools: Val<'a>,
    /// `documents`, `None` when absent; each must be a dict.
    pub documents: Val<'a>,
    /// `add_generation_prompt` (any value: the template reads its truth).
    pub add_generation_prompt: Val<'a>,
    /// The field of the final message to continue (`content` for `True`), `None` for `False`.
    pub continue_final_message: Option<&'a str>,
    /// Every other keyword argument, in order.
    pub kwargs: Vec<(&'a str, Val<'a>)>,
    /// Rendered for `return_assistant_tokens_mask`: the spans are then transformers'
    /// `generation_indices`, in code points (Python string indices) rather than bytes; and
    /// transformers renders through a function with a `compiled_template` parameter, which a
    /// kwarg of that name collides with.
    pub assistant_mask: bool,
}

impl<'a> Default for BuiltRequest<'a> {
    fn default() -> Self {
        BuiltRequest {
            messages: Val(Value::List(&[])),
            tools: Val(Value::None),
            documents: Val(Value::None),
            add_generation_prompt: Val(Value::Bool(false)),
            continue_final_message: None,
            kwargs: Vec::new(),
            assistant_mask: false,
        }
    }
}

impl<'a, 's> Builder<'a, 's> {
    /// The arena.
    pub(crate) fn arena(&self) -> &'a Bump {
        self.ctx.arena
    }

    /// A string borrowed from the caller (it must outlive the builder).
    #[inline]
    pub fn str(&self, s: &'s str) -> Val<'a> {
        Val(Value::Str(s))
    }

    /// A string copied into the arena.
    #[inline]
    pub fn str_copy(&self, s: &str) -> Val<'a> {
        Val(Value::Str(self.text(s)))
    }

    /// Text copied into the arena.
    #[inline]
    pub fn text(&self, s: &str) -> &'a str {
        self.ctx.arena.alloc_str(s)
    }

    /// An int of any size, from its sign and the bytes of its magnitude (least significant
    /// first); an error beyond the engine's int size limit.
    pub fn big_int(&self, negative: bool, magnitude_le: &[u8]) -> Result<Val<'a>, Error> {
        let sign = if negative { Sign::Minus } else { Sign::Plus };
        let n = BigInt::from_biguint(sign, BigUint::from_bytes_le(magnitude_le));
        self.ctx.big(n).map(Val)
    }

    /// An empty list or tuple with room for `capacity` items.
    #[inline]
    pub fn items(&self, capacity: usize) -> Items<'a> {
        Items(bumpalo::collections::Vec::with_capacity_in(
            capacity,
            self.ctx.arena,
        ))
    }

    /// An empty dict with room for `capacity` pairs.
    #[inline]
    pub fn pairs(&self, capacity: usize) -> Pairs<'a> {
        Pairs(bumpalo::collections::Vec::with_capacity_in(
            capacity,
            self.ctx.arena,
        ))
    }

    /// [`Data`] as a value (its strings borrowed).
    pub fn data(&self, d: &'s Data<'_>) -> Result<Val<'a>, Error> {
        Ok(Val(match d {
            Data::None => Value::None,
            Data::Bool(b) => Value::Bool(*b),
            Data::Int(i) => Value::Int(*i),
            Data::BigInt {
                negative,
                magnitude_le,
            } => return self.big_int(*negative, magnitude_le),
            Data::Float(f) => Value::Float(*f),
            Data::Str(s) => Value::Str(s),
            Data::List(items) | Data::Tuple(items) => {
                let mut out = self.items(items.len());
                for d in items {
                    out.push(self.data(d)?);
                }
                return Ok(if matches!(d, Data::List(_)) {
                    out.list()
                } else {
                    out.tuple()
                });
            }
            Data::Dict(pairs) => {
                let mut out = self.pairs(pairs.len());
                for (k, v) in pairs {
                    out.push(self.data(k)?, self.data(v)?);
                }
                return Ok(out.dict());
            }
        }))
    }

    /// A [`DataRequest`] as a [`BuiltRequest`].
    pub fn request(&self, req: &'s DataRequest<'_>) -> Result<BuiltRequest<'a>, Error> {
        let mut messages = self.items(req.messages.len());
        for m in &req.messages {
            messages.push(self.data(m)?);
        }
        let mut kwargs = Vec::with_capacity(req.kwargs.len());
        for (k, v) in &req.kwargs {
            kwargs.push((k.as_ref(), self.data(v)?));
        }
        Ok(BuiltRequest {
            messages: messages.list(),
            tools: self.data(&req.tools)?,
            documents: self.data(&req.documents)?,
            add_generation_prompt: self.data(&req.add_generation_prompt)?,
            continue_final_message: req.continue_final_message.as_deref(),
            kwargs,
            assistant_mask: false,
        })
    }

    /// Renders `request` the way transformers' `render_jinja_template` does (as
    /// [`super::render_data_spans`]); appends the prompt to `out` and returns the
    /// `{% generation %}` spans: byte ranges, or with [`BuiltRequest::assistant_mask`]
    /// transformers' code point indices.
    pub fn render(
        &self,
        template: &'a Template,
        request: &BuiltRequest<'a>,
        out: &mut String,
    ) -> Result<Vec<(usize, usize)>, Error> {
        self.render_with(template, request, &Extra::default(), out)
    }

    /// [`Builder::render`] with `apply_chat_template`'s additions.
    pub(crate) fn render_with(
        &self,
        template: &'a Template,
        request: &BuiltRequest<'a>,
        extra: &Extra<'a>,
        out: &mut String,
    ) -> Result<Vec<(usize, usize)>, Error> {
        check(request)?;
        super::render_built(template, self.arena(), request, extra, out)
    }
}

/// The checks `render_jinja_template` makes of the messages and documents.
fn check(req: &BuiltRequest<'_>) -> Result<(), Error> {
    let Some(messages) = req.messages.items() else {
        return Err(err!(Type, "the messages must be a list of dicts"));
    };
    for (i, m) in messages.iter().enumerate() {
        if !m.is_dict() {
            return Err(err!(
                Type,
                "message {i}: chat messages should be dicts, dataclasses or pydantic models"
            ));
        }
    }
    // transformers iterates the documents: an empty string or dict has no item to refuse.
    let docs_ok = match req.documents.0 {
        Value::None => true,
        Value::Str(s) => s.is_empty(),
        Value::Dict(d) => d.is_empty(),
        Value::Json(serde_json::Value::Object(o)) => o.is_empty(),
        Value::Json(serde_json::Value::String(s)) => s.is_empty(),
        _ => req
            .documents
            .items()
            .is_some_and(|d| d.iter().all(Val::is_dict)),
    };
    if !docs_ok {
        return Err(err!(
            Type,
            "Documents should be a list of dicts with 'title' and 'text' keys!"
        ));
    }
    Ok(())
}
