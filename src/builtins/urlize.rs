//! The `urlize` filter: jinja2's `do_urlize` and `utils.urlize`. The text is HTML-escaped,
//! split at whitespace, and each word that is a URL (`http://`, `https://`, `www.`, a bare
//! domain of a common TLD, an IP address) or an email address becomes a link, leading `(`/`<`
//! and trailing `.`, `,`, `)`, `>` left outside it. Links get `rel="noopener"` (the
//! environment's `urlize.rel` policy) plus any `rel` given and `nofollow`. Python's regular
//! expressions are matched by hand here, with their Unicode `\w`, `\s` and `\d`.

use crate::error::{err, Error, ExceptionClass};
use crate::value::markup::escape_into;
use crate::value::ops;
use crate::value::{Ctx, VResult, Value};

use super::args::{bind, to_str};
use super::Kwargs;

/// `value|urlize(trim_url_limit, nofollow, target, rel, extra_schemes)`.
pub(super) fn urlize<'a>(
    ctx: &Ctx<'a>,
    v: Value<'a>,
    a: &[Value<'a>],
    k: Kwargs<'_, 'a>,
) -> VResult<'a> {
    let [limit, nofollow, target, rel, extra] = bind(
        "urlize",
        [
            "trim_url_limit",
            "nofollow",
            "target",
            "rel",
            "extra_schemes",
        ],
        a,
        k,
    )?;
    let mut rel_parts: Vec<&str> = match rel {
        Some(r) if r.is_true() => match r {
            Value::Str(s) | Value::Markup(s) => {
                s.split(is_space).filter(|p| !p.is_empty()).collect()
            }
            other => {
                return Err(err!(
                    Type,
                    "'{}' object has no attribute 'split'",
                    other.type_name()
                )
                .with_class(ExceptionClass::AttributeError))
            }
        },
        _ => Vec::new(),
    };
    if nofollow.is_some_and(|n| n.is_true()) {
        rel_parts.push("nofollow");
    }
    rel_parts.push("noopener");
    rel_parts.sort_unstable();
    rel_parts.dedup();
    let mut attrs = String::from(" rel=\"");
    escape_into(&mut attrs, &rel_parts.join(" "));
    attrs.push('"');
    if let Some(t) = target.filter(|t| !matches!(t, Value::None) && t.is_true()) {
        attrs.push_str(" target=\"");
        match t {
            Value::Markup(s) => attrs.push_str(s),
            other => escape_into(&mut attrs, to_str(ctx, &other)),
        }
        attrs.push('"');
    }
    let mut schemes: Vec<&str> = Vec::new();
    if let Some(e) = extra.filter(|e| !matches!(e, Value::None)) {
        for s in ops::iterate(ctx, e)? {
            let Some(s) = s.as_str() else {
                return Err(err!(Type, "expected string or bytes-like object"));
            };
            if !is_scheme(s) {
                let mut r = String::new();
                crate::value::fmt::write_str_repr(&mut r, s);
                return Err(err!(Value, "{r} is not a valid URI scheme prefix.")
                    .with_class(ExceptionClass::FilterArgumentError));
            }
            schemes.push(s);
        }
    }
    let limit = match limit {
        None | Some(Value::None) => Limit::None,
        Some(Value::Int(i)) => Limit::Chars(i),
        Some(Value::Bool(b)) => Limit::Chars(i64::from(b)),
        Some(Value::Float(f)) => Limit::Float(f),
        Some(u @ Value::Undefined(_)) => Limit::Undefined(ops::undefined_error(&u)),
        Some(other) => Limit::Bad(other.type_name()),
    };
    let text = match crate::value::markup::escape(ctx, v) {
        Value::Markup(s) | Value::Str(s) => s,
        _ => "",
    };
    let mut out = String::with_capacity(text.len() * 2);
    let opts = Opts {
        attrs: &attrs,
        limit,
        schemes: &schemes,
    };
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        let space = is_space(c);
        if space != in_space && i > start {
            word(&mut out, &text[start..i], &opts)?;
            start = i;
        }
        in_space = space;
    }
    word(&mut out, &text[start..], &opts)?;
    Ok(ctx.str(&out))
}

