//! The C ABI of chatcodec: `include/chatcodec.h` over `libchatcodec_c.a` and
//! `libchatcodec_c.so`. See docs/c-api.md.
//!
//! Conventions: strings are UTF-8 pointer + length (no NUL needed); every function returns a
//! [`Status`] code and, on failure, leaves a message that `chatcodec_last_error` returns;
//! strings the library returns are allocated by it (NUL-terminated for convenience) and freed
//! with `chatcodec_string_free`; handles are freed with their `_free` function. No panic
//! crosses the boundary: each entry point runs under `catch_unwind`.

use std::cell::RefCell;
use std::os::raw::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};

use chatcodec::chat::ChatTemplate;
use chatcodec::output::{self, Format, Reasoning};
use chatcodec::{ErrorKind, ExceptionClass};

/// Result codes (`CHATCODEC_*` in the header).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// A null pointer, invalid UTF-8 or an unknown option value.
    Argument = 1,
    /// The template source does not compile.
    Syntax = 2,
    /// The template failed while rendering (raise_exception, a type error, a limit, ...).
    Render = 3,
    /// The request or a JSON argument is malformed.
    Input = 4,
    /// A model folder or GGUF file could not be read.
    Load = 5,
    /// An unknown output format name.
    Format = 6,
    /// A bug in chatcodec (a caught panic).
    Internal = 99,
}

thread_local! {
    static LAST_ERROR: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn set_error(msg: &str) {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.clear();
        e.extend_from_slice(msg.as_bytes());
        e.push(0);
    });
}

type Failure = (Status, String);

/// Runs `f`, turning its error or panic into a status and the thread's last error.
fn guard(f: impl FnOnce() -> Result<(), Failure>) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {
            set_error("");
            Status::Ok as c_int
        }
        Ok(Err((status, msg))) => {
            set_error(&msg);
            status as c_int
        }
        Err(_) => {
            set_error("internal error: chatcodec panicked (please report this)");
            Status::Internal as c_int
        }
    }
}

fn engine_error(e: &chatcodec::Error) -> Failure {
    // A filter or test that does not exist, found when compiling, is a compile error too
    // (jinja2's TemplateAssertionError).
    let status = match (e.kind(), e.exception_class()) {
        (ErrorKind::Syntax, _) | (_, ExceptionClass::TemplateAssertionError) => Status::Syntax,
        (ErrorKind::Input, _) => Status::Input,
        _ => Status::Render,
    };
    (status, e.to_string())
}

/// The UTF-8 text at `ptr`, `len` bytes.
///
/// # Safety
/// `ptr` must be null or point to `len` readable bytes that stay valid for `'a`.
unsafe fn text<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        if len == 0 {
            return Ok("");
        }
        return Err((Status::Argument, format!("{what} is a null pointer")));
    }
    // SAFETY: the caller guarantees `len` readable bytes at the non-null `ptr`.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    std::str::from_utf8(bytes).map_err(|e| (Status::Argument, format!("{what} is not UTF-8: {e}")))
}

/// Hands `s` to the caller as a library-owned, NUL-terminated buffer.
///
/// # Safety
/// `out` and `out_len` must be null or valid for writes.
unsafe fn give(s: String, out: *mut *mut c_char, out_len: *mut usize) -> Result<(), Failure> {
    if out.is_null() || out_len.is_null() {
        return Err((Status::Argument, "output pointers are null".into()));
    }
    let len = s.len();
    let mut bytes = s.into_bytes();
    bytes.push(0);
    let ptr = Box::into_raw(bytes.into_boxed_slice()).cast::<c_char>();
    // SAFETY: both pointers were checked non-null; the caller guarantees they are writable.
    unsafe {
        *out = ptr;
        *out_len = len;
    }
    Ok(())
}

/// Stores a new handle in `*out`.
///
/// # Safety
/// `out` must be null or valid for writes.
unsafe fn give_handle<T>(value: T, out: *mut *mut T) -> Result<(), Failure> {
    if out.is_null() {
        return Err((Status::Argument, "the handle output pointer is null".into()));
    }
    // SAFETY: checked non-null; the caller guarantees it is writable.
    unsafe { *out = Box::into_raw(Box::new(value)) };
    Ok(())
}

fn json_arg(s: &str, what: &str) -> Result<serde_json::Value, Failure> {
    serde_json::from_str(s).map_err(|e| (Status::Input, format!("{what}: invalid JSON: {e}")))
}

/// A compiled chat template with its special tokens (`chatcodec_template`).
pub struct Template(ChatTemplate);

/// A streaming output parser (`chatcodec_parser`).
pub struct Parser {
    inner: output::StreamParser,
    finished: bool,
}

/// The message of the last failed call on this thread, NUL-terminated, `*len` bytes (empty
/// after a successful call). Valid until the next chatcodec call on this thread.
///
/// # Safety
/// `len` must be null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn chatcodec_last_error(len: *mut usize) -> *const c_char {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        if e.is_empty() {
            e.push(0);
        }
        if !len.is_null() {
            // SAFETY: checked non-null; the caller guarantees it is writable.
            unsafe { *len = e.len() - 1 };
        }
        e.as_ptr().cast::<c_char>()
    })
}

