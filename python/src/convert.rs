//! Python objects to chatcodec's template values ([`Val`], built in the render's arena with a
//! [`Builder`]), exactly as transformers 5.23's `_plain_template_data` prepares template
//! data, read directly (no JSON round trip, no intermediate tree):
//!
//! - `None` and exact `str`, `int`, `float`, `bool` as they are (ints of any size exactly);
//! - subclasses of `str`, `int`, `float` (enums, ...) as their base values;
//! - mappings as dicts (keys converted too), lists as lists, tuples as tuples;
//! - numpy scalars as their `.item()`; dataclass instances as dicts of their fields;
//!   objects with a callable `model_dump` (pydantic models) as what it returns;
//! - anything else as the placeholder `"<TypeName>"`.
//!
//! A structure that contains itself raises `ValueError` naming the path where it does
//! (transformers overflows the recursion limit there), as does one nested deeper than
//! [`MAX_DEPTH`].
//!
//! A string is read from the `str` object's own UTF-8 buffer; a short one (up to
//! [`BORROW_MIN`] bytes, most keys and values) is copied into the arena, which costs less than
//! holding the object, and a longer one is borrowed in place: the [`Keep`] the conversion was
//! given holds a reference to every such object, so the text stays valid while the caller's
//! containers change or the GIL is released.

use std::cell::{Cell, RefCell};

use chatcodec::chat::{Builder, Pairs, Val};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use smallvec::SmallVec;
use std::borrow::Cow;

/// Strings longer than this many bytes are borrowed from their `str` objects, shorter ones
/// copied.
pub(crate) const BORROW_MIN: usize = 256;

/// Containers nested deeper than this are refused (transformers' recursion limit stops near
/// here too).
pub(crate) const MAX_DEPTH: usize = 400;

/// One step of a path into the caller's data.
enum Step {
    Index(usize),
    Key(String),
    Attr(String),
}

/// Why a conversion failed, and the path to where, built while unwinding. Boxed: results
/// are returned at every level of the conversion, and stay small this way.
pub(crate) struct ConvError(Box<Failed>);

struct Failed {
    kind: Failure,
    path: Vec<Step>,
}

impl ConvError {
    fn new(kind: Failure) -> ConvError {
        ConvError(Box::new(Failed {
            kind,
            path: Vec::new(),
        }))
    }
}

enum Failure {
    Cycle,
    TooDeep,
    Python(PyErr),
}

impl ConvError {
    /// The Python exception, its message naming `root` and the path below it.
    pub(crate) fn into_pyerr(self, root: &str) -> PyErr {
        let mut path = root.to_string();
        for step in self.0.path.iter().rev() {
            match step {
                Step::Index(i) => path.push_str(&format!("[{i}]")),
                Step::Key(k) => path.push_str(&format!("[{k}]")),
                Step::Attr(a) => path.push_str(&format!(".{a}")),
            }
        }
        match self.0.kind {
            Failure::Cycle => PyValueError::new_err(format!(
                "cyclic structure: {path} contains itself, so it cannot be template data"
            )),
            Failure::TooDeep => PyValueError::new_err(format!(
                "template data nested deeper than {MAX_DEPTH} levels at {path}"
            )),
            Failure::Python(e) => e,
        }
    }
}

impl From<PyErr> for ConvError {
    fn from(e: PyErr) -> Self {
        ConvError::new(Failure::Python(e))
    }
}

trait At<T> {
    fn at(self, step: impl FnOnce() -> Step) -> Result<T, ConvError>;
}

impl<T> At<T> for Result<T, ConvError> {
    #[inline]
    fn at(self, step: impl FnOnce() -> Step) -> Result<T, ConvError> {
        self.map_err(|mut e| {
            e.0.path.push(step());
            e
        })
    }
}

/// Python's abstract base classes and helpers the rules need, looked up once.
struct Helpers {
    mapping: Py<PyType>,
    fields: Py<PyAny>,
}

static HELPERS: PyOnceLock<Helpers> = PyOnceLock::new();
static NP_GENERIC: PyOnceLock<Option<Py<PyType>>> = PyOnceLock::new();

