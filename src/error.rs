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
    /// Division or modulo by zero, or zero to a negative power (Python `ZeroDivisionError`).
    ZeroDivision,
    /// A number or a range was too large (Python `OverflowError`, `range` over 100000 items,
    /// integers beyond 100k decimal digits).
    Overflow,
    /// A filter, test, method or function that does not exist was called.
    Unknown,
    /// A resource limit was reached: fuel, recursion depth, output size, parser nesting or
    /// template size.
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
    /// The size of the template source, in bytes.
    Source,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::Fuel => "fuel",
            Limit::Depth => "recursion depth",
            Limit::Output => "output size",
            Limit::Nesting => "nesting depth",
            Limit::Source => "template size",
        })
    }
}

/// The exception transformers' renderer raises for the same failure: a jinja2 exception, or
/// the Python one that jinja2 lets through from inside a template. Finer than [`ErrorKind`]:
/// a language binding raises an exception of this class (the Python package's classes
/// subclass it), so that code catching transformers' exceptions catches the same failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExceptionClass {
    /// `jinja2.TemplateSyntaxError`: the source does not parse.
    TemplateSyntaxError,
    /// Python's `UnicodeEncodeError`: `str.encode` with a codec that cannot encode a
    /// character.
    UnicodeEncodeError,
    /// Python's `UnicodeDecodeError`: `bytes.decode` of bytes the codec cannot decode.
    UnicodeDecodeError,
    /// Python's `AssertionError`: an `assert` of jinja2's own failed (`truncate` with a
    /// length shorter than its end marker).
    AssertionError,
    /// Python's `SyntaxError`: jinja2 parses the source but generates Python code that does
    /// not compile (a slice inside a tuple subscript, `a[1:2, 3]`).
    SyntaxError,
    /// `jinja2.TemplateAssertionError`: a filter or test that does not exist, used outside
    /// any `if` (found when compiling).
    TemplateAssertionError,
    /// `jinja2.UndefinedError`.
    UndefinedError,
    /// `jinja2.sandbox.SecurityError`.
    SecurityError,
    /// `jinja2.TemplateRuntimeError`: e.g. a filter or test that does not exist, reached
    /// inside an `if`; assigning an attribute of something that is not a namespace.
    TemplateRuntimeError,
    /// `jinja2.FilterArgumentError`: a filter's argument is out of its domain
    /// (`reverse` of a number, `map` without a filter, `round` with an unknown method).
    FilterArgumentError,
    /// `jinja2.TemplateError`: `raise_exception(msg)`, and failures jinja2 has no
    /// counterpart for (the fuel and template size limits).
    TemplateError,
    /// Python's `TypeError`.
    TypeError,
    /// Python's `ValueError`.
    ValueError,
    /// Python's `AttributeError`: a method a value does not have, called by a filter
    /// (`dictsort` and `items` of a list call `.items()`).
    AttributeError,
    /// Python's `ZeroDivisionError`.
    ZeroDivisionError,
    /// Python's `IndexError` (`'{}'.format()`).
    IndexError,
    /// Python's `KeyError` (`'{a}'.format()`).
    KeyError,
    /// Python's `OverflowError`.
    OverflowError,
    /// Python's `RuntimeError` (`cycler()` with no items).
    RuntimeError,
    /// Python's `RecursionError`: macro calls or source nesting too deep.
    RecursionError,
    /// Python's `MemoryError`: a value or an output past the size limit.
    MemoryError,
}

impl ExceptionClass {
    /// The class's Python name (`"TemplateRuntimeError"`, `"ZeroDivisionError"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ExceptionClass::TemplateSyntaxError => "TemplateSyntaxError",
            ExceptionClass::TemplateAssertionError => "TemplateAssertionError",
            ExceptionClass::SyntaxError => "SyntaxError",
            ExceptionClass::AssertionError => "AssertionError",
            ExceptionClass::UnicodeEncodeError => "UnicodeEncodeError",
            ExceptionClass::UnicodeDecodeError => "UnicodeDecodeError",
            ExceptionClass::UndefinedError => "UndefinedError",
            ExceptionClass::SecurityError => "SecurityError",
            ExceptionClass::TemplateRuntimeError => "TemplateRuntimeError",
            ExceptionClass::FilterArgumentError => "FilterArgumentError",
            ExceptionClass::TemplateError => "TemplateError",
            ExceptionClass::TypeError => "TypeError",
            ExceptionClass::ValueError => "ValueError",
            ExceptionClass::AttributeError => "AttributeError",
            ExceptionClass::ZeroDivisionError => "ZeroDivisionError",
            ExceptionClass::IndexError => "IndexError",
            ExceptionClass::KeyError => "KeyError",
            ExceptionClass::OverflowError => "OverflowError",
            ExceptionClass::RuntimeError => "RuntimeError",
            ExceptionClass::RecursionError => "RecursionError",
            ExceptionClass::MemoryError => "MemoryError",
        }
    }

    /// The class of an error of `kind` whose site gave none.
    fn of_kind(kind: ErrorKind) -> ExceptionClass {
        match kind {
            ErrorKind::Syntax => ExceptionClass::TemplateSyntaxError,
            ErrorKind::Undefined => ExceptionClass::UndefinedError,
            ErrorKind::Type | ErrorKind::Input => ExceptionClass::TypeError,
            ErrorKind::Value => ExceptionClass::ValueError,
            ErrorKind::Security => ExceptionClass::SecurityError,
            ErrorKind::Raised => ExceptionClass::TemplateError,
            ErrorKind::Runtime | ErrorKind::Unknown => ExceptionClass::TemplateRuntimeError,
            ErrorKind::Overflow => ExceptionClass::OverflowError,
            ErrorKind::ZeroDivision => ExceptionClass::ZeroDivisionError,
            ErrorKind::Limit(Limit::Depth | Limit::Nesting) => ExceptionClass::RecursionError,
            ErrorKind::Limit(Limit::Output) => ExceptionClass::MemoryError,
            ErrorKind::Limit(Limit::Fuel | Limit::Source) => ExceptionClass::TemplateError,
        }
    }
}

