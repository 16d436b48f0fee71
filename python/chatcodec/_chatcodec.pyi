"""The native module of chatcodec (Rust, PyO3). Use the `chatcodec` package, which re-exports
`ChatTemplate`, `StreamParser` and `render_jinja_template` from here."""

from os import PathLike
from typing import Any, Callable, Literal, Optional, Sequence, Union, overload

Message = Any
Conversation = Sequence[Message]
Tool = Union[dict[str, Any], Callable[..., Any]]
Polyfill = Union[None, bool, str, Sequence[str]]

TEMPLATE_CACHE_SIZE: int
"""How many compiled templates `render_jinja_template` keeps (most recently used)."""

def render_jinja_template(
    conversations: Sequence[Conversation],
    tools: Optional[Sequence[Tool]] = None,
    documents: Optional[Sequence[dict[str, Any]]] = None,
    chat_template: Optional[str] = None,
    return_assistant_tokens_mask: bool = False,
    continue_final_message: Union[bool, str] = False,
    add_generation_prompt: bool = False,
    **kwargs: Any,
) -> tuple[list[str], list[list[tuple[int, int]]]]:
    """transformers 5.23's `render_jinja_template`: one prompt per conversation and, with
    `return_assistant_tokens_mask`, the `{% generation %}` string indices of each."""

class ChatTemplate:
    """A chat template compiled once, with the special tokens it is rendered with; shared
    by any number of threads (the GIL is released while rendering a request of 4 kB of
    text or more, and kept for shorter ones, which render faster than the GIL changes hands)."""

    def __init__(self, source: str, **special_tokens: Any) -> None: ...
    @classmethod
    def from_pretrained(
        cls, path: Union[str, PathLike[str]], name: Optional[str] = None
    ) -> "ChatTemplate":
        """Loads a Hugging Face model folder or a GGUF file."""
    @property
    def name(self) -> str:
        """The template's name (`default`, `tool_use`, ...)."""
    @property
    def source(self) -> str:
        """The Jinja source."""
    @property
    def special_tokens(self) -> dict[str, Any]:
        """The special tokens passed to the template as keyword arguments."""
    @property
    def format(self) -> Optional[str]:
        """The `StreamParser` format name of the model's output, or None."""
    @property
    def caps(self) -> dict[str, Any]:
        """What the template shows of a standard OpenAI request (docs/capabilities.md):
        `supports_system_role`, `supports_tools`, `supports_tool_calls`,
        `supports_reasoning`, `reasoning_format`, `kwargs`, `generation_prompt`, ...;
        probed once, on first read."""
    @overload
    def apply(
        self,
        messages: Conversation,
        tools: Optional[Sequence[Tool]] = None,
        documents: Optional[Sequence[dict[str, Any]]] = None,
        add_generation_prompt: bool = False,
        continue_final_message: Union[bool, str] = False,
        return_assistant_tokens_mask: Literal[False] = False,
        polyfill: Polyfill = None,
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
    def polyfill(
        self,
        messages: Conversation,
        tools: Optional[Sequence[Tool]] = None,
        documents: Optional[Sequence[dict[str, Any]]] = None,
        add_generation_prompt: bool = False,
        polyfill: Polyfill = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The request adapted to what the template shows (`caps`): a dict with `messages`,
        `tools`, ... . `polyfill` None/True/"all" turns every polyfill on; names pick some;
        False/"none" only checks."""

class StreamParser:
    """A streaming parser of one model output (OpenAI deltas and a final message)."""

    def __init__(
        self,
        format: Optional[str] = None,
        template: Union[str, ChatTemplate, None] = None,
        tools: Optional[Sequence[dict[str, Any]]] = None,
        reasoning: str = "auto",
        id_seed: Optional[int] = None,
        tool_call_parser: Optional[str] = None,
        reasoning_parser: Optional[str] = None,
    ) -> None:
        """`format` (a `chatcodec parse --format` name), or the format `template` writes, or
        vLLM's / SGLang's `tool_call_parser` and `reasoning_parser` names with their meaning.
        `reasoning` is "auto", "open" (the prompt opened the reasoning block) or "closed"; with
        parser names, "open" / "closed" also stand for the request's thinking switch for the
        parsers that follow it (`deepseek_v3`, `holo2`)."""
    def feed(self, text: str) -> list[dict[str, Any]]: ...
    def close(self) -> list[dict[str, Any]]: ...
    def finish(self) -> dict[str, Any]: ...
    @property
    def message(self) -> dict[str, Any]: ...

def formats() -> list[tuple[str, str]]: ...
def format_for_template(source: str) -> Optional[str]: ...
def plain_data(obj: Any) -> Any: ...
