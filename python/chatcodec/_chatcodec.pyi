"""The native module of chatcodec (Rust, PyO3). Use the `chatcodec` package instead."""

from typing import Any, Optional, Sequence

class Template:
    """A compiled Jinja template."""

    def __init__(self, source: str) -> None: ...

class NativeChatTemplate:
    def __init__(self, source: str, special_tokens: Optional[dict[str, Any]] = None) -> None: ...
    @staticmethod
    def load(path: str, name: Optional[str] = None) -> "NativeChatTemplate": ...
    @property
    def name(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def special_tokens(self) -> dict[str, Any]: ...
    @property
    def format(self) -> Optional[str]: ...
    def apply(
        self,
        messages: Any,
        tools: Optional[list[dict[str, Any]]],
        documents: Any,
        add_generation_prompt: Any,
        continue_final_message: Optional[str],
        kwargs: Optional[dict[str, Any]],
        mask: bool,
    ) -> tuple[str, list[tuple[int, int]]]: ...

class StreamParser:
    """A streaming parser of one model output (OpenAI deltas and a final message)."""

    def __init__(
        self,
        format: Optional[str] = None,
        template: Any = None,
        tools: Optional[Sequence[dict[str, Any]]] = None,
        reasoning: str = "auto",
        id_seed: Optional[int] = None,
    ) -> None: ...
    def feed(self, text: str) -> list[dict[str, Any]]: ...
    def close(self) -> list[dict[str, Any]]: ...
    def finish(self) -> dict[str, Any]: ...
    @property
    def message(self) -> dict[str, Any]: ...

def render(
    template: Template,
    conversations: Any,
    tools: Optional[list[dict[str, Any]]],
    documents: Any,
    add_generation_prompt: Any,
    continue_final_message: Optional[str],
    kwargs: Optional[dict[str, Any]],
    mask: bool,
) -> tuple[list[str], list[list[tuple[int, int]]]]: ...
def formats() -> list[tuple[str, str]]: ...
def format_for_template(source: str) -> Optional[str]: ...
def plain_data(obj: Any) -> Any: ...
