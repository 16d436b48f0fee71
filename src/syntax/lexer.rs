//! The lexer: template source to tokens, with jinja2's whitespace control as transformers
//! configures it (`trim_blocks` and `lstrip_blocks` on, `-` and `+` modifiers).
//!
//! Text between tags is found with memchr; the inside of a tag is tokenized by a logos lexer.
//! Data tokens are sub-slices of the source (whitespace control only trims their ends), so
//! they carry a span and nothing else. A string literal with escapes is decoded into the
//! compile arena, so tokens are `Copy` and the token vector needs no drop pass.

use logos::Logos;

use crate::error::{err, Error};
use crate::syntax::{IntLit, Span};

mod scan;
use scan::*;

/// A token of the template.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Tok<'s> {
    /// Literal text to output.
    Data,
    /// `{{`
    VarStart,
    /// `}}`
    VarEnd,
    /// `{%`
    BlockStart,
    /// `%}`
    BlockEnd,
    /// A name or keyword.
    Name(&'s str),
    /// A string literal, unescaped (a slice of the source when it has no escapes).
    Str(&'s str),
    /// An integer literal.
    Int(IntLit),
    /// An integer literal beyond 128 bits, as written (prefix and underscores included).
    BigInt(&'s str),
    /// A float literal.
    Float(f64),
    /// An operator or punctuation.
    Op(Op),
    /// The content of a `{% raw %}` block, verbatim.
    Raw,
}

/// A token with its span in the (newline-normalized) source.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Token<'s> {
    /// What it is.
    pub(crate) tok: Tok<'s>,
    /// Where it is.
    pub(crate) span: Span,
}

/// Tokens inside `{{ }}` and `{% %}`.
#[derive(Logos, Debug, Clone, Copy, PartialEq)]
#[logos(skip r"[ \t\n\r\x0b\x0c]+")]
enum Inner {
    #[regex(r"[\p{XID_Start}_][\p{XID_Continue}]*")]
    Name,
    // jinja2's number grammar: underscores only between digits, no leading zeros on a
    // decimal integer (`08` is `0` then `8`, `10_` is `10` then the name `_`).
    #[regex(r"[1-9](_?[0-9])*|0(_?0)*")]
    Int,
    #[regex(r"0[xX](_?[0-9a-fA-F])+|0[oO](_?[0-7])+|0[bB](_?[01])+")]
    RadixInt,
    #[regex(r"([0-9]+_)*[0-9]+\.([0-9]+_)*[0-9]+([eE][+-]?([0-9]+_)*[0-9]+)?")]
    #[regex(r"([0-9]+_)*[0-9]+[eE][+-]?([0-9]+_)*[0-9]+")]
    Float,
    #[regex(r#"'([^'\\]|\\(.|\n))*'"#)]
    #[regex(r#""([^"\\]|\\(.|\n))*""#)]
    Str,
    #[token("}}")]
    VarEnd,
    #[token("-}}")]
    VarEndTrim,
    #[token("%}")]
    BlockEnd,
    #[token("-%}")]
    BlockEndTrim,
    #[token("+%}")]
    BlockEndKeep,
    #[regex(r"\*\*|//|==|!=|<=|>=|[-+*/%~<>=()\[\]{}.,:|]")]
    Op,
}

/// Which kind of tag is open.
#[derive(Clone, Copy, PartialEq)]
enum TagKind {
    Var,
    Block,
    Comment,
}

/// Python's `str.isspace` for one character.
pub(crate) fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Normalizes `\r\n` and `\r` to `\n` and drops one trailing newline, as jinja2 does with
/// `keep_trailing_newline=False`.
pub(crate) fn normalize(source: &str) -> String {
    let mut s = if memchr::memchr(b'\r', source.as_bytes()).is_some() {
        source.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        source.to_string()
    };
    if s.ends_with('\n') {
        s.pop();
    }
    s
}

/// Tokenizes normalized `src`; decoded string literals go to `arena`.
pub(crate) fn tokenize<'s>(src: &'s str, arena: &'s bumpalo::Bump) -> Result<Tokens<'s>, Error> {
    Lexer {
        src,
        arena,
        // About one token per 5 bytes in chat templates: room for most without regrowing.
        // In the arena: no heap allocation, and the memory is reused from compile to compile.
        out: Tokens::with_capacity_in(src.len() / 4 + 16, arena),
        closers: smallvec::SmallVec::new(),
    }
    .run()
}

/// The tokens of a template, in the compile arena.
pub(crate) type Tokens<'s> = bumpalo::collections::Vec<'s, Token<'s>>;

struct Lexer<'s> {
    src: &'s str,
    arena: &'s bumpalo::Bump,
    out: Tokens<'s>,
    /// The closers of the brackets open in the current tag, innermost last (inline: brackets
    /// rarely nest deeper than a few levels).
    closers: smallvec::SmallVec<[u8; 16]>,
}

