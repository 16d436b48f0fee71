"""chatcodec: byte-exact chat templates and streaming model-output parsing, in Rust.

- `render_jinja_template`: transformers' `render_jinja_template`, same signature, return value
  and exceptions; assign it over transformers' function to make `apply_chat_template` use it::

      import chatcodec, transformers.utils.chat_template_utils as ctu
      ctu.render_jinja_template = chatcodec.render_jinja_template

- `ChatTemplate`: a model's template and special tokens, compiled once, applied from any
  number of threads (the GIL is released while rendering).
- `StreamParser`: model output, fed chunk by chunk, as OpenAI deltas and a final message.
"""

from functools import lru_cache
from inspect import isfunction, ismethod

from . import _chatcodec
from ._chatcodec import StreamParser
from ._errors import (
    TemplateError,
    TemplateOverflowError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateTypeError,
    TemplateUndefinedError,
    TemplateValueError,
)

__all__ = [
    "ChatTemplate",
    "StreamParser",
    "TemplateError",
    "TemplateOverflowError",
    "TemplateSecurityError",
    "TemplateSyntaxError",
    "TemplateTypeError",
    "TemplateUndefinedError",
    "TemplateValueError",
    "formats",
    "patch_transformers",
    "plain_data",
    "render_jinja_template",
]

_render = _chatcodec.render
formats = _chatcodec.formats
plain_data = _chatcodec.plain_data


@lru_cache(maxsize=64)
def _compile(chat_template):
    if not isinstance(chat_template, str):
        raise TypeError(f"chat_template must be a string, not {type(chat_template).__name__}")
    return _chatcodec.Template(chat_template)


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


def _check_documents(documents):
    if documents is not None:
        for document in documents:
            if not isinstance(document, dict):
                raise TypeError("Documents should be a list of dicts with 'title' and 'text' keys!")


def _continue_field(continue_final_message):
    if not continue_final_message:
        return None
    return continue_final_message if isinstance(continue_final_message, str) else "content"


def render_jinja_template(
    conversations,
    tools=None,
    documents=None,
    chat_template=None,
    return_assistant_tokens_mask=False,
    continue_final_message=False,
    add_generation_prompt=False,
    **kwargs,
):
    """Renders each conversation with `chat_template`, exactly as transformers 5.23's
    `transformers.utils.chat_template_utils.render_jinja_template` does.

    Returns `(rendered, generation_indices)`: one prompt string per conversation and, with
    `return_assistant_tokens_mask`, one list of `(start, end)` string indices per conversation
    of the text that `{% generation %}` blocks produced (an empty list otherwise). The indices
    never reach past the end of a prompt cut by `continue_final_message`.

    Inputs are read as transformers prepares template data: subclasses of str/int/float as
    their base values, mappings, tuples, numpy scalars, dataclasses and pydantic models as
    plain data, any other object as the placeholder `"<TypeName>"`. A structure that contains
    itself raises `ValueError` naming the path (e.g. `conversations[0][2]["content"]`).

    Template errors raise `TemplateError` (a `jinja2.TemplateError` when jinja2 is
    importable); argument errors raise `TypeError`/`ValueError` as transformers does.
    """
    if tools is not None:
        tools = _tool_schemas(tools)
    if documents is not None:
        _check_documents(documents)
    if continue_final_message:
        continue_final_message = _continue_field(continue_final_message)
    else:
        continue_final_message = None
    return _render(
        _compile(chat_template),
        conversations,
        tools,
        documents,
        add_generation_prompt,
        continue_final_message,
        kwargs,
        bool(return_assistant_tokens_mask),
    )


class ChatTemplate:
    """A chat template compiled once, with the special tokens it is rendered with.

    `ChatTemplate(source, bos_token="<s>", ...)` compiles a Jinja source;
    `ChatTemplate.from_pretrained(path)` loads a Hugging Face model folder (its
    `chat_template.jinja`, `tokenizer_config.json`, ...) or a GGUF file.
    """

    __slots__ = ("_native",)

    def __init__(self, source, **special_tokens):
        self._native = _chatcodec.NativeChatTemplate(source, special_tokens)

    @classmethod
    def from_pretrained(cls, path, name=None):
        """Loads the chat template(s) and special tokens of a model folder or a GGUF file.
        `name` picks a named template; without it, `apply` uses the `tool_use` template when
        tools are given and the model has one, else `default`, as transformers does."""
        self = cls.__new__(cls)
        self._native = _chatcodec.NativeChatTemplate.load(str(path), name)
        return self

    @property
    def name(self):
        """The template's name (`default`, `tool_use`, ...)."""
        return self._native.name

    @property
    def source(self):
        """The Jinja source."""
        return self._native.source

    @property
    def special_tokens(self):
        """The special tokens passed to the template as keyword arguments."""
        return self._native.special_tokens

    @property
    def format(self):
        """The `StreamParser` / `chatcodec parse --format` name of the model's output, or None
        when the template's markers do not tell."""
        return self._native.format

    def apply(
        self,
        messages,
        tools=None,
        documents=None,
        add_generation_prompt=False,
        continue_final_message=False,
        return_assistant_tokens_mask=False,
        **kwargs,
    ):
        """Renders one conversation as `tokenizer.apply_chat_template(messages, ...,
        tokenize=False)` does (message keys whose value is None are dropped; the special tokens
        are keyword arguments under the caller's own). Returns the prompt, or `(prompt,
        generation_indices)` with `return_assistant_tokens_mask`. Releases the GIL while
        rendering, so threads sharing one template render in parallel."""
        _check_documents(documents)
        text, indices = self._native.apply(
            messages,
            _tool_schemas(tools),
            documents,
            add_generation_prompt,
            _continue_field(continue_final_message),
            kwargs,
            bool(return_assistant_tokens_mask),
        )
        return (text, indices) if return_assistant_tokens_mask else text

    def __repr__(self):
        return f"ChatTemplate(name={self.name!r}, {len(self.source)} bytes)"


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
