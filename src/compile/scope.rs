//! Compile-time name resolution. jinja2 scopes are static: a name assigned anywhere in a
//! scope (the template body, a loop body, a macro body) is local to that scope, and starts
//! each entry of the scope with the value the enclosing scope gives it. So every variable
//! becomes a slot in its function's frame, and lookups by name vanish from the render.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::syntax::ast::{Stmt, Target};

/// A vector in the compile-time arena: scratch lists of names cost no heap allocation.
pub(super) type AVec<'a, T> = bumpalo::collections::Vec<'a, T>;

/// The hasher of the compiler's name tables: [`Name`] hashes its bytes in one `write`, with
/// the string index's hash ([`super::intern::hash`]: names are short, and a map lives for one
/// compile, so SipHash's protection against chosen keys buys nothing here).
#[derive(Default)]
pub(super) struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = super::intern::hash(bytes) ^ self.0.rotate_left(5);
    }
}

/// A bit of a 64-bit filter for `name` (from its length and its first and last bytes): a
/// name whose bit is clear in the filter of the names some scope binds is bound by none.
#[inline]
pub(super) fn name_bit(name: &str) -> u64 {
    let b = name.as_bytes();
    let mix = b
        .len()
        .wrapping_mul(7)
        .wrapping_add(usize::from(b.first().copied().unwrap_or(0)))
        .wrapping_add(usize::from(b.last().copied().unwrap_or(0)).wrapping_mul(3));
    1 << (mix & 63)
}

/// A map keyed by names, with [`NameHasher`].
pub(super) type NameMap<K, V> = HashMap<K, V, BuildHasherDefault<NameHasher>>;

/// A scope: the names it binds and their slots in its function's frame.
pub(super) struct Scope<'a> {
    /// The function (0 = template body, `k + 1` = macro `k`) whose frame holds the slots.
    pub(super) func: u32,
    /// Names and slots.
    names: &'a [(&'a str, u16)],
    /// The [`name_bit`]s of `names`: a name whose bit is clear is not searched for.
    bits: u64,
    /// The slot of each name, for scopes too big to search (so that compiling a template
    /// with many variables or macros stays linear).
    index: Option<NameMap<Name<'a>, u16>>,
}

/// Scopes with more names than this are indexed.
const SEARCHED: usize = 8;

impl<'a> Scope<'a> {
    /// A scope of `func` binding `names` (later names win).
    pub(super) fn new(func: u32, names: &'a [(&'a str, u16)]) -> Scope<'a> {
        let index =
            (names.len() > SEARCHED).then(|| names.iter().map(|&(n, s)| (Name(n), s)).collect());
        let bits = names.iter().fold(0, |bits, (n, _)| bits | name_bit(n));
        Scope {
            func,
            names,
            bits,
            index,
        }
    }

    /// The slot of `name`, if this scope binds it.
    #[inline]
    pub(super) fn lookup(&self, name: &str) -> Option<u16> {
        if self.bits & name_bit(name) == 0 {
            return None;
        }
        if let Some(index) = &self.index {
            return index.get(&Name(name)).copied();
        }
        self.names
            .iter()
            .rev()
            .find(|(n, _)| same_name(n, name))
            .map(|(_, s)| *s)
    }
}

/// `a == b`, inline for names of up to 16 bytes (two overlapping loads per side instead of
/// a `memcmp` call): nearly every name a compile compares is that short.
#[inline]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    crate::value::ops::short_eq(a.as_bytes(), b.as_bytes())
}

/// A name as a key of the compiler's tables: hashed with [`NameHasher`] in one call and
/// compared with [`same_name`].
#[derive(Clone, Copy)]
pub(super) struct Name<'a>(pub(super) &'a str);

impl PartialEq for Name<'_> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        same_name(self.0, other.0)
    }
}

impl Eq for Name<'_> {}

impl std::hash::Hash for Name<'_> {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(self.0.as_bytes());
    }
}

/// Adds the names `target` binds to `out`.
pub(super) fn target_names<'a>(target: &Target<'a>, out: &mut AVec<'a, &'a str>) {
    match target {
        Target::Name(n) => push_unique(out, n),
        Target::Tuple(items, _) => items.iter().for_each(|t| target_names(t, out)),
        Target::Attr(..) => {}
    }
}

/// Adds the names assigned directly in `body` (not in nested loops, macros or call blocks,
/// which are scopes of their own) to `out`, each once (names already in `out` included).
pub(super) fn stored_names<'a>(body: &[Stmt<'a>], out: &mut AVec<'a, &'a str>) {
    let mut found = AVec::new_in(out.bump());
    collect_stored(body, &mut found);
    if out.len() + found.len() <= 16 {
        for name in found {
            push_unique(out, name);
        }
        return;
    }
    let mut seen: NameMap<Name<'a>, ()> = out.iter().map(|n| (Name(n), ())).collect();
    for name in found {
        if seen.insert(Name(name), ()).is_none() {
            out.push(name);
        }
    }
}

/// Every name assigned directly in `body`, repeats included, iteratively over nested ifs.
fn collect_stored<'a>(body: &[Stmt<'a>], out: &mut AVec<'a, &'a str>) {
    for stmt in body {
        match stmt {
            Stmt::Set { target, .. } | Stmt::SetBlock { target, .. } => {
                all_target_names(target, out)
            }
            Stmt::Macro(m) => out.push(m.name),
            Stmt::If {
                branches,
                otherwise,
            } => {
                for (_, b) in branches.iter() {
                    collect_stored(b, out);
                }
                if let Some(b) = otherwise {
                    collect_stored(b, out);
                }
            }
            Stmt::Generation(body) => collect_stored(body, out),
            Stmt::For(f) => {
                if let Some(b) = f.otherwise {
                    collect_stored(b, out);
                }
            }
            _ => {}
        }
    }
}

/// The names `target` binds, repeats included.
fn all_target_names<'a>(target: &Target<'a>, out: &mut AVec<'a, &'a str>) {
    match target {
        Target::Name(n) => out.push(n),
        Target::Tuple(items, _) => items.iter().for_each(|t| all_target_names(t, out)),
        Target::Attr(..) => {}
    }
}

fn push_unique<'a>(out: &mut AVec<'a, &'a str>, name: &'a str) {
    if !out.iter().any(|n| same_name(n, name)) {
        out.push(name);
    }
}
