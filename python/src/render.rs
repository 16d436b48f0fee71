//! `render_jinja_template`, declared to CPython by hand rather than with `#[pyfunction]`: a
//! `METH_VARARGS | METH_KEYWORDS` function of the stable ABI whose arguments are read here
//! straight from the tuple and keyword dict the interpreter passes.
//!
//! Why by hand: with `abi3-py39`, PyO3 reads keyword arguments by encoding each name to a new
//! `bytes` object, and copies the unknown ones (the template's own keyword arguments, such as
//! `enable_thinking`) into a new dict: about 1.8 k instructions per call, more than reading
//! the messages of a short conversation. Here each keyword name is first compared by
//! identity with the interned parameter names (a name written in the caller's source is
//! interned), then by text; the other keywords are kept as references, in order, and
//! converted once.
//!
//! `METH_VARARGS | METH_KEYWORDS` rather than `METH_FASTCALL`: transformers calls the function
//! with `**template_kwargs`, and a call with `**` reaches a C function with a dict already
//! built, which a fastcall function would make CPython unpack into an array and a tuple of
//! names first (and `METH_FASTCALL` is not in the 3.9 stable ABI).

use std::ffi::CStr;

use chatcodec::chat::{self, Val};
use chatcodec::Error;
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyModule, PyString, PyTuple};
use smallvec::SmallVec;

use crate::convert::{self, Converter, Keep};
use crate::{
    built_request, check_documents, continue_field, give_out, messages, take_out, to_pyerr,
    tool_schemas, KwArgs, OnThisThread,
};

/// The parameters before `**kwargs`, in positional order.
const PARAMS: [&str; 7] = [
    "conversations",
    "tools",
    "documents",
    "chat_template",
    "return_assistant_tokens_mask",
    "continue_final_message",
    "add_generation_prompt",
];

/// The docstring, its first line the signature that `inspect.signature` reads.
const DOC: &CStr = c"render_jinja_template(conversations, tools=None, documents=None, chat_template=None, return_assistant_tokens_mask=False, continue_final_message=False, add_generation_prompt=False, **kwargs)
--

Renders each conversation with `chat_template`, exactly as transformers 5.23's
`transformers.utils.chat_template_utils.render_jinja_template` does.

Returns `(rendered, generation_indices)`: one prompt string per conversation and, with
`return_assistant_tokens_mask`, one list of `(start, end)` string indices per conversation
of the text that `{% generation %}` blocks produced (an empty list otherwise). The indices
never reach past the end of a prompt cut by `continue_final_message`.

Inputs are read as transformers prepares template data: subclasses of str/int/float as
their base values, mappings, tuples, numpy scalars, dataclasses and pydantic models as
plain data, any other object as the placeholder `\"<TypeName>\"`. A structure that contains
itself raises `ValueError` naming the path (e.g. `conversations[0][2][\"content\"]`).

Compiled templates are cached by source (the 64 most recently used). Template errors
raise a `TemplateError` subclass that is also the exception transformers raises there
(`jinja2.UndefinedError`, `TypeError`, `ZeroDivisionError`, ...; see `chatcodec._errors`);
argument errors raise `TypeError`/`ValueError` as transformers does. The GIL is released while
rendering a request of 4 kB of text or more.";

/// Adds `render_jinja_template` to the module.
pub(crate) fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // CPython keeps a pointer to the definition for as long as the function lives: one
    // small definition per module initialisation, never freed.
    let def: &'static mut ffi::PyMethodDef = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: c"render_jinja_template".as_ptr(),
        ml_meth: ffi::PyMethodDefPointer {
            PyCFunctionWithKeywords: entry,
        },
        ml_flags: ffi::METH_VARARGS | ffi::METH_KEYWORDS,
        ml_doc: DOC.as_ptr(),
    }));
    let module_name = m.name()?;
    // SAFETY: `def` lives forever; the module and its name are live objects; the result is a
    // new reference or null with an exception set, which `from_owned_ptr_or_err` takes.
    let f = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyCFunction_NewEx(def, m.as_ptr(), module_name.as_ptr()),
        )?
    };
    m.add("render_jinja_template", f)
}

/// The C entry point: PyO3's trampoline for a `METH_VARARGS | METH_KEYWORDS` function (the
/// one its own `#[pyfunction]`s use: it marks the thread as attached and turns a panic into
/// `PanicException`).
unsafe extern "C" fn entry(
    slf: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: CPython calls this with the GIL held, `args` a tuple and `kwargs` a dict or
    // null, as the trampoline requires.
    unsafe { pyo3::impl_::trampoline::cfunction_with_keywords(slf, args, kwargs, call) }
}