/// The library version, a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn chatcodec_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0")
        .as_ptr()
        .cast::<c_char>()
}

/// Compiles a chat template. `special_tokens_json` (may be null with length 0) is a JSON
/// object of template kwargs such as `{"bos_token": "<s>"}`.
///
/// # Safety
/// Each pointer must be null or valid for its length (reads) or for writes (`out`).
#[no_mangle]
pub unsafe extern "C" fn chatcodec_template_new(
    source: *const c_char,
    source_len: usize,
    special_tokens_json: *const c_char,
    special_tokens_len: usize,
    out: *mut *mut Template,
) -> c_int {
    guard(|| {
        // SAFETY: forwarded from the caller's guarantees.
        let source = unsafe { text(source, source_len, "source") }?;
        // SAFETY: as above.
        let tokens = unsafe { text(special_tokens_json, special_tokens_len, "special_tokens") }?;
        let tokens = if tokens.is_empty() {
            serde_json::Map::new()
        } else {
            match json_arg(tokens, "special_tokens")? {
                serde_json::Value::Object(m) => m,
                _ => return Err((Status::Input, "special_tokens must be a JSON object".into())),
            }
        };
        let t = ChatTemplate::new("default", source, tokens).map_err(|e| engine_error(&e))?;
        // SAFETY: forwarded from the caller's guarantees.
        unsafe { give_handle(Template(t), out) }
    })
}

/// Loads the default chat template and special tokens of a Hugging Face model folder or a
/// GGUF file at `path`.
///
/// # Safety
/// `path` must be valid for `path_len` bytes; `out` must be null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn chatcodec_template_load(
    path: *const c_char,
    path_len: usize,
    out: *mut *mut Template,
) -> c_int {
    guard(|| {
        // SAFETY: forwarded from the caller's guarantees.
        let path = std::path::Path::new(unsafe { text(path, path_len, "path") }?);
        let model = if path.is_dir() {
            chatcodec::load::ModelTemplates::from_model_dir(path)
        } else {
            chatcodec::load::ModelTemplates::from_gguf(path)
        }
        .map_err(|e| (Status::Load, e.to_string()))?;
        let t = model.select(None, false).map_err(|e| engine_error(&e))?;
        // SAFETY: forwarded from the caller's guarantees.
        unsafe { give_handle(Template(t), out) }
    })
}

/// Renders a chat request (a JSON object: `messages`, `tools`, `documents`,
/// `add_generation_prompt`, `continue_final_message`, other keys as template kwargs) as
/// transformers' `apply_chat_template(..., tokenize=False)` does. The prompt is returned in a
/// library-owned buffer: free it with `chatcodec_string_free`.
///
/// # Safety
/// `template` must be a live handle; `request` valid for `request_len` bytes; `out` and
/// `out_len` null or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn chatcodec_template_apply(
    template: *const Template,
    request: *const c_char,
    request_len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller guarantees a live handle (or null, refused here).
        let Some(t) = (unsafe { template.as_ref() }) else {
            return Err((Status::Argument, "template is a null pointer".into()));
        };
        // SAFETY: forwarded from the caller's guarantees.
        let request = json_arg(unsafe { text(request, request_len, "request") }?, "request")?;
        let prompt = t.0.apply(&request).map_err(|e| engine_error(&e))?;
        // SAFETY: forwarded from the caller's guarantees.
        unsafe { give(prompt, out, out_len) }
    })
}

/// Frees a template handle (null is allowed).
///
/// # Safety
/// `template` must be null or a handle from this library not yet freed.
#[no_mangle]
pub unsafe extern "C" fn chatcodec_template_free(template: *mut Template) {
    if !template.is_null() {
        // SAFETY: the caller passes a handle made by Box::into_raw here, freed once.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            drop(unsafe { Box::from_raw(template) })
        }));
    }
}

/// Frees a buffer returned by the library (`ptr` and the length it came with; null is
/// allowed).
///
/// # Safety
/// `ptr` must be null or a buffer from this library with its length, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn chatcodec_string_free(ptr: *mut c_char, len: usize) {
    if !ptr.is_null() {
        // SAFETY: the buffer was a boxed slice of len + 1 bytes (the NUL), freed once.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    ptr.cast::<u8>(),
                    len + 1,
                ))
            })
        }));
    }
}

