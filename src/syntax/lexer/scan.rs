//! Byte scanning for the lexer: whitespace and name bytes a word or sixteen bytes at a time
//! (SSE2 on x86-64, words or bytes elsewhere), and the short searches (the next tag, a
//! string's end) that test their first sixteen bytes inline before calling `memchr`.

/// How many bytes of a tag [`Window`] classifies at once (a multiple of 16, at most 64).
pub(super) const WIN: usize = 16;

/// The classes of `WIN` bytes of a tag from `base` on, one bit per byte (the byte at `base`
/// lowest): whitespace, and name bytes (ASCII letters, digits and `_`). Bytes past the end of
/// the source are in neither class.
///
/// The bytes are classified sixteen at a time (SSE2 on x86-64, else a word at a time) where
/// the tag's body starts and wherever a token leaves the window; skipping whitespace and
/// finding the end of a name are then a shift and a count of trailing zeros instead of byte
/// loops. Sixteen bytes: a 32- or 64-byte window cost more to fill, tag after tag, than the
/// loops it saves.
#[derive(Clone, Copy)]
pub(super) struct Window {
    /// The source offset of the first byte.
    pub(super) base: usize,
    /// Whitespace bytes.
    pub(super) space: u64,
    /// Name bytes.
    pub(super) name: u64,
}

impl Window {
    /// The window of `bytes` starting at `base`.
    #[inline]
    pub(super) fn at(bytes: &[u8], base: usize) -> Window {
        match bytes.get(base..base + WIN) {
            Some(chunk) => Window::classify(chunk, base),
            None => {
                // Near the end of the source: zero bytes (neither class) after it.
                let mut padded = [0u8; WIN];
                let rest = bytes.get(base..).unwrap_or_default();
                padded[..rest.len()].copy_from_slice(rest);
                Window::classify(&padded, base)
            }
        }
    }

    /// Classifies `chunk` (`WIN` bytes) sixteen bytes at a time with SSE2.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline]
    fn classify(chunk: &[u8], base: usize) -> Window {
        let mut space = 0;
        let mut name = 0;
        for (k, part) in chunk.chunks_exact(16).enumerate() {
            // SAFETY: SSE2 is enabled for this build (the `cfg` above), which is all
            // `classes16` requires.
            let (s, n) = unsafe { classes16(part) };
            space |= u64::from(s) << (16 * k);
            name |= u64::from(n) << (16 * k);
        }
        Window { base, space, name }
    }

    /// Classifies `chunk` (`WIN` bytes) a word at a time.
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    #[inline]
    fn classify(chunk: &[u8], base: usize) -> Window {
        classify_words(chunk, base)
    }
}

/// [`Window::classify`] eight bytes at a time, on a `u64` (where SSE2 is missing; on x86-64
/// the unit tests check it against the SSE2 classes).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
pub(super) fn classify_words(chunk: &[u8], base: usize) -> Window {
    let mut space = 0;
    let mut name = 0;
    for (k, word) in chunk.chunks_exact(8).enumerate() {
        let w = crate::value::ops::le64(word, 0);
        space |= gather_high_bits(space_bytes(w)) << (8 * k);
        name |= gather_high_bits(!not_name_bytes(w) & HIGH) << (8 * k);
    }
    Window { base, space, name }
}

