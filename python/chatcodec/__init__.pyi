"""chatcodec: byte-exact chat templates and streaming model-output parsing, in Rust."""

from typing import Any, Callable, Literal, Optional, Sequence, Union, overload

from ._chatcodec import StreamParser as StreamParser
from ._errors import (
    TemplateError as TemplateError,
    TemplateOverflowError as TemplateOverflowError,
    TemplateSecurityError as TemplateSecurityError,
    TemplateSyntaxError as TemplateSyntaxError,
    TemplateTypeError as TemplateTypeError,
    TemplateUndefinedError as TemplateUndefinedError,
    TemplateValueError as TemplateValueError,
)

Message = Any
Conversation = Sequence[Message]
Tool = Union[dict[str, Any], Callable[..., Any]]

def render_jinja_template(
    conversations: Sequence[Conversation],
    tools: Optional[Sequence[Tool]] = None,
    documents: Optional[Sequence[dict[str, Any]]] = None,
    chat_template: Optional[str] = None,
    return_assistant_tokens_mask: bool = False,
    continue_final_message: Union[bool, str] = False,
    add_generation_prompt: bool = False,
    **kwargs: Any,
) -> tuple[list[str], list[list[tuple[int, int]]]]: ...
def patch_transformers() -> None: ...
def formats() -> list[tuple[str, str]]: ...
def plain_data(obj: Any) -> Any: ...

class ChatTemplate:
    def __init__(self, source: str, **special_tokens: Any) -> None: ...
    @classmethod
    def from_pretrained(cls, path: Any, name: Optional[str] = None) -> "ChatTemplate": ...
    @property
    def name(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def special_tokens(self) -> dict[str, Any]: ...
    @property
    def format(self) -> Optional[str]: ...
    @overload
    def apply(
        self,
        messages: Conversation,
        tools: Optional[Sequence[Tool]] = None,
        documents: Optional[Sequence[dict[str, Any]]] = None,
        add_generation_prompt: bool = False,
        continue_final_message: Union[bool, str] = False,
        return_assistant_tokens_mask: Literal[False] = False,
        **kwargs: Any,
    ) -> str: ...
    @overload
    def apply(
        self,
        messages: Conversation,
        tools: Optional[Sequence[Tool]] = None,
        documents: Optional[Sequence[dict[str, Any]]] = None,
        add_generation_prompt: bool = False,
        continue_final_message: Union[bool, str] = False,
        *,
        return_assistant_tokens_mask: Literal[True],
        **kwargs: Any,
    ) -> tuple[str, list[tuple[int, int]]]: ...
