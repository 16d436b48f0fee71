//! The fuel of the render running on this thread: one budget that instructions and the work
//! inside them both draw from, so a render's CPU time is bounded by `Limits::fuel` whatever
//! its instructions do.
//!
//! The dispatch loop takes fuel in slices ([`take`]) and spends one unit per instruction
//! from its slice. Operations whose cost grows with their operands (comparing, searching,
//! sorting, joining, copying, serialising, printing) charge in proportion to the items and
//! bytes they touch ([`charge`], [`spend`]): one unit per item, one per [`BYTES_PER_UNIT`]
//! bytes. An operation that cannot return an error ([`spend`] returning `false`, e.g. `==`)
//! stops early with a meaningless result; the budget is then [`exhausted`], and the VM turns
//! that into the fuel error before the result can be used.
//!
//! Outside a render the budget is unlimited.

use std::cell::Cell;

use crate::error::{Error, ErrorKind, Limit};
use crate::value::Value;

/// Bytes of copying, comparing or searching that cost one unit of fuel.
pub(crate) const BYTES_PER_UNIT: usize = 16;

/// The budget of the render running on this thread, in one thread-local (each access to a
/// thread-local costs a lookup in a shared library such as the Python module).
struct Budget {
    /// Units left.
    left: Cell<u64>,
    /// The render's limit (for the error message).
    limit: Cell<u64>,
    /// An operation stopped early for want of fuel.
    short: Cell<bool>,
}

thread_local! {
    static BUDGET: Budget = const {
        Budget {
            left: Cell::new(u64::MAX),
            limit: Cell::new(u64::MAX),
            short: Cell::new(false),
        }
    };
}

/// Starts a render's budget of `fuel` units on this thread; the returned guard makes the
/// budget unlimited again when the render ends.
pub(crate) fn start(fuel: u64) -> Guard {
    BUDGET.with(|b| {
        b.left.set(fuel);
        b.limit.set(fuel);
        b.short.set(false);
    });
    Guard(())
}

/// Ends the budget [`start`] began when dropped.
pub(crate) struct Guard(());

impl Drop for Guard {
    fn drop(&mut self) {
        BUDGET.with(|b| {
            b.left.set(u64::MAX);
            b.limit.set(u64::MAX);
            b.short.set(false);
        });
    }
}

/// Spends `units`; `false` (and the budget is then exhausted) if fewer are left.
#[inline]
pub(crate) fn spend(units: u64) -> bool {
    BUDGET.with(|b| {
        let left = b.left.get();
        if units > left {
            b.left.set(0);
            b.short.set(true);
            false
        } else {
            b.left.set(left - units);
            true
        }
    })
}

/// Spends one unit per item of `items`.
#[inline]
pub(crate) fn spend_items(items: usize) -> bool {
    spend(items as u64)
}

/// Spends the units of touching `bytes` bytes.
#[inline]
pub(crate) fn spend_bytes(bytes: usize) -> bool {
    spend((bytes / BYTES_PER_UNIT) as u64)
}

/// [`spend`] `units`, or the fuel error.
#[inline]
pub(crate) fn charge(units: u64) -> Result<(), Error> {
    if spend(units) {
        Ok(())
    } else {
        Err(fuel_error())
    }
}

/// [`charge`] one unit per item.
#[inline]
pub(crate) fn charge_items(items: usize) -> Result<(), Error> {
    charge(items as u64)
}

/// [`charge`] for touching `bytes` bytes.
#[inline]
pub(crate) fn charge_bytes(bytes: usize) -> Result<(), Error> {
    charge((bytes / BYTES_PER_UNIT) as u64)
}

/// Whether an operation asked for more fuel than was left (and may have stopped early).
#[inline]
pub(crate) fn exhausted() -> bool {
    BUDGET.with(|b| b.short.get())
}

/// Takes up to `max` units for the dispatch loop to spend one per instruction; 0 when the
/// budget is used up.
#[inline]
pub(crate) fn take(max: u64) -> u64 {
    BUDGET.with(|b| {
        let left = b.left.get();
        let n = left.min(max);
        b.left.set(left - n);
        n
    })
}

/// The work of passing over `v` once: its items, or its bytes in units (0 for a small
/// scalar; a big integer costs its decimal conversion).
#[inline]
pub(crate) fn weight(v: &Value<'_>) -> u64 {
    let n = match v {
        Value::Str(s) | Value::Markup(s) => s.len() / BYTES_PER_UNIT,
        Value::List(l) | Value::Tuple(l) => l.len(),
        Value::Dict(d) => d.len(),
        Value::Iter(s) => s.items.len(),
        Value::Json(serde_json::Value::Array(a)) => a.len(),
        Value::Json(serde_json::Value::Object(o)) => o.len(),
        Value::Json(serde_json::Value::String(s)) => s.len() / BYTES_PER_UNIT,
        // Converting a big integer to decimal (`string`, `format`, `tojson`) is quadratic
        // in its digits.
        Value::Big(b) => b.digit_count().saturating_mul(b.digit_count()) / BYTES_PER_UNIT,
        _ => 0,
    };
    n as u64
}

/// Charges one pass over `value` and each of `args` (what a filter, test, method or builtin
/// function may do with them), before it runs.
#[inline]
pub(crate) fn charge_call(
    value: &Value<'_>,
    args: &[Value<'_>],
    kwargs: &[(&str, Value<'_>)],
) -> Result<(), Error> {
    let mut units = weight(value);
    for a in args {
        units = units.saturating_add(weight(a));
    }
    for (_, a) in kwargs {
        units = units.saturating_add(weight(a));
    }
    if units == 0 {
        return Ok(());
    }
    charge(units)
}

/// The error of a render that ran out of fuel.
#[cold]
pub(crate) fn fuel_error() -> Error {
    let limit = BUDGET.with(|b| b.limit.get());
    Error::new(
        ErrorKind::Limit(Limit::Fuel),
        format!(
            "the render ran out of fuel (Limits::fuel = {limit} units: one an instruction, one \
             an item or {BYTES_PER_UNIT} bytes of the work inside one)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_is_shared_and_restored() {
        {
            let _g = start(10);
            assert_eq!(take(4), 4);
            assert!(spend(5));
            assert!(!exhausted());
            assert!(!spend(2));
            assert!(exhausted());
            assert_eq!(take(4), 0);
            assert_eq!(charge(1).unwrap_err().kind(), ErrorKind::Limit(Limit::Fuel));
        }
        assert!(spend(u64::MAX / 2));
    }
}