/// Reads the arguments and renders.
unsafe fn call(
    py: Python<'_>,
    _module: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> PyResult<*mut ffi::PyObject> {
    // SAFETY: as for `entry`.
    let args = unsafe { Args::read(py, args, kwargs)? };
    render(py, &args).map(Bound::into_ptr)
}

/// The parameter names as interned strings: a keyword written in the caller's source is
/// the same object.
static NAMES: PyOnceLock<[Py<PyString>; 7]> = PyOnceLock::new();

/// The arguments of one call, each held (Python code run while converting one cannot drop
/// another).
pub(crate) struct Args<'py> {
    /// The named parameters ([`PARAMS`]), None when not given.
    params: [Option<Bound<'py, PyAny>>; 7],
    /// The other keyword arguments, in the caller's order.
    kwargs: KwArgs<'py>,
}

impl<'py> Args<'py> {
    /// Reads the positional tuple and the keyword dict as Python binds them to the signature
    /// of [`DOC`], with the same `TypeError`s.
    ///
    /// # Safety
    /// `args` must be a tuple, `kwargs` a dict or null (what CPython passes a
    /// `METH_VARARGS | METH_KEYWORDS` function). Out of line, so that profiles show its cost.
    #[inline(never)]
    unsafe fn read(
        py: Python<'py>,
        args: *mut ffi::PyObject,
        kwargs: *mut ffi::PyObject,
    ) -> PyResult<Args<'py>> {
        let mut params: [Option<Bound<'py, PyAny>>; 7] = Default::default();
        // SAFETY: `args` is a live tuple (the caller's contract).
        let args = unsafe { pyo3::Borrowed::from_ptr(py, args).cast_unchecked::<PyTuple>() };
        let n = args.len();
        if n > PARAMS.len() {
            return Err(PyTypeError::new_err(format!(
                "render_jinja_template() takes from 1 to {} positional arguments but {n} were given",
                PARAMS.len()
            )));
        }
        for (slot, a) in params.iter_mut().zip(args.iter_borrowed()) {
            *slot = Some(a.to_owned());
        }
        let mut extra = SmallVec::new();
        if !kwargs.is_null() {
            let names = NAMES.get_or_init(py, || PARAMS.map(|p| PyString::intern(py, p).unbind()));
            let mut pos: ffi::Py_ssize_t = 0;
            let mut k: *mut ffi::PyObject = std::ptr::null_mut();
            let mut v: *mut ffi::PyObject = std::ptr::null_mut();
            // SAFETY: `kwargs` is a live dict (the caller's contract). Nothing below runs
            // Python code until the loop ends (comparing names reads their text only), and
            // each key and value is taken as a new reference before the next step.
            while unsafe { ffi::PyDict_Next(kwargs, &mut pos, &mut k, &mut v) } != 0 {
                // SAFETY: borrowed references to a live key and value (above).
                let (key, value) = unsafe {
                    (
                        pyo3::Borrowed::from_ptr(py, k),
                        pyo3::Borrowed::from_ptr(py, v),
                    )
                };
                let Ok(key) = key.cast::<PyString>() else {
                    return Err(PyTypeError::new_err(
                        "render_jinja_template() keywords must be strings",
                    ));
                };
                let i = match names.iter().position(|n| n.as_ptr() == k) {
                    Some(i) => Some(i),
                    None => {
                        let text = convert::text(&key)?;
                        PARAMS.iter().position(|p| *p == text)
                    }
                };
                match i {
                    Some(i) if params[i].is_some() => {
                        return Err(PyTypeError::new_err(format!(
                            "render_jinja_template() got multiple values for argument '{}'",
                            PARAMS[i]
                        )))
                    }
                    Some(i) => params[i] = Some(value.to_owned()),
                    None => extra.push((key.to_owned(), value.to_owned())),
                }
            }
        }
        if params[0].is_none() {
            return Err(PyTypeError::new_err(
                "render_jinja_template() missing 1 required positional argument: 'conversations'",
            ));
        }
        Ok(Args {
            params,
            kwargs: extra,
        })
    }

    /// Parameter `i` of [`PARAMS`], when given.
    fn get(&self, i: usize) -> Option<&Bound<'py, PyAny>> {
        self.params[i].as_ref()
    }
}