impl<'s> Lexer<'s> {
    fn run(mut self) -> Result<Tokens<'s>, Error> {
        let src = self.src;
        let bytes = src.as_bytes();
        let mut pos = 0;
        // Whether the previous tag's end ended a line (jinja2's `line_starting`); true at the
        // start of the template.
        let mut line_starting = true;
        // Strip all leading whitespace of the next data (after a `-` end modifier).
        let mut strip_next = false;
        loop {
            let Some((tag_at, kind)) = find_tag(bytes, pos) else {
                let mut start = pos;
                if strip_next {
                    start = skip_space(src, start);
                }
                self.data(start, src.len());
                return Ok(self.out);
            };
            // The text before the tag, with whitespace control applied to both ends.
            let mut start = pos;
            if strip_next {
                start = skip_space(src, start).min(tag_at);
            }
            let modifier = bytes.get(tag_at + 2).copied();
            let mut end = tag_at;
            if modifier == Some(b'-') {
                end = trim_space_end(src, start, end);
            } else if kind != TagKind::Var && modifier != Some(b'+') {
                let l_pos = rfind_byte(&bytes[start..end], b'\n').map(|i| i + 1);
                if l_pos.is_some() || line_starting {
                    let l = start + l_pos.unwrap_or(0);
                    if src[l..end].bytes().all(|b| b == b' ' || b == b'\t') {
                        end = l;
                    }
                }
            }
            self.data(start, end);
            let body = tag_at + 2 + usize::from(matches!(modifier, Some(b'-' | b'+')));
            let (after, end_mod) = match kind {
                TagKind::Comment => self.comment(tag_at, body)?,
                TagKind::Var | TagKind::Block => self.tag(tag_at, body, kind)?,
            };
            pos = after;
            strip_next = end_mod == Some(b'-');
            line_starting = false;
            if kind == TagKind::Block {
                // `{% raw %}` keeps the newline after it (no trim_blocks); `{% raw -%}`
                // drops the whitespace after it.
                let body = if strip_next {
                    skip_space(src, pos)
                } else {
                    pos
                };
                if let Some(raw_end) = self.raw_block(body, end_mod)? {
                    pos = raw_end.0;
                    strip_next = raw_end.1 == Some(b'-');
                    if !strip_next && raw_end.1 != Some(b'+') && bytes.get(pos) == Some(&b'\n') {
                        pos += 1;
                        line_starting = true;
                    }
                    if strip_next {
                        let skipped = skip_space(src, pos);
                        line_starting = skipped > pos && bytes[skipped - 1] == b'\n';
                    }
                    continue;
                }
            }
            if !strip_next
                && kind != TagKind::Var
                && end_mod != Some(b'+')
                && bytes.get(pos) == Some(&b'\n')
            {
                pos += 1;
                line_starting = true;
            }
            if strip_next {
                let skipped = skip_space(src, pos);
                line_starting = skipped > pos && bytes[skipped - 1] == b'\n';
            }
        }
    }

    fn data(&mut self, start: usize, end: usize) {
        if end > start {
            self.out.push(Token {
                tok: Tok::Data,
                span: Span::new(start, end),
            });
        }
    }

    /// Skips a comment; returns the offset after it and its end modifier.
    fn comment(&mut self, tag_at: usize, body: usize) -> Result<(usize, Option<u8>), Error> {
        let Some(rel) = find_pair(&self.src.as_bytes()[body..], b'#', b'}') else {
            return Err(err!(Syntax, "missing end of comment tag").with_offset(self.src, tag_at));
        };
        let close = body + rel;
        let modifier = match self.src.as_bytes()[..close].last() {
            Some(b'-') if close > body => Some(b'-'),
            Some(b'+') if close > body => Some(b'+'),
            _ => None,
        };
        Ok((close + 2, modifier))
    }

    /// Tokenizes a `{{ }}` or `{% %}` tag; returns the offset after it and its end modifier.
    fn tag(
        &mut self,
        tag_at: usize,
        body: usize,
        kind: TagKind,
    ) -> Result<(usize, Option<u8>), Error> {
        let src = self.src;
        self.out.push(Token {
            tok: if kind == TagKind::Var {
                Tok::VarStart
            } else {
                Tok::BlockStart
            },
            span: Span::new(tag_at, body),
        });
        let mut pos = body;
        // The closers of the open brackets: while any is open, `}}` is two closing braces
        // (as in jinja2), and a closer must match the innermost opener. The stack is the
        // lexer's, reused from tag to tag.
        let closers = &mut self.closers;
        closers.clear();
        let mut win = Window::at(src.as_bytes(), pos);
        while let Some((t, s, e)) = next_inner(src, pos, &mut win) {
            pos = e;
            // The span is built where the token is pushed (from registers: a span kept in
            // memory and read back whole stalls the store buffer).
            let tok = match t {
                Ok(Inner::Name) => Tok::Name(&src[s..e]),
                Ok(Inner::Op) => {
                    let second = if e - s == 2 { src.as_bytes()[s + 1] } else { 0 };
                    let Some(op) = Op::from_bytes(src.as_bytes()[s], second) else {
                        return Err(err!(Syntax, "unexpected {:?}", &src[s..e]).with_offset(src, s));
                    };
                    match op {
                        Op::LParen => closers.push(b')'),
                        Op::LBracket => closers.push(b']'),
                        Op::LBrace => closers.push(b'}'),
                        Op::RParen => close_bracket(closers, b')', src, s)?,
                        Op::RBracket => close_bracket(closers, b']', src, s)?,
                        Op::RBrace => close_bracket(closers, b'}', src, s)?,
                        _ => {}
                    }
                    Tok::Op(op)
                }
                Ok(Inner::VarEnd | Inner::VarEndTrim)
                    if !closers.is_empty() || kind != TagKind::Var =>
                {
                    // Take one character as an operator and lex again after it.
                    let first = if src.as_bytes()[s] == b'-' {
                        Op::Sub
                    } else {
                        close_bracket(closers, b'}', src, s)?;
                        Op::RBrace
                    };
                    self.out.push(Token {
                        tok: Tok::Op(first),
                        span: Span::new(s, s + 1),
                    });
                    pos = s + 1;
                    continue;
                }
                Ok(t @ (Inner::VarEnd | Inner::VarEndTrim)) => {
                    self.out.push(Token {
                        tok: Tok::VarEnd,
                        span: Span::new(s, e),
                    });
                    let m = (t == Inner::VarEndTrim).then_some(b'-');
                    return Ok((e, m));
                }
                Ok(t @ (Inner::BlockEnd | Inner::BlockEndTrim | Inner::BlockEndKeep)) => {
                    if kind != TagKind::Block {
                        // An end marker of the other tag kind: jinja2 reads it as operators.
                        return Err(err!(Syntax, "unexpected '%}}'").with_offset(src, s));
                    }
                    self.out.push(Token {
                        tok: Tok::BlockEnd,
                        span: Span::new(s, e),
                    });
                    let m = match t {
                        Inner::BlockEndTrim => Some(b'-'),
                        Inner::BlockEndKeep => Some(b'+'),
                        _ => None,
                    };
                    return Ok((e, m));
                }
                Ok(Inner::Str) => {
                    let text = &src[s..e];
                    let body = unescape_in(&text[1..text.len() - 1], self.arena)
                        .map_err(|m| Error::new(crate::ErrorKind::Syntax, m).with_offset(src, s))?;
                    Tok::Str(body)
                }
                Ok(Inner::Int) => {
                    let text = &src[s..e];
                    match without_underscores(text).parse() {
                        Ok(i) => Tok::Int(IntLit::new(i)),
                        Err(_) => Tok::BigInt(text),
                    }
                }
                Ok(Inner::RadixInt) => {
                    let text = &src[s..e];
                    let digits = without_underscores(&text[2..]);
                    let radix = match text.as_bytes()[1] {
                        b'x' | b'X' => 16,
                        b'o' | b'O' => 8,
                        _ => 2,
                    };
                    match i128::from_str_radix(&digits, radix) {
                        Ok(i) => Tok::Int(IntLit::new(i)),
                        Err(_) => Tok::BigInt(text),
                    }
                }
                // jinja2 reads no float right after a dot (`x.1.0` is two subscripts): take
                // the integer part and lex again after it.
                Ok(Inner::Float) if s > 0 && src.as_bytes()[s - 1] == b'.' => {
                    let text = &src[s..e];
                    let digits = text
                        .find(|c: char| !(c.is_ascii_digit() || c == '_'))
                        .unwrap_or(text.len());
                    let int = without_underscores(&text[..digits]);
                    self.out.push(Token {
                        tok: Tok::Int(IntLit::new(int.parse().map_err(|_| {
                            err!(Overflow, "integer literal too large").with_offset(src, s)
                        })?)),
                        span: Span::new(s, s + digits),
                    });
                    pos = s + digits;
                    continue;
                }
                Ok(Inner::Float) => Tok::Float(
                    without_underscores(&src[s..e])
                        .parse()
                        .unwrap_or(f64::INFINITY),
                ),
                Err(()) => {
                    let what = src[s..e].chars().next().unwrap_or(' ');
                    let msg = if what == '\'' || what == '"' {
                        "unterminated string".to_string()
                    } else {
                        format!("unexpected character {what:?}")
                    };
                    return Err(Error::new(crate::ErrorKind::Syntax, msg).with_offset(src, s));
                }
            };
            self.out.push(Token {
                tok,
                span: Span::new(s, e),
            });
        }
        let what = if kind == TagKind::Var { "'}}'" } else { "'%}'" };
        Err(err!(Syntax, "unexpected end of template, expected {what}").with_offset(src, tag_at))
    }

    /// After a block tag: if it was `{% raw %}`, replaces its tokens with the verbatim text up
    /// to `{% endraw %}` and returns where lexing resumes and the end tag's end modifier.
    fn raw_block(
        &mut self,
        body_start: usize,
        open_mod: Option<u8>,
    ) -> Result<Option<(usize, Option<u8>)>, Error> {
        let n = self.out.len();
        if n < 3
            || self.out[n - 2].tok != Tok::Name("raw")
            || self.out[n - 3].tok != Tok::BlockStart
        {
            return Ok(None);
        }
        let open = self.out[n - 3].span;
        if open_mod == Some(b'+') {
            // jinja2's raw tag ends with `%}` or `-%}` only; `+%}` leaves an unknown tag.
            return Err(err!(Syntax, "Encountered unknown tag 'raw'.")
                .with_offset(self.src, open.start as usize));
        }
        self.out.truncate(n - 3);
        let src = self.src;
        let mut search = body_start;
        while let Some(rel) = find_pair(&src.as_bytes()[search..], b'{', b'%') {
            let at = search + rel;
            let mut i = at + 2;
            let modifier = src.as_bytes().get(i).copied();
            if matches!(modifier, Some(b'-' | b'+')) {
                i += 1;
            }
            let rest = &src[i..];
            let trimmed = rest.trim_start();
            if let Some(after) = trimmed.strip_prefix("endraw") {
                let after_ws = after.trim_start();
                let close_at = src.len() - after_ws.len();
                let (end_mod, len) = if after_ws.starts_with("-%}") {
                    (Some(b'-'), 3)
                } else if after_ws.starts_with("+%}") {
                    (Some(b'+'), 3)
                } else if after_ws.starts_with("%}") {
                    (None, 2)
                } else {
                    search = at + 2;
                    continue;
                };
                let mut text_end = at;
                if modifier == Some(b'-') {
                    text_end = trim_space_end(src, body_start, text_end);
                } else if modifier != Some(b'+') {
                    // lstrip_blocks: spaces and tabs from the start of the tag's line.
                    let line_start = src[..at].rfind('\n').map_or(0, |n| n + 1);
                    if line_start >= body_start
                        && src[line_start..at].bytes().all(|b| b == b' ' || b == b'\t')
                    {
                        text_end = line_start;
                    }
                }
                if text_end > body_start {
                    self.out.push(Token {
                        tok: Tok::Raw,
                        span: Span::new(body_start, text_end),
                    });
                }
                return Ok(Some((close_at + len, end_mod)));
            }
            search = at + 2;
        }
        // jinja2 stops quietly when nothing follows the raw tag.
        if body_start >= src.len() {
            return Ok(Some((src.len(), None)));
        }
        Err(err!(Syntax, "missing endraw tag").with_offset(src, open.start as usize))
    }
}