fn helpers(py: Python<'_>) -> PyResult<&Helpers> {
    HELPERS.get_or_try_init(py, || {
        let abc = py.import("collections.abc")?;
        let dataclasses = py.import("dataclasses")?;
        Ok(Helpers {
            mapping: abc.getattr("Mapping")?.cast_into::<PyType>()?.unbind(),
            fields: dataclasses.getattr("fields")?.unbind(),
        })
    })
}

/// `numpy.generic`, once numpy has been imported by someone (no object can be a numpy scalar
/// before that, and we never import numpy ourselves).
fn np_generic<'py>(py: Python<'py>) -> Option<Bound<'py, PyType>> {
    if let Some(t) = NP_GENERIC.get(py) {
        return t.as_ref().map(|t| t.bind(py).clone());
    }
    let modules = py.import("sys").ok()?.getattr("modules").ok()?;
    let np = modules.get_item("numpy").ok()?;
    let generic = np
        .getattr("generic")
        .ok()
        .and_then(|g| g.cast_into::<PyType>().ok())
        .map(Bound::unbind);
    let _ = NP_GENERIC.set(py, generic);
    NP_GENERIC
        .get(py)
        .and_then(|t| t.as_ref().map(|t| t.bind(py).clone()))
}

/// Requests with at least this many bytes of text render with the GIL released (about 20 us
/// of rendering and up: `python/bench/bench_threads.py` shows renders of ~8 us running slower
/// from several threads when each releases the GIL, and ~26 us renders scaling).
const RELEASE_GIL_BYTES: usize = 4096;

/// The `str` objects whose text converted data borrows, kept alive as long as it.
pub(crate) struct Keep<'py> {
    strs: RefCell<Vec<Bound<'py, PyString>>>,
    /// Bytes of text read so far: how much rendering work the request holds.
    bytes: Cell<usize>,
}

impl<'py> Keep<'py> {
    pub(crate) fn new() -> Keep<'py> {
        Keep {
            strs: RefCell::new(Vec::new()),
            bytes: Cell::new(0),
        }
    }

    /// Whether the request read so far holds enough text for its render to outlast handing
    /// the GIL to another thread and taking it back. A short render (a few microseconds)
    /// keeps the GIL: with threads waiting for it, releasing and retaking it costs more than
    /// the render, and threads rendering short prompts would run slower than one thread.
    fn worth_releasing_the_gil(&self) -> bool {
        self.bytes.get() >= RELEASE_GIL_BYTES
    }

    /// Runs `render`, with the GIL released when the request read so far is long enough.
    pub(crate) fn render<T, F>(&self, py: Python<'_>, render: F) -> T
    where
        F: FnOnce() -> T + pyo3::marker::Ungil,
        T: pyo3::marker::Ungil,
    {
        if self.worth_releasing_the_gil() {
            py.detach(render)
        } else {
            render()
        }
    }

    /// Counts `n` more bytes of text read.
    #[inline]
    fn count(&self, n: usize) {
        self.bytes.set(self.bytes.get() + n);
    }

    /// The text of a `str` (or a subclass's base value) as a template string: copied into
    /// the arena when short, else borrowed for as long as `self`.
    #[inline]
    pub(crate) fn str<'a, 's>(
        &'s self,
        b: &Builder<'a, 's>,
        s: &Bound<'py, PyString>,
    ) -> PyResult<Val<'a>> {
        self.str_len(b, s).map(|(v, _)| v)
    }

    /// [`Keep::str`] and the length of the text in bytes. Inlined into the loops, so that the
    /// value stays in registers (returned through memory, it is stored in one width and read
    /// back in another, which stalls the CPU on every string).
    #[inline(always)]
    fn str_len<'a, 's>(
        &'s self,
        b: &Builder<'a, 's>,
        s: &Bound<'py, PyString>,
    ) -> PyResult<(Val<'a>, usize)> {
        #[cfg(not(windows))]
        {
            let text = utf8(s)?;
            self.count(text.len());
            if text.len() <= BORROW_MIN {
                return Ok((b.str_copy(text), text.len()));
            }
            Ok((self.borrow(b, s, text), text.len()))
        }
        #[cfg(windows)]
        {
            let text = s.to_cow()?;
            self.count(text.len());
            Ok((b.str_copy(&text), text.len()))
        }
    }

    /// A long string borrowed in place: `text`, the UTF-8 buffer of `s`.
    #[cfg(not(windows))]
    #[cold]
    #[inline(never)]
    fn borrow<'a, 's>(
        &'s self,
        b: &Builder<'a, 's>,
        s: &Bound<'py, PyString>,
        text: &str,
    ) -> Val<'a> {
        // SAFETY: `text` is the object's own UTF-8 buffer (from `utf8`), which lives as long
        // as the object; `self` holds a reference to the object (pushed here, released only
        // when `self` drops, which the borrow `'s` outlives), and a `str` never changes.
        let text: &'s str = unsafe { &*(text as *const str) };
        self.strs.borrow_mut().push(s.clone());
        b.str(text)
    }
}

