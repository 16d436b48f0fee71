//! `chatcodec._chatcodec`: the Python binding's native module. A thin layer: Python objects
//! become [`chatcodec::chat::Data`] borrowing their strings (see [`convert`]), the crate
//! renders and parses, and the results come back as Python objects. The public API is
//! re-exported by `python/chatcodec/__init__.py`.

use chatcodec::chat::{self, BuiltRequest, Data, Val};
use chatcodec::{Error, ErrorKind};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use smallvec::SmallVec;

mod cache;
mod convert;
mod pyjson;
mod stream;
mod template;

use convert::{Converter, Keep};

/// The Python exception for an engine error: the classes of `chatcodec._errors`, which
/// subclass `jinja2.TemplateError` when jinja2 is importable (and `TypeError`, `ValueError`,
/// `OverflowError` for those kinds).
pub(crate) fn to_pyerr(py: Python<'_>, e: &Error) -> PyErr {
    let class = match e.kind() {
        ErrorKind::Syntax => "TemplateSyntaxError",
        ErrorKind::Type | ErrorKind::Input => "TemplateTypeError",
        ErrorKind::Value => "TemplateValueError",
        ErrorKind::Overflow => "TemplateOverflowError",
        ErrorKind::Security => "TemplateSecurityError",
        ErrorKind::Undefined => "TemplateUndefinedError",
        _ => "TemplateError",
    };
    // A raised message is the template's own text, verbatim, as jinja2 gives it.
    let message = if e.kind() == ErrorKind::Raised {
        e.message().to_string()
    } else {
        e.to_string()
    };
    match py
        .import("chatcodec._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message.clone(),)))
    {
        Ok(exc) => PyErr::from_value(exc),
        Err(_) => PyValueError::new_err(message),
    }
}

/// The messages of one conversation (a list or tuple of dicts after conversion); `root`
/// names it in errors.
pub(crate) fn messages<'a, 'py>(
    conv: &mut Converter<'a, '_, 'py>,
    obj: &Bound<'py, PyAny>,
    root: impl Fn() -> String,
) -> PyResult<Val<'a>> {
    let converted = conv.convert(obj).map_err(|e| e.into_pyerr(&root()))?;
    match converted.items() {
        Some(_) => Ok(converted),
        None => Err(PyTypeError::new_err(format!(
            "{}: a conversation must be a list of messages, got {}",
            root(),
            kind_name(&converted.to_data())
        ))),
    }
}

fn kind_name(d: &Data<'_>) -> &'static str {
    match d {
        Data::None => "None",
        Data::Bool(_) => "bool",
        Data::Int(_) | Data::BigInt { .. } => "int",
        Data::Float(_) => "float",
        Data::Str(_) => "str",
        Data::List(_) => "list",
        Data::Tuple(_) => "tuple",
        Data::Dict(_) => "dict",
    }
}

/// The keyword arguments, converted in order.
pub(crate) fn kwargs_vals<'a, 'py>(
    conv: &mut Converter<'a, '_, 'py>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Vec<(&'a str, Val<'a>)>> {
    let mut out = Vec::new();
    if let Some(kw) = kwargs {
        out.reserve(kw.len());
        for (k, v) in kw.iter() {
            let k = k.cast::<PyString>()?;
            let name = convert::text(k)?;
            let value = conv.value(Some(&v), &name)?;
            out.push((conv.text(&name), value));
        }
    }
    Ok(out)
}

thread_local! {
    /// The output buffer of this thread's renders, kept between calls so that a prompt is
    /// written into memory that is already there (not grown by doubling on every call).
    static OUT: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
}

/// This thread's output buffer, empty (a new one while another call on this thread holds it).
pub(crate) fn take_out() -> String {
    let mut s = OUT.with(|o| o.take());
    s.clear();
    s
}

/// Returns the output buffer for the next call (unless an unusually large render grew it).
pub(crate) fn give_out(s: String) {
    if s.capacity() <= 1 << 20 {
        OUT.with(|o| o.set(s));
    }
}

/// Values moved into `py.detach` (which wants `Send`): template values, borrowed text and
/// the builder, none of which are `Send` as types.
///
/// SAFETY of the `Send` impl: `Python::detach` runs its closure on the calling thread and
/// returns before the caller goes on, so the values never leave the thread that made them;
/// nothing they borrow from Python objects is touched by Python code meanwhile (the strings
/// are kept alive by the caller's `Keep`, and a `str` never changes).
pub(crate) struct OnThisThread<T>(pub(crate) T);

// SAFETY: see the type's documentation.
unsafe impl<T> Send for OnThisThread<T> {}

impl<T> OnThisThread<T> {
    /// The values (a method, so that a closure captures the whole wrapper, not its fields).
    pub(crate) fn into_inner(self) -> T {
        self.0
    }
}

/// `tools` as transformers takes them: a list of JSON schema dicts is used as it is; any
/// other value goes through `chatcodec._tool_schemas` (functions turned into schemas by
/// transformers' `get_json_schema`, anything else refused).
pub(crate) fn tool_schemas<'py>(
    tools: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some(tools) = tools.filter(|t| !t.is_none()) else {
        return Ok(None);
    };
    if let Ok(list) = tools.cast_exact::<PyList>() {
        if list.iter().all(|t| t.is_instance_of::<PyDict>()) {
            return Ok(Some(tools.clone()));
        }
    }
    let py = tools.py();
    let schemas = py
        .import(pyo3::intern!(py, "chatcodec"))?
        .getattr(pyo3::intern!(py, "_tool_schemas"))?
        .call1((tools,))?;
    Ok(Some(schemas))
}

