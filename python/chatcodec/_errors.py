"""The exceptions chatcodec raises for template errors.

`TemplateError` subclasses `jinja2.TemplateError` when jinja2 is importable, so code written
for transformers' renderer (`except jinja2.TemplateError:`) keeps working; the errors Python
itself would raise inside a template also subclass `TypeError`, `ValueError`,
`OverflowError` or `ZeroDivisionError`, as jinja2 lets those through.
"""

try:  # pragma: no cover - depends on the environment
    from jinja2 import TemplateError as _Base
except ImportError:  # pragma: no cover
    _Base = Exception


class TemplateError(_Base):
    """A chat template failed to compile or to render (the message says where)."""

    def __init__(self, message=None):
        super().__init__(message)

    @property
    def message(self):
        return self.args[0] if self.args else None

    def __str__(self):
        return str(self.message) if self.message is not None else ""


class TemplateSyntaxError(TemplateError):
    """The template source does not parse."""


class TemplateUndefinedError(TemplateError):
    """An undefined value was used where that is an error."""


class TemplateSecurityError(TemplateError):
    """The sandbox refused an operation."""


class TemplateTypeError(TemplateError, TypeError):
    """An operation got a value of the wrong type (Python's TypeError)."""


class TemplateValueError(TemplateError, ValueError):
    """A value was out of range or malformed (Python's ValueError)."""


class TemplateOverflowError(TemplateError, OverflowError):
    """A number was too large (Python's OverflowError)."""


class TemplateZeroDivisionError(TemplateError, ZeroDivisionError):
    """Division or modulo by zero (Python's ZeroDivisionError)."""
