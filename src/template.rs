//! The public face of the engine: compile a template once, render it many times.

use crate::clock::Clock;
use crate::error::Error;
pub use crate::limits::Limits;

/// How a template compiles and renders.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Resource limits.
    pub limits: Limits,
    /// The clock `strftime_now` reads.
    pub clock: Clock,
}

/// A compiled template: parse and compile once, render many times, from many threads.
pub struct Template {
    pub(crate) program: crate::compile::Program,
    pub(crate) options: Options,
}

impl Template {
    /// Compiles `source` with default options.
    pub fn new(source: &str) -> Result<Template, Error> {
        Template::with_options(source, Options::default())
    }

    /// Compiles `source` with `options`.
    pub fn with_options(source: &str, options: Options) -> Result<Template, Error> {
        let program = crate::compile::compile(source, &options.limits)?;
        Ok(Template { program, options })
    }

    /// The options renders use.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Changes the options renders use (limits other than nesting, and the clock).
    pub fn options_mut(&mut self) -> &mut Options {
        &mut self.options
    }

    /// The names the template looks up in its variables (its free variables: `messages`,
    /// `tools`, kwargs such as `enable_thinking`, builtins such as `raise_exception`, and
    /// template-level names it also assigns), in first-use order. Which of them are kwargs
    /// that matter is for rendering to tell (see `chat::caps`).
    pub fn global_names(&self) -> Vec<&str> {
        self.program.global_names().collect()
    }

    /// The messages the template's `raise_exception(...)` calls can raise, in source order:
    /// constant parts as written, `…` where a run-time value goes.
    pub fn raise_messages(&self) -> Vec<String> {
        self.program.raise_messages()
    }

    /// Renders with the keys of the JSON object `vars` as template variables.
    pub fn render(&self, vars: &serde_json::Value) -> Result<String, Error> {
        let mut out = String::new();
        self.render_to(vars, &mut out)?;
        Ok(out)
    }

    /// Renders into `out` (appending), so a caller can reuse one buffer across renders.
    pub fn render_to(&self, vars: &serde_json::Value, out: &mut String) -> Result<(), Error> {
        crate::vm::render_json(
            &self.program,
            &self.options.limits,
            self.options.clock,
            vars,
            out,
        )
    }
}