/// `trim_url_limit`, as Python uses it: `len(x) > limit` then `x[:limit]`.
#[derive(Clone)]
enum Limit {
    /// No trimming.
    None,
    /// An int (negative slices from the end, as Python's do).
    Chars(i64),
    /// A float: the comparison works, the slice fails.
    Float(f64),
    /// Any other type: the comparison fails.
    Bad(&'static str),
    /// An undefined value: the comparison raises its error.
    Undefined(Error),
}

/// What every word needs.
struct Opts<'o> {
    /// ` rel="..."` and ` target="..."`.
    attrs: &'o str,
    /// How long the shown URL may be.
    limit: Limit,
    /// `extra_schemes`.
    schemes: &'o [&'o str],
}

/// The shown text of a URL: trimmed to the limit with `...`.
fn trim(out: &mut String, url: &str, limit: &Limit) -> Result<(), Error> {
    let n = url.chars().count();
    match *limit {
        Limit::None => out.push_str(url),
        Limit::Chars(l) if (n as i64) <= l => out.push_str(url),
        Limit::Chars(l) => {
            let keep = if l >= 0 {
                l as usize
            } else {
                n.saturating_sub(l.unsigned_abs() as usize)
            };
            out.extend(url.chars().take(keep));
            out.push_str("...");
        }
        Limit::Float(f) if (n as f64) <= f => out.push_str(url),
        Limit::Float(_) => {
            return Err(err!(
                Type,
                "slice indices must be integers or None or have an __index__ method"
            ))
        }
        Limit::Undefined(ref e) => return Err(e.clone()),
        Limit::Bad(t) => {
            return Err(err!(
                Type,
                "'>' not supported between instances of 'int' and '{t}'"
            ))
        }
    }
    Ok(())
}

/// One word (or run of whitespace) of the escaped text, linked if it is a URL.
fn word(out: &mut String, w: &str, o: &Opts<'_>) -> Result<(), Error> {
    // Leading `(`, `<` and `&lt;`.
    let mut head_len = 0;
    loop {
        let rest = &w[head_len..];
        if rest.starts_with('(') || rest.starts_with('<') {
            head_len += 1;
        } else if rest.starts_with("&lt;") {
            head_len += 4;
        } else {
            break;
        }
    }
    let (head, mut middle) = w.split_at(head_len);
    let mut tail = "";
    if let Some(at) = trailing_punctuation(middle) {
        tail = &middle[at..];
        middle = &middle[..at];
    }
    // Prefer balanced parentheses: move closers back from the tail.
    let mut middle = middle.to_string();
    let mut tail = tail.to_string();
    for (open, close) in [("(", ")"), ("<", ">"), ("&lt;", "&gt;")] {
        let opens = middle.matches(open).count();
        if opens <= middle.matches(close).count() {
            continue;
        }
        for _ in 0..opens.min(tail.matches(close).count()) {
            let Some(i) = tail.find(close) else { break };
            let end = i + close.len();
            middle.push_str(&tail[..end]);
            tail.drain(..end);
        }
    }
    out.push_str(head);
    let m = middle.as_str();
    if is_http(m) {
        out.push_str("<a href=\"");
        if !(m.starts_with("https://") || m.starts_with("http://")) {
            out.push_str("https://");
        }
        out.push_str(m);
        out.push('"');
        out.push_str(o.attrs);
        out.push('>');
        trim(out, m, &o.limit)?;
        out.push_str("</a>");
    } else if let Some(addr) = m.strip_prefix("mailto:").filter(|a| is_email(a)) {
        out.push_str("<a href=\"");
        out.push_str(m);
        out.push_str("\">");
        out.push_str(addr);
        out.push_str("</a>");
    } else if m.contains('@')
        && !m.starts_with("www.")
        && !m.starts_with('@')
        && !m.contains(':')
        && is_email(m)
    {
        out.push_str("<a href=\"mailto:");
        out.push_str(m);
        out.push_str("\">");
        out.push_str(m);
        out.push_str("</a>");
    } else if o.schemes.iter().any(|s| m != *s && m.starts_with(s)) {
        out.push_str("<a href=\"");
        out.push_str(m);
        out.push('"');
        out.push_str(o.attrs);
        out.push('>');
        out.push_str(m);
        out.push_str("</a>");
    } else {
        out.push_str(m);
    }
    out.push_str(&tail);
    Ok(())
}