/// transformers' check of `documents`: every document a dict.
pub(crate) fn check_documents(documents: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    if let Some(docs) = documents.filter(|d| !d.is_none()) {
        for d in docs.try_iter()? {
            if !d?.is_instance_of::<PyDict>() {
                return Err(PyTypeError::new_err(
                    "Documents should be a list of dicts with 'title' and 'text' keys!",
                ));
            }
        }
    }
    Ok(())
}

/// A request from its converted messages and the other arguments of a render, already
/// checked as transformers checks them (`tool_schemas`, `check_documents`, `continue_field`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn built_request<'a, 'py>(
    conv: &mut Converter<'a, '_, 'py>,
    messages: Val<'a>,
    tools: Option<&Bound<'py, PyAny>>,
    documents: Option<&Bound<'py, PyAny>>,
    add_generation_prompt: Option<&Bound<'py, PyAny>>,
    continue_final_message: Option<&str>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<BuiltRequest<'a>> {
    Ok(BuiltRequest {
        messages,
        tools: conv.value(tools, "tools")?,
        documents: conv.value(documents, "documents")?,
        add_generation_prompt: match add_generation_prompt {
            None => Val::bool(false),
            Some(v) => conv.value(Some(v), "add_generation_prompt")?,
        },
        continue_final_message: continue_final_message.map(|c| conv.text(c)),
        kwargs: kwargs_vals(conv, kwargs)?,
    })
}

/// `continue_final_message` as the field to continue: a string names it, any other true
/// value means `content`.
pub(crate) fn continue_field(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    match value {
        Some(v) if v.is_truthy()? => Ok(Some(match v.cast::<PyString>() {
            Ok(s) => s.to_cow()?.into_owned(),
            Err(_) => "content".to_string(),
        })),
        _ => Ok(None),
    }
}

/// Byte offsets of `text` as Python string (code point) indices.
pub(crate) fn char_spans(text: &str, spans: &[(usize, usize)]) -> Vec<(usize, usize)> {
    if text.is_ascii() {
        return spans.to_vec();
    }
    let at = |b: usize| text.get(..b).map_or(b, |s| s.chars().count());
    spans.iter().map(|&(s, e)| (at(s), at(e))).collect()
}