/// How many dict keys [`Converter`] remembers: a key's slot is picked by its address (the
/// tool schemas of one request hold a dozen to twenty distinct keys).
const KEYS: usize = 16;

/// The slot of [`Converter`]'s remembered keys for an object at `addr`: objects are at least
/// 16-byte aligned and `str` objects at least 48 bytes long, so the bits above the fourth
/// tell neighbours apart.
#[inline(always)]
fn key_slot(addr: usize) -> usize {
    ((addr >> 4) ^ (addr >> 8)) % KEYS
}

/// The converter: the builder the values are made with, where the borrowed strings are kept,
/// the containers on the current path (to see cycles), and the dict keys read last.
///
/// The same few keys (`role`, `content`, ...) come back in every message, most often as the
/// same `str` object (interned by Python when written in source code, shared by `json.loads`
/// within a document): a key already read is found by its address, without asking CPython
/// for its text again or copying it. An address names the same string only while that
/// string lives, which is certain only while no Python code runs: the keys found since
/// Python code last ran are in dicts that nothing has changed since. So the remembered keys
/// are forgotten after anything that may run Python code (everything
/// [`Converter::convert_other`] does, the slow path of ints, releasing a container or a
/// key held while such code ran, which may free it), and none are remembered while such code
/// is on the stack. A caller that runs
/// Python code of its own between two conversions calls [`Converter::forget_keys`].
pub(crate) struct Converter<'a, 's, 'py> {
    b: &'a Builder<'a, 's>,
    keep: &'s Keep<'py>,
    /// Inline up to a depth that ordinary requests do not reach (no allocation per call).
    stack: SmallVec<[usize; 16]>,
    /// Keys by address: (address, value, length in bytes), in the slot [`key_slot`] gives
    /// the address; slot `i` holds a key when bit `i` of `known` is set.
    keys: [(usize, Val<'a>, usize); KEYS],
    known: u16,
    /// How many conversions that may run Python code are under way.
    foreign: usize,
    /// How many have been made so far.
    foreign_runs: usize,
}

impl<'a, 's, 'py> Converter<'a, 's, 'py> {
    pub(crate) fn new(b: &'a Builder<'a, 's>, keep: &'s Keep<'py>) -> Converter<'a, 's, 'py> {
        Converter {
            b,
            keep,
            stack: SmallVec::new(),
            keys: [(0, Val::none(), 0); KEYS],
            known: 0,
            foreign: 0,
            foreign_runs: 0,
        }
    }

    /// A dict key that is an exact `str`, found among the keys read last when it can be.
    #[inline(always)]
    fn key(&mut self, k: &Bound<'py, PyString>) -> PyResult<Val<'a>> {
        if self.foreign > 0 {
            return self.str(k);
        }
        let id = k.as_ptr() as usize;
        let slot = key_slot(id);
        let (known, v, len) = self.keys[slot];
        if known == id && self.known & (1 << slot) != 0 {
            self.keep.count(len);
            return Ok(v);
        }
        let (v, len) = self.keep.str_len(self.b, k)?;
        self.keys[slot] = (id, v, len);
        self.known |= 1 << slot;
        Ok(v)
    }

    /// Forgets the keys read so far: for a caller that ran Python code since.
    pub(crate) fn forget_keys(&mut self) {
        self.known = 0;
    }

    /// Runs `f`, which may run Python code: no key is remembered while it runs, and those
    /// read before are forgotten after.
    fn foreign<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.foreign += 1;
        let r = f(self);
        self.foreign -= 1;
        self.foreign_runs += 1;
        self.forget_keys();
        r
    }

    /// Converts `obj` (None for an absent argument), errors naming `root` and the path
    /// below it.
    pub(crate) fn value(
        &mut self,
        obj: Option<&Bound<'py, PyAny>>,
        root: &str,
    ) -> PyResult<Val<'a>> {
        match obj {
            None => Ok(Val::none()),
            Some(o) => self.convert(o).map_err(|e| e.into_pyerr(root)),
        }
    }

    /// Text copied into the arena.
    pub(crate) fn text(&self, s: &str) -> &'a str {
        self.b.text(s)
    }

    /// The text of a `str`, as a template string.
    #[inline]
    pub(crate) fn str(&self, s: &Bound<'py, PyString>) -> PyResult<Val<'a>> {
        self.keep.str(self.b, s)
    }

    /// Converts one object.
    pub(crate) fn convert(&mut self, obj: &Bound<'py, PyAny>) -> Result<Val<'a>, ConvError> {
        let ptr = obj.as_ptr();
        // SAFETY: `ptr` is a live object (borrowed by `obj`).
        let ty = unsafe { pyo3::ffi::Py_TYPE(ptr) };
        // Exact JSON scalars first: the common case, told apart by the type pointer alone.
        // SAFETY (each `addr_of_mut!` below): the addresses of CPython's static type objects.
        unsafe {
            if ty == std::ptr::addr_of_mut!(pyo3::ffi::PyUnicode_Type) {
                return Ok(self.str(obj.cast_unchecked::<PyString>())?);
            }
            if ptr == pyo3::ffi::Py_None() {
                return Ok(Val::none());
            }
            if ty == std::ptr::addr_of_mut!(pyo3::ffi::PyDict_Type) {
                return self.container(obj, |c| c.dict(obj.cast_unchecked::<PyDict>()));
            }
            if ty == std::ptr::addr_of_mut!(pyo3::ffi::PyList_Type) {
                return self.container(obj, |c| c.list(obj.cast_unchecked::<PyList>()));
            }
            if ty == std::ptr::addr_of_mut!(pyo3::ffi::PyBool_Type) {
                return Ok(Val::bool(ptr == pyo3::ffi::Py_True()));
            }
            if ty == std::ptr::addr_of_mut!(pyo3::ffi::PyLong_Type) {
                return self.int(obj);
            }
            if ty == std::ptr::addr_of_mut!(pyo3::ffi::PyFloat_Type) {
                return Ok(Val::float(obj.extract::<f64>()?));
            }
        }
        self.foreign(|c| c.convert_other(obj))
    }

    /// Everything but the exact JSON types: subclasses, mappings, tuples, numpy scalars,
    /// dataclasses, pydantic models, placeholders (kept out of the hot function).
    #[cold]
    #[inline(never)]
    fn convert_other(&mut self, obj: &Bound<'py, PyAny>) -> Result<Val<'a>, ConvError> {
        // Everything else may run Python code (methods, properties), which could drop the
        // last other reference to `obj`: hold one.
        let obj = &obj.clone();
        // Subclasses of the scalars, as their base values.
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(self.str(s)?);
        }
        if obj.is_instance_of::<PyInt>() {
            return self.int(obj);
        }
        if obj.is_instance_of::<PyFloat>() {
            return Ok(Val::float(obj.extract::<f64>()?));
        }
        if obj.is_exact_instance_of::<PyTuple>() {
            let t = obj.cast::<PyTuple>().map_err(PyErr::from)?;
            return self.container(obj, |c| c.items(t.iter()).map(|i| i.tuple()));
        }
        let py = obj.py();
        let h = helpers(py)?;
        if let Ok(d) = obj.cast::<PyDict>() {
            return self.container(obj, |c| c.dict(d));
        }
        if obj.is_instance(h.mapping.bind(py))? {
            let items = obj.call_method0("items")?;
            return self.container(obj, |c| c.pairs(items.try_iter()?));
        }
        if let Ok(l) = obj.cast::<PyList>() {
            return self.container(obj, |c| c.list(l));
        }
        if let Ok(t) = obj.cast::<PyTuple>() {
            return self.container(obj, |c| c.items(t.iter()).map(|i| i.tuple()));
        }
        if let Some(generic) = np_generic(py) {
            if obj.is_instance(&generic)? {
                let item = obj.call_method0("item")?;
                return self.convert(&item);
            }
        }
        let ty = obj.get_type();
        if !obj.is_instance_of::<PyType>() && ty.hasattr("__dataclass_fields__")? {
            let fields = h.fields.bind(py).call1((obj,))?;
            return self.container(obj, |c| {
                let mut out = c.b.pairs(0);
                for f in fields.try_iter()? {
                    let name = f?
                        .getattr("name")?
                        .cast_into::<PyString>()
                        .map_err(PyErr::from)?;
                    let v = obj.getattr(&name)?;
                    let key = c.str(&name)?;
                    let v = c.convert(&v).at(|| Step::Attr(name.to_string()))?;
                    out.push(key, v);
                }
                Ok(out.dict())
            });
        }
        if let Ok(dump) = obj.getattr("model_dump") {
            if dump.is_callable() {
                let plain = dump.call0()?;
                return self.convert(&plain);
            }
        }
        Ok(self.b.str_copy(&format!("<{}>", ty.name()?)))
    }

    /// Converts a container, refusing cycles and excessive depth. Its items are read through
    /// borrowed references: the container is held (Python code run while converting an item
    /// could otherwise drop it), and an item that may run Python code holds itself (above).
    fn container(
        &mut self,
        obj: &Bound<'py, PyAny>,
        f: impl FnOnce(&mut Self) -> Result<Val<'a>, ConvError>,
    ) -> Result<Val<'a>, ConvError> {
        let held = obj.clone();
        let id = obj.as_ptr() as usize;
        if self.stack.contains(&id) {
            return Err(ConvError::new(Failure::Cycle));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(ConvError::new(Failure::TooDeep));
        }
        let runs = self.foreign_runs;
        self.stack.push(id);
        let r = f(self);
        self.stack.pop();
        drop(held);
        if self.foreign_runs != runs {
            // Python code ran inside: releasing the container may have freed it, its keys
            // and anything its release ran `__del__` methods on.
            self.forget_keys();
        }
        r
    }

    fn items(
        &mut self,
        iter: impl Iterator<Item = Bound<'py, PyAny>>,
    ) -> Result<chatcodec::chat::Items<'a>, ConvError> {
        let mut out = self.b.items(iter.size_hint().0);
        for (i, item) in iter.enumerate() {
            out.push(self.convert(&item).at(|| Step::Index(i))?);
        }
        Ok(out)
    }

    /// A list's items, read by index while the index is inside the (possibly changing) list.
    fn list(&mut self, l: &Bound<'py, PyList>) -> Result<Val<'a>, ConvError> {
        let py = l.py();
        let mut out = self.b.items(l.len());
        let mut i = 0;
        while i < l.len() {
            // SAFETY: `l` is a live list (held by `container`) and `i` is inside it, so the
            // result is a valid borrowed reference, used before any Python code runs.
            let ptr = unsafe { pyo3::ffi::PyList_GetItem(l.as_ptr(), i as pyo3::ffi::Py_ssize_t) };
            if ptr.is_null() {
                return Err(PyErr::fetch(py).into());
            }
            // SAFETY: `ptr` is a valid object pointer (above).
            let item = unsafe { pyo3::Borrowed::from_ptr(py, ptr) };
            out.push(self.convert(&item).at(|| Step::Index(i))?);
            i += 1;
        }
        Ok(out.list())
    }

    /// A dict's pairs, read in place with `PyDict_Next` (no references taken).
    fn dict(&mut self, d: &Bound<'py, PyDict>) -> Result<Val<'a>, ConvError> {
        let py = d.py();
        let mut out = self.b.pairs(d.len());
        let mut pos: pyo3::ffi::Py_ssize_t = 0;
        let mut k: *mut pyo3::ffi::PyObject = std::ptr::null_mut();
        let mut v: *mut pyo3::ffi::PyObject = std::ptr::null_mut();
        // SAFETY: `d` is a live dict (held by `container`); `PyDict_Next` bounds-checks `pos`
        // against the dict's current table even if Python code changed it meanwhile, and
        // returns borrowed references to a live key and value.
        while unsafe { pyo3::ffi::PyDict_Next(d.as_ptr(), &mut pos, &mut k, &mut v) } != 0 {
            // SAFETY: valid object pointers (above).
            let (key, value) = unsafe {
                (
                    pyo3::Borrowed::from_ptr(py, k),
                    pyo3::Borrowed::from_ptr(py, v),
                )
            };
            self.pair(&key, &value, &mut out)?;
        }
        Ok(out.dict())
    }

    fn pairs(
        &mut self,
        iter: impl Iterator<Item = PyResult<Bound<'py, PyAny>>>,
    ) -> Result<Val<'a>, ConvError> {
        let mut out = self.b.pairs(0);
        for item in iter {
            let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item?.extract()?;
            self.pair(&k, &v, &mut out)?;
        }
        Ok(out.dict())
    }

    /// Converts a key and its value into `out`.
    #[inline(always)]
    fn pair(
        &mut self,
        k: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
        out: &mut Pairs<'a>,
    ) -> Result<(), ConvError> {
        if k.is_exact_instance_of::<PyString>() {
            // Reading an exact `str` runs no Python code: `v` is still in the dict.
            // SAFETY: checked just above.
            let key = self.key(unsafe { k.cast_unchecked::<PyString>() })?;
            // The common value, a `str`, without the call.
            let value = if v.is_exact_instance_of::<PyString>() {
                // SAFETY: checked just above.
                self.str(unsafe { v.cast_unchecked::<PyString>() })?
            } else {
                self.convert(v).at(|| Step::Key(key_text(None, key)))?
            };
            out.push(key, value);
            return Ok(());
        }
        // Converting any other key may run Python code that changes the dict: hold both
        // (the key is also shown by its repr in an error path).
        let runs = self.foreign_runs;
        {
            let (k, v) = (k.clone(), v.clone());
            let key = self.convert(&k)?;
            let value = self.convert(&v).at(|| Step::Key(key_text(Some(&k), key)))?;
            out.push(key, value);
        }
        if self.foreign_runs != runs {
            // Releasing them may have freed them (and run their `__del__`).
            self.forget_keys();
        }
        Ok(())
    }

    /// An int of any size (an `int` subclass as its value).
    #[inline]
    fn int(&mut self, obj: &Bound<'py, PyAny>) -> Result<Val<'a>, ConvError> {
        let mut overflow: std::os::raw::c_int = 0;
        // SAFETY: `obj` is a live `int` (or subclass: its value is read, no `__index__` is
        // called); an int too large sets `overflow` and raises nothing.
        let i = unsafe { pyo3::ffi::PyLong_AsLongLongAndOverflow(obj.as_ptr(), &mut overflow) };
        if overflow == 0 {
            if i == -1 {
                if let Some(e) = PyErr::take(obj.py()) {
                    return Err(e.into());
                }
            }
            return Ok(Val::int(i));
        }
        // The calls below make Python objects: the garbage collector may run, and with it
        // `__del__` methods. Hold the int.
        let obj = obj.clone();
        self.foreign(|c| c.big_int(&obj))
    }

    #[cold]
    #[inline(never)]
    fn big_int(&self, obj: &Bound<'py, PyAny>) -> Result<Val<'a>, ConvError> {
        let negative = obj.lt(0)?;
        let magnitude = obj.call_method0("__abs__")?;
        let bits: usize = magnitude.call_method0("bit_length")?.extract()?;
        let bytes = magnitude.call_method1("to_bytes", (bits.div_ceil(8), "little"))?;
        let bytes = bytes.cast::<PyBytes>().map_err(PyErr::from)?;
        self.b
            .big_int(negative, bytes.as_bytes())
            .map_err(|e| crate::to_pyerr(obj.py(), &e).into())
    }
}

#[cfg(not(windows))]
extern "C" {
    // Part of CPython's C API on every version this wheel supports (3.3+), though in the
    // stable ABI only from 3.10: on Linux and macOS the symbol resolves from the running
    // interpreter; Windows' python3.dll exports it only from 3.10, so Windows takes the
    // limited-API path.
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const std::os::raw::c_char;
}

#[cfg(not(windows))]
extern "C" {
    // Part of CPython's C API since 3.3, outside the limited API (as above: resolved from the
    // running interpreter on Linux and macOS).
    fn PyUnicode_New(size: pyo3::ffi::Py_ssize_t, maxchar: u32) -> *mut pyo3::ffi::PyObject;
}

/// A Python `str` of `text`. An ASCII text (most prompts) is copied straight into a new
/// one-byte string; any other text goes through CPython's UTF-8 decoder, which checks and
/// copies 8 bytes at a time (callgrind on `python/bench/bench_binding.py --loop`, a whole
/// call: 138 instructions fewer for a 306-byte prompt, 1,261 fewer for a 1,666-byte one).
pub(crate) fn new_str<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyString> {
    #[cfg(not(windows))]
    if is_ascii(text.as_bytes()) {
        if let Some(s) = new_ascii(py, text) {
            return s;
        }
    }
    PyString::new(py, text)
}

/// Whether every byte is below 128: 32 bytes a step, or-ed together in four words. Not
/// `<[u8]>::is_ascii`: with it, the call on the 306-byte prompt saved 15 instructions
/// instead of 138 (it alone cost 157).
fn is_ascii(b: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = |c: &[u8], i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&c[i..i + 8]);
        u64::from_ne_bytes(w)
    };
    let mut chunks = b.chunks_exact(32);
    let mut acc = 0u64;
    for c in &mut chunks {
        acc |= word(c, 0) | word(c, 8) | word(c, 16) | word(c, 24);
    }
    acc & HIGH == 0 && chunks.remainder().iter().all(|&x| x < 0x80)
}

/// [`new_str`] of an ASCII text; None (nothing made, no exception left) if CPython does not
/// hand out the new string's buffer as expected.
#[cfg(not(windows))]
fn new_ascii<'py>(py: Python<'py>, text: &str) -> Option<Bound<'py, PyString>> {
    let len = pyo3::ffi::Py_ssize_t::try_from(text.len()).ok()?;
    // SAFETY: `PyUnicode_New` returns a new reference (or null with an exception set, taken
    // below) to a string of `len` one-byte characters below 128 whose content is for the
    // caller to fill before anyone else sees it. For such a compact ASCII string
    // `PyUnicode_AsUTF8AndSize` returns its character buffer itself (`len` bytes, read by
    // nobody yet), into which the `len` ASCII bytes of `text` are copied.
    unsafe {
        let obj = PyUnicode_New(len, 127);
        if obj.is_null() {
            let _ = PyErr::take(py);
            return None;
        }
        let obj = Bound::from_owned_ptr(py, obj);
        let mut size: pyo3::ffi::Py_ssize_t = 0;
        let data = PyUnicode_AsUTF8AndSize(obj.as_ptr(), &mut size);
        if data.is_null() || size != len {
            let _ = PyErr::take(py);
            return None;
        }
        std::ptr::copy_nonoverlapping(text.as_ptr(), data.cast::<u8>().cast_mut(), text.len());
        Some(obj.cast_into_unchecked::<PyString>())
    }
}

