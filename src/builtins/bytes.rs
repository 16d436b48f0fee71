//! `str.encode` and `bytes.decode`, for the codecs a template could name: UTF-8, ASCII and
//! Latin-1, with the error handlers `strict`, `ignore`, `replace`, `backslashreplace` and
//! (encoding) `xmlcharrefreplace`. A `bytes` value is an `IterKind::Bytes` sequence whose
//! items are the byte values (ints), so indexing, iterating, `len` and `==` work on it as
//! Python's do, and `str()` of it is its repr, `b'...'`.

use std::fmt::Write as _;

use crate::error::{err, Error, ExceptionClass};
use crate::value::{Ctx, IterKind, VResult, Value};

use super::args::{bind, to_str};
use super::Kwargs;

/// The codecs chatcodec knows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Codec {
    Utf8,
    Ascii,
    Latin1,
}

impl Codec {
    /// Python's codec name.
    fn name(self) -> &'static str {
        match self {
            Codec::Utf8 => "utf-8",
            Codec::Ascii => "ascii",
            Codec::Latin1 => "latin-1",
        }
    }

    /// The highest code point the codec encodes as itself.
    fn max(self) -> u32 {
        match self {
            Codec::Utf8 => u32::MAX,
            Codec::Ascii => 0x7f,
            Codec::Latin1 => 0xff,
        }
    }
}

/// The codec named `name` (Python's normalisation: case, `-` and spaces ignored), for the
/// method `method`.
fn codec(name: Option<Value<'_>>, method: &str) -> Result<Codec, Error> {
    let Some(v) = name else {
        return Ok(Codec::Utf8);
    };
    let raw = match v {
        Value::Str(s) | Value::Markup(s) => s,
        other => {
            return Err(err!(
                Type,
                "{method}() argument 'encoding' must be str, not {}",
                other.type_name()
            ))
        }
    };
    let norm: String = raw
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    match norm.as_str() {
        "utf_8" | "utf8" | "u8" | "utf" | "cp65001" => Ok(Codec::Utf8),
        "ascii" | "us_ascii" | "646" | "us" => Ok(Codec::Ascii),
        "latin_1" | "latin1" | "latin" | "l1" | "iso_8859_1" | "iso8859_1" | "8859" | "cp819" => {
            Ok(Codec::Latin1)
        }
        _ => Err(err!(
            Unknown,
            "unknown encoding: {raw} (chatcodec knows utf-8, ascii and latin-1)"
        )),
    }
}

/// The error handler named `v` (`strict` when absent).
fn handler<'a>(v: Option<Value<'a>>, ctx: &Ctx<'a>) -> &'a str {
    v.map_or("strict", |v| to_str(ctx, &v))
}

/// `s.encode(encoding='utf-8', errors='strict')`.
pub(super) fn encode<'a>(
    ctx: &Ctx<'a>,
    s: &str,
    args: &[Value<'a>],
    kw: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let [encoding, errors] = bind("encode", ["encoding", "errors"], args, kw)?;
    let codec = codec(encoding, "encode")?;
    let errors = handler(errors, ctx);
    let mut out: Vec<u8> = Vec::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        if u32::from(c) <= codec.max() {
            match codec {
                Codec::Utf8 => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                _ => out.push(u32::from(c) as u8),
            }
            continue;
        }
        match errors {
            "ignore" => {}
            "replace" => out.push(b'?'),
            "backslashreplace" => {
                let n = u32::from(c);
                let mut e = String::new();
                let _ = match n {
                    0..=0xff => write!(e, "\\x{n:02x}"),
                    0x100..=0xffff => write!(e, "\\u{n:04x}"),
                    _ => write!(e, "\\U{n:08x}"),
                };
                out.extend_from_slice(e.as_bytes());
            }
            "xmlcharrefreplace" => out.extend_from_slice(format!("&#{};", u32::from(c)).as_bytes()),
            _ => {
                let mut shown = String::new();
                crate::value::fmt::write_str_repr(&mut shown, &c.to_string());
                let shown = shown.trim_matches('\'');
                let range = if codec == Codec::Ascii { 128 } else { 256 };
                return Err(err!(
                    Value,
                    "'{}' codec can't encode character '{shown}' in position {i}: ordinal not in range({range})",
                    codec.name()
                )
                .with_class(ExceptionClass::UnicodeEncodeError));
            }
        }
    }
    ctx.check_items(out.len())?;
    let items = ctx.slice(out.iter().map(|b| Value::Int(i64::from(*b))));
    Ok(ctx.iter(IterKind::Bytes, items))
}

/// `b.decode(encoding='utf-8', errors='strict')` of a `bytes` whose items are `items`.
pub(super) fn decode<'a>(
    ctx: &Ctx<'a>,
    items: &[Value<'a>],
    args: &[Value<'a>],
    kw: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let [encoding, errors] = bind("decode", ["encoding", "errors"], args, kw)?;
    let codec = codec(encoding, "decode")?;
    let errors = handler(errors, ctx);
    let bytes: Vec<u8> = items
        .iter()
        .map(|v| match v {
            Value::Int(i) => u8::try_from(*i).unwrap_or(0),
            _ => 0,
        })
        .collect();
    let mut out = String::with_capacity(bytes.len());
    let bad = |out: &mut String, at: usize, b: &[u8]| -> Result<(), Error> {
        match errors {
            "ignore" => Ok(()),
            "replace" => {
                out.push('\u{fffd}');
                Ok(())
            }
            "backslashreplace" => {
                for x in b {
                    let _ = write!(out, "\\x{x:02x}");
                }
                Ok(())
            }
            _ => Err(err!(
                Value,
                "'{}' codec can't decode byte 0x{:02x} in position {at}",
                codec.name(),
                b.first().copied().unwrap_or(0)
            )
            .with_class(ExceptionClass::UnicodeDecodeError)),
        }
    };
    match codec {
        Codec::Latin1 => out.extend(bytes.iter().map(|b| char::from(*b))),
        Codec::Ascii => {
            for (i, b) in bytes.iter().enumerate() {
                if b.is_ascii() {
                    out.push(char::from(*b));
                } else {
                    bad(&mut out, i, std::slice::from_ref(b))?;
                }
            }
        }
        Codec::Utf8 => {
            let mut at = 0;
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                at += chunk.valid().len();
                if !chunk.invalid().is_empty() {
                    bad(&mut out, at, chunk.invalid())?;
                    at += chunk.invalid().len();
                }
            }
        }
    }
    Ok(ctx.str(&out))
}
