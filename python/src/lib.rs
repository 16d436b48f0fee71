//! `chatcodec._chatcodec`: the Python binding's native module. A thin layer: Python objects
//! become [`chatcodec::chat::Data`] borrowing their strings (see [`convert`]), the crate
//! renders and parses, and the results come back as Python objects. The public API is
//! re-exported by `python/chatcodec/__init__.py`.

use chatcodec::chat::{self, BuiltRequest, Data, Val};
use chatcodec::{Error, ErrorKind, ExceptionClass};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use smallvec::SmallVec;

mod cache;
mod convert;
mod pyjson;
mod render;
mod stream;
mod template;

use convert::{Converter, Keep};

/// The Python exception for an engine error: the class of `chatcodec._errors` for its
/// [`ExceptionClass`], which subclasses the jinja2 or Python exception transformers' renderer
/// raises for the same failure (and `jinja2.TemplateError` when jinja2 is importable).
pub(crate) fn to_pyerr(py: Python<'_>, e: &Error) -> PyErr {
    // The class transformers' renderer raises for the same failure (`_errors.BY_CLASS`).
    let class = e.exception_class();
    // A raised message is the template's own text, verbatim, as jinja2 gives it; so is a
    // check of transformers' own on the rendered text (the final message to continue).
    let message = if e.kind() == ErrorKind::Raised
        || (e.location().is_none() && e.exception_class() == ExceptionClass::ValueError)
    {
        e.message().to_string()
    } else {
        e.to_string()
    };
    let line = e.location().map_or(0, |(line, _)| line);
    let made = py
        .import("chatcodec._errors")
        .and_then(|m| m.getattr("BY_CLASS"))
        .and_then(|by| by.get_item(class.name()))
        .and_then(|c| match class {
            ExceptionClass::TemplateSyntaxError | ExceptionClass::TemplateAssertionError => {
                c.call1((message.clone(), line))
            }
            _ => c.call1((message.clone(),)),
        });
    match made {
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
        // transformers iterates the conversation into a new list: an empty string or dict
        // has no message to refuse and renders as an empty conversation.
        None if (converted.is_str() || converted.is_dict()) && !converted.is_true() => {
            Ok(Val::empty_list())
        }
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
    kwargs: &[(Bound<'py, PyString>, Bound<'py, PyAny>)],
) -> PyResult<Vec<(&'a str, Val<'a>)>> {
    let mut out = Vec::with_capacity(kwargs.len());
    for (k, v) in kwargs {
        let name = convert::text(k)?;
        let value = conv.value(Some(v), &name)?;
        out.push((conv.text(&name), value));
    }
    Ok(out)
}

/// Keyword arguments by name, in order, each held.
pub(crate) type KwArgs<'py> = SmallVec<[(Bound<'py, PyString>, Bound<'py, PyAny>); 4]>;

/// A keyword dict's items, in order, each held.
pub(crate) fn dict_items<'py>(kwargs: Option<&Bound<'py, PyDict>>) -> PyResult<KwArgs<'py>> {
    let mut out = SmallVec::new();
    for (k, v) in kwargs.into_iter().flat_map(|d| d.iter()) {
        out.push((k.cast_into::<PyString>()?, v));
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
#[inline]
pub(crate) fn built_request<'a, 'py>(
    conv: &mut Converter<'a, '_, 'py>,
    messages: Val<'a>,
    tools: Option<&Bound<'py, PyAny>>,
    documents: Option<&Bound<'py, PyAny>>,
    add_generation_prompt: Option<&Bound<'py, PyAny>>,
    continue_final_message: Option<&str>,
    kwargs: &[(Bound<'py, PyString>, Bound<'py, PyAny>)],
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
        assistant_mask: false,
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
    render::add(m)?;
    m.add_function(wrap_pyfunction!(stream::formats, m)?)?;
    m.add_function(wrap_pyfunction!(stream::format_for_template, m)?)?;
    m.add_function(wrap_pyfunction!(plain_data, m)?)?;
    m.add("TEMPLATE_CACHE_SIZE", cache::CAPACITY)?;
    Ok(())
}
