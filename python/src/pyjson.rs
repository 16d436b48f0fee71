//! Conversions between Python objects, JSON and [`Data`] for the paths that are not the
//! rendering one: special tokens, stream parser tools and results, capabilities, polyfills.

use chatcodec::chat::Data;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};
use serde_json::Value;

use crate::convert::MAX_DEPTH;

/// Python values as JSON (special tokens, tools for the stream parser): str, None, bool, int,
/// float, lists, tuples and dicts with string keys; anything else as its `str()`.
pub(crate) fn to_json(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err("value nested too deeply"));
    }
    Ok(if obj.is_none() {
        Value::Null
    } else if let Ok(b) = obj.cast::<PyBool>() {
        Value::Bool(b.is_true())
    } else if let Ok(i) = obj.extract::<i64>() {
        Value::from(i)
    } else if let Ok(f) = obj.cast::<PyFloat>() {
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
pub(crate) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
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

/// Template data as JSON, for the polyfills (which adapt JSON requests): tuples become lists,
/// dict keys their text; an int beyond 64 bits has no JSON form here and is refused.
pub(crate) fn data_json(d: &Data<'_>) -> PyResult<Value> {
    Ok(match d {
        Data::None => Value::Null,
        Data::Bool(b) => Value::Bool(*b),
        Data::Int(i) => Value::from(*i),
        Data::BigInt { .. } => {
            return Err(PyValueError::new_err(
                "polyfills work on JSON data: an int beyond 64 bits has no JSON form",
            ))
        }
        Data::Float(f) => Value::from(*f),
        Data::Str(s) => Value::String(s.to_string()),
        Data::List(items) | Data::Tuple(items) => {
            Value::Array(items.iter().map(data_json).collect::<PyResult<_>>()?)
        }
        Data::Dict(pairs) => {
            let mut m = serde_json::Map::new();
            for (k, v) in pairs {
                let key = match k {
                    Data::Str(s) => s.to_string(),
                    Data::Int(i) => i.to_string(),
                    Data::Bool(b) => if *b { "True" } else { "False" }.to_string(),
                    Data::None => "None".to_string(),
                    _ => {
                        return Err(PyValueError::new_err(
                            "polyfills work on JSON data: dict keys must be strings",
                        ))
                    }
                };
                m.insert(key, data_json(v)?);
            }
            Value::Object(m)
        }
    })
}

/// Template data back as Python objects (big ints and tuples as they were).
pub(crate) fn data_to_py<'py>(py: Python<'py>, d: &Data<'_>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match d {
        Data::None => py.None().into_bound(py),
        Data::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
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
