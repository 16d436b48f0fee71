//! `chatcodec._chatcodec`: the Python binding's native module. A thin layer: Python objects
//! become [`chatcodec::chat::Data`] (see [`convert`]), the crate renders and parses, and the
//! results come back as Python objects. The public API is `python/chatcodec/__init__.py`.

use std::path::PathBuf;

use chatcodec::chat::{self, Data, DataRequest};
use chatcodec::output::{self, Format, Reasoning};
use chatcodec::{Error, ErrorKind};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

mod convert;

use convert::Converter;

/// The Python exception for an engine error: the classes of `chatcodec._errors`, which
/// subclass `jinja2.TemplateError` when jinja2 is importable (and `TypeError`, `ValueError`,
/// `OverflowError` for those kinds).
fn to_pyerr(py: Python<'_>, e: &Error) -> PyErr {
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

/// A compiled template (transformers caches compiled templates by source; so does the
/// Python layer, with these).
#[pyclass(frozen, module = "chatcodec._chatcodec")]
struct Template {
    inner: chatcodec::Template,
}

#[pymethods]
impl Template {
    #[new]
    fn new(py: Python<'_>, source: &str) -> PyResult<Template> {
        chatcodec::Template::new(source)
            .map(|inner| Template { inner })
            .map_err(|e| to_pyerr(py, &e))
    }
}

/// Converts `obj`, errors naming `root` and the path below it.
fn data(obj: Option<&Bound<'_, PyAny>>, root: &str) -> PyResult<Data> {
    match obj {
        None => Ok(Data::None),
        Some(o) => Converter::new().convert(o).map_err(|e| e.into_pyerr(root)),
    }
}

/// The messages of one conversation (a list or tuple of dicts after conversion); `root`
/// names it in errors.
fn messages(obj: &Bound<'_, PyAny>, root: impl Fn() -> String) -> PyResult<Vec<Data>> {
    let converted = Converter::new()
        .convert(obj)
        .map_err(|e| e.into_pyerr(&root()))?;
    match converted {
        Data::List(m) | Data::Tuple(m) => Ok(m),
        other => Err(PyTypeError::new_err(format!(
            "{}: a conversation must be a list of messages, got {}",
            root(),
            kind_name(&other)
        ))),
    }
}

fn kind_name(d: &Data) -> &'static str {
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
fn kwargs_data(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, Data)>> {
    let mut out = Vec::new();
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            let name: String = k.extract()?;
            let value = data(Some(&v), &name)?;
            out.push((name, value));
        }
    }
    Ok(out)
}

/// Byte offsets of `text` as Python string (code point) indices.
fn char_spans(text: &str, spans: &[(usize, usize)]) -> Vec<(usize, usize)> {
    if text.is_ascii() {
        return spans.to_vec();
    }
    let at = |b: usize| text.get(..b).map_or(b, |s| s.chars().count());
    spans.iter().map(|&(s, e)| (at(s), at(e))).collect()
}

/// transformers' `render_jinja_template` after its argument checks: every conversation
/// rendered with the same tools, documents and kwargs; the GIL is released while rendering.
/// Returns the prompts and, with `mask`, one list of generation `(start, end)` string indices
/// per conversation.
#[pyfunction]
#[pyo3(signature = (template, conversations, tools, documents, add_generation_prompt, continue_final_message, kwargs, mask))]
#[allow(clippy::too_many_arguments)]
fn render<'py>(
    py: Python<'py>,
    template: &Bound<'py, Template>,
    conversations: &Bound<'py, PyAny>,
    tools: Option<&Bound<'py, PyAny>>,
    documents: Option<&Bound<'py, PyAny>>,
    add_generation_prompt: Option<&Bound<'py, PyAny>>,
    continue_final_message: Option<String>,
    kwargs: Option<&Bound<'py, PyDict>>,
    mask: bool,
) -> PyResult<(Vec<String>, Bound<'py, PyList>)> {
    let mut chats = Vec::new();
    let items: Vec<Bound<'py, PyAny>> = match conversations.cast_exact::<PyList>() {
        Ok(list) => list.iter().collect(),
        Err(_) => conversations.try_iter()?.collect::<PyResult<_>>()?,
    };
    for (i, chat) in items.into_iter().enumerate() {
        // A Conversation object (anything but a list or tuple with `.messages`) is read
        // through its messages, as transformers does.
        let chat =
            if chat.is_exact_instance_of::<PyList>() || chat.is_exact_instance_of::<PyTuple>() {
                chat
            } else {
                match chat.getattr(pyo3::intern!(py, "messages")) {
                    Ok(m) => m,
                    Err(_) => chat,
                }
            };
        chats.push(messages(&chat, || format!("conversations[{i}]"))?);
    }
    let mut request = DataRequest {
        messages: Vec::new(),
        tools: data(tools, "tools")?,
        documents: data(documents, "documents")?,
        add_generation_prompt: match add_generation_prompt {
            None => Data::Bool(false),
            Some(v) => data(Some(v), "add_generation_prompt")?,
        },
        continue_final_message,
        kwargs: kwargs_data(kwargs)?,
    };
    let t = &template.get().inner;
    let results = py.detach(move || {
        let mut out = Vec::with_capacity(chats.len());
        for chat in chats {
            request.messages = chat;
            let mut text = String::new();
            let spans = chat::render_data_spans(t, &request, &mut text)?;
            let spans = char_spans(&text, &spans);
            out.push((text, spans));
        }
        Ok::<_, Error>(out)
    });
    let results = results.map_err(|e| to_pyerr(py, &e))?;
    let indices = PyList::empty(py);
    let mut texts = Vec::with_capacity(results.len());
    for (text, spans) in results {
        if mask {
            indices.append(spans)?;
        }
        texts.push(text);
    }
    Ok((texts, indices))
}

