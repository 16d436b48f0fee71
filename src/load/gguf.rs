//! GGUF metadata: the chat templates and special tokens of a GGUF file, read by streaming the
//! header. Tensor data is never read; every length in the file is checked against a cap before
//! anything is allocated, so a hostile or damaged file costs bounded memory and ends in a clear
//! error.

use std::io::Read;

use crate::error::{err, Error};

/// The longest string value kept (a chat template is a few hundred KiB at most).
const MAX_STRING: u64 = 16 << 20;
/// The longest key.
const MAX_KEY: u64 = 64 << 10;
/// The most metadata entries accepted.
const MAX_KV: u64 = 1 << 20;
/// The most elements in one array.
const MAX_ARRAY: u64 = 16 << 20;
/// The most bytes kept for the token list.
const MAX_TOKEN_BYTES: usize = 256 << 20;
/// Arrays of arrays deeper than this are refused.
const MAX_DEPTH: u32 = 4;

/// Special-token id keys and the template kwarg each becomes: the four transformers reads
/// from a GGUF (`_SPECIAL_TOKENS` of its GGUF tokenizer mapping); a separator, class or mask
/// id is not a template kwarg there, so it is not one here.
const TOKEN_IDS: [(&str, &str); 4] = [
    ("tokenizer.ggml.bos_token_id", "bos_token"),
    ("tokenizer.ggml.eos_token_id", "eos_token"),
    ("tokenizer.ggml.unknown_token_id", "unk_token"),
    ("tokenizer.ggml.padding_token_id", "pad_token"),
];

/// What a GGUF file says about chat formatting.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct GgufMeta {
    /// `general.architecture`.
    pub architecture: Option<String>,
    /// `general.name`.
    pub name: Option<String>,
    /// `tokenizer.chat_template` (the default template).
    pub chat_template: Option<String>,
    /// `tokenizer.chat_template.<name>`, in file order.
    pub named_templates: Vec<(String, String)>,
    /// Special tokens as template kwargs (`bos_token` -> text), ids mapped through
    /// `tokenizer.ggml.tokens`.
    pub special_tokens: Vec<(String, String)>,
    /// Whether the token list holds this text (used to tell families apart).
    pub token_markers: Vec<String>,
    /// The added tokens transformers' GGUF tokenizer has (see [`super::gguf_tokens`]).
    pub added_tokens: Vec<crate::chat::control::AddedToken>,
}

/// Token texts whose presence in the vocabulary hints at a model family.
pub(crate) const MARKER_TOKENS: [&str; 5] = [
    "<|im_start|>",
    "<|start_header_id|>",
    "<think>",
    "[gMASK]",
    "<|observation|>",
];

struct Reader<R> {
    inner: R,
    offset: u64,
    version: u32,
}