/// The next token inside a tag at or after `pos` (whitespace skipped): its kind (an error for
/// a character no token starts with), start and end; `None` at the end of the source. `win`
/// is moved on when `pos` is past it.
///
/// Names of ASCII letters, strings, operators and tag ends (nearly every token of a real
/// template) are read here; anything else (numbers, non-ASCII names, errors) is left to the
/// logos lexer, which defines the grammar.
#[inline]
fn next_inner(
    src: &str,
    mut pos: usize,
    win: &mut Window,
) -> Option<(Result<Inner, ()>, usize, usize)> {
    let bytes = src.as_bytes();
    // Whitespace: the run of space bits from `pos` (moving the window while the run reaches
    // its end).
    let mut rel = pos.wrapping_sub(win.base);
    loop {
        if rel < WIN {
            // Bits past the window count as not space: a run that reaches the end of the
            // window counts at least up to it.
            let run = (!win.space >> rel).trailing_zeros() as usize;
            if rel + run < WIN {
                pos += run;
                rel += run;
                break;
            }
            pos = win.base + WIN;
        }
        *win = Window::at(bytes, pos);
        rel = 0;
    }
    let b = *bytes.get(pos)?;
    let at = |i: usize| bytes.get(pos + i).copied();
    let one = |t: Inner, len: usize| Some((Ok(t), pos, pos + len));
    match b {
        b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
            // The run of name bits from `pos` (its first bit is set: `b` is a name byte).
            let len = (!win.name >> rel).trailing_zeros() as usize;
            let mut e = pos + len;
            if rel + len >= WIN {
                e = win.base + WIN;
                // The name goes on past the window: eight bytes at a time, then byte by byte.
                while e + 8 <= bytes.len() {
                    let stops = not_name_bytes(crate::value::ops::le64(bytes, e));
                    if stops != 0 {
                        e += (stops.trailing_zeros() / 8) as usize;
                        break;
                    }
                    e += 8;
                }
                while let Some(&c) = bytes.get(e) {
                    if NAME_BYTE[usize::from(c)] != NAME_CONTINUE {
                        break;
                    }
                    e += 1;
                }
            }
            match bytes.get(e) {
                Some(&c) if c >= 0x80 => logos_one(src, pos),
                _ => Some((Ok(Inner::Name), pos, e)),
            }
        }
        b'\'' | b'"' => {
            let mut e = pos + 1;
            while let Some(i) = find_byte2(bytes.get(e..).unwrap_or_default(), b, b'\\') {
                e += i;
                if bytes[e] == b {
                    return Some((Ok(Inner::Str), pos, e + 1));
                }
                // A backslash escapes the next character (its first byte is enough: the
                // others of a UTF-8 sequence are neither quotes nor backslashes).
                e += 2;
            }
            logos_one(src, pos)
        }
        b'}' if at(1) == Some(b'}') => one(Inner::VarEnd, 2),
        b'%' if at(1) == Some(b'}') => one(Inner::BlockEnd, 2),
        b'-' if at(1) == Some(b'}') && at(2) == Some(b'}') => one(Inner::VarEndTrim, 3),
        b'-' if at(1) == Some(b'%') && at(2) == Some(b'}') => one(Inner::BlockEndTrim, 3),
        b'+' if at(1) == Some(b'%') && at(2) == Some(b'}') => one(Inner::BlockEndKeep, 3),
        b'*' if at(1) == Some(b'*') => one(Inner::Op, 2),
        b'/' if at(1) == Some(b'/') => one(Inner::Op, 2),
        b'=' | b'!' | b'<' | b'>' if at(1) == Some(b'=') => one(Inner::Op, 2),
        b'-' | b'+' | b'*' | b'/' | b'%' | b'~' | b'<' | b'>' | b'=' | b'(' | b')' | b'['
        | b']' | b'{' | b'}' | b'.' | b',' | b':' | b'|' => one(Inner::Op, 1),
        _ => logos_one(src, pos),
    }
}

