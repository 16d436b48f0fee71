//! Prompt templates: a user-authored prompt (a system prompt with variables) rendered with a
//! context of
//! - `system.*`: `current_date` (YYYY-MM-DD), `current_time` (HH:MM:SS), `current_datetime`
//!   (RFC 3339), `day_of_week`, `date_rfc1123`, `date_unix`, `date_unix_ms`, all UTC, from the
//!   injectable [`Clock`];
//! - caller namespaces (`assistant.*`, `conversation.*`, `session.*`, `message.*`, ...);
//! - `args.*`, also flattened at the root (`{{ name }}` as well as `{{ args.name }}`), where
//!   the template's default arguments sit below the runtime arguments. A root-level argument
//!   never replaces `system`, `args` or a caller namespace.
//!
//! A template error is an error: the raw template text is never used in its place.

use serde_json::{Map, Value};

use crate::clock::{Clock, DateTime};
use crate::error::Error;
use crate::template::{Options, Template};

/// The `system.*` values for the time `t` (UTC).
pub fn system_context(t: DateTime) -> Map<String, Value> {
    let unix = t.unix_seconds();
    let date = format!("{:04}-{:02}-{:02}", t.year, t.month, t.day);
    let time = format!("{:02}:{:02}:{:02}", t.hour, t.minute, t.second);
    let day = t.day_name();
    let month = &t.month_name()[..3];
    let mut m = Map::new();
    m.insert("current_date".into(), Value::String(date.clone()));
    m.insert("current_time".into(), Value::String(time.clone()));
    m.insert(
        "current_datetime".into(),
        Value::String(format!("{date}T{time}Z")),
    );
    m.insert("day_of_week".into(), Value::String(day.into()));
    m.insert(
        "date_rfc1123".into(),
        Value::String(format!(
            "{}, {:02} {month} {:04} {time} UTC",
            &day[..3],
            t.day,
            t.year
        )),
    );
    m.insert("date_unix".into(), Value::from(unix));
    m.insert(
        "date_unix_ms".into(),
        Value::from(unix * 1000 + i64::from(t.microsecond / 1000)),
    );
    m
}

/// A prompt template with its default arguments.
pub struct PromptTemplate {
    template: Template,
    defaults: Map<String, Value>,
}

impl PromptTemplate {
    /// Compiles `source`; `defaults` are the template's own argument values.
    pub fn new(source: &str, defaults: Map<String, Value>) -> Result<PromptTemplate, Error> {
        Ok(PromptTemplate {
            template: Template::with_options(source, Options::default())?,
            defaults,
        })
    }

    /// The variables a render sees: `system`, the `namespaces`, `args` (defaults overlaid
    /// with `args`) and the same arguments at the root.
    pub fn context(
        &self,
        clock: Clock,
        namespaces: &Map<String, Value>,
        args: &Map<String, Value>,
    ) -> Value {
        let mut merged = self.defaults.clone();
        for (k, v) in args {
            merged.insert(k.clone(), v.clone());
        }
        let mut vars = Map::new();
        vars.insert("system".into(), Value::Object(system_context(clock.now())));
        for (k, v) in namespaces {
            vars.insert(k.clone(), v.clone());
        }
        vars.insert("args".into(), Value::Object(merged.clone()));
        for (k, v) in merged {
            vars.entry(k).or_insert(v);
        }
        Value::Object(vars)
    }

    /// Renders the prompt; any template error is returned.
    pub fn render(
        &self,
        clock: Clock,
        namespaces: &Map<String, Value>,
        args: &Map<String, Value>,
    ) -> Result<String, Error> {
        self.template.render(&self.context(clock, namespaces, args))
    }
}
