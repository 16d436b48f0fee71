//! String helpers of the analysis: markers, common prefixes and suffixes, JSON spans.

use serde_json::Value;

/// The length of the common prefix of `a` and `b`, on a character boundary.
pub(crate) fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// The length of the common suffix of `a` and `b`, on a character boundary.
pub(crate) fn common_suffix(a: &str, b: &str) -> usize {
    let mut n = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - n) {
        n -= 1;
    }
    n
}

/// The first marker of `s` (leading whitespace skipped): a `<…>` or `[…]` token (a composite
/// one, see [`composite_end`], whole), else the text up to the first whitespace or marker
/// start. Returns (start, end) in `s`.
pub(crate) fn first_marker(s: &str) -> Option<(usize, usize)> {
    let start = s.len() - s.trim_start().len();
    let rest = &s[start..];
    let first = rest.chars().next()?;
    let end = match first {
        '<' => rest
            .find('>')
            .map(|i| composite_end(rest, i + 1).unwrap_or(i + 1)),
        '[' => rest.find(']').map(|i| i + 1),
        _ => None,
    }
    .unwrap_or_else(|| {
        rest.char_indices()
            .skip(1)
            .find(|(_, c)| c.is_whitespace() || *c == '<' || *c == '[')
            .map_or(rest.len(), |(i, _)| i)
    });
    Some((start, start + end))
}

/// The last marker of `s` (trailing whitespace skipped): a `<…>` or `[…]` token, or a
/// composite marker (see [`composite_end`]) whole.
pub(crate) fn last_marker(s: &str) -> Option<&str> {
    let t = s.trim_end();
    let open = match t.chars().last()? {
        '>' => '<',
        ']' => '[',
        _ => return None,
    };
    let i = t.rfind(open)?;
    Some(&t[composite_start(t, i).unwrap_or(i)..])
}

/// Whether `s` is the name inside a composite marker: a word, then attributes
/// `key="value"` (`think`, `call tool="f" index="1"`).
fn marker_name(s: &str) -> bool {
    let mut parts = s.split(' ');
    let word = parts.next().unwrap_or_default();
    let word_ok = word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    word_ok
        && parts.all(|a| {
            a.split_once("=\"").is_some_and(|(k, v)| {
                !k.is_empty()
                    && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && v.ends_with('"')
                    && !v[..v.len() - 1].contains('"')
            })
        })
}

/// A composite marker: special tokens `<|…|>` around a name, `<|open|>think<|sep|>`,
/// `<|close|>call<|sep|>`, `<|open|>call tool="f"<|sep|>` (Kimi K3). When the `<|…|>` token
/// of `s` ending at `end` is followed by a name and another `<|…|>` token, where that token
/// ends.
pub(crate) fn composite_end(s: &str, end: usize) -> Option<usize> {
    if !s.starts_with("<|") || !s[..end].ends_with("|>") {
        return None;
    }
    let rest = s.get(end..)?;
    let name_len = rest.find('<')?;
    let after = &rest[name_len..];
    if name_len == 0 || !marker_name(&rest[..name_len]) || !after.starts_with("<|") {
        return None;
    }
    let close = after.find("|>")?;
    let inside = &after[2..close];
    (!inside.is_empty() && !inside.contains(['<', '>', ' ', '\n']))
        .then_some(end + name_len + close + 2)
}

/// When the `<|…|>` token of `s` starting at `i` closes a composite marker (`<|sep|>` of
/// `<|open|>think<|sep|>`), where that composite marker starts.
pub(crate) fn composite_start(s: &str, i: usize) -> Option<usize> {
    let head = &s[..i];
    let n = head.rfind("|>")? + 2;
    let open = head[..n].rfind("<|")?;
    (composite_end(&s[open..], n - open)? == s[i..].find('>')? + 1 + i - open).then_some(open)
}

/// Splits `s` (trimmed) at its last marker boundary: the text after the last `>` or `]`
/// (trimmed) and what comes before it (trimmed). `"<tool_call>\n<function="` gives
/// (`"<tool_call>"`, `"<function="`).
pub(crate) fn split_tail(s: &str) -> (String, String) {
    let t = s.trim();
    match t.rfind(['>', ']']) {
        Some(i) if i + 1 < t.len() => {
            (t[..i + 1].trim().to_string(), t[i + 1..].trim().to_string())
        }
        _ => (t.to_string(), String::new()),
    }
}

