//! `StreamParser`: model output fed chunk by chunk, as OpenAI delta dicts and a final message.

use chatcodec::output::{self, Format, ParserChoice, Reasoning};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::pyjson::{to_json, to_py};

/// A streaming parser of one model output: `feed(text)` returns OpenAI delta dicts (the same
/// deltas as `chatcodec parse --stream`), `finish()` ends the stream and returns the final
/// message dict.
///
/// `format` is a `chatcodec parse --format` name; without it the format is told from
/// `template` (a Jinja source or a `ChatTemplate`), or chosen by vLLM's (or SGLang's) parser
/// names `tool_call_parser` / `reasoning_parser` with their meaning (`parse
/// --tool-call-parser`). `tools` (OpenAI tool dicts) restricts calls to those names (parser
/// names keep calls to other tools where those parsers do). `reasoning` is `"auto"`, `"open"`
/// (the prompt opened the reasoning block) or `"closed"`; `"auto"` with a reasoning parser
/// name is that parser's assumption, and `"open"` / `"closed"` also stand for the request's
/// thinking switch for parsers that follow it (`deepseek_v3`, `holo2`). Tool call ids are fresh random ones unless `id_seed` is
/// given.
#[pyclass(module = "chatcodec")]
pub(crate) struct StreamParser {
    inner: output::StreamParser,
    closed: bool,
    last: Vec<output::Event>,
}

#[pymethods]
impl StreamParser {
    #[new]
    #[pyo3(signature = (format=None, template=None, tools=None, reasoning="auto", id_seed=None, tool_call_parser=None, reasoning_parser=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        format: Option<&str>,
        template: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
        reasoning: &str,
        id_seed: Option<u64>,
        tool_call_parser: Option<&str>,
        reasoning_parser: Option<&str>,
    ) -> PyResult<StreamParser> {
        let choice = if tool_call_parser.is_some() || reasoning_parser.is_some() {
            if format.is_some() || template.is_some() {
                return Err(PyTypeError::new_err(
                    "give format=, template= or parser names, not several",
                ));
            }
            // The prompt's reasoning state stands for the request's thinking switch.
            let thinking = match reasoning {
                "open" => Some(true),
                "closed" => Some(false),
                _ => None,
            };
            Some(
                Format::by_parsers_thinking(tool_call_parser, reasoning_parser, thinking)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
            )
        } else {
            None
        };
        let choice = match (choice, format, template) {
            (Some(c), _, _) => c,
            (None, Some(name), _) => ParserChoice::of(
                Format::by_name(name).map_err(|e| PyValueError::new_err(e.to_string()))?,
            ),
            (None, None, Some(t)) => {
                let source = match t.cast::<PyString>() {
                    Ok(s) => s.to_cow()?.into_owned(),
                    Err(_) => t.getattr("source")?.extract::<String>()?,
                };
                ParserChoice::of(Format::for_template(&source).ok_or_else(|| {
                    PyValueError::new_err(
                        "no output format is known for this template (no tool-call or reasoning markers); pass format=",
                    )
                })?)
            }
            (None, None, None) => {
                return Err(PyTypeError::new_err(
                    "give format=, template=, tool_call_parser= or reasoning_parser=",
                ))
            }
        };
        let reasoning = match reasoning {
            "auto" => choice.reasoning,
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
        let mut options = output::Options::for_choice(
            &choice,
            tools,
            id_seed.unwrap_or_else(output::random_id_seed),
        );
        options.reasoning = reasoning;
        let format = choice.format;
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
        let events = self.inner.feed(&crate::convert::text(text)?);
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

/// The OpenAI delta dicts of `events`: `chatcodec::output::delta`'s, built as Python dicts
/// directly (no JSON value in between; the keys are interned strings).
fn deltas<'py>(py: Python<'py>, events: &[output::Event]) -> PyResult<Bound<'py, PyList>> {
    use output::Event;
    use pyo3::intern;
    let list = PyList::empty(py);
    for e in events {
        let d = PyDict::new(py);
        match e {
            Event::Content(s) => d.set_item(intern!(py, "content"), s)?,
            Event::Reasoning(s) => d.set_item(intern!(py, "reasoning_content"), s)?,
            Event::ToolCallStart { index, id, name } => {
                let function = PyDict::new(py);
                function.set_item(intern!(py, "name"), name)?;
                function.set_item(intern!(py, "arguments"), intern!(py, ""))?;
                let call = PyDict::new(py);
                call.set_item(intern!(py, "index"), index)?;
                call.set_item(intern!(py, "id"), id)?;
                call.set_item(intern!(py, "type"), intern!(py, "function"))?;
                call.set_item(intern!(py, "function"), function)?;
                d.set_item(intern!(py, "tool_calls"), PyList::new(py, [call])?)?;
            }
            Event::ToolCallArgs { index, text } => {
                let function = PyDict::new(py);
                function.set_item(intern!(py, "arguments"), text)?;
                let call = PyDict::new(py);
                call.set_item(intern!(py, "index"), index)?;
                call.set_item(intern!(py, "function"), function)?;
                d.set_item(intern!(py, "tool_calls"), PyList::new(py, [call])?)?;
            }
            // Any other event as `output::delta` gives it (none, for the end of a call or a
            // malformed stretch).
            _ => {
                if let Some(v) = output::delta(e) {
                    list.append(to_py(py, &v)?)?;
                }
                continue;
            }
        }
        list.append(d)?;
    }
    Ok(list)
}

/// The format names and descriptions of `chatcodec parse --list-formats`.
#[pyfunction]
pub(crate) fn formats() -> Vec<(&'static str, &'static str)> {
    Format::names().collect()
}

/// The `parse --format` name for a template's source, or None.
#[pyfunction]
pub(crate) fn format_for_template(source: &str) -> Option<&'static str> {
    Format::for_template(source).map(|f| f.name())
}