/// Classes of [`NAME_BYTE`]: an ASCII letter, digit or `_` continues a name; another ASCII
/// byte ends it; a non-ASCII byte sends the name to the logos lexer (Unicode identifiers).
const NAME_END: u8 = 0;
const NAME_CONTINUE: u8 = 1;
const NAME_UNICODE: u8 = 2;

/// The class of each byte after the first of a name (one load per byte instead of range tests).
static NAME_BYTE: [u8; 256] = {
    let mut t = [NAME_END; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b.is_ascii_alphanumeric() || b == b'_' {
            NAME_CONTINUE
        } else if b >= 0x80 {
            NAME_UNICODE
        } else {
            NAME_END
        };
        i += 1;
    }
    t
};

/// One token of the logos lexer at `pos`.
fn logos_one(src: &str, pos: usize) -> Option<(Result<Inner, ()>, usize, usize)> {
    let mut lex = Inner::lexer(&src[pos..]);
    let t = lex.next()?;
    let r = lex.span();
    Some((t, pos + r.start, pos + r.end))
}

/// Closes the innermost bracket with `c`, which must be its closer.
#[inline]
fn close_bracket(
    closers: &mut smallvec::SmallVec<[u8; 16]>,
    c: u8,
    src: &str,
    at: usize,
) -> Result<(), Error> {
    if closers.last() == Some(&c) {
        closers.pop();
        return Ok(());
    }
    Err(bracket_error(closers.last().copied(), c, src, at))
}