/// The text of a `str` (or a subclass's base value): CPython's own UTF-8 form of it (the
/// characters themselves for an ASCII string, else a buffer cached in the object), not a copy.
#[cfg(not(windows))]
#[inline]
pub(crate) fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live str object and the GIL is held; the returned buffer belongs to
    // the object and is valid while it lives, which the borrow of `s` ensures.
    let ptr = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if ptr.is_null() {
        return Err(PyErr::fetch(s.py()));
    }
    let len = usize::try_from(size).unwrap_or(0);
    // SAFETY: on success CPython guarantees `size` bytes of valid UTF-8 at `ptr` (a string
    // with lone surrogates fails to encode instead).
    Ok(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr.cast::<u8>(), len)) })
}

/// A key as a path shows it: strings quoted, anything else as its repr.
fn key_text(k: Option<&Bound<'_, PyAny>>, key: Val<'_>) -> String {
    match (key.to_data(), k) {
        (chatcodec::chat::Data::Str(s), _) => format!("{s:?}"),
        (_, Some(k)) => k
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "?".into()),
        _ => "?".into(),
    }
}

/// The text of a `str`, borrowed where the platform allows.
pub(crate) fn text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    #[cfg(not(windows))]
    {
        utf8(s).map(Cow::Borrowed)
    }
    #[cfg(windows)]
    {
        s.to_cow()
    }
}