/// The space and name bits of the first sixteen bytes of `part`, as in [`Window`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn classes16(part: &[u8]) -> (u16, u16) {
    use std::arch::x86_64::*;
    assert!(part.len() >= 16);
    // SAFETY: `part` has at least sixteen bytes (checked above), and `loadu` reads sixteen
    // bytes at any alignment.
    let v = unsafe { _mm_loadu_si128(part.as_ptr().cast()) };
    let splat = |b: u8| _mm_set1_epi8(b as i8);
    // `x - lo` as unsigned bytes is at most `hi - lo` exactly for the bytes in `lo..=hi`.
    let within = |x: __m128i, lo: u8, hi: u8| {
        let d = _mm_sub_epi8(x, splat(lo));
        _mm_cmpeq_epi8(_mm_min_epu8(d, splat(hi - lo)), d)
    };
    let space = _mm_or_si128(_mm_cmpeq_epi8(v, splat(b' ')), within(v, b'\t', b'\r'));
    let letter = within(_mm_or_si128(v, splat(0x20)), b'a', b'z');
    let digit = within(v, b'0', b'9');
    let underscore = _mm_cmpeq_epi8(v, splat(b'_'));
    let name = _mm_or_si128(_mm_or_si128(letter, digit), underscore);
    (
        _mm_movemask_epi8(space) as u16,
        _mm_movemask_epi8(name) as u16,
    )
}

/// Eight bytes of ones, and their high bits.
pub(super) const ONES: u64 = 0x0101_0101_0101_0101;
pub(super) const HIGH: u64 = ONES * 0x80;

/// The high bit of each byte of `w` that is whitespace inside a tag (space, `\t`, `\n`,
/// `\x0b`, `\x0c`, `\r`), all other bits clear.
#[inline]
pub(super) fn space_bytes(w: u64) -> u64 {
    // Seven-bit bytes: each sum stays within its byte (as in `not_name_bytes`).
    let x = w & !HIGH;
    let at_least = x + ONES * (0x80 - u64::from(b'\t'));
    let above = x + ONES * (0x7f - u64::from(b'\r'));
    let control = at_least & !above;
    let blank = !((x ^ (ONES * u64::from(b' '))) + ONES * 0x7f);
    (control | blank) & !w & HIGH
}

/// The high bits of the bytes of `m` (only high bits set) as eight bits, byte `i` to bit `i`.
#[inline]
pub(super) fn gather_high_bits(m: u64) -> u64 {
    // Bit 8i of `m >> 7` times the bit 7j + 7 of the constant lands on 56 + i when i + j = 7;
    // no other pair reaches the top byte, and no two pairs share a bit (no carries).
    ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// The high bit of each byte of `w` (eight bytes of source, the first lowest) that is not an
/// ASCII letter, digit or `_`, all other bits clear.
#[inline]
pub(super) fn not_name_bytes(w: u64) -> u64 {
    // Seven-bit bytes: each sum below stays within its byte, and its high bit says whether
    // the byte is at least (or above) a bound.
    let x = w & !HIGH;
    let folded = x | (ONES * 0x20); // ASCII letters to lower case
    let at_least = |v: u64, lo: u64| v + ONES * (0x80 - lo);
    let above = |v: u64, hi: u64| v + ONES * (0x7f - hi);
    let letter = at_least(folded, u64::from(b'a')) & !above(folded, u64::from(b'z'));
    let digit = at_least(x, u64::from(b'0')) & !above(x, u64::from(b'9'));
    let underscore = !((x ^ (ONES * u64::from(b'_'))) + ONES * 0x7f);
    // A byte with its own high bit set (non-ASCII) is never a name byte here.
    !((letter | digit | underscore) & !w) & HIGH
}

/// The offset of the first `a` followed by `b` in `hay` (`memmem` would build a searcher
/// for the two bytes at every call).
pub(super) fn find_pair(hay: &[u8], a: u8, b: u8) -> Option<usize> {
    let mut from = 0;
    while let Some(rel) = memchr::memchr(a, &hay[from..]) {
        let at = from + rel;
        if hay.get(at + 1) == Some(&b) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// How many bytes the searches below test inline before they call `memchr`: most searches
/// in a template (the next tag, the end of a string literal, a backslash in it) end within
/// a few bytes, where the call and its setup cost more than the search. Sixteen: one SSE2
/// compare.
pub(super) const INLINE: usize = 16;

/// The offset of the first `b` in `hay`.
#[inline]
pub(super) fn find_byte(hay: &[u8], b: u8) -> Option<usize> {
    find_byte2(hay, b, b)
}

/// The offset of the first `a` or `b` in `hay`.
#[inline]
pub(super) fn find_byte2(hay: &[u8], a: u8, b: u8) -> Option<usize> {
    if hay.len() < INLINE {
        return hay.iter().position(|&c| c == a || c == b);
    }
    let hits = first16_either(&hay[..INLINE], a, b);
    if hits != 0 {
        return Some(hits.trailing_zeros() as usize);
    }
    memchr::memchr2(a, b, &hay[INLINE..]).map(|i| INLINE + i)
}

/// One bit per byte of `part` (sixteen bytes, the first lowest) that is `a` or `b`.
#[inline]
pub(super) fn first16_either(part: &[u8], a: u8, b: u8) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is enabled for this build (the `cfg` above), which is all
        // `either16` requires.
        unsafe { either16(part, a, b) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        either_bytes(part, a, b)
    }
}

/// [`first16_either`] a byte at a time (where SSE2 is missing; on x86-64 the unit tests
/// check the SSE2 search against it).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
pub(super) fn either_bytes(part: &[u8], a: u8, b: u8) -> u32 {
    part.iter()
        .take(INLINE)
        .enumerate()
        .fold(0, |m, (i, &c)| m | (u32::from(c == a || c == b) << i))
}

/// [`first16_either`] with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn either16(part: &[u8], a: u8, b: u8) -> u32 {
    use std::arch::x86_64::*;
    assert!(part.len() >= 16);
    // SAFETY: `part` has at least sixteen bytes (checked above), and `loadu` reads sixteen
    // bytes at any alignment.
    let v = unsafe { _mm_loadu_si128(part.as_ptr().cast()) };
    let hit = _mm_or_si128(
        _mm_cmpeq_epi8(v, _mm_set1_epi8(a as i8)),
        _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8)),
    );
    _mm_movemask_epi8(hit) as u32
}

