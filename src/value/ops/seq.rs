//! Python lists, tuples and dicts as the operators see them, whether the template built them
//! or they are borrowed from the caller's JSON.

use crate::value::budget;
use crate::value::{Ctx, Value};

/// The `(key, value)` pairs of a mapping (a template dict or a JSON object), or `None` when
/// `v` is not a mapping.
pub(crate) fn pairs<'a>(ctx: &Ctx<'a>, v: &Value<'a>) -> Option<&'a [(Value<'a>, Value<'a>)]> {
    match v {
        Value::Dict(d) => Some(d),
        Value::Json(serde_json::Value::Object(o)) => {
            let mut out = bumpalo::collections::Vec::with_capacity_in(o.len(), ctx.arena);
            out.extend(
                o.iter()
                    .map(|(k, x)| (Value::Str(k.as_str()), Value::from_json_in(x, ctx))),
            );
            Some(out.into_bump_slice())
        }
        _ => None,
    }
}

/// Dicts up to this many items are searched without spending fuel (see `compare::SMALL_BYTES`).
pub(super) const SMALL_ITEMS: usize = 16;

/// `o[key]`. Chat messages and tool schemas are small objects: comparing a handful of keys
/// beats hashing the key (serde_json's map hashes with SipHash).
#[inline]
pub(crate) fn json_get<'j>(
    o: &'j serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'j serde_json::Value> {
    if o.len() <= 16 {
        o.iter()
            .find(|(k, _)| short_eq(k.as_bytes(), key.as_bytes()))
            .map(|(_, v)| v)
    } else {
        o.get(key)
    }
}

/// The value of string key `key` in a template dict's pairs (a `Markup` key of the same text
/// is the same key, as in Python).
#[inline]
pub(crate) fn dict_str_get<'a>(pairs: &[(Value<'a>, Value<'a>)], key: &str) -> Option<Value<'a>> {
    // A plain loop rather than `Iterator::find`: the dispatch loop inlines this function, and
    // a shared `find` instance is left out of line there (a call per key read).
    for (k, v) in pairs {
        if let Value::Str(k) | Value::Markup(k) = k {
            if short_eq(k.as_bytes(), key.as_bytes()) {
                return Some(*v);
            }
        }
    }
    None
}

/// The four bytes of `s` at `at` as a little-endian word (the first byte lowest). The
/// caller has checked that they are there.
#[inline]
pub(crate) fn le32(s: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&s[at..at + 4]);
    u32::from_le_bytes(w)
}

/// The eight bytes of `s` at `at` as a little-endian word (the first byte lowest, so a
/// byte's position is its bit offset / 8). The caller has checked that they are there.
#[inline]
pub(crate) fn le64(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Byte equality that compares short texts (keys, roles) in registers, without a call to
/// `memcmp`: up to 16 bytes, two overlapping loads cover every byte.
#[inline]
pub(crate) fn short_eq(a: &[u8], b: &[u8]) -> bool {
    let (w32, w64) = (le32, le64);
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => w32(a, 0) == w32(b, 0) && w32(a, n - 4) == w32(b, n - 4),
        9..=16 => w64(a, 0) == w64(b, 0) && w64(a, n - 8) == w64(b, n - 8),
        _ => a == b,
    }
}

/// The first occurrence of `needle` in `hay` (at 0 for an empty needle): a byte search for
/// one byte, a scan for the first byte in a short text (building a substring searcher, as
/// `str::find` and `memmem::find` do on every call, costs more than that), else `memmem`.
pub(crate) fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    match needle {
        [] => Some(0),
        [b] => memchr::memchr(*b, hay),
        [first, rest @ ..] if hay.len() < 256 => {
            let mut from = 0;
            while let Some(off) = hay.get(from..).and_then(|h| memchr::memchr(*first, h)) {
                let at = from + off;
                if hay.get(at + 1..at + needle.len()) == Some(rest) {
                    return Some(at);
                }
                from = at + 1;
            }
            None
        }
        _ => memchr::memmem::find(hay, needle),
    }
}

/// Python's `s.split(sep)` for a non-empty `sep`: the pieces between occurrences.
pub(crate) fn split_str<'s, 'p>(
    s: &'s str,
    sep: &'p str,
) -> impl Iterator<Item = &'s str> + use<'s, 'p> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match find_bytes(r.as_bytes(), sep.as_bytes()) {
            // `sep` is valid UTF-8 found at a match of whole characters: both cuts fall on
            // character boundaries.
            Some(at) if !sep.is_empty() => {
                rest = r.get(at + sep.len()..);
                r.get(..at)
            }
            _ => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// A Python list or tuple's items, from the template or borrowed from the caller's JSON.
#[derive(Clone, Copy)]
pub(crate) enum SeqRef<'a> {
    /// A list or tuple of the template's.
    Values(&'a [Value<'a>]),
    /// A JSON array of the caller's.
    Json(&'a [serde_json::Value]),
}