/// The guessed closing marker of an opening one: `<think>` → `</think>`, `[THINK]` →
/// `[/THINK]`.
pub(crate) fn closing_of(open: &str) -> Option<String> {
    let t = open.trim();
    if let Some(rest) = t.strip_prefix('<') {
        if !rest.starts_with('|') && !rest.starts_with('/') {
            return Some(format!("</{rest}"));
        }
    }
    t.strip_prefix('[').map(|rest| format!("[/{rest}"))
}

/// The JSON value starting at byte `at` of `s` and where it ends.
pub(crate) fn json_at(s: &str, at: usize) -> Option<(Value, usize)> {
    let mut it = serde_json::Deserializer::from_str(s.get(at..)?).into_iter::<Value>();
    let v = it.next()?.ok()?;
    Some((v, at + it.byte_offset()))
}

/// Where the bracketed group opening at byte `at` (`(`, `[` or `{`) closes (after the closing
/// bracket), skipping quoted strings.
pub(crate) fn group_end(s: &str, at: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut i = at;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == b'\\' {
                i += 1;
            } else if c == q {
                quote = None;
            }
        } else {
            match c {
                b'"' | b'\'' => quote = Some(c),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// Whether `a` and `b` are the same JSON value, reading a string that holds JSON as that JSON.
pub(crate) fn same_json(a: &Value, b: &Value) -> bool {
    if a == b {
        return true;
    }
    match a {
        Value::String(s) => serde_json::from_str::<Value>(s).is_ok_and(|v| &v == b),
        _ => false,
    }
}

/// `n` reduced so that the last `n` bytes of `s` start at a marker (`<`, `[`), after
/// leading whitespace, when `s` has one there: a common suffix must not start inside a tag.
pub(crate) fn suffix_at_marker(s: &str, n: usize) -> usize {
    let tail = &s[s.len() - n..];
    let t = tail.trim_start();
    let at = s.len() - t.len();
    if t.starts_with("<|") && composite_start(s, at).is_some() {
        // The tail starts with the closing token of a composite marker: start after it.
        let skip = t.find("|>").map_or(0, |i| i + 2);
        return suffix_at_marker(s, t.len() - skip);
    }
    if t.is_empty() || t.starts_with(['<', '[']) {
        return n;
    }
    match tail.find(['<', '[']) {
        Some(i) => n - i,
        None => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert_eq!(
            split_tail("<tool_call>\n<function="),
            ("<tool_call>".into(), "<function=".into())
        );
        assert_eq!(
            split_tail("[TOOL_CALLS]"),
            ("[TOOL_CALLS]".into(), String::new())
        );
        assert_eq!(first_marker("\n</think>\n\nx"), Some((1, 9)));
        assert_eq!(
            last_marker("a<|im_start|>assistant\n<think>\n"),
            Some("<think>")
        );
        assert_eq!(closing_of("<think>").as_deref(), Some("</think>"));
        assert_eq!(closing_of("[THINK]").as_deref(), Some("[/THINK]"));
        assert_eq!(group_end("f(a='x)', b=[1])) tail", 1), Some(16));
        assert_eq!(common_suffix("ab日", "b日"), "b日".len());
        // Composite markers (Kimi K3): special tokens around a name are one marker.
        let k = "<|close|>think<|sep|><|open|>response<|sep|>Hi";
        assert_eq!(first_marker(k), Some((0, 21)));
        assert_eq!(
            last_marker("x<|open|>message role=\"assistant\"<|sep|><|open|>think<|sep|>"),
            Some("<|open|>think<|sep|>")
        );
        assert_eq!(
            first_marker("<|python_start|>Some text here.<|python_end|>"),
            Some((0, 16))
        );
        assert_eq!(first_marker("<|end|><|start|>assistant"), Some((0, 7)));
        let b = "<|close|>argument<|sep|><|open|>argument key=\"";
        let n = suffix_at_marker(b, "<|sep|><|open|>argument key=\"".len());
        assert_eq!(&b[b.len() - n..], "<|open|>argument key=\"");
    }
}