/// Python values as JSON (special tokens, tools for the stream parser): str, None, bool, int,
/// float, lists, tuples and dicts with string keys; anything else as its `str()`.
fn to_json(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<serde_json::Value> {
    use serde_json::Value;
    if depth > convert::MAX_DEPTH {
        return Err(PyValueError::new_err("value nested too deeply"));
    }
    Ok(if obj.is_none() {
        Value::Null
    } else if let Ok(b) = obj.cast::<pyo3::types::PyBool>() {
        Value::Bool(b.is_true())
    } else if let Ok(i) = obj.extract::<i64>() {
        Value::from(i)
    } else if let Ok(f) = obj.cast::<pyo3::types::PyFloat>() {
        Value::from(f.value())
    } else if let Ok(s) = obj.cast::<PyString>() {
        Value::String(s.to_cow()?.into_owned())
    } else if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = serde_json::Map::new();
        for (k, v) in d.iter() {
            m.insert(k.str()?.to_cow()?.into_owned(), to_json(&v, depth + 1)?);
        }
        Value::Object(m)
    } else if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        let mut a = Vec::new();
        for item in obj.try_iter()? {
            a.push(to_json(&item?, depth + 1)?);
        }
        Value::Array(a)
    } else {
        Value::String(obj.str()?.to_cow()?.into_owned())
    })
}

/// JSON as Python objects.
fn to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into_pyobject(py)?.into_any(),
            None => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for item in a {
                l.append(to_py(py, item)?)?;
            }
            l.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, item) in o {
                d.set_item(k, to_py(py, item)?)?;
            }
            d.into_any()
        }
    })
}

/// A model's chat template with its special tokens, applied as
/// `tokenizer.apply_chat_template(..., tokenize=False)` applies it.
#[pyclass(frozen, module = "chatcodec._chatcodec")]
struct NativeChatTemplate {
    plain: chat::ChatTemplate,
    /// The `tool_use` template, when the model has one: transformers picks it when tools are
    /// given.
    with_tools: Option<chat::ChatTemplate>,
}

