//! Errors: one boxed type for every failure, with the kind, a message and, where known, the
//! template location (line, column) and the source line it points into.

use std::fmt;

/// What went wrong, coarsely; the message says exactly what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The template source does not parse (jinja2 `TemplateSyntaxError`).
    Syntax,
    /// An undefined value was used where that is an error (jinja2 `UndefinedError`).
    Undefined,
    /// An operation got a value of the wrong type (Python `TypeError`).
    Type,
    /// A value was out of range or malformed (Python `ValueError`, `IndexError`, `KeyError`).
    Value,
    /// The sandbox refused an operation (jinja2 `SecurityError`): mutators, `_` names.
    Security,
    /// The template called `raise_exception(msg)`; the message is `msg` verbatim.
    Raised,
    /// Another runtime error of the template (jinja2 `TemplateRuntimeError`), e.g. assigning an
    /// attribute of something that is not a namespace.
    Runtime,
    /// A number or a range was too large (Python `OverflowError`, `range` over 100000 items,
    /// integers beyond 100k decimal digits).
    Overflow,
    /// A filter, test, method or function that does not exist was called.
    Unknown,
    /// A resource limit was reached: fuel, recursion depth, output size or parser nesting.
    Limit(Limit),
    /// The input (a request, a variables file) is malformed.
    Input,
}

/// The resource limit an [`ErrorKind::Limit`] error names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The instruction budget of one render.
    Fuel,
    /// The depth of macro calls.
    Depth,
    /// The size of the output, in bytes.
    Output,
    /// The nesting of blocks and expressions in the template source.
    Nesting,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::Fuel => "fuel",
            Limit::Depth => "recursion depth",
            Limit::Output => "output size",
            Limit::Nesting => "nesting depth",
        })
    }
}

/// An error from compiling or rendering a template, or from reading its input.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Repr>);

#[derive(Clone, PartialEq, Eq)]
struct Repr {
    kind: ErrorKind,
    message: String,
    /// 1-based line and column (in characters) in the template source, 0 when unknown.
    line: u32,
    col: u32,
    /// The source line the location points into.
    excerpt: Option<String>,
}

impl Error {
    /// Makes an error of `kind` with `message` and no location yet.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new(Repr {
            kind,
            message: message.into(),
            line: 0,
            col: 0,
            excerpt: None,
        }))
    }

    /// What went wrong, coarsely.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The message alone, without location. For `raise_exception(msg)` this is `msg` verbatim.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The 1-based (line, column) in the template source, if the error has one.
    pub fn location(&self) -> Option<(u32, u32)> {
        (self.0.line > 0).then_some((self.0.line, self.0.col))
    }

    /// Attaches the location of byte `offset` in `source`, unless the error has one already.
    pub(crate) fn with_offset(mut self, source: &str, offset: usize) -> Error {
        if self.0.line > 0 {
            return self;
        }
        let offset = offset.min(source.len());
        let before = source.get(..offset).unwrap_or(source);
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[line_start..]
            .find('\n')
            .map_or(source.len(), |i| line_start + i);
        self.0.line = before.matches('\n').count() as u32 + 1;
        self.0.col = source[line_start..offset].chars().count() as u32 + 1;
        self.0.excerpt = Some(source[line_start..line_end].to_string());
        self
    }

    fn prefix(&self) -> &'static str {
        match self.0.kind {
            ErrorKind::Syntax => "syntax error: ",
            ErrorKind::Undefined => "undefined: ",
            ErrorKind::Type => "type error: ",
            ErrorKind::Value => "value error: ",
            ErrorKind::Security => "security error: ",
            ErrorKind::Raised => "",
            ErrorKind::Runtime => "runtime error: ",
            ErrorKind::Overflow => "overflow: ",
            ErrorKind::Unknown => "unknown: ",
            ErrorKind::Limit(_) => "limit reached: ",
            ErrorKind::Input => "invalid input: ",
        }
    }
}

impl fmt::Display for Error {
    /// `{}` gives the message with its location; `{:#}` adds the source line and a caret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.prefix(), self.0.message)?;
        if self.0.line > 0 {
            write!(f, " (line {}, column {})", self.0.line, self.0.col)?;
            if f.alternate() {
                if let Some(excerpt) = &self.0.excerpt {
                    let gutter = self.0.line.to_string();
                    let pad = " ".repeat(gutter.len());
                    let caret = " ".repeat(self.0.col.saturating_sub(1) as usize);
                    write!(f, "\n{pad} |\n{gutter} | {excerpt}\n{pad} | {caret}^")?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}, {:#})", self.0.kind, self)
    }
}

impl std::error::Error for Error {}

/// Shorthand for an error of `kind` with a formatted message.
macro_rules! err {
    ($kind:ident, $($arg:tt)*) => {
        $crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($arg)*))
    };
}
pub(crate) use err;