/// Where `([)>.,\n]|&gt;)+$` first matches in `s`.
fn trailing_punctuation(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    // ok[i]: s[i..] is a run of the punctuation tokens.
    let mut ok = vec![false; b.len() + 1];
    ok[b.len()] = true;
    for i in (0..b.len()).rev() {
        ok[i] = (matches!(b[i], b')' | b'>' | b'.' | b',' | b'\n') && ok[i + 1])
            || (b[i..].starts_with(b"&gt;") && ok[i + 4]);
    }
    (0..b.len()).find(|&i| ok[i])
}

/// Python's `\s` (`str.isspace`).
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `\w`: alphanumeric (as `str.isalnum`) or `_`.
fn is_word(c: char) -> bool {
    c == '_' || super::pyunicode::is_alnum(c)
}

/// Python's `\d`: a decimal digit.
fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || decimal_digit(c)
}

/// Whether a non-ASCII numeric character is a decimal digit (Unicode category Nd): digits
/// come in runs of ten starting at a code point ending in 0 or 6 in the blocks that have them.
fn decimal_digit(c: char) -> bool {
    let cp = u32::from(c);
    // The common scripts' digit blocks (Arabic-Indic to Myanmar, fullwidth).
    const STARTS: &[u32] = &[
        0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66, 0xde6,
        0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0xff10,
    ];
    STARTS.iter().any(|&s| (s..s + 10).contains(&cp))
}

/// A character as sre's IGNORECASE compares it to an ASCII letter.
fn fold(c: char) -> char {
    match c {
        '\u{212a}' => 'k',
        '\u{17f}' => 's',
        '\u{131}' | '\u{130}' => 'i',
        _ => c.to_ascii_lowercase(),
    }
}

/// Whether `cs[at..]` starts with `lit` (lowercase ASCII), ignoring case.
fn starts_ci(cs: &[char], at: usize, lit: &str) -> bool {
    let n = lit.len();
    cs.len() >= at + n
        && cs[at..at + n]
            .iter()
            .zip(lit.chars())
            .all(|(&c, l)| fold(c) == l)
}

/// `[\w%-]`.
fn is_host(c: char) -> bool {
    is_word(c) || c == '%' || c == '-'
}

/// The length of the run of `pred` characters at `cs[at..]`.
fn run(cs: &[char], at: usize, pred: impl Fn(char) -> bool) -> usize {
    cs.get(at..)
        .map_or(0, |r| r.iter().take_while(|&&c| pred(c)).count())
}

/// jinja2's `_http_re.match(s)` (the whole of `s`).
fn is_http(s: &str) -> bool {
    let cs: Vec<char> = s.chars().collect();
    let mut ends: Vec<usize> = Vec::new();
    let scheme = if starts_ci(&cs, 0, "https://") {
        Some(8)
    } else if starts_ci(&cs, 0, "http://") {
        Some(7)
    } else {
        None
    };
    // `(https?://|www\.)(([\w%-]+\.)+)?([a-z]{2,63}|xn--[\w%]{2,59})`
    let www = if starts_ci(&cs, 0, "www.") {
        Some(4)
    } else {
        None
    };
    if let Some(p) = scheme.or(www) {
        let mut q = p;
        loop {
            tld(&cs, q, &mut ends);
            let r = run(&cs, q, is_host);
            if r > 0 && cs.get(q + r) == Some(&'.') {
                q += r + 1;
            } else {
                break;
            }
        }
    }
    // `([\w%-]{2,63}\.)+(com|net|int|edu|gov|org|info|mil)`
    let mut q = 0;
    loop {
        let r = run(&cs, q, is_host);
        if !(2..=63).contains(&r) || cs.get(q + r) != Some(&'.') {
            break;
        }
        q += r + 1;
        for t in ["com", "net", "int", "edu", "gov", "org", "info", "mil"] {
            if starts_ci(&cs, q, t) {
                ends.push(q + t.len());
            }
        }
    }
    // `(https?://)(IPv4|IPv6)`
    if let Some(p) = scheme {
        ipv4(&cs, p, &mut ends);
        if cs.get(p) == Some(&'[') {
            if let Some(close) = cs[p..].iter().position(|&c| c == ']') {
                if ipv6(&cs[p + 1..p + close]) {
                    ends.push(p + close + 1);
                }
            }
        }
    }
    ends.iter().any(|&e| tail_ok(&cs[e..]))
}

