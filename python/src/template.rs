//! `ChatTemplate`: a model's chat template with its special tokens, compiled once and
//! applied as `tokenizer.apply_chat_template(..., tokenize=False)` applies it, from any number
//! of threads (the GIL is released while rendering long requests and probing). Its capabilities
//! (`chat::caps`) and the polyfills that adapt a request to them (`chat::polyfill`) are
//! reachable too.

use std::path::PathBuf;

use chatcodec::chat::{self, polyfill, BuiltRequest};
use chatcodec::output::Format;
use chatcodec::Error;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

use crate::convert::{Converter, Keep};
use crate::pyjson::{data_json, to_json, to_py};
use crate::{check_documents, continue_field, give_out, take_out, to_pyerr, OnThisThread};

/// A chat template compiled once, with the special tokens it is rendered with.
///
/// `ChatTemplate(source, bos_token="<s>", ...)` compiles a Jinja source;
/// `ChatTemplate.from_pretrained(path)` loads a Hugging Face model folder (its
/// `chat_template.jinja`, `tokenizer_config.json`, ...) or a GGUF file. One instance can be
/// shared by any number of threads: `apply` releases the GIL while rendering long requests.
#[pyclass(frozen, module = "chatcodec", name = "ChatTemplate")]
pub(crate) struct ChatTemplate {
    plain: chat::ChatTemplate,
    /// The `tool_use` template, when the model has one: transformers picks it when tools are
    /// given.
    with_tools: Option<chat::ChatTemplate>,
}

#[pymethods]
impl ChatTemplate {
    #[new]
    #[pyo3(signature = (source, **special_tokens))]
    fn new(
        py: Python<'_>,
        source: &str,
        special_tokens: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ChatTemplate> {
        let mut tokens = serde_json::Map::new();
        if let Some(st) = special_tokens {
            for (k, v) in st.iter() {
                tokens.insert(k.extract::<String>()?, to_json(&v, 0)?);
            }
        }
        let plain = chat::ChatTemplate::new("default", source, tokens)
            .map_err(|e| crate::to_pyerr(py, &e))?;
        Ok(ChatTemplate {
            plain,
            with_tools: None,
        })
    }

    /// Loads the chat template(s) and special tokens of a model folder or a GGUF file.
    /// `name` picks a named template; without it, `apply` uses the `tool_use` template when
    /// tools are given (any `tools` but None, an empty list too) and the model has one, else
    /// `default`, as transformers does.
    #[classmethod]
    #[pyo3(signature = (path, name=None))]
    fn from_pretrained(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: PathBuf,
        name: Option<&str>,
    ) -> PyResult<ChatTemplate> {
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
            Ok::<_, Error>(ChatTemplate { plain, with_tools })
        });
        loaded.map_err(|e| crate::to_pyerr(py, &e))
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