/// Makes a stream parser for the output format `format` (a `chatcodec parse --format` name).
/// `reasoning`: 0 auto, 1 the prompt opened the reasoning block, 2 reasoning is off.
/// `id_seed`: null for fresh random tool call ids, else a seed for reproducible ones.
/// `tools_json` (may be null with length 0): the request's OpenAI `tools` array; calls to
/// other names are kept as content.
///
/// # Safety
/// Each pointer must be null or valid for its length (reads) or for writes (`out`).
#[no_mangle]
pub unsafe extern "C" fn chatcodec_parser_new(
    format: *const c_char,
    format_len: usize,
    reasoning: c_int,
    id_seed: *const u64,
    tools_json: *const c_char,
    tools_len: usize,
    out: *mut *mut Parser,
) -> c_int {
    guard(|| {
        // SAFETY: forwarded from the caller's guarantees.
        let name = unsafe { text(format, format_len, "format") }?;
        let format = Format::by_name(name).map_err(|e| (Status::Format, e.to_string()))?;
        let reasoning = match reasoning {
            0 => Reasoning::Auto,
            1 => Reasoning::ForcedOpen,
            2 => Reasoning::ForcedClosed,
            n => {
                return Err((
                    Status::Argument,
                    format!("reasoning must be 0, 1 or 2, not {n}"),
                ))
            }
        };
        // SAFETY: the caller guarantees id_seed is null or readable.
        let seed = unsafe { id_seed.as_ref() }
            .copied()
            .unwrap_or_else(output::random_id_seed);
        // SAFETY: forwarded from the caller's guarantees.
        let tools = unsafe { text(tools_json, tools_len, "tools") }?;
        let tools = if tools.is_empty() {
            None
        } else {
            let v = json_arg(tools, "tools")?;
            if !v.is_array() {
                return Err((Status::Input, "tools must be a JSON array".into()));
            }
            Some(v)
        };
        let options = output::Options {
            reasoning,
            id_seed: seed,
            tools: tools.as_ref().map(output::Options::tool_names),
            tool_schemas: tools,
            ..Default::default()
        };
        let parser = Parser {
            inner: output::StreamParser::with_options(&format, options),
            finished: false,
        };
        // SAFETY: forwarded from the caller's guarantees.
        unsafe { give_handle(parser, out) }
    })
}

fn deltas_json(events: &[output::Event]) -> String {
    let deltas: Vec<serde_json::Value> = events.iter().filter_map(output::delta).collect();
    serde_json::Value::Array(deltas).to_string()
}

/// Feeds `len` bytes of model output (chunks may split UTF-8 sequences and markers). Returns
/// the OpenAI deltas they complete as a JSON array in a library-owned buffer.
///
/// # Safety
/// `parser` must be a live handle; `text` valid for `len` bytes; `out`, `out_len` null or
/// valid for writes.
#[no_mangle]
pub unsafe extern "C" fn chatcodec_parser_feed(
    parser: *mut Parser,
    text: *const c_char,
    len: usize,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller guarantees a live handle used by one thread at a time.
        let Some(p) = (unsafe { parser.as_mut() }) else {
            return Err((Status::Argument, "parser is a null pointer".into()));
        };
        if p.finished {
            return Err((Status::Argument, "the stream is finished".into()));
        }
        let bytes = if text.is_null() {
            if len != 0 {
                return Err((Status::Argument, "text is a null pointer".into()));
            }
            &[][..]
        } else {
            // SAFETY: the caller guarantees `len` readable bytes at the non-null `text`.
            unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) }
        };
        let events = p.inner.feed_bytes(bytes);
        // SAFETY: forwarded from the caller's guarantees.
        unsafe { give(deltas_json(&events), out, out_len) }
    })
}

/// Ends the stream. Returns `{"deltas": [...], "message": {...}}` (the last deltas and the
/// final OpenAI message) in a library-owned buffer.
///
/// # Safety
/// As `chatcodec_parser_feed`.
#[no_mangle]
pub unsafe extern "C" fn chatcodec_parser_finish(
    parser: *mut Parser,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller guarantees a live handle used by one thread at a time.
        let Some(p) = (unsafe { parser.as_mut() }) else {
            return Err((Status::Argument, "parser is a null pointer".into()));
        };
        let events = if p.finished {
            Vec::new()
        } else {
            p.finished = true;
            p.inner.finish()
        };
        let deltas: Vec<serde_json::Value> = events.iter().filter_map(output::delta).collect();
        let body = serde_json::json!({"deltas": deltas, "message": p.inner.message().to_json()});
        // SAFETY: forwarded from the caller's guarantees.
        unsafe { give(body.to_string(), out, out_len) }
    })
}

/// Frees a parser handle (null is allowed).
///
/// # Safety
/// `parser` must be null or a handle from this library not yet freed.
#[no_mangle]
pub unsafe extern "C" fn chatcodec_parser_free(parser: *mut Parser) {
    if !parser.is_null() {
        // SAFETY: the caller passes a handle made by Box::into_raw here, freed once.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(parser) })));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_of(source: &str) -> Option<c_int> {
        let e = chatcodec::Template::new(source).err()?;
        Some(engine_error(&e).0 as c_int)
    }

    #[test]
    fn compile_failures_are_syntax_errors() {
        assert_eq!(status_of("{% if %}"), Some(Status::Syntax as c_int));
        // An unknown filter outside any `if` fails when compiling, as in jinja2.
        assert_eq!(
            status_of("{{ x | no_such_filter }}"),
            Some(Status::Syntax as c_int)
        );
    }
}
