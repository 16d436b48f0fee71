//! The index of the short string constants: which entry of the string pool a name or short
//! literal already is, so that each is stored once.
//!
//! An open-addressing table in the compile arena (no heap allocation, nothing to free), with
//! a hash made of one or two word loads and a multiplication: the names of a template are
//! short, and the table lives for one compile.

use crate::compile::scope::same_name;

/// Texts of up to [`Interner::MAX_LEN`] bytes and their pool indexes.
pub(super) struct Interner<'a> {
    /// Per slot: 1 + the position of a text in `entries`, 0 for a free slot (four bytes a
    /// slot: a new table is a short `memset`).
    slots: &'a mut [u32],
    /// The texts in the order they were added, with their pool indexes.
    entries: bumpalo::collections::Vec<'a, (&'a str, u32)>,
}

impl<'a> Interner<'a> {
    /// The longest text indexed; longer literals (template text in quotes) are rarely
    /// repeated and go to the pool without a lookup.
    pub(super) const MAX_LEN: usize = 32;

    /// An empty index with room for about `expected` texts before it grows.
    pub(super) fn new(arena: &'a bumpalo::Bump, expected: usize) -> Interner<'a> {
        let cap = (expected * 2).next_power_of_two().max(16);
        Interner {
            slots: arena.alloc_slice_fill_copy(cap, 0),
            entries: bumpalo::collections::Vec::with_capacity_in(expected, arena),
        }
    }

    /// The index of `s`, or, when it has none yet, the one `add` gives it (called once).
    #[inline]
    pub(super) fn get_or_add(&mut self, s: &'a str, add: impl FnOnce() -> u32) -> u32 {
        let mask = self.slots.len() - 1;
        let mut i = hash(s.as_bytes()) as usize & mask;
        loop {
            let slot = self.slots[i] as usize;
            let Some(&(text, index)) = slot.checked_sub(1).and_then(|e| self.entries.get(e)) else {
                break;
            };
            if same_name(text, s) {
                return index;
            }
            i = (i + 1) & mask;
        }
        let index = add();
        self.entries.push((s, index));
        self.slots[i] = self.entries.len() as u32;
        if self.entries.len() * 2 > self.slots.len() {
            self.grow();
        }
        index
    }

    /// Doubles the table (at most half full: probe runs stay short).
    #[cold]
    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        let slots = self.entries.bump().alloc_slice_fill_copy(cap, 0u32);
        let mask = cap - 1;
        for (e, &(text, _)) in self.entries.iter().enumerate() {
            let mut i = hash(text.as_bytes()) as usize & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = e as u32 + 1;
        }
        self.slots = slots;
    }
}

/// A hash of `b`: its length and its bytes, read as at most two overlapping words up to 16
/// bytes (nearly every name), word by word past that. The table index is taken from the
/// high bits of the product, which depend on every bit of the word.
#[inline]
pub(super) fn hash(b: &[u8]) -> u64 {
    use crate::value::ops::le64 as w64;
    let w32 = |s: &[u8], at: usize| u64::from(crate::value::ops::le32(s, at));
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let n = b.len();
    let word = match n {
        0 => 0,
        1..=3 => u64::from(b[0]) | (u64::from(b[n / 2]) << 8) | (u64::from(b[n - 1]) << 16),
        4..=8 => w32(b, 0) | (w32(b, n - 4) << 32),
        9..=16 => w64(b, 0) ^ w64(b, n - 8).rotate_left(29).wrapping_mul(K),
        _ => {
            let mut h = 0u64;
            let mut at = 0;
            while at + 8 < n {
                h = (h ^ w64(b, at)).wrapping_mul(K).rotate_left(23);
                at += 8;
            }
            h ^ w64(b, n - 8)
        }
    };
    let h = (word ^ (n as u64)).wrapping_mul(K);
    // The high bits are the best mixed: fold them down to where the mask takes them.
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::Interner;

    /// Each text gets the index it was first given, through growth, at every length.
    #[test]
    fn first_index_wins() {
        let arena = bumpalo::Bump::new();
        let texts: Vec<String> = (0..600)
            .map(|i| {
                let len = i % 40;
                (0..len)
                    .map(|k| char::from(b'a' + ((i * 7 + k * 3) % 26) as u8))
                    .collect()
            })
            .collect();
        let texts: Vec<&str> = texts.iter().map(|t| arena.alloc_str(t) as &str).collect();
        let mut table = Interner::new(&arena, 4);
        let mut first: Vec<(&str, u32)> = Vec::new();
        let mut next = 0u32;
        for round in 0..2 {
            for t in &texts {
                let want = first.iter().find(|(f, _)| f == t).map(|(_, i)| *i);
                let got = table.get_or_add(t, || {
                    next += 1;
                    next - 1
                });
                match want {
                    Some(i) => assert_eq!(got, i, "{t:?} in round {round}"),
                    None => first.push((t, got)),
                }
            }
        }
        assert_eq!(next as usize, first.len());
    }
}