/// The offset of the last `b` in `hay`.
#[inline]
pub(super) fn rfind_byte(hay: &[u8], b: u8) -> Option<usize> {
    let tail = hay.len() - hay.len().min(INLINE);
    if let Some(i) = hay[tail..].iter().rposition(|&c| c == b) {
        return Some(tail + i);
    }
    memchr::memrchr(b, &hay[..tail])
}

/// One bit per byte of `part` (sixteen bytes, the first lowest) that is ASCII whitespace to
/// Python (`\t` to `\r`, `\x1c` to `\x1f`, space).
#[inline]
pub(super) fn space16(part: &[u8]) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is enabled for this build (the `cfg` above), which is all
        // `py_space16` requires.
        unsafe { py_space16(part) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        py_space_bytes(part)
    }
}

/// [`space16`] a byte at a time (where SSE2 is missing; on x86-64 the unit tests check the
/// SSE2 test against it).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
pub(super) fn py_space_bytes(part: &[u8]) -> u32 {
    part.iter().take(16).enumerate().fold(0, |m, (i, &c)| {
        let space = c == b' ' || (b'\t'..=b'\r').contains(&c) || (0x1c..=0x1f).contains(&c);
        m | (u32::from(space) << i)
    })
}

/// [`space16`] with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn py_space16(part: &[u8]) -> u32 {
    use std::arch::x86_64::*;
    assert!(part.len() >= 16);
    // SAFETY: `part` has at least sixteen bytes (checked above), and `loadu` reads sixteen
    // bytes at any alignment.
    let v = unsafe { _mm_loadu_si128(part.as_ptr().cast()) };
    let splat = |b: u8| _mm_set1_epi8(b as i8);
    let within = |lo: u8, hi: u8| {
        let d = _mm_sub_epi8(v, splat(lo));
        _mm_cmpeq_epi8(_mm_min_epu8(d, splat(hi - lo)), d)
    };
    let space = _mm_or_si128(
        _mm_or_si128(within(b'\t', b'\r'), within(0x1c, 0x1f)),
        _mm_cmpeq_epi8(v, splat(b' ')),
    );
    _mm_movemask_epi8(space) as u32
}