/// The error for closer `c` where the innermost open bracket wants `want`.
#[cold]
fn bracket_error(want: Option<u8>, c: u8, src: &str, at: usize) -> Error {
    let c = char::from(c);
    match want.map(char::from) {
        Some(want) => err!(Syntax, "unexpected '{c}', expected '{want}'").with_offset(src, at),
        None => err!(Syntax, "unexpected '{c}'").with_offset(src, at),
    }
}

/// A number literal without its `_` separators, copied only when it has some.
fn without_underscores(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('_') {
        std::borrow::Cow::Owned(text.replace('_', ""))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The next tag opener at or after `pos`.
fn find_tag(bytes: &[u8], mut pos: usize) -> Option<(usize, TagKind)> {
    while let Some(rel) = find_byte(&bytes[pos..], b'{') {
        let at = pos + rel;
        match bytes.get(at + 1) {
            Some(b'{') => return Some((at, TagKind::Var)),
            Some(b'%') => return Some((at, TagKind::Block)),
            Some(b'#') => return Some((at, TagKind::Comment)),
            _ => pos = at + 1,
        }
    }
    None
}

/// The offset of the first non-whitespace character at or after `pos`.
fn skip_space(src: &str, pos: usize) -> usize {
    let bytes = src.as_bytes();
    let mut i = pos;
    // Sixteen bytes at a time up to the first byte that is not ASCII whitespace.
    while let Some(part) = bytes.get(i..i + 16) {
        let stops = !space16(part) & 0xffff;
        if stops != 0 {
            i += stops.trailing_zeros() as usize;
            break;
        }
        i += 16;
    }
    // ASCII whitespace byte by byte; anything else non-ASCII goes through the char test.
    while let Some(&b) = bytes.get(i) {
        if b == b' ' || (b'\t'..=b'\r').contains(&b) || (0x1c..=0x1f).contains(&b) {
            i += 1;
        } else if b < 0x80 {
            return i;
        } else {
            return src[i..]
                .char_indices()
                .find(|(_, c)| !py_isspace(*c))
                .map_or(src.len(), |(j, _)| i + j);
        }
    }
    i
}

/// The end of `src[start..end]` with trailing whitespace removed.
fn trim_space_end(src: &str, start: usize, end: usize) -> usize {
    let bytes = src.as_bytes();
    let mut i = end;
    // Sixteen bytes at a time back to the last byte that is not ASCII whitespace.
    while i >= start + 16 {
        let stops = !space16(&bytes[i - 16..i]) & 0xffff;
        if stops != 0 {
            i -= stops.leading_zeros() as usize - 16;
            break;
        }
        i -= 16;
    }
    // ASCII whitespace byte by byte; a non-ASCII byte goes through the char test.
    while i > start {
        let b = bytes[i - 1];
        if b == b' ' || (b'\t'..=b'\r').contains(&b) || (0x1c..=0x1f).contains(&b) {
            i -= 1;
        } else if b < 0x80 {
            return i;
        } else {
            return start + src[start..i].trim_end_matches(py_isspace).len();
        }
    }
    i
}

/// An operator or punctuation token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `**`
    Pow,
    /// `//`
    FloorDiv,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `-`
    Sub,
    /// `+`
    Add,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `~`
    Tilde,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `=`
    Assign,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `.`
    Dot,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `|`
    Pipe,
}

impl Op {
    /// The operator's text.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Op::Pow => "**",
            Op::FloorDiv => "//",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Le => "<=",
            Op::Ge => ">=",
            Op::Sub => "-",
            Op::Add => "+",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Mod => "%",
            Op::Tilde => "~",
            Op::Lt => "<",
            Op::Gt => ">",
            Op::Assign => "=",
            Op::LParen => "(",
            Op::RParen => ")",
            Op::LBracket => "[",
            Op::RBracket => "]",
            Op::LBrace => "{",
            Op::RBrace => "}",
            Op::Dot => ".",
            Op::Comma => ",",
            Op::Colon => ":",
            Op::Pipe => "|",
        }
    }

    /// The operator written as `first` then `second` (0 for a one-byte operator).
    #[inline]
    fn from_bytes(first: u8, second: u8) -> Option<Op> {
        Some(match (first, second) {
            (b'*', b'*') => Op::Pow,
            (b'/', b'/') => Op::FloorDiv,
            (b'=', b'=') => Op::Eq,
            (b'!', b'=') => Op::Ne,
            (b'<', b'=') => Op::Le,
            (b'>', b'=') => Op::Ge,
            (b'-', 0) => Op::Sub,
            (b'+', 0) => Op::Add,
            (b'*', 0) => Op::Mul,
            (b'/', 0) => Op::Div,
            (b'%', 0) => Op::Mod,
            (b'~', 0) => Op::Tilde,
            (b'<', 0) => Op::Lt,
            (b'>', 0) => Op::Gt,
            (b'=', 0) => Op::Assign,
            (b'(', 0) => Op::LParen,
            (b')', 0) => Op::RParen,
            (b'[', 0) => Op::LBracket,
            (b']', 0) => Op::RBracket,
            (b'{', 0) => Op::LBrace,
            (b'}', 0) => Op::RBrace,
            (b'.', 0) => Op::Dot,
            (b',', 0) => Op::Comma,
            (b':', 0) => Op::Colon,
            (b'|', 0) => Op::Pipe,
            _ => return None,
        })
    }
}