#[pymethods]
impl NativeChatTemplate {
    #[new]
    #[pyo3(signature = (source, special_tokens=None))]
    fn new(
        py: Python<'_>,
        source: &str,
        special_tokens: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<NativeChatTemplate> {
        let mut tokens = serde_json::Map::new();
        if let Some(st) = special_tokens {
            for (k, v) in st.iter() {
                tokens.insert(k.extract::<String>()?, to_json(&v, 0)?);
            }
        }
        let plain =
            chat::ChatTemplate::new("default", source, tokens).map_err(|e| to_pyerr(py, &e))?;
        Ok(NativeChatTemplate {
            plain,
            with_tools: None,
        })
    }

    /// Loads a model folder or a GGUF file; `name` picks a named template.
    #[staticmethod]
    #[pyo3(signature = (path, name=None))]
    fn load(py: Python<'_>, path: PathBuf, name: Option<&str>) -> PyResult<NativeChatTemplate> {
        let loaded = py.detach(|| {
            let model = if path.is_dir() {
                chatcodec::load::ModelTemplates::from_model_dir(&path)?
            } else {
                chatcodec::load::ModelTemplates::from_gguf(&path)?
            };
            let plain = model.select(name, false)?;
            let with_tools = if name.is_none() && model.select_name(None, true)? != plain.name() {
                Some(model.select(None, true)?)
            } else {
                None
            };
            Ok::<_, Error>(NativeChatTemplate { plain, with_tools })
        });
        loaded.map_err(|e| to_pyerr(py, &e))
    }

    /// The template's name (`default`, `tool_use`, ...).
    #[getter]
    fn name(&self) -> &str {
        self.plain.name()
    }

    /// The Jinja source.
    #[getter]
    fn source(&self) -> &str {
        self.plain.source()
    }

    /// The special tokens, as a dict.
    #[getter]
    fn special_tokens<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::Value::Object(self.plain.special_tokens().clone()),
        )
    }

    /// The `chatcodec parse --format` name of the model's output, or None.
    #[getter]
    fn format(&self) -> Option<&'static str> {
        Format::for_template(self.plain.source()).map(|f| f.name())
    }

    /// Renders one conversation; returns the prompt and the generation string indices.
    #[pyo3(signature = (messages, tools, documents, add_generation_prompt, continue_final_message, kwargs, mask))]
    #[allow(clippy::too_many_arguments)]
    fn apply<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        tools: Option<&Bound<'py, PyAny>>,
        documents: Option<&Bound<'py, PyAny>>,
        add_generation_prompt: Option<&Bound<'py, PyAny>>,
        continue_final_message: Option<String>,
        kwargs: Option<&Bound<'py, PyDict>>,
        mask: bool,
    ) -> PyResult<(String, Vec<(usize, usize)>)> {
        let request = DataRequest {
            messages: self::messages(messages, || "messages".to_string())?,
            tools: data(tools, "tools")?,
            documents: data(documents, "documents")?,
            add_generation_prompt: match add_generation_prompt {
                None => Data::Bool(false),
                Some(v) => data(Some(v), "add_generation_prompt")?,
            },
            continue_final_message,
            kwargs: kwargs_data(kwargs)?,
        };
        let has_tools = matches!(&request.tools, Data::List(t) | Data::Tuple(t) if !t.is_empty());
        let t = match (&self.with_tools, has_tools) {
            (Some(t), true) => t,
            _ => &self.plain,
        };
        let r = py.detach(|| {
            let mut text = String::new();
            let spans = t.apply_data_to(&request, mask, &mut text)?;
            let spans = char_spans(&text, &spans);
            Ok::<_, Error>((text, spans))
        });
        r.map_err(|e| to_pyerr(py, &e))
    }
}

/// A streaming parser of one model output: `feed(text)` returns OpenAI delta dicts (the same
/// deltas as `chatcodec parse --stream`), `finish()` ends the stream and returns the final
/// message dict.
///
/// `format` is a `chatcodec parse --format` name; without it the format is told from
/// `template` (a Jinja source or a `ChatTemplate`). `tools` (OpenAI tool dicts) restricts
/// calls to those names. `reasoning` is `"auto"`, `"open"` (the prompt opened the reasoning
/// block) or `"closed"`. Tool call ids are fresh random ones unless `id_seed` is given.
#[pyclass(module = "chatcodec")]
struct StreamParser {
    inner: output::StreamParser,
    closed: bool,
    last: Vec<output::Event>,
}