/// The body of `render_jinja_template` (see [`DOC`]).
fn render<'py>(py: Python<'py>, args: &Args<'py>) -> PyResult<Bound<'py, PyAny>> {
    let [conversations, tools, documents, chat_template, return_assistant_tokens_mask, continue_final_message, add_generation_prompt] =
        std::array::from_fn(|i| args.get(i));
    let Some(conversations) = conversations else {
        return Err(PyTypeError::new_err("conversations is required"));
    };
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
    let template = crate::cache::compiled(source)?.map_err(|e| crate::to_pyerr(py, &e))?;
    let mask = match return_assistant_tokens_mask {
        Some(m) => m.is_truthy()?,
        None => false,
    };
    let tools = tool_schemas(tools)?;
    check_documents(documents)?;
    let continue_final_message = continue_field(continue_final_message)?;

    let items: SmallVec<[Bound<'py, PyAny>; 1]> = match conversations.cast_exact::<PyList>() {
        Ok(list) => {
            // By index (nothing in this loop runs Python code).
            let mut items = SmallVec::with_capacity(list.len());
            for i in 0..list.len() {
                items.push(list.get_item(i)?);
            }
            items
        }
        Err(_) => conversations.try_iter()?.collect::<PyResult<_>>()?,
    };
    let keep = Keep::new();
    let t = &*template;
    let results = chat::with_builder(|b| {
        let mut conv = Converter::new(b, &keep);
        let mut chats: SmallVec<[Val; 1]> = SmallVec::with_capacity(items.len());
        for (i, chat) in items.iter().enumerate() {
            // A Conversation object (anything but a list or tuple with `.messages`) is read
            // through its messages, when its turn comes, as transformers does.
            let chat = if chat.is_exact_instance_of::<PyList>()
                || chat.is_exact_instance_of::<PyTuple>()
            {
                chat.clone()
            } else {
                let m = chat.getattr(pyo3::intern!(py, "messages"));
                let m = m.unwrap_or_else(|_| chat.clone());
                // That ran Python code (the attribute, the error dropped).
                conv.forget_keys();
                m
            };
            chats.push(messages(&mut conv, &chat, || {
                format!("conversations[{i}]")
            })?);
        }
        let mut request = built_request(
            &mut conv,
            Val::none(),
            tools.as_ref(),
            documents,
            add_generation_prompt,
            continue_final_message.as_deref(),
            &args.kwargs,
        )?;
        request.assistant_mask = mask;
        let job = OnThisThread((b, request, chats));
        let render = move || {
            let (b, mut request, chats) = job.into_inner();
            // All prompts are written one after another into one buffer: (start, end, spans).
            let mut buf = take_out();
            let mut parts: SmallVec<[_; 1]> = SmallVec::with_capacity(chats.len());
            for chat in chats {
                request.messages = chat;
                let start = buf.len();
                let spans = b.render(t, &request, &mut buf)?;
                // Code point indices already (the request is built for the mask).
                let spans = if mask { spans } else { Vec::new() };
                parts.push((start, buf.len(), spans));
            }
            Ok::<_, Error>((buf, parts))
        };
        Ok::<_, PyErr>(keep.render(py, render))
    })?;
    let (buf, parts) = results.map_err(|e| to_pyerr(py, &e))?;
    let texts = new_list(py, parts.len())?;
    let indices = new_list(py, if mask { parts.len() } else { 0 })?;
    for (i, (start, end, spans)) in parts.into_iter().enumerate() {
        set_item(&texts, i, convert::new_str(py, &buf[start..end]).into_any());
        if mask {
            set_item(&indices, i, PyList::new(py, spans)?.into_any());
        }
    }
    give_out(buf);
    pair(py, texts, indices)
}

/// A list of `len` items, each to be set with [`set_item`] before Python sees the list.
fn new_list(py: Python<'_>, len: usize) -> PyResult<Bound<'_, PyAny>> {
    let len = ffi::Py_ssize_t::try_from(len).unwrap_or(ffi::Py_ssize_t::MAX);
    // SAFETY: a new reference or null with an exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(len)) }
}

/// Sets item `i` of a list made by [`new_list`].
fn set_item(list: &Bound<'_, PyAny>, i: usize, item: Bound<'_, PyAny>) {
    // SAFETY: `list` is a list made by `new_list` with more than `i` items, not yet seen by
    // Python code; `PyList_SetItem` takes the item's reference (and cannot fail here: the
    // index is in range).
    unsafe {
        ffi::PyList_SetItem(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr());
    }
}

/// The tuple `(a, b)`.
fn pair<'py>(
    py: Python<'py>,
    a: Bound<'py, PyAny>,
    b: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: `PyTuple_New` returns a new reference or null with an exception set; a new
    // tuple's slots are set with `PyTuple_SetItem`, which takes the items' references.
    unsafe {
        let t = Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(2))?;
        ffi::PyTuple_SetItem(t.as_ptr(), 0, a.into_ptr());
        ffi::PyTuple_SetItem(t.as_ptr(), 1, b.into_ptr());
        Ok(t)
    }
}