/// The ends of `[a-z]{2,63}` and `xn--[\w%]{2,59}` at `cs[q..]`.
fn tld(cs: &[char], q: usize, ends: &mut Vec<usize>) {
    let r = run(cs, q, |c| fold(c).is_ascii_lowercase());
    for n in 2..=r.min(63) {
        ends.push(q + n);
    }
    if starts_ci(cs, q, "xn--") {
        let r = run(cs, q + 4, |c| is_word(c) || c == '%');
        for n in 2..=r.min(59) {
            ends.push(q + 4 + n);
        }
    }
}

/// The ends of `\d{1,3}(\.\d{1,3}){3}` at `cs[p..]`.
fn ipv4(cs: &[char], p: usize, ends: &mut Vec<usize>) {
    let mut q = p;
    for _ in 0..3 {
        let r = run(cs, q, is_digit);
        if !(1..=3).contains(&r) || cs.get(q + r) != Some(&'.') {
            return;
        }
        q += r + 1;
    }
    let r = run(cs, q, is_digit);
    for n in 1..=r.min(3) {
        ends.push(q + n);
    }
}

/// Whether `([\da-f]{0,4}:){2}([\da-f]{0,4}:?){1,6}` matches all of `cs`.
fn ipv6(cs: &[char]) -> bool {
    let hex = |c: char| c.is_ascii_hexdigit() || is_digit(c);
    if !cs.iter().all(|&c| hex(c) || c == ':') {
        return false;
    }
    let mut i = 0;
    for _ in 0..2 {
        let r = run(cs, i, hex);
        if r > 4 || cs.get(i + r) != Some(&':') {
            return false;
        }
        i += r + 1;
    }
    // The fewest `[\da-f]{0,4}:?` pieces covering the rest.
    let mut pieces = 0;
    while i < cs.len() {
        let r = run(cs, i, hex).min(4);
        i += r;
        if cs.get(i) == Some(&':') {
            i += 1;
        }
        pieces += 1;
    }
    pieces <= 6
}

/// `(?::\d{1,5})?(?:[/?#]\S*)?$` on what follows the host.
fn tail_ok(cs: &[char]) -> bool {
    let path_ok = |r: &[char]| match r.first() {
        None => true,
        Some('/' | '?' | '#') => r.iter().all(|&c| !is_space(c)),
        _ => false,
    };
    if path_ok(cs) {
        return true;
    }
    if cs.first() == Some(&':') {
        let r = run(cs, 1, is_digit);
        return (1..=r.min(5)).any(|n| path_ok(&cs[1 + n..]));
    }
    false
}

/// jinja2's `_email_re.match(s)`: `^\S+@\w[\w.-]*\.\w+$`.
fn is_email(s: &str) -> bool {
    s.char_indices().any(|(i, c)| {
        if c != '@' || i == 0 || s[..i].chars().any(is_space) {
            return false;
        }
        let domain = &s[i + 1..];
        let mut chars = domain.chars();
        if !chars.next().is_some_and(is_word) {
            return false;
        }
        if !domain.chars().all(|c| is_word(c) || c == '.' || c == '-') {
            return false;
        }
        match domain.rfind('.') {
            Some(j) if j >= 1 => {
                let tld = &domain[j + 1..];
                !tld.is_empty() && tld.chars().all(is_word)
            }
            _ => false,
        }
    })
}

/// jinja2's `_uri_scheme_re.fullmatch(s)`: `[\w.+-]{2,}:(/){0,2}`.
fn is_scheme(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let (name, rest) = (&s[..colon], &s[colon + 1..]);
    name.chars().count() >= 2
        && name
            .chars()
            .all(|c| is_word(c) || matches!(c, '.' | '+' | '-'))
        && rest.len() <= 2
        && rest.bytes().all(|b| b == b'/')
}