/// Renders each conversation with `chat_template`, exactly as transformers 5.23's
/// `transformers.utils.chat_template_utils.render_jinja_template` does.
///
/// Returns `(rendered, generation_indices)`: one prompt string per conversation and, with
/// `return_assistant_tokens_mask`, one list of `(start, end)` string indices per conversation
/// of the text that `{% generation %}` blocks produced (an empty list otherwise). The indices
/// never reach past the end of a prompt cut by `continue_final_message`.
///
/// Inputs are read as transformers prepares template data: subclasses of str/int/float as
/// their base values, mappings, tuples, numpy scalars, dataclasses and pydantic models as
/// plain data, any other object as the placeholder `"<TypeName>"`. A structure that contains
/// itself raises `ValueError` naming the path (e.g. `conversations[0][2]["content"]`).
///
/// Compiled templates are cached by source (the 64 most recently used). Template errors
/// raise `TemplateError` (a `jinja2.TemplateError` when jinja2 is importable); argument
/// errors raise `TypeError`/`ValueError` as transformers does. The GIL is released while
/// rendering a request of 4 kB of text or more.
#[pyfunction]
#[pyo3(
    signature = (conversations, tools=None, documents=None, chat_template=None, return_assistant_tokens_mask=None, continue_final_message=None, add_generation_prompt=None, **kwargs),
    text_signature = "(conversations, tools=None, documents=None, chat_template=None, return_assistant_tokens_mask=False, continue_final_message=False, add_generation_prompt=False, **kwargs)"
)]
#[allow(clippy::too_many_arguments)]
fn render_jinja_template<'py>(
    py: Python<'py>,
    conversations: &Bound<'py, PyAny>,
    tools: Option<&Bound<'py, PyAny>>,
    documents: Option<&Bound<'py, PyAny>>,
    chat_template: Option<&Bound<'py, PyAny>>,
    return_assistant_tokens_mask: Option<&Bound<'py, PyAny>>,
    continue_final_message: Option<&Bound<'py, PyAny>>,
    add_generation_prompt: Option<&Bound<'py, PyAny>>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let source = match chat_template.map(|t| t.cast::<PyString>()) {
        Some(Ok(s)) => s,
        other => {
            let name = match other {
                Some(Err(_)) => chat_template.map_or(Ok("None".into()), |t| {
                    t.get_type().name().map(|n| n.to_string())
                })?,
                _ => "NoneType".to_string(),
            };
            return Err(PyTypeError::new_err(format!(
                "chat_template must be a string, not {name}"
            )));
        }
    };
    let template = cache::compiled(source)?.map_err(|e| to_pyerr(py, &e))?;
    let mask = match return_assistant_tokens_mask {
        Some(m) => m.is_truthy()?,
        None => false,
    };
    let tools = tool_schemas(tools)?;
    check_documents(documents)?;
    let continue_final_message = continue_field(continue_final_message)?;

    let items: SmallVec<[Bound<'py, PyAny>; 4]> = match conversations.cast_exact::<PyList>() {
        Ok(list) => list.iter().collect(),
        Err(_) => conversations.try_iter()?.collect::<PyResult<_>>()?,
    };
    let keep = Keep::new();
    let t = &*template;
    let results = chat::with_builder(|b| {
        let mut conv = Converter::new(b, &keep);
        let mut chats: SmallVec<[Val; 4]> = SmallVec::with_capacity(items.len());
        for (i, chat) in items.iter().enumerate() {
            // A Conversation object (anything but a list or tuple with `.messages`) is read
            // through its messages, as transformers does.
            let chat = if chat.is_exact_instance_of::<PyList>()
                || chat.is_exact_instance_of::<PyTuple>()
            {
                chat.clone()
            } else {
                match chat.getattr(pyo3::intern!(py, "messages")) {
                    Ok(m) => m,
                    Err(_) => chat.clone(),
                }
            };
            chats.push(messages(&mut conv, &chat, || {
                format!("conversations[{i}]")
            })?);
        }
        let request = built_request(
            &mut conv,
            Val::none(),
            tools.as_ref(),
            documents,
            add_generation_prompt,
            continue_final_message.as_deref(),
            kwargs,
        )?;
        let job = OnThisThread((b, request, chats));
        let render = move || {
            let (b, mut request, chats) = job.into_inner();
            // All prompts are written one after another into one buffer: (start, end, spans).
            let mut buf = take_out();
            let mut parts: SmallVec<[_; 4]> = SmallVec::with_capacity(chats.len());
            for chat in chats {
                request.messages = chat;
                let start = buf.len();
                let spans = b.render(t, &request, &mut buf)?;
                let spans = if mask {
                    char_spans(&buf[start..], &spans)
                } else {
                    Vec::new()
                };
                parts.push((start, buf.len(), spans));
            }
            Ok::<_, Error>((buf, parts))
        };
        Ok::<_, PyErr>(keep.render(py, render))
    })?;
    let (buf, parts) = results.map_err(|e| to_pyerr(py, &e))?;
    let texts = PyList::empty(py);
    let indices = PyList::empty(py);
    for (start, end, spans) in parts {
        texts.append(PyString::new(py, &buf[start..end]))?;
        if mask {
            indices.append(spans)?;
        }
    }
    give_out(buf);
    PyTuple::new(py, [texts.into_any(), indices.into_any()])
}

/// Converts `obj` as template data and back to Python objects: what a template sees (for
/// tests and debugging; big ints and tuples come back as they are).
#[pyfunction]
fn plain_data<'py>(py: Python<'py>, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let keep = Keep::new();
    chat::with_builder(|b| {
        let d = Converter::new(b, &keep).value(Some(obj), "value")?;
        pyjson::data_to_py(py, &d.to_data())
    })
}

#[pymodule]
fn _chatcodec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<template::ChatTemplate>()?;
    m.add_class::<stream::StreamParser>()?;
    m.add_function(wrap_pyfunction!(render_jinja_template, m)?)?;
    m.add_function(wrap_pyfunction!(stream::formats, m)?)?;
    m.add_function(wrap_pyfunction!(stream::format_for_template, m)?)?;
    m.add_function(wrap_pyfunction!(plain_data, m)?)?;
    m.add("TEMPLATE_CACHE_SIZE", cache::CAPACITY)?;
    Ok(())
}