    /// The special tokens passed to the template as keyword arguments, as a dict.
    #[getter]
    fn special_tokens<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::Value::Object(self.plain.special_tokens().clone()),
        )
    }

    /// The `StreamParser` / `chatcodec parse --format` name of the model's output, or None
    /// when the template's markers do not tell.
    #[getter]
    fn format(&self) -> Option<&'static str> {
        Format::for_template(self.plain.source()).map(|f| f.name())
    }

    /// What the template shows of a standard OpenAI request, as a dict (the names of
    /// docs/capabilities.md: `supports_system_role`, `supports_tools`, `supports_tool_calls`,
    /// `supports_reasoning`, `reasoning_format`, `kwargs`, `generation_prompt`, ...). Found
    /// by rendering small probe conversations with the template's special tokens, once (the
    /// first read costs about a millisecond, later reads only build the dict). For a model
    /// with a `tool_use` template, these are the `default` template's capabilities.
    #[getter]
    fn caps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let caps = py.detach(|| self.plain.caps());
        to_py(py, &caps.to_json())
    }

    /// Renders one conversation as `tokenizer.apply_chat_template(messages, ...,
    /// tokenize=False)` does (message keys whose value is None are dropped; the special tokens
    /// are keyword arguments under the caller's own). Returns the prompt, or `(prompt,
    /// generation_indices)` with `return_assistant_tokens_mask`.
    ///
    /// `polyfill` (off by default: the output is then exactly transformers') adapts the
    /// request to what the template shows before rendering (see `polyfill()`): `True` or
    /// `"all"` for every polyfill, or names (a list, or a comma-separated string). Releases
    /// the GIL while rendering a request of 4 kB of text or more, so threads sharing one
    /// template render long requests in parallel.
    #[pyo3(
        signature = (messages, tools=None, documents=None, add_generation_prompt=None, continue_final_message=None, return_assistant_tokens_mask=None, polyfill=None, **kwargs),
        text_signature = "(self, messages, tools=None, documents=None, add_generation_prompt=False, continue_final_message=False, return_assistant_tokens_mask=False, polyfill=None, **kwargs)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn apply<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        tools: Option<&Bound<'py, PyAny>>,
        documents: Option<&Bound<'py, PyAny>>,
        add_generation_prompt: Option<&Bound<'py, PyAny>>,
        continue_final_message: Option<&Bound<'py, PyAny>>,
        return_assistant_tokens_mask: Option<&Bound<'py, PyAny>>,
        polyfill: Option<&Bound<'py, PyAny>>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mask = match return_assistant_tokens_mask {
            Some(m) => m.is_truthy()?,
            None => false,
        };
        if let Some(k) = kwargs {
            // In `apply_chat_template` this names or gives the template to render, never a
            // template variable: rendering this one with it as a variable would be wrong.
            if k.contains(pyo3::intern!(py, "chat_template"))? {
                return Err(PyTypeError::new_err(
                    "ChatTemplate.apply renders its own template and takes no chat_template: \
                     load a named one with ChatTemplate.from_pretrained(path, name=...), or make \
                     a ChatTemplate of the source",
                ));
            }
        }
        let polyfills = polyfills(polyfill)?;
        let keep = Keep::new();
        let rendered = chat::with_builder(|b| {
            let mut conv = Converter::new(b, &keep);
            let mut request = self.request(
                &mut conv,
                messages,
                tools,
                documents,
                add_generation_prompt,
                continue_final_message,
                kwargs,
            )?;
            // Spans as transformers' code point indices.
            request.assistant_mask = mask;
            let t = self.pick(&request);
            if let Some(on) = polyfills {
                if mask {
                    return Err(PyValueError::new_err(
                        "return_assistant_tokens_mask is not available with polyfills",
                    ));
                }
                let json = request_json(&request)?;
                let text = py
                    .detach(|| polyfill::render_with(&json, t.caps(), &on, |r| t.apply(r)))
                    .map_err(|e| to_pyerr(py, &e))?;
                return Ok((text, Vec::new()));
            }
            let job = OnThisThread((b, request));
            let render = move || {
                let (b, request) = job.into_inner();
                let mut text = take_out();
                let spans = t.apply_built(b, &request, mask, &mut text)?;
                Ok::<_, Error>((text, spans))
            };
            keep.render(py, render).map_err(|e| to_pyerr(py, &e))
        });
        let (text, spans) = rendered?;
        let text = {
            let s = crate::convert::new_str(py, &text).into_any();
            give_out(text);
            s
        };
        if mask {
            Ok(PyTuple::new(py, [text, PyList::new(py, spans)?.into_any()])?.into_any())
        } else {
            Ok(text)
        }
    }

    /// The request adapted to what the template shows (`caps`), as a dict with `messages`,
    /// `tools`, ... ready for `apply`: system messages merged into the next user turn, tool
    /// definitions written into the system prompt, tool calls and results as text, reasoning
    /// moved to the template's own field, string content as text blocks, as each is needed
    /// and allowed by `polyfill` (`True`/`"all"`, or names: `system_role`, `tools`,
    /// `tool_calls`, `tool_responses`, `object_arguments`, `typed_content`, `reasoning`).
    /// A request that needs a polyfill that is off raises `TemplateError` naming the message;
    /// `polyfill="none"` therefore checks a request.
    #[pyo3(
        signature = (messages, tools=None, documents=None, add_generation_prompt=None, polyfill=None, **kwargs),
        text_signature = "(self, messages, tools=None, documents=None, add_generation_prompt=False, polyfill=None, **kwargs)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn polyfill<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        tools: Option<&Bound<'py, PyAny>>,
        documents: Option<&Bound<'py, PyAny>>,
        add_generation_prompt: Option<&Bound<'py, PyAny>>,
        polyfill: Option<&Bound<'py, PyAny>>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let on = match polyfill {
            None => Some(polyfill::Polyfills::all()),
            some => polyfills(some)?,
        }
        .unwrap_or_else(polyfill::Polyfills::none);
        let keep = Keep::new();
        let (json, t) = chat::with_builder(|b| {
            let request = self.request(
                &mut Converter::new(b, &keep),
                messages,
                tools,
                documents,
                add_generation_prompt,
                None,
                kwargs,
            )?;
            Ok::<_, PyErr>((request_json(&request)?, self.pick(&request)))
        })?;
        let adapted = py
            .detach(|| polyfill::apply(&json, t.caps(), &on))
            .map_err(|e| to_pyerr(py, &e))?;
        to_py(py, &adapted)
    }

    fn __repr__(&self) -> String {
        format!(
            "ChatTemplate(name={:?}, {} bytes)",
            self.plain.name(),
            self.plain.source().len()
        )
    }
}

