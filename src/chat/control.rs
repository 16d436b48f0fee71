//! The control-token guard: transformers 5.23's `apply_chat_template(...,
//! sanitize_control_tokens=True)`.
//!
//! User text that contains the template's own markers (`<|im_start|>`) is a prompt
//! injection. transformers wraps every control token found in a user-supplied string with
//! the private-use markers U+F0000 / U+F0001 before rendering (`mark_control_tokens`), so
//! that its tokenizer can encode the marked ones as plain text (`encode_marked_chat`).
//! This module does the same marking, byte for byte:
//!
//! - **Control tokens** ([`control_tokens`], transformers' `_get_control_tokens`): the
//!   tokenizer's added tokens that are special, plus, when the tokenizer config lists
//!   `chat_control_tokens`, the added tokens in that list; without that list, the added
//!   tokens that occur in the template's literal text (its template data and string
//!   constants), except whitespace tokens. A GGUF file has no added-token list: its added
//!   tokens are the ones transformers' GGUF tokenizer gets (the tokenizer class's default
//!   special tokens, the tokens typed control, the user-defined ones, and the bos, eos, unk and
//!   padding tokens; see `load::ModelTemplates::added_tokens`).
//! - **User-supplied strings** ([`mark_request`]): every string value of the request —
//!   messages, tools, documents and the extra template kwargs — but not dict keys, and not
//!   the special tokens the model adds.
//! - **Marking** ([`Marker::mark`]): markers already in a string are removed, then each
//!   control token found scanning left to right (the longest one at each position) is
//!   wrapped in U+F0000 ... U+F0001.
//!
//! For runtimes that tokenize themselves, [`control_spans`] turns a marked render into the
//! plain text and the byte spans of the user-supplied control tokens in it, with the
//! markers removed (lone markers are dropped, as `encode_marked_chat` drops them).

use serde_json::Value;

use crate::error::Error;

/// The marker transformers puts before a control token in user text.
pub const MARK_START: char = '\u{F0000}';
/// The marker transformers puts after a control token in user text.
pub const MARK_END: char = '\u{F0001}';

/// An added token of a tokenizer (`added_tokens` of tokenizer.json, `added_tokens_decoder`
/// of tokenizer_config.json).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedToken {
    /// Its id.
    pub id: u64,
    /// Its text.
    pub content: String,
    /// Whether it is a special token.
    pub special: bool,
}

/// The literal text of `template` as jinja2 parses it: every piece of template data (after
/// whitespace control) and every string constant (adjacent literals joined).
pub fn template_literals(template: &str) -> Result<Vec<String>, Error> {
    use crate::syntax::lexer::{normalize, tokenize, Tok};
    let source = normalize(template);
    let arena = bumpalo::Bump::new();
    let tokens = tokenize(&source, &arena)?;
    let mut out = Vec::new();
    let mut pending: Option<String> = None;
    for t in &tokens {
        match &t.tok {
            Tok::Str(s) => pending.get_or_insert_with(String::new).push_str(s),
            other => {
                if let Some(p) = pending.take() {
                    out.push(p);
                }
                if matches!(other, Tok::Data | Tok::Raw) {
                    let text = source
                        .get(t.span.start as usize..t.span.end as usize)
                        .unwrap_or("");
                    out.push(text.to_string());
                }
            }
        }
    }
    out.extend(pending);
    Ok(out)
}

/// The control tokens of a tokenizer for `template` (transformers' `_get_control_tokens`):
/// `added` in id order; `chat_control_tokens` as the tokenizer config lists them.
pub fn control_tokens(
    added: &[AddedToken],
    chat_control_tokens: Option<&[String]>,
    template: &str,
) -> Result<Vec<String>, Error> {
    let mut added: Vec<&AddedToken> = added.iter().collect();
    added.sort_by_key(|t| t.id);
    if let Some(list) = chat_control_tokens {
        return Ok(added
            .iter()
            .filter(|t| t.special || list.contains(&t.content))
            .map(|t| t.content.clone())
            .collect());
    }
    let literals = template_literals(template)?;
    Ok(added
        .iter()
        .filter(|t| {
            t.special || (!is_space(&t.content) && literals.iter().any(|l| l.contains(&t.content)))
        })
        .map(|t| t.content.clone())
        .collect())
}

/// Python's `str.isspace()`.
fn is_space(s: &str) -> bool {
    !s.is_empty() && s.chars().all(py_space)
}

/// A character Python's `str.isspace()` counts.
fn py_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

/// Marks control tokens in strings, as transformers' `mark_control_tokens`.
#[derive(Debug, Clone)]
pub struct Marker {
    /// Longest first, as transformers' alternation tries them; empty tokens dropped.
    tokens: Vec<String>,
}

impl Marker {
    /// A marker for `tokens` (the control tokens, see [`control_tokens`]).
    pub fn new(tokens: &[String]) -> Marker {
        let mut tokens: Vec<String> = tokens.iter().filter(|t| !t.is_empty()).cloned().collect();
        // By length in characters, stable: equal lengths keep their order, as Python's
        // `sorted(tokens, key=len, reverse=True)`.
        tokens.sort_by_key(|t| std::cmp::Reverse(t.chars().count()));
        Marker { tokens }
    }