/// Decodes a string literal's body as jinja2 does (Python's `unicode-escape` after
/// `backslashreplace`): known escapes are decoded, unknown ones kept with their backslash;
/// a truncated `\x`/`\u`/`\U` escape or an unknown `\N{NAME}` is the codec's error.
#[cfg(test)]
pub(crate) fn unescape(body: &str) -> Result<std::borrow::Cow<'_, str>, &'static str> {
    if find_byte(body.as_bytes(), b'\\').is_none() {
        return Ok(std::borrow::Cow::Borrowed(body));
    }
    let mut out = String::with_capacity(body.len());
    decode(body, &mut out)?;
    Ok(std::borrow::Cow::Owned(out))
}

/// [`unescape`] into `arena`: the body itself when it has no backslash, else its decoded
/// text written once into the arena (no heap string per literal).
pub(crate) fn unescape_in<'a>(
    body: &'a str,
    arena: &'a bumpalo::Bump,
) -> Result<&'a str, &'static str> {
    if find_byte(body.as_bytes(), b'\\').is_none() {
        return Ok(body);
    }
    let mut out = bumpalo::collections::String::with_capacity_in(body.len(), arena);
    decode(body, &mut out)?;
    Ok(out.into_bump_str())
}

/// Where [`decode`] writes: a heap or an arena string.
trait Out {
    fn push_str(&mut self, s: &str);
    fn push(&mut self, c: char);
}

impl Out for String {
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s);
    }
    fn push(&mut self, c: char) {
        String::push(self, c);
    }
}

impl Out for bumpalo::collections::String<'_> {
    fn push_str(&mut self, s: &str) {
        bumpalo::collections::String::push_str(self, s);
    }
    fn push(&mut self, c: char) {
        bumpalo::collections::String::push(self, c);
    }
}