impl<R: Read> Reader<R> {
    fn exact(&mut self, buf: &mut [u8], what: &str) -> Result<(), Error> {
        self.inner.read_exact(buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                err!(
                    Input,
                    "GGUF file is truncated: it ends inside {what} (at byte {})",
                    self.offset
                )
            } else {
                err!(Input, "cannot read GGUF file at byte {}: {e}", self.offset)
            }
        })?;
        self.offset += buf.len() as u64;
        Ok(())
    }

    fn u32(&mut self, what: &str) -> Result<u32, Error> {
        let mut b = [0u8; 4];
        self.exact(&mut b, what)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self, what: &str) -> Result<u64, Error> {
        let mut b = [0u8; 8];
        self.exact(&mut b, what)?;
        Ok(u64::from_le_bytes(b))
    }

    /// A count or length: u32 in GGUF v1, u64 later.
    fn len(&mut self, what: &str) -> Result<u64, Error> {
        if self.version == 1 {
            self.u32(what).map(u64::from)
        } else {
            self.u64(what)
        }
    }

    fn skip(&mut self, n: u64, what: &str) -> Result<(), Error> {
        let copied = std::io::copy(&mut (&mut self.inner).take(n), &mut std::io::sink())
            .map_err(|e| err!(Input, "cannot read GGUF file at byte {}: {e}", self.offset))?;
        self.offset += copied;
        if copied < n {
            return Err(err!(
                Input,
                "GGUF file is truncated: it ends inside {what} (at byte {})",
                self.offset
            ));
        }
        Ok(())
    }

    fn string(&mut self, cap: u64, what: &str) -> Result<String, Error> {
        let n = self.len(what)?;
        if n > cap {
            return Err(err!(
                Input,
                "GGUF {what} at byte {} claims {n} bytes, more than the {cap} allowed",
                self.offset
            ));
        }
        // n <= cap, so the allocation is bounded; read_exact fails cleanly on a short file.
        let mut buf = vec![0u8; n as usize];
        self.exact(&mut buf, what)?;
        crate::error::utf8(buf, &format!("GGUF {what}"))
    }

    /// An array's element type and length, the length checked against [`MAX_ARRAY`].
    fn array_header(&mut self, what: &str) -> Result<(u32, u64), Error> {
        let elem = self.u32(what)?;
        let count = self.len(what)?;
        if count > MAX_ARRAY {
            return Err(err!(
                Input,
                "GGUF {what} claims {count} elements, more than the {MAX_ARRAY} allowed"
            ));
        }
        Ok((elem, count))
    }

    /// Skips a value of type `ty`.
    fn skip_value(&mut self, ty: u32, depth: u32, what: &str) -> Result<(), Error> {
        match ty {
            8 => {
                let n = self.len(what)?;
                self.skip(n, what)
            }
            9 => {
                if depth >= MAX_DEPTH {
                    return Err(err!(Input, "GGUF {what}: arrays nested too deeply"));
                }
                let (elem, count) = self.array_header(what)?;
                match scalar_size(elem) {
                    Some(size) => self.skip(count * size, what),
                    None => (0..count).try_for_each(|_| self.skip_value(elem, depth + 1, what)),
                }
            }
            _ => match scalar_size(ty) {
                Some(size) => self.skip(size, what),
                None => Err(err!(Input, "GGUF {what} has an unknown value type {ty}")),
            },
        }
    }

    /// An integer value of any integer type, or None for other types (which are skipped).
    fn integer(&mut self, ty: u32, what: &str) -> Result<Option<u64>, Error> {
        let Some(size) = scalar_size(ty).filter(|_| matches!(ty, 0..=5 | 10 | 11)) else {
            self.skip_value(ty, 0, what)?;
            return Ok(None);
        };
        let mut b = [0u8; 8];
        self.exact(&mut b[..size as usize], what)?;
        let v = u64::from_le_bytes(b);
        Ok(Some(v))
    }
}

