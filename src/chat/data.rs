//! [`Data`]: template data a caller builds directly (a language binding converting its own
//! objects), with the Python types JSON cannot express: tuples, non-string dict keys and
//! integers of any size. A [`DataRequest`] is one conversation of transformers'
//! `render_jinja_template` in that form.
//!
//! Strings may be borrowed (`Data<'s>` holds `Cow<'s, str>`): a binding that can keep the
//! caller's strings alive for the render reads them in place instead of copying each one.

use std::borrow::Cow;

/// A plain value as transformers' `_plain_template_data` leaves it: the template sees
/// exactly these types.
#[derive(Debug, Clone, PartialEq)]
pub enum Data<'s> {
    /// `None`.
    None,
    /// A bool.
    Bool(bool),
    /// An int that fits in 64 bits.
    Int(i64),
    /// An int of any size: its sign and the bytes of its magnitude, least significant first.
    BigInt {
        /// The sign.
        negative: bool,
        /// The magnitude, little-endian bytes.
        magnitude_le: Vec<u8>,
    },
    /// A float.
    Float(f64),
    /// A string, borrowed or owned.
    Str(Cow<'s, str>),
    /// A list.
    List(Vec<Data<'s>>),
    /// A tuple (prints as `(a, b)`).
    Tuple(Vec<Data<'s>>),
    /// A dict, in insertion order; keys may be any hashable plain value.
    Dict(Vec<(Data<'s>, Data<'s>)>),
}

/// One conversation and the arguments of `render_jinja_template`, as [`Data`].
#[derive(Debug, Clone, PartialEq)]
pub struct DataRequest<'s> {
    /// The messages; each must be a [`Data::Dict`].
    pub messages: Vec<Data<'s>>,
    /// `tools` (already schemas), [`Data::None`] when absent.
    pub tools: Data<'s>,
    /// `documents`, [`Data::None`] when absent; each must be a [`Data::Dict`].
    pub documents: Data<'s>,
    /// `add_generation_prompt` (any value: the template reads its truth).
    pub add_generation_prompt: Data<'s>,
    /// `continue_final_message`: the field of the final message to continue (`content` for
    /// `True`), `None` for `False`.
    pub continue_final_message: Option<String>,
    /// Every other keyword argument, in order.
    pub kwargs: Vec<(Cow<'s, str>, Data<'s>)>,
}

impl Default for DataRequest<'_> {
    fn default() -> Self {
        DataRequest {
            messages: Vec::new(),
            tools: Data::None,
            documents: Data::None,
            add_generation_prompt: Data::Bool(false),
            continue_final_message: None,
            kwargs: Vec::new(),
        }
    }
}