/// Decodes `body`, which has a backslash, into `out` (see [`unescape`]).
fn decode(body: &str, out: &mut impl Out) -> Result<(), &'static str> {
    let mut chars = body.chars();
    loop {
        // The text up to the next backslash is copied as it is.
        let rest = chars.as_str();
        let Some(i) = memchr::memchr(b'\\', rest.as_bytes()) else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..i]);
        chars = rest[i + 1..].chars();
        let Some(e) = chars.clone().next() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            '\n' => Some(None),
            '\\' => Some(Some('\\')),
            '\'' => Some(Some('\'')),
            '"' => Some(Some('"')),
            'a' => Some(Some('\x07')),
            'b' => Some(Some('\x08')),
            'f' => Some(Some('\x0c')),
            'n' => Some(Some('\n')),
            'r' => Some(Some('\r')),
            't' => Some(Some('\t')),
            'v' => Some(Some('\x0b')),
            _ => None,
        };
        if let Some(decoded) = simple {
            chars.next();
            if let Some(c) = decoded {
                out.push(c);
            }
            continue;
        }
        let hex = |n: usize, chars: &mut std::str::Chars<'_>| -> Option<char> {
            let mut look = chars.clone();
            let mut v = 0u32;
            for _ in 0..n {
                v = v * 16 + look.next()?.to_digit(16)?;
            }
            let c = char::from_u32(v)?;
            *chars = look;
            Some(c)
        };
        match e {
            '0'..='7' => {
                let mut v = 0u32;
                for _ in 0..3 {
                    match chars.clone().next().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            'x' | 'u' | 'U' => {
                chars.next();
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                match hex(n, &mut chars) {
                    Some(c) => out.push(c),
                    None => {
                        let mut look = chars.clone();
                        let digits = (0..n)
                            .take_while(|_| look.next().is_some_and(|d| d.is_ascii_hexdigit()))
                            .count();
                        if digits == n {
                            // Every digit is there: the code point is past U+10FFFF (or a
                            // lone surrogate, which Rust strings cannot hold).
                            return Err("illegal Unicode character");
                        }
                        return Err(match e {
                            'x' => "truncated \\xXX escape",
                            'u' => "truncated \\uXXXX escape",
                            _ => "truncated \\UXXXXXXXX escape",
                        });
                    }
                }
            }
            'N' => {
                // `\N{NAME}`: a character by its Unicode name or alias, any case, as
                // Python's unicode-escape codec reads it; an unknown or malformed name is
                // the codec's error.
                let mut look = chars.clone();
                look.next();
                let mut named = None;
                if look.next() == Some('{') {
                    // The longest Unicode name has 88 characters; stop well after that so
                    // a template full of unclosed `\N{` stays linear.
                    let mut name = String::new();
                    for c in look.by_ref().take(256) {
                        if c == '}' {
                            named = unicode_names2::character(&name);
                            break;
                        }
                        name.push(c);
                    }
                }
                match named {
                    Some(c) => {
                        out.push(c);
                        chars = look;
                    }
                    None => {
                        return Err(
                            "malformed \\N character escape or unknown Unicode character name",
                        )
                    }
                }
            }
            _ => out.push('\\'),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word test agrees with the byte table for every byte at every position, next to
    /// name bytes and next to other bytes.
    #[test]
    fn word_name_test_matches_byte_table() {
        for fill in [b'a', b'Z', b'_', b'7', b' ', 0x80, 0xff] {
            for at in 0..8 {
                for b in 0..=255u8 {
                    let mut w = [fill; 8];
                    w[at] = b;
                    let stops = not_name_bytes(u64::from_le_bytes(w));
                    for (i, &c) in w.iter().enumerate() {
                        let stop = stops & (0x80 << (8 * i)) != 0;
                        assert_eq!(
                            stop,
                            NAME_BYTE[usize::from(c)] != NAME_CONTINUE,
                            "{w:?} {i}"
                        );
                    }
                }
            }
        }
    }

    /// The window's classes agree with the byte rules for every byte at every position, with
    /// every filler around it, and past the end of the source.
    #[test]
    fn window_classes_match_byte_rules() {
        let is_space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c');
        let is_name = |c: u8| NAME_BYTE[usize::from(c)] == NAME_CONTINUE;
        for fill in [b'a', b'Z', b'_', b'7', b' ', b'\t', b'\r', b'{', 0x80, 0xff] {
            for at in 0..WIN + 3 {
                for b in 0..=255u8 {
                    let mut src = [fill; WIN + 3];
                    src[at] = b;
                    for base in [0, 1, 3] {
                        for len in [WIN + 3, base + WIN / 2, base + 1] {
                            let bytes = &src[..len];
                            let win = Window::at(bytes, base);
                            let chunk = &bytes[base..(base + WIN).min(len)];
                            let mut padded = [0u8; WIN];
                            padded[..chunk.len()].copy_from_slice(chunk);
                            let words = classify_words(&padded, base);
                            assert_eq!((words.space, words.name), (win.space, win.name));
                            for i in 0..WIN {
                                let c = bytes.get(base + i).copied();
                                let bit = |m: u64| m >> i & 1 != 0;
                                assert_eq!(bit(win.space), c.is_some_and(is_space), "{c:?} {i}");
                                assert_eq!(bit(win.name), c.is_some_and(is_name), "{c:?} {i}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Tokens found through the window are those of the logos lexer, for runs of
    /// whitespace and names of every length across the window's end.
    #[test]
    fn window_tokens_match_logos() {
        for pad in 0..WIN + 10 {
            for len in 1..WIN + 10 {
                for stop in [" ", "", ".x", "é", "1", "'s'", "\t\n-", "}}"] {
                    let mut src = "{{".to_string();
                    for i in 0..pad {
                        src.push([' ', '\t', '\n', '\r', '\x0b', '\x0c'][i % 6]);
                    }
                    for i in 0..len {
                        src.push(['a', 'Z', '_', '0'][if i == 0 { 0 } else { i % 4 }]);
                    }
                    src.push_str(stop);
                    src.push_str(" x }}");
                    let mut ours = Vec::new();
                    let mut pos = 2;
                    let mut win = Window::at(src.as_bytes(), pos);
                    while let Some((t, s, e)) = next_inner(&src, pos, &mut win) {
                        ours.push((t, s, e));
                        pos = e;
                    }
                    let mut lex = Inner::lexer(&src[2..]);
                    let mut theirs = Vec::new();
                    while let Some(t) = lex.next() {
                        theirs.push((t, lex.span().start + 2, lex.span().end + 2));
                    }
                    assert_eq!(ours, theirs, "{src:?}");
                }
            }
        }
    }

    /// The sixteen-byte whitespace test agrees with the byte test for every byte at every
    /// position, and trimming agrees with Python's rule (`str.isspace`) across runs longer
    /// than sixteen bytes.
    #[test]
    fn space16_matches_bytes() {
        for fill in [b' ', b'\n', 0x1f, b'x', 0x80] {
            for at in 0..16 {
                for b in 0..=255u8 {
                    let mut part = [fill; 16];
                    part[at] = b;
                    assert_eq!(space16(&part), py_space_bytes(&part), "{part:?}");
                }
            }
        }
        for n in 0..40 {
            for tail in ["", "x", "\u{2003}", "\u{1c}y"] {
                let ws: String = (0..n).map(|i| [' ', '\t', '\n', '\x1c'][i % 4]).collect();
                let s = format!("a{ws}{tail}");
                let want = s[1..].trim_start_matches(py_isspace);
                assert_eq!(skip_space(&s, 1), s.len() - want.len(), "{s:?}");
                let s = format!("{tail}{ws}a");
                let keep = s[..s.len() - 1].trim_end_matches(py_isspace).len();
                assert_eq!(trim_space_end(&s, 0, s.len() - 1), keep, "{s:?}");
            }
        }
    }

    fn data_of(src: &str) -> Vec<String> {
        let src = normalize(src);
        let arena = bumpalo::Bump::new();
        let toks = tokenize(&src, &arena).unwrap();
        let data = toks
            .iter()
            .filter(|t| t.tok == Tok::Data)
            .map(|t| src[t.span.start as usize..t.span.end as usize].to_string())
            .collect();
        data
    }

    #[test]
    fn whitespace_control() {
        // Expected text from jinja2 3.1.6 with trim_blocks and lstrip_blocks.
        assert_eq!(
            data_of("{# c #}\n  {% if 1 %}\n  a\n  {%- endif %}\nb"),
            ["  a", "b"]
        );
        assert_eq!(
            data_of("  {#- c #}  x {{ 1 }}  {% if 1 %}y{% endif %}"),
            ["  x ", "  ", "y"]
        );
        assert_eq!(data_of("a\r\n  {% if x %}\r\nb\n"), ["a\n", "b"]);
        assert_eq!(data_of("{{ x -}}  \n y {%+ if %}"), ["y "]);
    }

    fn un(s: &str) -> String {
        unescape(s)
            .map(|c| c.into_owned())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn strings_decode_like_python() {
        assert_eq!(un(r"a\nb\'\x41\u00e9\s"), "a\nb'Aé\\s");
        assert_eq!(un(r"\101\0"), "A\0");
        assert_eq!(un(r"\x4"), "error: truncated \\xXX escape");
        assert_eq!(un(r"\u12g4"), "error: truncated \\uXXXX escape");
        assert_eq!(un(r"\U00110000"), "error: illegal Unicode character");
    }

    #[test]
    fn named_escapes_decode_like_python() {
        // Expected values from Python's unicode-escape codec (jinja2 3.1.6).
        assert_eq!(un(r"\N{DEGREE SIGN}x"), "°x");
        assert_eq!(un(r"\N{degree sign}"), "°");
        assert_eq!(
            un(r"\N{LATIN SMALL LETTER A}\N{CJK UNIFIED IDEOGRAPH-4E2D}\N{HANGUL SYLLABLE GA}"),
            "a中가"
        );
        assert_eq!(un(r"\N{BEL}\N{LINE FEED}\N{EM SPACE}"), "\x07\n\u{2003}");
        // Unknown and malformed names are the codec's errors, as in jinja2.
        for bad in [r"\N{NOPE}", r"\N{DEGREE SIGN", r"\Nx"] {
            assert!(un(bad).starts_with("error: malformed"), "{bad}");
        }
    }

    #[test]
    fn inline_searches_agree_with_memchr() {
        // Hits before, at and after the inline part, and none.
        for len in 0..40 {
            for at in 0..=len {
                let mut hay = vec![b'x'; len];
                if at < len {
                    hay[at] = b'{';
                }
                assert_eq!(find_byte(&hay, b'{'), memchr::memchr(b'{', &hay));
                assert_eq!(rfind_byte(&hay, b'{'), memchr::memrchr(b'{', &hay));
                assert_eq!(
                    find_byte2(&hay, b'"', b'{'),
                    memchr::memchr2(b'"', b'{', &hay)
                );
                if len >= INLINE {
                    for b in 0..=255u8 {
                        let mut hay = hay.clone();
                        hay[at.min(INLINE - 1)] = b;
                        assert_eq!(first16_either(&hay, b'"', b), either_bytes(&hay, b'"', b));
                    }
                }
            }
        }
    }

    #[test]
    fn errors_point_at_the_tag() {
        let arena = bumpalo::Bump::new();
        let e = tokenize("ab\n {{ x", &arena).unwrap_err();
        assert_eq!(e.location(), Some((2, 2)));
        assert!(tokenize("{{ 'abc }}", &arena).is_err());
    }
}
