"""chatcodec: byte-exact chat templates and streaming model-output parsing, in Rust."""

from typing import Any

from ._chatcodec import ChatTemplate as ChatTemplate
from ._chatcodec import StreamParser as StreamParser
from ._chatcodec import render_jinja_template as render_jinja_template
from ._errors import (
    TemplateError as TemplateError,
    TemplateOverflowError as TemplateOverflowError,
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