impl ChatTemplate {
    /// The request's arguments converted, after transformers' checks of tools and documents.
    #[allow(clippy::too_many_arguments)]
    fn request<'a, 'py>(
        &self,
        conv: &mut Converter<'a, '_, 'py>,
        messages: &Bound<'py, PyAny>,
        tools: Option<&Bound<'py, PyAny>>,
        documents: Option<&Bound<'py, PyAny>>,
        add_generation_prompt: Option<&Bound<'py, PyAny>>,
        continue_final_message: Option<&Bound<'py, PyAny>>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<BuiltRequest<'a>> {
        let tools = crate::tool_schemas(tools)?;
        check_documents(documents)?;
        let continue_final_message = continue_field(continue_final_message)?;
        let messages = crate::messages(conv, messages, || "messages".to_string())?;
        crate::built_request(
            conv,
            messages,
            tools.as_ref(),
            documents,
            add_generation_prompt,
            continue_final_message.as_deref(),
            &crate::dict_items(kwargs)?,
        )
    }

    /// The template transformers would use: `tool_use` when tools are given and the model
    /// has one.
    fn pick(&self, request: &BuiltRequest<'_>) -> &chat::ChatTemplate {
        // `get_chat_template` tests `tools is not None`: an empty list picks `tool_use` too.
        let has_tools = !request.tools.is_none();
        match (&self.with_tools, has_tools) {
            (Some(t), true) => t,
            _ => &self.plain,
        }
    }
}

/// The `polyfill` argument: None/False for none (the byte-exact path), True for all, else
/// names as a comma-separated string or a list.
fn polyfills(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<polyfill::Polyfills>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
        return Ok(b.is_true().then(polyfill::Polyfills::all));
    }
    let list = if let Ok(s) = v.cast::<PyString>() {
        s.to_cow()?.into_owned()
    } else if v.cast::<PyList>().is_ok() || v.cast::<PyTuple>().is_ok() {
        let mut names = Vec::new();
        for n in v.try_iter()? {
            names.push(n?.extract::<String>()?);
        }
        names.join(",")
    } else {
        return Err(PyTypeError::new_err(
            "polyfill must be None, a bool, a comma-separated string of names or a list of names",
        ));
    };
    polyfill::Polyfills::parse(&list)
        .map(Some)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A converted request as the JSON request the polyfills adapt.
fn request_json(request: &BuiltRequest<'_>) -> PyResult<serde_json::Value> {
    let mut m = serde_json::Map::new();
    let messages = request.messages.items().unwrap_or(&[]);
    m.insert(
        "messages".into(),
        serde_json::Value::Array(
            messages
                .iter()
                .map(|v| data_json(&v.to_data()))
                .collect::<PyResult<_>>()?,
        ),
    );
    if !request.tools.is_none() {
        m.insert("tools".into(), data_json(&request.tools.to_data())?);
    }
    if !request.documents.is_none() {
        m.insert("documents".into(), data_json(&request.documents.to_data())?);
    }
    m.insert(
        "add_generation_prompt".into(),
        data_json(&request.add_generation_prompt.to_data())?,
    );
    if let Some(field) = request.continue_final_message {
        m.insert(
            "continue_final_message".into(),
            serde_json::Value::String(field.to_string()),
        );
    }
    for (k, v) in &request.kwargs {
        m.insert(k.to_string(), data_json(&v.to_data())?);
    }
    Ok(serde_json::Value::Object(m))
}