fn scalar_size(ty: u32) -> Option<u64> {
    match ty {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

/// Reads the metadata of the GGUF file at `path`.
pub(crate) fn read_file(path: &std::path::Path) -> Result<GgufMeta, Error> {
    let f = std::fs::File::open(path)
        .map_err(|e| err!(Input, "cannot open GGUF file {}: {e}", path.display()))?;
    read(std::io::BufReader::new(f))
        .map_err(|e| Error::new(e.kind(), format!("{}: {}", path.display(), e.message())))
}

/// Reads GGUF metadata from a stream, stopping at the end of the key-value section.
pub(crate) fn read<R: Read>(inner: R) -> Result<GgufMeta, Error> {
    let mut r = Reader {
        inner,
        offset: 0,
        version: 3,
    };
    let mut magic = [0u8; 4];
    r.exact(&mut magic, "the magic number")?;
    if &magic != b"GGUF" {
        return Err(err!(
            Input,
            "not a GGUF file: the magic number is {:?}, expected \"GGUF\"",
            String::from_utf8_lossy(&magic)
        ));
    }
    let version = r.u32("the version")?;
    if !(1..=3).contains(&version) {
        return Err(err!(Input, "unsupported GGUF version {version}"));
    }
    r.version = version;
    let _tensors = r.len("the tensor count")?;
    let kv_count = r.len("the metadata count")?;
    if kv_count > MAX_KV {
        return Err(err!(
            Input,
            "GGUF header claims {kv_count} metadata entries, more than the {MAX_KV} allowed"
        ));
    }
    let mut meta = GgufMeta::default();
    let mut tokens: Vec<String> = Vec::new();
    let mut ids: Vec<(&'static str, u64)> = Vec::new();
    let mut token_types: Vec<i64> = Vec::new();
    let mut model: Option<String> = None;
    for _ in 0..kv_count {
        let key = r.string(MAX_KEY, "a metadata key")?;
        let ty = r.u32("a metadata type")?;
        let what = format!("metadata '{key}'");
        match (key.as_str(), ty) {
            ("general.architecture", 8) => meta.architecture = Some(r.string(MAX_STRING, &what)?),
            ("general.name", 8) => meta.name = Some(r.string(MAX_STRING, &what)?),
            ("tokenizer.chat_template", 8) => {
                meta.chat_template = Some(r.string(MAX_STRING, &what)?)
            }
            (k, 8) if k.starts_with("tokenizer.chat_template.") => {
                let name = k["tokenizer.chat_template.".len()..].to_string();
                let source = r.string(MAX_STRING, &what)?;
                meta.named_templates.push((name, source));
            }
            (k, ty)
                if k == "tokenizer.chat_template" || k.starts_with("tokenizer.chat_template.") =>
            {
                return Err(err!(
                    Input,
                    "GGUF {what} has value type {ty}, not a string (8): a chat template must be text"
                ));
            }
            ("tokenizer.ggml.tokens", 9) => tokens = read_tokens(&mut r, &what)?,
            ("tokenizer.ggml.token_type", 9) => token_types = read_integers(&mut r, &what)?,
            ("tokenizer.ggml.model", 8) => model = Some(r.string(MAX_STRING, &what)?),
            (k, _) if TOKEN_IDS.iter().any(|(id_key, _)| *id_key == k) => {
                let name = TOKEN_IDS
                    .iter()
                    .find(|(id_key, _)| *id_key == k)
                    .map_or("", |(_, n)| n);
                if let Some(id) = r.integer(ty, &what)? {
                    ids.push((name, id));
                }
            }
            _ => r.skip_value(ty, 0, &what)?,
        }
    }
    meta.added_tokens = super::gguf_tokens::added_tokens(&super::gguf_tokens::Vocabulary {
        architecture: meta.architecture.as_deref().unwrap_or(""),
        model: model.as_deref().unwrap_or(""),
        tokens: &tokens,
        types: &token_types,
        ids: &ids,
    });
    for (name, id) in ids {
        let token = usize::try_from(id).ok().and_then(|i| tokens.get(i));
        if let Some(token) = token {
            meta.special_tokens.push((name.to_string(), token.clone()));
        }
    }
    meta.token_markers = MARKER_TOKENS
        .iter()
        .filter(|m| tokens.iter().any(|t| t == *m))
        .map(|m| m.to_string())
        .collect();
    Ok(meta)
}

/// An array of integers (`tokenizer.ggml.token_type`); any other array is skipped and reads
/// as empty.
fn read_integers<R: Read>(r: &mut Reader<R>, what: &str) -> Result<Vec<i64>, Error> {
    let (elem, count) = r.array_header(what)?;
    let size = match (elem, scalar_size(elem)) {
        (0..=5 | 10 | 11, Some(size)) => size as usize,
        (_, Some(size)) => {
            r.skip(count * size, what)?;
            return Ok(Vec::new());
        }
        (_, None) => {
            (0..count).try_for_each(|_| r.skip_value(elem, 1, what))?;
            return Ok(Vec::new());
        }
    };
    let signed = matches!(elem, 1 | 3 | 5 | 11);
    let mut out = Vec::with_capacity(count.min(4096) as usize);
    for _ in 0..count {
        let mut b = [0u8; 8];
        r.exact(&mut b[..size], what)?;
        let v = u64::from_le_bytes(b);
        let shift = 64 - 8 * size as u32;
        out.push(if signed {
            ((v << shift) as i64) >> shift
        } else {
            v as i64
        });
    }
    Ok(out)
}

fn read_tokens<R: Read>(r: &mut Reader<R>, what: &str) -> Result<Vec<String>, Error> {
    let (elem, count) = r.array_header(what)?;
    if elem != 8 {
        // Not a list of strings: skip it and have no tokens.
        match scalar_size(elem) {
            Some(size) => r.skip(count * size, what)?,
            None => (0..count).try_for_each(|_| r.skip_value(elem, 1, what))?,
        }
        return Ok(Vec::new());
    }
    // Grow as tokens arrive rather than trusting `count`.
    let mut tokens = Vec::with_capacity(count.min(4096) as usize);
    let mut total = 0usize;
    for _ in 0..count {
        let t = r.string(MAX_STRING, what)?;
        total += t.len();
        if total > MAX_TOKEN_BYTES {
            return Err(err!(
                Input,
                "GGUF {what} is larger than {MAX_TOKEN_BYTES} bytes"
            ));
        }
        tokens.push(t);
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(kv: u64) -> Vec<u8> {
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        b.extend(kv.to_le_bytes());
        b
    }

    #[test]
    fn huge_lengths_are_refused_before_allocating() {
        let mut b = header(1);
        b.extend(u64::MAX.to_le_bytes());
        let e = read(&b[..]).unwrap_err();
        assert!(e.message().contains("more than"), "{e}");
    }

    #[test]
    fn huge_kv_count_is_refused() {
        let e = read(&header(u64::MAX)[..]).unwrap_err();
        assert!(e.message().contains("metadata entries"), "{e}");
    }

    #[test]
    fn empty_and_short_files_are_truncated() {
        assert!(read(&b""[..]).unwrap_err().message().contains("truncated"));
        assert!(read(&b"GGUF\x03\0"[..])
            .unwrap_err()
            .message()
            .contains("truncated"));
    }
}