/// An error from compiling or rendering a template, or from reading its input.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Repr>);

#[derive(Clone, PartialEq, Eq)]
struct Repr {
    kind: ErrorKind,
    /// The exception class when the site knows better than the kind's default.
    class: Option<ExceptionClass>,
    message: String,
    /// 1-based line and column (in characters) in the template source, 0 when unknown.
    line: u32,
    col: u32,
    /// At most [`WINDOW`] characters of the source line around the location.
    excerpt: Option<String>,
    /// The character in `excerpt` the location points at.
    caret: u32,
}

/// The most characters of a source line an error quotes: half before the column, half
/// after (a template's line can be megabytes long).
const WINDOW: usize = 120;

impl Error {
    /// Makes an error of `kind` with `message` and no location yet.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new(Repr {
            kind,
            class: None,
            message: message.into(),
            line: 0,
            col: 0,
            excerpt: None,
            caret: 0,
        }))
    }

    /// What went wrong, coarsely.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The exception transformers' renderer raises for the same failure.
    pub fn exception_class(&self) -> ExceptionClass {
        self.0
            .class
            .unwrap_or_else(|| ExceptionClass::of_kind(self.0.kind))
    }

    /// The same error, raised in Python as `class` (see [`Error::exception_class`]).
    pub(crate) fn with_class(mut self, class: ExceptionClass) -> Error {
        self.0.class = Some(class);
        self
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
        let mut offset = offset.min(source.len());
        while !source.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &source[..offset];
        let line_start = memchr::memrchr(b'\n', before.as_bytes()).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', &source.as_bytes()[offset..])
            .map_or(source.len(), |i| offset + i);
        self.0.line = memchr::memchr_iter(b'\n', before.as_bytes()).count() as u32 + 1;
        self.0.col = source[line_start..offset].chars().count() as u32 + 1;
        // The window: up to half of it before the column, the rest after.
        let head: Vec<(usize, char)> = source[line_start..offset]
            .char_indices()
            .rev()
            .take(WINDOW / 2)
            .collect();
        let start = head.last().map_or(offset, |(i, _)| line_start + i);
        let tail = WINDOW - head.len();
        let end = source[offset..line_end]
            .char_indices()
            .nth(tail)
            .map_or(line_end, |(i, _)| offset + i);
        let mut excerpt = String::new();
        let mut caret = head.len() as u32;
        if start > line_start {
            excerpt.push_str("...");
            caret += 3;
        }
        excerpt.push_str(&source[start..end]);
        if end < line_end {
            excerpt.push_str("...");
        }
        self.0.excerpt = Some(excerpt);
        self.0.caret = caret;
        self
    }

    /// The source window the location points into (at most about 120 characters of its
    /// line, `...` where the line goes on), if the error has a location.
    pub fn excerpt(&self) -> Option<&str> {
        self.0.excerpt.as_deref()
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
            ErrorKind::ZeroDivision => "zero division: ",
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
                    let caret = " ".repeat(self.0.caret as usize);
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

/// `bytes` as UTF-8 text, or an `Input` error naming `what` and the byte offset of the first
/// invalid byte.
pub(crate) fn utf8(bytes: Vec<u8>, what: &str) -> Result<String, Error> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bad = e.as_bytes().get(at).copied().unwrap_or(0);
        Error::new(
            ErrorKind::Input,
            format!("{what} is not valid UTF-8: invalid byte 0x{bad:02x} at byte offset {at}"),
        )
    })
}

/// Shorthand for an error of `kind` with a formatted message.
macro_rules! err {
    ($kind:ident, $($arg:tt)*) => {
        $crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($arg)*))
    };
}
pub(crate) use err;