#[pymethods]
impl StreamParser {
    #[new]
    #[pyo3(signature = (format=None, template=None, tools=None, reasoning="auto", id_seed=None))]
    fn new(
        format: Option<&str>,
        template: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
        reasoning: &str,
        id_seed: Option<u64>,
    ) -> PyResult<StreamParser> {
        let format = match (format, template) {
            (Some(name), _) => {
                Format::by_name(name).map_err(|e| PyValueError::new_err(e.to_string()))?
            }
            (None, Some(t)) => {
                let source = match t.cast::<PyString>() {
                    Ok(s) => s.to_cow()?.into_owned(),
                    Err(_) => t.getattr("source")?.extract::<String>()?,
                };
                Format::for_template(&source).ok_or_else(|| {
                    PyValueError::new_err(
                        "no output format is known for this template (no tool-call or reasoning markers); pass format=",
                    )
                })?
            }
            (None, None) => return Err(PyTypeError::new_err("give format= or template=")),
        };
        let reasoning = match reasoning {
            "auto" => Reasoning::Auto,
            "open" => Reasoning::ForcedOpen,
            "closed" => Reasoning::ForcedClosed,
            other => {
                return Err(PyValueError::new_err(format!(
                    "reasoning must be 'auto', 'open' or 'closed', not {other:?}"
                )))
            }
        };
        let tools = match tools {
            None => None,
            Some(t) => Some(to_json(t, 0)?),
        };
        let options = output::Options {
            reasoning,
            id_seed: id_seed.unwrap_or_else(output::random_id_seed),
            tools: tools.as_ref().map(output::Options::tool_names),
            tool_schemas: tools,
            ..Default::default()
        };
        Ok(StreamParser {
            inner: output::StreamParser::with_options(&format, options),
            closed: false,
            last: Vec::new(),
        })
    }

    /// Feeds text; returns the OpenAI delta dicts it completes.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyList>> {
        if self.closed {
            return Err(PyValueError::new_err("the stream is finished"));
        }
        let events = self.inner.feed(&text.to_cow()?);
        deltas(py, &events)
    }

    /// Ends the stream and returns its last deltas (an empty list once ended).
    fn close<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if self.closed {
            return Ok(PyList::empty(py));
        }
        self.closed = true;
        self.last = self.inner.finish();
        deltas(py, &self.last)
    }

    /// Ends the stream (see `close`) and returns the final message dict (`role`, `content`,
    /// `reasoning_content`, `tool_calls` as in an OpenAI response).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if !self.closed {
            self.closed = true;
            self.last = self.inner.finish();
        }
        to_py(py, &self.inner.message().to_json())
    }

    /// The message so far (final once finished), as an OpenAI message dict.
    #[getter]
    fn message<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.message().to_json())
    }
}

fn deltas<'py>(py: Python<'py>, events: &[output::Event]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in events {
        if let Some(d) = output::delta(e) {
            list.append(to_py(py, &d)?)?;
        }
    }
    Ok(list)
}

/// The format names and descriptions of `chatcodec parse --list-formats`.
#[pyfunction]
fn formats() -> Vec<(&'static str, &'static str)> {
    Format::names().collect()
}

/// The `parse --format` name for a template's source, or None.
#[pyfunction]
fn format_for_template(source: &str) -> Option<&'static str> {
    Format::for_template(source).map(|f| f.name())
}

/// Converts `obj` as template data and back to Python objects: what a template sees (for
/// tests and debugging; big ints and tuples come back as they are).
#[pyfunction]
fn plain_data<'py>(py: Python<'py>, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let d = data(Some(obj), "value")?;
    data_to_py(py, &d)
}

fn data_to_py<'py>(py: Python<'py>, d: &Data) -> PyResult<Bound<'py, PyAny>> {
    Ok(match d {
        Data::None => py.None().into_bound(py),
        Data::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Data::Int(i) => i.into_pyobject(py)?.into_any(),
        Data::BigInt {
            negative,
            magnitude_le,
        } => {
            let int = py.import("builtins")?.getattr("int")?;
            let bytes = pyo3::types::PyBytes::new(py, magnitude_le);
            let v = int.call_method1("from_bytes", (bytes, "little"))?;
            if *negative {
                v.neg()?
            } else {
                v
            }
        }
        Data::Float(f) => f.into_pyobject(py)?.into_any(),
        Data::Str(s) => PyString::new(py, s).into_any(),
        Data::List(items) => {
            let l = PyList::empty(py);
            for i in items {
                l.append(data_to_py(py, i)?)?;
            }
            l.into_any()
        }
        Data::Tuple(items) => {
            let v = items
                .iter()
                .map(|i| data_to_py(py, i))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, v)?.into_any()
        }
        Data::Dict(pairs) => {
            let d = PyDict::new(py);
            for (k, v) in pairs {
                d.set_item(data_to_py(py, k)?, data_to_py(py, v)?)?;
            }
            d.into_any()
        }
    })
}

#[pymodule]
fn _chatcodec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Template>()?;
    m.add_class::<NativeChatTemplate>()?;
    m.add_class::<StreamParser>()?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(format_for_template, m)?)?;
    m.add_function(wrap_pyfunction!(plain_data, m)?)?;
    Ok(())
}
