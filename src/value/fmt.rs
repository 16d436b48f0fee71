//! Printing values as Python does: `str(x)` for `{{ x }}` and `|string`, `repr(x)` inside
//! containers.

use crate::value::Value;

/// Appends `str(v)` to `out`; Undefined prints as nothing.
pub(crate) fn write_str(out: &mut String, v: &Value<'_>) {
    match v {
        Value::Str(s) => out.push_str(s),
        Value::Undefined(_) => {}
        _ => write_repr(out, v),
    }
}

/// Appends `repr(v)` to `out`.
pub(crate) fn write_repr(out: &mut String, v: &Value<'_>) {
    use std::fmt::Write;
    match v {
        Value::Undefined(_) => {}
        Value::None => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Big(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => write_float(out, *f),
        Value::Str(s) => {
            out.push('\'');
            out.push_str(s);
            out.push('\'');
        }
        _ => out.push_str("<object>"),
    }
}

/// Appends Python's `repr(f)`: the shortest round-trip digits, `1.0`, `1e+16`, `1.5e-07`,
/// `inf`, `nan`.
pub(crate) fn write_float(out: &mut String, f: f64) {
    use std::fmt::Write;
    if f.fract() == 0.0 && f.abs() < 1e16 {
        let _ = write!(out, "{f:.1}");
    } else {
        let _ = write!(out, "{f}");
    }
}
