//! Marker scanning over bytes with memchr/memmem (SIMD), the hold-back of a tail that could
//! still grow into a marker, and UTF-8 boundary helpers.

use memchr::memmem;

/// A set of literal markers searched together.
#[derive(Debug)]
pub(crate) struct Markers {
    list: Vec<Vec<u8>>,
    firsts: Vec<u8>,
    first_table: [bool; 256],
    single: Option<memmem::Finder<'static>>,
    max_len: usize,
}

impl Markers {
    pub(crate) fn new(list: Vec<Vec<u8>>) -> Markers {
        let mut first_table = [false; 256];
        let mut firsts = Vec::new();
        for m in &list {
            if let Some(&b) = m.first() {
                if !first_table[b as usize] {
                    first_table[b as usize] = true;
                    firsts.push(b);
                }
            }
        }
        let single = (list.len() == 1).then(|| memmem::Finder::new(&list[0]).into_owned());
        let max_len = list.iter().map(Vec::len).max().unwrap_or(0);
        Markers {
            list,
            firsts,
            first_table,
            single,
            max_len,
        }
    }

    /// The offset of the earliest complete marker in `hay`.
    pub(crate) fn find(&self, hay: &[u8]) -> Option<usize> {
        if let Some(f) = &self.single {
            return f.find(hay);
        }
        if self.firsts.len() > 3 {
            return self.find_grouped(hay);
        }
        let mut i = 0;
        while i < hay.len() {
            let at = i + first_of(&self.firsts, &hay[i..])?;
            if self.list.iter().any(|m| hay[at..].starts_with(m)) {
                return Some(at);
            }
            i = at + 1;
        }
        None
    }

    /// [`Markers::find`] for more than three first bytes: one SIMD scan per group of three,
    /// each group remembering its next hit so that no byte is scanned twice by a group.
    fn find_grouped(&self, hay: &[u8]) -> Option<usize> {
        let groups: smallvec::SmallVec<[&[u8]; 4]> = self.firsts.chunks(3).collect();
        // The next hit of each group at or after the scan position (hay.len(): none left).
        let mut next: smallvec::SmallVec<[usize; 4]> = groups.iter().map(|_| 0).collect();
        let mut stale: smallvec::SmallVec<[bool; 4]> = groups.iter().map(|_| true).collect();
        let mut i = 0;
        while i < hay.len() {
            for (g, bytes) in groups.iter().enumerate() {
                if stale[g] || next[g] < i {
                    next[g] = first_of(bytes, &hay[i..]).map_or(hay.len(), |c| i + c);
                    stale[g] = false;
                }
            }
            let at = next.iter().copied().min().unwrap_or(hay.len());
            if at >= hay.len() {
                return None;
            }
            if self.list.iter().any(|m| hay[at..].starts_with(m)) {
                return Some(at);
            }
            i = at + 1;
        }
        None
    }

    /// The length of the longest suffix of `hay` that is a proper prefix of some marker.
    pub(crate) fn holdback(&self, hay: &[u8]) -> usize {
        let from = hay.len().saturating_sub(self.max_len.saturating_sub(1));
        for p in from..hay.len() {
            if self.first_table[hay[p] as usize]
                && self
                    .list
                    .iter()
                    .any(|m| m.len() > hay.len() - p && m.starts_with(&hay[p..]))
            {
                return hay.len() - p;
            }
        }
        0
    }
}

/// The offset of the first byte of `hay` that is one of `bytes` (at most three).
fn first_of(bytes: &[u8], hay: &[u8]) -> Option<usize> {
    match bytes {
        [] => None,
        [a] => memchr::memchr(*a, hay),
        [a, b] => memchr::memchr2(*a, *b, hay),
        [a, b, c, ..] => memchr::memchr3(*a, *b, *c, hay),
    }
}

/// The length of the UTF-8 sequence a lead byte starts (1 for a stray or invalid byte).
pub(crate) fn utf8_len(b: u8) -> usize {
    match b {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    }
}

/// The number of trailing bytes of `s` that form an incomplete (but possibly valid) UTF-8
/// sequence, to hold back until the rest arrives.
pub(crate) fn incomplete_utf8_tail(s: &[u8]) -> usize {
    for back in 1..=3.min(s.len()) {
        let b = s[s.len() - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        return if b >= 0xC0 && utf8_len(b) > back {
            back
        } else {
            0
        };
    }
    0
}

/// Text of `bytes`, replacing invalid sequences.
pub(crate) fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_earliest_and_holds_back() {
        let m = Markers::new(vec![b"<tool_call>".to_vec(), b"</think>".to_vec()]);
        assert_eq!(m.find(b"ab </think> <tool_call>"), Some(3));
        assert_eq!(m.find(b"a < b <tool"), None);
        assert_eq!(m.holdback(b"a < b <tool"), 5);
        assert_eq!(m.holdback(b"a < b <"), 1);
        assert_eq!(m.holdback(b"a < b"), 0);
        let many = Markers::new(vec![
            b"<a>".to_vec(),
            b"[b]".to_vec(),
            b"{c}".to_vec(),
            b"|d|".to_vec(),
        ]);
        assert_eq!(many.find(b"xx |d| [b]"), Some(3));
        let one = Markers::new(vec![b"</think>".to_vec()]);
        assert_eq!(one.find(b"x</think>"), Some(1));
        assert_eq!(one.holdback(b"x</thi"), 5);
    }

    #[test]
    fn grouped_scan_finds_what_a_plain_scan_finds() {
        let list: Vec<Vec<u8>> = ["<a>", "[b]", "{c}", "|d|", "ab", "<<", "x", "\u{e9}t"]
            .iter()
            .map(|m| m.as_bytes().to_vec())
            .collect();
        let m = Markers::new(list.clone());
        assert!(m.firsts.len() > 3);
        let naive =
            |hay: &[u8]| (0..hay.len()).find(|&i| list.iter().any(|w| hay[i..].starts_with(w)));
        let alphabet = "<>[]{}|abcdxy \u{e9}t".as_bytes();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..200 {
            for _ in 0..20 {
                let hay: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        alphabet[(seed % alphabet.len() as u64) as usize]
                    })
                    .collect();
                assert_eq!(
                    m.find(&hay),
                    naive(&hay),
                    "{:?}",
                    String::from_utf8_lossy(&hay)
                );
            }
        }
    }

    #[test]
    fn utf8_tail() {
        let s = "aé日🙂".as_bytes();
        assert_eq!(incomplete_utf8_tail(s), 0);
        assert_eq!(incomplete_utf8_tail(&s[..s.len() - 1]), 3);
        assert_eq!(incomplete_utf8_tail(&s[..2]), 1);
        assert_eq!(incomplete_utf8_tail(b"ab"), 0);
    }
}
