"""chatcodec: byte-exact chat templates and streaming model-output parsing, in Rust.

- `render_jinja_template`: transformers' `render_jinja_template`, same signature, return value
  and exceptions; assign it over transformers' function to make `apply_chat_template` use it::

      import chatcodec, transformers.utils.chat_template_utils as ctu
      ctu.render_jinja_template = chatcodec.render_jinja_template

- `ChatTemplate`: a model's template and special tokens, compiled once, applied from any
  number of threads (the GIL is released while rendering long requests).
- `StreamParser`: model output, fed chunk by chunk, as OpenAI deltas and a final message.
"""

from inspect import isfunction, ismethod

from . import _chatcodec
from ._chatcodec import ChatTemplate, StreamParser, render_jinja_template
from ._errors import (
    TemplateAssertionError,
    TemplateAttributeError,
    TemplateError,
    TemplateFilterArgumentError,
    TemplateIndexError,
    TemplateKeyError,
    TemplateMemoryError,
    TemplateOverflowError,
    TemplatePyRuntimeError,
    TemplatePySyntaxError,
    TemplateAssertionFailed,
    TemplateUnicodeDecodeError,
    TemplateUnicodeEncodeError,
    TemplateRecursionError,
    TemplateRuntimeError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateTypeError,
    TemplateUndefinedError,
    TemplateValueError,
    TemplateZeroDivisionError,
)

__all__ = [
    "ChatTemplate",
    "StreamParser",
    "TemplateAssertionError",
    "TemplateAttributeError",
    "TemplateError",
    "TemplateFilterArgumentError",
    "TemplateIndexError",
    "TemplateKeyError",
    "TemplateMemoryError",
    "TemplateOverflowError",
    "TemplatePyRuntimeError",
    "TemplatePySyntaxError",
    "TemplateAssertionFailed",
    "TemplateUnicodeDecodeError",
    "TemplateUnicodeEncodeError",
    "TemplateRecursionError",
    "TemplateRuntimeError",
    "TemplateSecurityError",
    "TemplateSyntaxError",
    "TemplateTypeError",
    "TemplateUndefinedError",
    "TemplateValueError",
    "TemplateZeroDivisionError",
    "formats",
    "patch_transformers",
    "plain_data",
    "render_jinja_template",
]

formats = _chatcodec.formats
plain_data = _chatcodec.plain_data


def _tool_schemas(tools):
    """Tools as transformers takes them: JSON schema dicts, or functions turned into schemas
    by transformers' own `get_json_schema`."""
    if tools is None:
        return None
    schemas = []
    for tool in tools:
        if isinstance(tool, dict):
            schemas.append(tool)
        elif isfunction(tool) or ismethod(tool):
            try:
                from transformers.utils.chat_template_utils import get_json_schema
            except ImportError as e:
                raise ImportError(
                    "tools given as Python functions are turned into JSON schemas by transformers' "
                    "get_json_schema; install transformers or pass JSON schema dicts"
                ) from e
            schemas.append(get_json_schema(tool))
        else:
            raise ValueError(
                "Tools should either be a JSON schema, or a callable function with type hints "
                "and a docstring suitable for auto-conversion to a schema."
            )
    return schemas


def patch_transformers():
    """Makes transformers render chat templates with chatcodec: replaces
    `render_jinja_template` in the modules that call it (`tokenization_utils_base` for
    `tokenizer.apply_chat_template`, `processing_utils` for processors) and in
    `chat_template_utils` itself. The one line to write instead of this call, for tokenizers::

        transformers.tokenization_utils_base.render_jinja_template = chatcodec.render_jinja_template
    """
    import importlib

    for module in (
        "transformers.utils.chat_template_utils",
        "transformers.tokenization_utils_base",
        "transformers.processing_utils",
    ):
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        mod.render_jinja_template = render_jinja_template
