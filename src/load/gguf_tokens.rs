//! The added tokens of a GGUF file's tokenizer, as transformers builds it
//! (`integrations/gguf/gguf_tokenizer_mapping.py`): these decide which tokens are control
//! tokens for the control-token guard ([`crate::chat::control`]).
//!
//! transformers builds the tokenizer class the file's `tokenizer.ggml.model` names, whose
//! constructor adds its default special tokens (found in the vocabulary, or appended after
//! it); then it adds the tokens typed CONTROL (3) as special tokens, skipping, in a byte-level
//! vocabulary, any that use a character outside the byte alphabet; then the tokens typed
//! USER_DEFINED (4) that are in the vocabulary, as plain added tokens; and the bos, eos, unk
//! and padding tokens named by id become special tokens too.

use crate::chat::control::AddedToken;
use std::collections::HashMap;

/// What the GGUF metadata says about the vocabulary.
pub(crate) struct Vocabulary<'a> {
    /// `general.architecture`.
    pub architecture: &'a str,
    /// `tokenizer.ggml.model` (`gpt2`, `llama`, `gemma4`, `t5`, ...).
    pub model: &'a str,
    /// `tokenizer.ggml.tokens`.
    pub tokens: &'a [String],
    /// `tokenizer.ggml.token_type`, one per token (may be empty).
    pub types: &'a [i64],
    /// The special-token ids (`bos_token` -> id), as read.
    pub ids: &'a [(&'static str, u64)],
}

/// The tokenizer class transformers picks for a GGUF vocabulary.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `GPT2Tokenizer` (byte-level BPE).
    Gpt2,
    /// `LlamaTokenizer` (sentencepiece).
    Llama,
    /// `GemmaTokenizer` (sentencepiece); `respell` for the gemma builder's space tokens.
    Gemma { respell: bool },
    /// `T5Tokenizer` (unigram).
    T5,
}

impl Class {
    fn of(architecture: &str, model: &str) -> Option<Class> {
        match model {
            "llama" if matches!(architecture, "gemma" | "gemma2" | "gemma3") => {
                Some(Class::Gemma { respell: true })
            }
            "llama" => Some(Class::Llama),
            "gpt2" => Some(Class::Gpt2),
            "gemma4" => Some(Class::Gemma { respell: false }),
            "t5" => Some(Class::T5),
            _ => None,
        }
    }

    /// The special tokens the class's constructor adds, in the order it adds them.
    fn defaults(self) -> Vec<String> {
        let fixed: &[&str] = match self {
            Class::Gpt2 => &["<|endoftext|>"],
            Class::Llama => &["<s>", "</s>", "<unk>"],
            Class::Gemma { .. } => &["<bos>", "<eos>", "<unk>", "<pad>", "<mask>"],
            Class::T5 => &["</s>", "<unk>", "<pad>"],
        };
        let mut out: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
        if self == Class::T5 {
            out.extend((0..100).map(|i| format!("<extra_id_{i}>")));
        }
        out
    }
}

/// The character GPT-2's byte alphabet writes for `byte` (`bytes_to_unicode`): printable
/// bytes stand for themselves; the 68 others (0x00-0x20, 0x7F-0xA0, 0xAD), in byte order,
/// take the code points from 256 on.
fn byte_char(byte: u8) -> char {
    let rank = match byte {
        b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF => return char::from(byte),
        0x00..=0x20 => u32::from(byte),
        0x7F..=0xA0 => 33 + u32::from(byte - 0x7F),
        _ => 67, // 0xAD
    };
    char::from_u32(256 + rank).unwrap_or('\u{FFFD}')
}

/// Whether every character of `token` is in the byte alphabet.
fn byte_spelled(token: &str) -> bool {
    token.chars().all(|c| {
        matches!(
            u32::from(c),
            0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF | 256..=323
        )
    })
}

/// The vocabulary key a token has in the class's vocabulary.
fn vocab_key(class: Class, token: &str) -> String {
    match class {
        Class::Gpt2 if !byte_spelled(token) => token.bytes().map(byte_char).collect(),
        Class::Gemma { respell: true } if token.contains(' ') && token.trim().is_empty() => {
            "\u{2581}".repeat(token.chars().count())
        }
        _ => token.to_string(),
    }
}

/// `^\[PAD\d+\]$`.
fn is_pad_placeholder(t: &str) -> bool {
    t.strip_prefix("[PAD")
        .and_then(|r| r.strip_suffix(']'))
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The added tokens, in id order (ids are vocabulary positions, or
/// new ids after the vocabulary for defaults it lacks). Empty for a tokenizer model
/// transformers cannot build.
pub(crate) fn added_tokens(v: &Vocabulary<'_>) -> Vec<AddedToken> {
    let Some(class) = Class::of(v.architecture, v.model) else {
        return Vec::new();
    };
    // The tokens as the class sees them: T5 names its first 100 `[PADn]` blanks back.
    let mut tokens: Vec<String> = v.tokens.to_vec();
    if class == Class::T5 {
        let blanks: Vec<usize> = (0..tokens.len())
            .filter(|&i| is_pad_placeholder(&tokens[i]))
            .take(100)
            .collect();
        for (offset, i) in blanks.into_iter().enumerate() {
            tokens[i] = format!("<extra_id_{}>", 99 - offset);
        }
    }
    let mut vocab: HashMap<String, u64> = HashMap::with_capacity(tokens.len());
    for (i, t) in tokens.iter().enumerate() {
        vocab.insert(vocab_key(class, t), i as u64);
    }
    let mut next = tokens.len() as u64;
    let mut added: Vec<AddedToken> = Vec::new();
    let mut add = |content: &str, special: bool, vocab: &mut HashMap<String, u64>| {
        if content.is_empty() || added.iter().any(|a| a.content == content) {
            return;
        }
        let id = match vocab.get(content) {
            Some(id) => *id,
            None => {
                let id = next;
                next += 1;
                vocab.insert(content.to_string(), id);
                id
            }
        };
        added.push(AddedToken {
            id,
            content: content.to_string(),
            special,
        });
    };
    for d in class.defaults() {
        add(&d, true, &mut vocab);
    }
    let typed = |kind: i64| {
        tokens
            .iter()
            .zip(v.types)
            .filter(move |(_, t)| **t == kind)
            .map(|(tok, _)| tok.clone())
            .collect::<Vec<_>>()
    };
    for t in typed(3) {
        if class != Class::Gpt2 || byte_spelled(&t) {
            add(&t, true, &mut vocab);
        }
    }
    for t in typed(4) {
        if vocab.contains_key(&t) {
            add(&t, false, &mut vocab);
        }
    }
    for (name, id) in v.ids {
        if !matches!(*name, "bos_token" | "eos_token" | "unk_token" | "pad_token") {
            continue;
        }
        if let Some(t) = usize::try_from(*id).ok().and_then(|i| tokens.get(i)) {
            let t = t.clone();
            add(&t, true, &mut vocab);
        }
    }
    added.sort_by_key(|t| t.id);
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_alphabet_matches_gpt2() {
        assert_eq!(byte_char(b' '), '\u{120}');
        assert_eq!(byte_char(b'\n'), '\u{10A}');
        assert_eq!(byte_char(b'a'), 'a');
        assert_eq!(byte_char(0xAD), '\u{143}');
        assert_eq!(byte_char(0x7F), '\u{121}');
        assert_eq!(byte_char(0xA0), '\u{142}');
        assert!(byte_spelled("Ġx"));
        assert!(!byte_spelled("x y"));
        assert_eq!(vocab_key(Class::Gpt2, " sp"), "Ġsp");
    }
}
