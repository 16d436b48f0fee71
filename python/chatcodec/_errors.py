"""The exceptions chatcodec raises for template errors.

Each failure is raised as the exception transformers' renderer raises for it, so code written
for transformers (`except jinja2.TemplateError:`, `except jinja2.UndefinedError:`,
`except TypeError:`, ...) catches the same failures:

- every class subclasses `TemplateError`, itself a `jinja2.TemplateError` when jinja2 is
  importable;
- the jinja2 failures subclass jinja2's own class: `TemplateSyntaxError`,
  `TemplateAssertionError` (a filter or test that does not exist, outside any `if`),
  `TemplateRuntimeError`, `UndefinedError`, `SecurityError`, `FilterArgumentError`;
- the errors Python itself raises inside a template, which jinja2 lets through, subclass that
  Python class: `TypeError`, `ValueError`, `AttributeError`, `ZeroDivisionError`,
  `IndexError`, `KeyError`, `OverflowError`, `RuntimeError`, `UnicodeEncodeError`, `UnicodeDecodeError`,
  `AssertionError`, `SyntaxError` (Python code
  jinja2 generates that does not compile), and `RecursionError` /
  `MemoryError` for the depth and size limits (where jinja2 exhausts Python's).

The fuel and template-size limits, which jinja2 does not have, raise `TemplateError`.
"""

try:  # pragma: no cover - depends on the environment
    import jinja2.exceptions as _j
except ImportError:  # pragma: no cover
    _j = None


def _jinja(name):
    """jinja2's exception class `name` as a base tuple, or no base without jinja2."""
    return (getattr(_j, name),) if _j is not None else ()


class TemplateError(*(_jinja("TemplateError") or (Exception,))):
    """A chat template failed to compile or to render (the message says where)."""

    def __init__(self, message=None):
        Exception.__init__(self, message)

    @property
    def message(self):
        return self.args[0] if self.args else None

    def __str__(self):
        return str(self.message) if self.message is not None else ""


class TemplateSyntaxError(TemplateError, *_jinja("TemplateSyntaxError")):
    """The template source does not parse (jinja2's `TemplateSyntaxError`); `lineno` is its
    line."""

    def __init__(self, message=None, lineno=0):
        TemplateError.__init__(self, message)
        self.lineno = lineno
        self.name = None
        self.filename = None
        self.source = None
        self.translated = True


class TemplateAssertionError(TemplateSyntaxError, *_jinja("TemplateAssertionError")):
    """A filter or test that does not exist, used outside any `if` (jinja2's
    `TemplateAssertionError`, found when compiling)."""


class TemplateRuntimeError(TemplateError, *_jinja("TemplateRuntimeError")):
    """A runtime error of the template (jinja2's `TemplateRuntimeError`): e.g. a filter or
    test that does not exist, reached inside an `if`."""


class TemplateUndefinedError(TemplateRuntimeError, *_jinja("UndefinedError")):
    """An undefined value was used where that is an error (jinja2's `UndefinedError`)."""


class TemplateSecurityError(TemplateRuntimeError, *_jinja("SecurityError")):
    """The sandbox refused an operation (jinja2's `SecurityError`)."""


class TemplateFilterArgumentError(TemplateRuntimeError, *_jinja("FilterArgumentError")):
    """A filter's argument is outside its domain (jinja2's `FilterArgumentError`)."""


class TemplateTypeError(TemplateError, TypeError):
    """An operation got a value of the wrong type (Python's TypeError)."""


class TemplateValueError(TemplateError, ValueError):
    """A value was out of range or malformed (Python's ValueError)."""


class TemplateAttributeError(TemplateError, AttributeError):
    """A filter called a method the value does not have (Python's AttributeError)."""


class TemplateZeroDivisionError(TemplateError, ZeroDivisionError):
    """Division or modulo by zero (Python's ZeroDivisionError)."""


class TemplateIndexError(TemplateError, IndexError):
    """A positional `format` argument that is missing (Python's IndexError)."""


class TemplateKeyError(TemplateError, KeyError):
    """A named `format` argument that is missing (Python's KeyError)."""


class TemplateOverflowError(TemplateError, OverflowError):
    """A number was too large (Python's OverflowError)."""


class TemplatePyRuntimeError(TemplateError, RuntimeError):
    """Python's RuntimeError inside a template (`cycler()` with no items)."""


class TemplateRecursionError(TemplateError, RecursionError):
    """Macro calls or source nesting deeper than the limit (Python's RecursionError, which
    jinja2 raises there)."""


class _UnicodeMessage:
    """The message as `str(e)`: Python's Unicode errors print their own fields, which a
    template error does not fill (its `args` hold the message)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class TemplateUnicodeEncodeError(_UnicodeMessage, TemplateError, UnicodeEncodeError):
    """`str.encode` with a codec that cannot encode a character (Python's
    UnicodeEncodeError)."""


class TemplateUnicodeDecodeError(_UnicodeMessage, TemplateError, UnicodeDecodeError):
    """`bytes.decode` of bytes the codec cannot decode (Python's UnicodeDecodeError)."""


class TemplateAssertionFailed(TemplateError, AssertionError):
    """Python's AssertionError: an assertion of jinja2's own failed (`truncate` with a length
    shorter than its end marker)."""


class TemplatePySyntaxError(TemplateError, SyntaxError):
    """Python's SyntaxError: jinja2 parses the template but makes Python code of it that does
    not compile (a slice inside a tuple subscript, `a[1:2, 3]`)."""


class TemplateMemoryError(TemplateError, MemoryError):
    """A value or an output larger than the limit (Python's MemoryError, which jinja2 raises
    there)."""


# The class for each `chatcodec::ExceptionClass` name the renderer reports.
BY_CLASS = {
    "TemplateError": TemplateError,
    "TemplateSyntaxError": TemplateSyntaxError,
    "TemplateAssertionError": TemplateAssertionError,
    "TemplateRuntimeError": TemplateRuntimeError,
    "UndefinedError": TemplateUndefinedError,
    "SecurityError": TemplateSecurityError,
    "FilterArgumentError": TemplateFilterArgumentError,
    "TypeError": TemplateTypeError,
    "ValueError": TemplateValueError,
    "AttributeError": TemplateAttributeError,
    "ZeroDivisionError": TemplateZeroDivisionError,
    "IndexError": TemplateIndexError,
    "KeyError": TemplateKeyError,
    "OverflowError": TemplateOverflowError,
    "RuntimeError": TemplatePyRuntimeError,
    "RecursionError": TemplateRecursionError,
    "SyntaxError": TemplatePySyntaxError,
    "AssertionError": TemplateAssertionFailed,
    "UnicodeEncodeError": TemplateUnicodeEncodeError,
    "UnicodeDecodeError": TemplateUnicodeDecodeError,
    "MemoryError": TemplateMemoryError,
}
