//! The compiled templates of `render_jinja_template`, by source: transformers passes the
//! template's source string on every call, so each call looks its compiled program up here
//! (as transformers' own `lru_cache` on `_compile_jinja_template` does).
//!
//! A lookup first compares the `str` object itself (the caller passing the same object, the
//! common case: no hashing, no comparison of text), then the string's hash (cached in the
//! object by CPython) and its text. The cache keeps the [`CAPACITY`] most recently used
//! templates; each entry holds a reference to its key, so an object's address is never
//! reused for another string while it is in the cache.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyString;

/// How many compiled templates are kept (transformers keeps all of them; a server renders
/// with a handful).
pub(crate) const CAPACITY: usize = 64;

struct Entry {
    key: Py<PyString>,
    hash: isize,
    template: Arc<chatcodec::Template>,
}

/// Most recently used first.
static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// The compiled template for `source`, compiled on first use.
pub(crate) fn compiled(
    source: &Bound<'_, PyString>,
) -> PyResult<Result<Arc<chatcodec::Template>, chatcodec::Error>> {
    let py = source.py();
    let ptr = source.as_ptr();
    {
        let mut cache = lock();
        if let Some(i) = cache.iter().position(|e| e.key.as_ptr() == ptr) {
            return Ok(Ok(hit(&mut cache, i)));
        }
    }
    // Outside the lock: hashing a `str` subclass may run Python code (which may render).
    // The texts are compared in Rust, under the lock.
    let hash = source.hash()?;
    let text = crate::convert::text(source)?;
    {
        let mut cache = lock();
        for i in 0..cache.len() {
            if cache[i].hash == hash && crate::convert::text(cache[i].key.bind(py))? == text {
                return Ok(Ok(hit(&mut cache, i)));
            }
        }
    }
    // Compiled outside the lock (another thread may compile the same source meanwhile: both
    // results are equal; the later one takes a slot of its own).
    let template = match chatcodec::Template::new(&text) {
        Ok(t) => Arc::new(t),
        Err(e) => return Ok(Err(e)),
    };
    let mut cache = lock();
    cache.insert(
        0,
        Entry {
            key: source.clone().unbind(),
            hash,
            template: template.clone(),
        },
    );
    let evicted = if cache.len() > CAPACITY {
        cache.split_off(CAPACITY)
    } else {
        Vec::new()
    };
    drop(cache);
    // Released outside the lock: freeing a `str` subclass may run its `__del__`.
    drop(evicted);
    Ok(Ok(template))
}

fn lock() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Moves entry `i` to the front and returns its template.
fn hit(cache: &mut [Entry], i: usize) -> Arc<chatcodec::Template> {
    cache[..=i].rotate_right(1);
    cache[0].template.clone()
}
