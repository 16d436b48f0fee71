"""chatcodec: byte-exact chat templates and streaming model-output parsing, in Rust."""

from typing import Any

from ._chatcodec import ChatTemplate as ChatTemplate
from ._chatcodec import StreamParser as StreamParser
from ._chatcodec import render_jinja_template as render_jinja_template
from ._errors import (
    TemplateAssertionError as TemplateAssertionError,
    TemplateAttributeError as TemplateAttributeError,
    TemplateError as TemplateError,
    TemplateFilterArgumentError as TemplateFilterArgumentError,
    TemplateIndexError as TemplateIndexError,
    TemplateKeyError as TemplateKeyError,
    TemplateMemoryError as TemplateMemoryError,
    TemplateOverflowError as TemplateOverflowError,
    TemplatePyRuntimeError as TemplatePyRuntimeError,
    TemplatePySyntaxError as TemplatePySyntaxError,
    TemplateAssertionFailed as TemplateAssertionFailed,
    TemplateUnicodeDecodeError as TemplateUnicodeDecodeError,
    TemplateUnicodeEncodeError as TemplateUnicodeEncodeError,
    TemplateRecursionError as TemplateRecursionError,
    TemplateRuntimeError as TemplateRuntimeError,
    TemplateSecurityError as TemplateSecurityError,
    TemplateSyntaxError as TemplateSyntaxError,
    TemplateTypeError as TemplateTypeError,
    TemplateUndefinedError as TemplateUndefinedError,
    TemplateValueError as TemplateValueError,
    TemplateZeroDivisionError as TemplateZeroDivisionError,
)

def patch_transformers() -> None: ...
def formats() -> list[tuple[str, str]]: ...
def plain_data(obj: Any) -> Any: ...