impl<'a> SeqRef<'a> {
    /// The items of a list (template or JSON); tuples only when `tuples` is set.
    #[inline]
    pub(super) fn of(v: &Value<'a>, tuples: bool) -> Option<SeqRef<'a>> {
        match *v {
            Value::List(l) => Some(SeqRef::Values(l)),
            Value::Tuple(t) if tuples => Some(SeqRef::Values(t)),
            Value::Json(serde_json::Value::Array(a)) => Some(SeqRef::Json(a)),
            _ => None,
        }
    }

    /// How many items.
    #[inline]
    pub(super) fn len(&self) -> usize {
        match self {
            SeqRef::Values(v) => v.len(),
            SeqRef::Json(a) => a.len(),
        }
    }

    /// Item `i` (in range).
    #[inline]
    pub(super) fn get(&self, i: usize) -> Option<Value<'a>> {
        match self {
            SeqRef::Values(v) => v.get(i).copied(),
            SeqRef::Json(a) => a.get(i).map(Value::from_json),
        }
    }

    /// Item `i`, exact for big JSON integers.
    #[inline]
    pub(super) fn get_in(&self, i: usize, ctx: &Ctx<'a>) -> Option<Value<'a>> {
        match self {
            SeqRef::Values(v) => v.get(i).copied(),
            SeqRef::Json(a) => a.get(i).map(|x| Value::from_json_in(x, ctx)),
        }
    }
}

/// A Python dict, from the template or borrowed from the caller's JSON.
#[derive(Clone, Copy)]
pub(super) enum MapRef<'a> {
    /// A dict of the template's.
    Dict(&'a [(Value<'a>, Value<'a>)]),
    /// A JSON object of the caller's.
    Json(&'a serde_json::Map<String, serde_json::Value>),
}

impl<'a> MapRef<'a> {
    /// The dict `v` is, if it is one.
    #[inline]
    pub(super) fn of(v: &Value<'a>) -> Option<MapRef<'a>> {
        match *v {
            Value::Dict(d) => Some(MapRef::Dict(d)),
            Value::Json(serde_json::Value::Object(o)) => Some(MapRef::Json(o)),
            _ => None,
        }
    }

    /// How many entries.
    pub(super) fn len(&self) -> usize {
        match self {
            MapRef::Dict(d) => d.len(),
            MapRef::Json(o) => o.len(),
        }
    }

    /// The value of string key `name`, exact for big JSON integers.
    #[inline]
    pub(super) fn get_str(&self, name: &str, ctx: &Ctx<'a>) -> Option<Value<'a>> {
        match self {
            MapRef::Dict(d) => d
                .iter()
                .take(if d.len() > SMALL_ITEMS && !budget::spend_items(d.len()) {
                    0
                } else {
                    usize::MAX
                })
                .find(|(k, _)| k.as_str() == Some(name))
                .map(|(_, v)| *v),
            MapRef::Json(o) => json_get(o, name).map(|v| Value::from_json_in(v, ctx)),
        }
    }

    /// Calls `f` on every entry until it returns false; true if it never did.
    pub(super) fn all(&self, mut f: impl FnMut(Value<'a>, Value<'a>) -> bool) -> bool {
        match self {
            MapRef::Dict(d) => d.iter().all(|(k, v)| f(*k, *v)),
            MapRef::Json(o) => o
                .iter()
                .all(|(k, v)| f(Value::Str(k.as_str()), Value::from_json(v))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{find_bytes, short_eq, split_str};

    /// The same positions and pieces as the standard library's substring search, on short
    /// and long texts (the two paths), ASCII and not, with repeated first bytes.
    #[test]
    fn find_and_split_agree_with_std() {
        let long = "ab".repeat(200) + "<think>x</think>" + &"é".repeat(100);
        let hays = [
            "",
            "a",
            "aaab",
            "<th<think>a</think>b",
            "no tags here",
            "日本語のテキスト</think>答え",
            long.as_str(),
        ];
        let needles = [
            "a", "ab", "aab", "<think>", "</think>", "é", "本語", "zz", "bé",
        ];
        for hay in hays {
            for needle in needles {
                assert_eq!(
                    find_bytes(hay.as_bytes(), needle.as_bytes()),
                    hay.find(needle),
                    "{needle:?} in {hay:?}"
                );
                let ours: Vec<&str> = split_str(hay, needle).collect();
                let std: Vec<&str> = hay.split(needle).collect();
                assert_eq!(ours, std, "{hay:?}.split({needle:?})");
            }
            assert_eq!(find_bytes(hay.as_bytes(), b""), Some(0));
        }
    }

    /// Every length up to past the register path, equal and differing at each position.
    #[test]
    fn short_eq_is_byte_equality() {
        for n in 0..=20usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(short_eq(&a, &a.clone()), "length {n}");
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 0x20;
                assert!(!short_eq(&a, &b), "length {n}, byte {i}");
            }
            let mut longer = a.clone();
            longer.push(b'z');
            assert!(!short_eq(&a, &longer), "length {n} against {}", n + 1);
        }
    }
}
