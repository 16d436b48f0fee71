//! Python semantics of operators, attribute and item access, slicing and iteration.
//!
//! Everything follows what jinja2's `ImmutableSandboxedEnvironment` does with Python objects:
//! `x.name` is `getattr` then `x['name']`, `x[k]` is the item then the attribute, attributes
//! that the sandbox refuses (names starting with `_`, mutators such as `list.append`) become
//! an undefined that raises `SecurityError` when used, and every operator raises the
//! `TypeError` Python raises, with its message.
//!
//! One room per kind of operation: [`num`] and [`arith`] (arithmetic), [`compare`] (`==`,
//! `<`), [`contains`] (`in`), [`attr`], [`item`] and [`undefined`] (lookup, and the errors
//! of what is missing), [`slice`], [`iter`] (iteration, `len`), over the containers of
//! [`seq`]. Python string formatting (`str % args`) is `value::format`.

mod arith;
mod attr;
mod compare;
mod contains;
mod item;
mod iter;
mod lookup;
mod num;
mod op;
mod seq;
mod slice;
mod undefined;

pub(crate) use arith::{binop, neg, pos, unsupported};
pub(crate) use compare::{compare, eq};
pub(crate) use contains::contains;
pub(crate) use iter::{iterate, length};
pub(crate) use lookup::{getattr, getitem};
pub(crate) use num::int_arg;
pub(crate) use op::{BinOp, CmpOp};
pub(crate) use seq::{dict_str_get, find_bytes, json_get, le32, le64, pairs, short_eq, split_str};
pub(crate) use slice::slice;
pub(crate) use undefined::{missing_attr, undefined_error};