    /// The token that starts `s`, the first in the longest-first order.
    fn token_at(&self, s: &str) -> Option<&str> {
        self.tokens
            .iter()
            .find(|t| s.starts_with(t.as_str()))
            .map(String::as_str)
    }

    /// `s` with markers removed, then every control token wrapped in markers.
    pub fn mark(&self, s: &str) -> String {
        let clean: String = s
            .chars()
            .filter(|c| *c != MARK_START && *c != MARK_END)
            .collect();
        if self.tokens.is_empty() {
            return clean;
        }
        let mut out = String::with_capacity(clean.len());
        let mut i = 0;
        while i < clean.len() {
            let rest = &clean[i..];
            if let Some(t) = self.token_at(rest) {
                out.push(MARK_START);
                out.push_str(t);
                out.push(MARK_END);
                i += t.len();
            } else {
                let c = rest.chars().next().unwrap_or('\0');
                out.push(c);
                i += c.len_utf8().max(1);
            }
        }
        out
    }

    /// `v` with every string marked, recursively through lists and dict values (keys are
    /// not marked).
    pub fn mark_value(&self, v: &Value) -> Value {
        // Iterative deep copy, so a deeply nested request cannot overflow the stack.
        enum Work<'v> {
            Visit(&'v Value),
            Array(usize),
            Object(Vec<String>),
        }
        let mut work = vec![Work::Visit(v)];
        let mut done: Vec<Value> = Vec::new();
        while let Some(w) = work.pop() {
            match w {
                Work::Visit(Value::String(s)) => done.push(Value::String(self.mark(s))),
                Work::Visit(Value::Array(items)) => {
                    work.push(Work::Array(items.len()));
                    work.extend(items.iter().rev().map(Work::Visit));
                }
                Work::Visit(Value::Object(map)) => {
                    work.push(Work::Object(map.keys().cloned().collect()));
                    work.extend(map.values().rev().map(Work::Visit));
                }
                Work::Visit(other) => done.push(other.clone()),
                Work::Array(n) => {
                    let items = done.split_off(done.len() - n);
                    done.push(Value::Array(items));
                }
                Work::Object(keys) => {
                    let values = done.split_off(done.len() - keys.len());
                    done.push(Value::Object(keys.into_iter().zip(values).collect()));
                }
            }
        }
        done.pop().unwrap_or(Value::Null)
    }
}

/// `request` (a chat request: messages, tools, documents, kwargs) with the control tokens in
/// all its strings marked, as `apply_chat_template(..., sanitize_control_tokens=True)` marks
/// its inputs before rendering.
pub fn mark_request(request: &Value, tokens: &[String]) -> Value {
    Marker::new(tokens).mark_value(request)
}

/// A marked render as plain text and the byte spans (in that text) of the control tokens
/// the user supplied: `MARK_START token MARK_END` (token one of `added`, the tokenizer's
/// added tokens, longest first) becomes the token with its span; any other marker is dropped.
pub fn control_spans(marked: &str, added: &[String]) -> (String, Vec<(usize, usize)>) {
    let marker = Marker::new(added);
    let mut text = String::with_capacity(marked.len());
    let mut spans = Vec::new();
    let mut rest = marked;
    while let Some(i) = rest.find([MARK_START, MARK_END]) {
        text.push_str(&rest[..i]);
        let c = rest[i..].chars().next().unwrap_or(MARK_END);
        let after = &rest[i + c.len_utf8()..];
        if c == MARK_START {
            if let Some(t) = marker.token_at(after) {
                if after[t.len()..].starts_with(MARK_END) {
                    spans.push((text.len(), text.len() + t.len()));
                    text.push_str(t);
                    rest = &after[t.len() + MARK_END.len_utf8()..];
                    continue;
                }
            }
        }
        rest = after;
    }
    text.push_str(rest);
    (text, spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(id: u64, content: &str, special: bool) -> AddedToken {
        AddedToken {
            id,
            content: content.into(),
            special,
        }
    }

    #[test]
    fn marks_longest_first_and_strips_forged_markers() {
        let m = Marker::new(&["<|im|>".into(), "<|im|>x".into()]);
        assert_eq!(
            m.mark("a<|im|>x<|im|>\u{F0000}b"),
            "a\u{F0000}<|im|>x\u{F0001}\u{F0000}<|im|>\u{F0001}b"
        );
    }

    #[test]
    fn control_tokens_follow_the_template_text() {
        let added = [
            tok(2, "<|end|>", false),
            tok(0, "<s>", true),
            tok(3, "\n", false),
            tok(4, "<|tool|>", false),
        ];
        let t = "{{ '<|end|>' }}\n{% for m in messages %}{{ m.content }}{% endfor %}";
        assert_eq!(control_tokens(&added, None, t).unwrap(), ["<s>", "<|end|>"]);
        let list = ["<|tool|>".to_string()];
        assert_eq!(
            control_tokens(&added, Some(&list), t).unwrap(),
            ["<s>", "<|tool|>"]
        );
    }

    #[test]
    fn spans_of_marked_tokens() {
        let added = ["<s>".to_string()];
        let (text, spans) = control_spans("<s>a\u{F0000}<s>\u{F0001}b\u{F0001}c\u{F0000}", &added);
        assert_eq!(text, "<s>a<s>bc");
        assert_eq!(spans, [(4, 7)]);
    }
}
