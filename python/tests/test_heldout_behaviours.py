"""Behaviours other projects' chat-template tests exercise, checked differentially: every case
runs through transformers' `render_jinja_template` and through chatcodec's, and both must give
the same prompts, the same generation indices, or an exception of the same kind.

The classes follow what transformers' tokenizer, processor and chat-template tests and vLLM's
chat-handling tests check (conversation shapes, content lists, `continue_final_message`,
`{% generation %}` masks, tools given as Python functions, documents, template kwargs, numbers
and text); the cases themselves are our own. `test_apply_chat_template_*` drive
`tokenizer.apply_chat_template` on model folders made from corpus templates, with and without
`chatcodec.patch_transformers()`.

The one documented difference (python/README.md, test_differential.py): chatcodec's generation
indices stop at the end of a prompt cut by `continue_final_message`, where transformers' may
point past it; transformers' indices are clipped to the prompt before comparing.
"""

import collections
import contextlib
import copy
import dataclasses
import enum
import json
import math
import typing

import pytest

import chatcodec
from conftest import clip, model_folder, need, read_template, templates

jinja2 = need("jinja2")


# ---------------------------------------------------------------------------------------------
# Comparing outcomes


def kind(exc):
    """The class of an exception as a caller's `except` clause sees it: jinja2's template errors
    by their jinja2 class (chatcodec's subclass jinja2.TemplateError), Python's by their class."""
    if isinstance(exc, (jinja2.TemplateSyntaxError, chatcodec.TemplateSyntaxError)):
        return "TemplateSyntaxError"
    if isinstance(exc, (jinja2.UndefinedError, chatcodec.TemplateUndefinedError)):
        return "UndefinedError"
    if isinstance(exc, (jinja2.exceptions.SecurityError, chatcodec.TemplateSecurityError)):
        return "SecurityError"
    for cls in (RecursionError, OverflowError, ZeroDivisionError, TypeError, ValueError, KeyError, IndexError, AttributeError):
        if isinstance(exc, cls):
            return cls.__name__
    if isinstance(exc, jinja2.TemplateError):
        return "TemplateError"
    return type(exc).__name__


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as e:  # noqa: BLE001
        return ("error", kind(e), str(e)[:200])


def render_both(template, conversations, **kwargs):
    """(transformers' outcome, chatcodec's outcome) for one call; inputs deep-copied for each so
    that neither sees the other's edits."""
    ctu = need("transformers.utils.chat_template_utils")
    assert ctu.render_jinja_template is not chatcodec.render_jinja_template, "left patched"
    ours = outcome(chatcodec.render_jinja_template, fresh(conversations), chat_template=template, **fresh(kwargs))
    theirs = outcome(ctu.render_jinja_template, fresh(conversations), chat_template=template, **fresh(kwargs))
    return theirs, ours


class Make:
    """An input made anew for each renderer (a generator can be read only once)."""

    def __init__(self, make):
        self.make = make


def fresh(value):
    """A deep copy, or the value itself where it cannot be copied (a mapping proxy); a
    [`Make`] is made anew, also as a kwarg's value."""
    if isinstance(value, Make):
        return value.make()
    if isinstance(value, dict):
        return {k: fresh(v) for k, v in value.items()}
    try:
        return copy.deepcopy(value)
    except TypeError:
        return value


def mismatch(theirs, ours):
    """None when the outcomes agree, else a description."""
    if theirs[0] != ours[0]:
        return f"transformers {theirs!r:.400} / chatcodec {ours!r:.400}"
    if theirs[0] == "error":
        return None if theirs[1] == ours[1] else f"transformers raised {theirs[1]} ({theirs[2]!r}), chatcodec {ours[1]} ({ours[2]!r})"
    (t_text, t_idx), (o_text, o_idx) = theirs[1], ours[1]
    if t_text != o_text:
        return f"prompts differ:\n  transformers {t_text!r:.600}\n  chatcodec    {o_text!r:.600}"
    if clip(t_text, t_idx) != o_idx:
        return f"indices differ: transformers {t_idx} / chatcodec {o_idx}"
    return None


# ---------------------------------------------------------------------------------------------
# Inputs


class Conversation:
    """A Conversation-like object: transformers renders `.messages` of anything that has it."""

    def __init__(self, messages):
        self.messages = messages


@dataclasses.dataclass
class Msg:
    role: str
    content: typing.Any


class Unit(str, enum.Enum):
    C = "celsius"
    F = "fahrenheit"


class Picture:
    """Stands for a decoded image in a content part (a PIL image, a tensor)."""


def get_weather(city: str, unit: typing.Optional[str] = None):
    """Gets the weather in a city.

    Args:
        city: The city, e.g. "Zürich".
        unit: The unit (choices: ["celsius", "fahrenheit"])
    """


def search(query: typing.Union[str, list[str]], limit: int = 10, exact: bool = False) -> list[str]:
    """Searches the notes.

    Args:
        query: One query or several.
        limit: At most this many results.
        exact: Only exact matches.

    Returns:
        The matching note titles.
    """


def pick(mode: typing.Literal["fast", "slow", 3], weights: dict[str, float], pair: tuple[int, str], when: typing.Optional[list[typing.Optional[int]]] = None):
    """Picks something.

    Args:
        mode: How to pick.
        weights: Weight per name.
        pair: An id and a label.
        when: Moments, some unknown.
    """


def no_args() -> None:
    """Does nothing at all."""


def undocumented(x: int):
    return x


def untyped(x):
    """Has no type hint.

    Args:
        x: Anything.
    """


class Toolbox:
    def lookup(self, key: str, default: float = 1e100):
        """Looks a key up.

        Args:
            key: The key.
            default: What to give back when it is missing.
        """

    @staticmethod
    def ping(host: str):
        """Pings a host.

        Args:
            host: The host name.
        """


WEATHER_SCHEMA = {
    "type": "function",
    "function": {
        "name": "weather",
        "description": "Weather at a place",
        "parameters": {
            "type": "object",
            "properties": {"place": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 2**70}},
            "required": ["place"],
        },
    },
}

U = {"role": "user", "content": "Hello there"}
A = {"role": "assistant", "content": "General Kenobi."}
S = {"role": "system", "content": "Be brief."}

# A template of the kind tokenizer tests use: ChatML, trimmed contents, generation blocks.
CHATML = (
    "{%- for m in messages %}{{- '<|im_start|>' + m['role'] + '\\n' }}"
    "{%- if m['role'] == 'assistant' %}{% generation %}{{- m['content'] | trim }}<|im_end|>{% endgeneration %}"
    "{%- else %}{{- m['content'] | trim }}<|im_end|>{% endif %}{{- '\\n' }}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)
# A verbatim one (no trim), generation around the whole assistant turn.
VERBATIM = (
    "{% for m in messages %}<{{ m.role }}>{% if m.role == 'assistant' %}{% generation %}{{ m.content }}"
    "</s>{% endgeneration %}{% else %}{{ m.content }}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}"
)
# Shows everything the template sees, with types.
SHOW = (
    "{{ messages | length }}|{% for m in messages %}{{ m }}|{% for k in m %}{{ k }},{% endfor %}"
    "{{ m.content is string }}{{ m.content is none }}{{ m.content is sequence }}|{% endfor %}"
    "{{ messages }}|{{ tools }}|{{ documents }}|{{ add_generation_prompt }}"
)
# A processor-style template: content parts with image and video placeholders.
PARTS = (
    "{% for m in messages %}{{ m.role }}:{% if m.content is string %}{{ m.content }}"
    "{% else %}{% for c in m.content %}{% if c.type == 'image' or 'image' in c %}<image>"
    "{% elif c.type == 'video' %}<video>{% elif c.type == 'text' %}{{ c.text }}{% else %}?{{ c }}{% endif %}"
    "{% endfor %}{% endif %}\n{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}"
)
TOOLS = (
    "{% if tools %}{% for t in tools %}{{ t | tojson }}\n{{ t | tojson(indent=2) }}\n"
    "{{ t | tojson(sort_keys=true, separators=(',', ':')) }}\n{% endfor %}{% endif %}"
    "{% for m in messages %}{{ m.role }}: {{ m.content }}{% for c in m.tool_calls or [] %}"
    "[{{ c.function.name }} {{ c.function.arguments | tojson }} {{ c.function.arguments }}]{% endfor %}\n{% endfor %}"
)
DOCS = (
    "{% if documents %}{% for d in documents %}#{{ loop.index0 }} {{ d.title }}: {{ d.text }} {{ d | tojson }}\n"
    "{% endfor %}{% else %}no documents ({{ documents }})\n{% endif %}{% for m in messages %}{{ m.content }}{% endfor %}"
)


def case(cls, name, template, conversations, **kwargs):
    return pytest.param(template, conversations, kwargs, id=f"{cls}:{name}")


CASES = []


def add(cls, name, template, conversations, **kwargs):
    CASES.append((cls, name, template, conversations, kwargs))


# Conversation shapes: empty, batched, Conversation objects, tuples, dataclasses, mappings.
for tpl_name, tpl in (("show", SHOW), ("chatml", CHATML)):
    add("shapes", f"{tpl_name}/empty conversation", tpl, [[]])
    add("shapes", f"{tpl_name}/no conversations", tpl, [])
    add("shapes", f"{tpl_name}/three conversations", tpl, [[U], [S, U, A], [U, A, U]], add_generation_prompt=True)
    add("shapes", f"{tpl_name}/conversation object", tpl, [Conversation([U, A])])
    add("shapes", f"{tpl_name}/object then list", tpl, [Conversation([S, U]), [U]])
    add("shapes", f"{tpl_name}/conversation as tuple", tpl, [(U, A)])
    add("shapes", f"{tpl_name}/conversations as tuple", tpl, ([U], [A]))
    add("shapes", f"{tpl_name}/dataclass messages", tpl, [[Msg("user", "hi"), Msg("assistant", ("a", 1))]])
    add("shapes", f"{tpl_name}/ordered dict message", tpl, [[collections.OrderedDict(content="c", role="user")]])
add("shapes", "nested conversation object", SHOW, [Conversation(Conversation([U]))])
add("shapes", "object with tuple messages", SHOW, [Conversation((U, A))])
add("shapes", "tuple message", SHOW, [[("user", "hi")]])
add("shapes", "str message", SHOW, [["hello"]])
add("shapes", "None message", SHOW, [[U, None]])
add("shapes", "int message", SHOW, [[1]])
add("shapes", "dict as conversation", SHOW, [{"role": "user", "content": "x"}])
add("shapes", "empty str as conversation", SHOW, [""])
add("shapes", "empty dict as conversation", SHOW, [{}])
add("shapes", "empty tuple as conversation", SHOW, [()])
add("shapes", "str as conversation", SHOW, ["hi"])
add("shapes", "messages concatenated with a list", "{{ (messages + [{'role': 'x'}]) | length }}", [(U, A)])
add("shapes", "messages sliced", "{{ messages[1:] }}{{ messages[::-1] | list }}", [(U, A, S)])
add("shapes", "last of empty", "{{ messages[-1].role }}", [[]])
add("shapes", "first of empty, defined test", "{{ messages[0] is defined }}", [[]])
add("shapes", "message missing role", "{% for m in messages %}{{ m.role }}|{{ m['role'] }}{% endfor %}", [[{"content": "x"}]])
add("shapes", "role missing, concatenated", "{% for m in messages %}{{ '<' + m['role'] + '>' }}{% endfor %}", [[{"content": "x"}]])
add("shapes", "int keys", SHOW, [[{"role": "user", 1: "one", None: "none", 2.5: "f"}]])
add("shapes", "int keys, tojson", "{{ messages | tojson }}", [[{"role": "user", 1: "one", True: "t"}]])

# Content: None, empty, non-str, lists of parts, media placeholders.
for tpl_name, tpl in (("show", SHOW), ("parts", PARTS), ("chatml", CHATML)):
    add("content", f"{tpl_name}/None content", tpl, [[{"role": "user", "content": None}]])
    add("content", f"{tpl_name}/empty content", tpl, [[{"role": "user", "content": ""}]])
    add("content", f"{tpl_name}/no content key", tpl, [[{"role": "user"}]])
    add("content", f"{tpl_name}/int content", tpl, [[{"role": "user", "content": 12}]])
    add("content", f"{tpl_name}/empty list", tpl, [[{"role": "user", "content": []}]])
    add(
        "content",
        f"{tpl_name}/text and image parts",
        tpl,
        [[{"role": "user", "content": [{"type": "image", "image": Picture()}, {"type": "text", "text": "What is this?"}]}]],
        add_generation_prompt=True,
    )
    add(
        "content",
        f"{tpl_name}/video, url and bytes parts",
        tpl,
        [[{"role": "user", "content": [{"type": "video", "path": "a.mp4"}, {"type": "image", "url": "http://x/y.png"}, {"type": "image", "image": b"\x89PNG"}, {"type": "text", "text": "Compare"}]}]],
    )
    add("content", f"{tpl_name}/non-dict parts", tpl, [[{"role": "user", "content": ["text", 3, None, 2.5, ["nested"]]}]])
    add("content", f"{tpl_name}/dict content", tpl, [[{"role": "user", "content": {"type": "text", "text": "t"}}]])
    add("content", f"{tpl_name}/tuple parts", tpl, [[{"role": "user", "content": ({"type": "text", "text": "t"},)}]])
add("content", "join of text parts", "{% for m in messages %}{{ m.content | map(attribute='text') | join('') }}{% endfor %}", [[{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]}]])
add("content", "selectattr on parts", "{% for m in messages %}{{ m.content | selectattr('type', 'equalto', 'image') | list | length }}{% endfor %}", [[{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "b"}, {"type": "image"}]}]])
add("content", "parts without type", "{% for m in messages %}{% for c in m.content %}{{ c.type }}{{ c['type'] is defined }}{% endfor %}{% endfor %}", [[{"role": "user", "content": [{"text": "x"}]}]])
add("content", "str content iterated", "{% for m in messages %}{% for c in m.content %}{{ c }}.{% endfor %}{% endfor %}", [[{"role": "user", "content": "héllo"}]])
add("content", "None content concatenated", "{% for m in messages %}{{ m.role + m.content }}{% endfor %}", [[{"role": "user", "content": None}]])
add("content", "None content trimmed", "{% for m in messages %}{{ m.content | trim }}{% endfor %}", [[{"role": "user", "content": None}]])
add("content", "content list length", "{% for m in messages %}{{ m.content | length }}{% endfor %}", [[{"role": "user", "content": [{"type": "text", "text": "x"}]}, {"role": "user", "content": "four"}]])

# Reasoning fields: aliasing and key order.
REASONING = "{% for m in messages %}{{ m }}|{{ m.reasoning_content }}|{{ m.thinking }}|{{ m.reasoning }}\n{% endfor %}"
for field in ("reasoning_content", "thinking", "reasoning"):
    add("reasoning", f"{field} only", REASONING, [[U, {"role": "assistant", field: "mull", "content": "x"}]])
    add("reasoning", f"{field} None", REASONING, [[U, {"role": "assistant", field: None, "content": "x"}]])
    add("reasoning", f"{field} empty", REASONING, [[U, {"role": "assistant", field: "", "content": "x"}]])
    add("reasoning", f"{field} as list", REASONING, [[U, {"role": "assistant", field: ["a", {"b": 1}], "content": "x"}]])
add("reasoning", "all three differ", REASONING, [[{"role": "assistant", "reasoning": "r", "thinking": "t", "reasoning_content": "rc"}]])
add("reasoning", "None then later", REASONING, [[{"role": "assistant", "reasoning_content": None, "thinking": None, "reasoning": "late"}]])
add("reasoning", "non-assistant role", REASONING, [[{"role": "user", "thinking": "t"}]])
add("reasoning", "dataclass message is aliased", REASONING, [[Msg("assistant", "c")]])

# continue_final_message: True, a field name, trimming, decoys, content lists, errors.
CONT_CONVS = {
    "plain": [S, U, {"role": "assistant", "content": "The answer is"}],
    "trailing space": [U, {"role": "assistant", "content": "The answer is "}],
    "only spaces": [U, {"role": "assistant", "content": "   "}],
    "empty": [U, {"role": "assistant", "content": ""}],
    "None": [U, {"role": "assistant", "content": None}],
    "missing": [U, {"role": "assistant"}],
    "int": [U, {"role": "assistant", "content": 5}],
    "decoy earlier": [{"role": "user", "content": "Say: I think"}, {"role": "assistant", "content": "I think"}],
    "user last": [U],
    "parts": [U, {"role": "assistant", "content": [{"type": "text", "text": "one"}, {"type": "image"}, {"type": "text", "text": "two "}]}],
    "parts without text": [U, {"role": "assistant", "content": [{"type": "image"}]}],
    "str parts": [U, {"role": "assistant", "content": ["context", "more"]}],
    "str part without the word": [U, {"role": "assistant", "content": ["abc"]}],
    "empty parts": [U, {"role": "assistant", "content": []}],
    "non-ASCII": [U, {"role": "assistant", "content": "Grüße, 日本 😀"}],
    "tag in content": [{"role": "user", "content": "CONTINUE_FINAL_MESSAGE_TAG"}, {"role": "assistant", "content": "x"}],
    "tuple conversation": (U, {"role": "assistant", "content": "tup"}),
    "tuple parts": [U, {"role": "assistant", "content": ({"type": "text", "text": "in a tuple"},)}],
    "int part": [U, {"role": "assistant", "content": [{"type": "text", "text": "t"}, 7]}],
    "None part": [U, {"role": "assistant", "content": [None]}],
    "list part holding 'text'": [U, {"role": "assistant", "content": [["text"]]}],
    "list part without it": [U, {"role": "assistant", "content": [["txt"], {"text": "ok"}]}],
    "int text": [U, {"role": "assistant", "content": [{"type": "text", "text": 3}]}],
    "dict content": [U, {"role": "assistant", "content": {"text": "d"}}],
}
for tpl_name, tpl in (("chatml", CHATML), ("verbatim", VERBATIM), ("parts", PARTS)):
    for conv_name, conv in CONT_CONVS.items():
        add("continue", f"{tpl_name}/{conv_name}", tpl, [conv], continue_final_message=True)
    add("continue", f"{tpl_name}/mask", tpl, [CONT_CONVS["plain"]], continue_final_message=True, return_assistant_tokens_mask=True)
    add("continue", f"{tpl_name}/mask, trailing space", tpl, [CONT_CONVS["trailing space"]], continue_final_message=True, return_assistant_tokens_mask=True)
    add("continue", f"{tpl_name}/with generation prompt", tpl, [CONT_CONVS["plain"]], continue_final_message=True, add_generation_prompt=True)
    add("continue", f"{tpl_name}/two conversations", tpl, [CONT_CONVS["plain"], CONT_CONVS["trailing space"]], continue_final_message=True)
    add("continue", f"{tpl_name}/empty conversation", tpl, [[]], continue_final_message=True)
    add("continue", f"{tpl_name}/second conversation empty", tpl, [CONT_CONVS["plain"], []], continue_final_message=True)
    add("continue", f"{tpl_name}/conversation object", tpl, [Conversation(CONT_CONVS["plain"])], continue_final_message=True)
for value in ("content", "", 1, 0, "text", "reasoning_content", "thinking", "reasoning", "name"):
    add(
        "continue",
        f"field {value!r}",
        "{% for m in messages %}{{ m.role }}:{{ m.thinking }}|{{ m.content }}|{{ m.name }}\n{% endfor %}",
        [[U, {"role": "assistant", "content": "c", "reasoning": "mulling it", "name": "bot"}]],
        continue_final_message=value,
    )
add("continue", "template deletes the message", "{% for m in messages %}{% if m.role != 'assistant' %}{{ m.content }}{% endif %}{% endfor %}content", [CONT_CONVS["plain"]], continue_final_message=True)
add("continue", "template upper-cases it", "{% for m in messages %}{{ m.content | upper }}{% endfor %}content", [CONT_CONVS["plain"]], continue_final_message=True)
add("continue", "template truncates it", "{% for m in messages %}{{ m.content[:5] }}{% endfor %}content", [CONT_CONVS["plain"]], continue_final_message=True)
add("continue", "template reads it twice", "{% for m in messages %}[{{ m.content }}]({{ m.content }}){% endfor %}", [CONT_CONVS["plain"]], continue_final_message=True)
add("continue", "template adds a newline after it", "{% for m in messages %}{{ m.content }}\n\n{% endfor %}", [CONT_CONVS["trailing space"]], continue_final_message=True)
add("continue", "dataclass final message", CHATML, [[U, Msg("assistant", "dc text")]], continue_final_message=True)

# Generation blocks: masks around parts of turns, whitespace control, macros, captured output.
GEN_CONV = [S, U, {"role": "assistant", "content": " Sure! 😀 "}, U, {"role": "assistant", "content": "Grüße"}]
GEN_TEMPLATES = {
    "chatml": CHATML,
    "verbatim": VERBATIM,
    "stripped tags": "{%- for m in messages -%}{{ m.role }}:{%- generation -%}  {{ m.content }}  {%- endgeneration -%}\n{%- endfor -%}",
    "empty block": "{% for m in messages %}{% generation %}{% endgeneration %}{{ m.content }}{% endfor %}",
    "two blocks a turn": "{% for m in messages %}{% generation %}{{ m.role }}{% endgeneration %}:{% generation %}{{ m.content }}{% endgeneration %};{% endfor %}",
    "with loop controls": "{% for m in messages %}{% if m.role == 'system' %}{% continue %}{% endif %}{% generation %}{{ m.content }}{% endgeneration %}{% if loop.index > 3 %}{% break %}{% endif %}{% endfor %}",
    "in an if": "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}{% endgeneration %}{% else %}{{ m.content }}{% endif %}|{% endfor %}",
    "with generation prompt": "{% for m in messages %}{{ m.content }}{% endfor %}{% if add_generation_prompt %}{% generation %}<a>{% endgeneration %}{% endif %}",
}
# Blocks inside text that jinja2 holds in a buffer (a macro's output, a `set` or filter block,
# a call block, an enclosing generation block): transformers counts such a block from the
# output handed out so far, not from where its text ends up.
GEN_BUFFERED = {
    "in a macro": "{% macro turn(m) %}{% generation %}{{ m.content }}{% endgeneration %}{% endmacro %}{% for m in messages %}[{{ turn(m) }}]{% endfor %}",
    "macro in an expression": "{% macro turn(m) %}{% generation %}{{ m.content }}{% endgeneration %}{% endmacro %}{% for m in messages %}{{ '<' ~ m.role ~ '>' ~ turn(m) }}{% endfor %}",
    "macro called twice": "{% macro turn(m) %}({% generation %}{{ m.content }}{% endgeneration %}){% endmacro %}{% for m in messages %}{% set t = turn(m) %}{{ t }}{{ t | length }}{{ turn(m) }}{% endfor %}",
    "nested blocks": "{% for m in messages %}{% generation %}<{% generation %}{{ m.content }}{% endgeneration %}>{% endgeneration %}{% endfor %}",
    "in a set block": "{% for m in messages %}{% set body %}{% generation %}{{ m.content }}{% endgeneration %}{% endset %}<{{ m.role }}>{{ body }}{% endfor %}",
    "in a filter block": "{% for m in messages %}<{{ m.role }}>{% filter upper %}{% generation %}{{ m.content }}{% endgeneration %}{% endfilter %}{% endfor %}",
    "in a call block": "{% macro wrap() %}({{ caller() }}){% endmacro %}{% for m in messages %}{{ m.role }}{% call wrap() %}{% generation %}{{ m.content }}{% endgeneration %}{% endcall %}{% endfor %}",
    "in a recursive loop": "{% for m in messages recursive %}é{% generation %}{{ m.content }}{% endgeneration %}{% endfor %}",
    "in a with block": "{% for m in messages %}é{% with c = m.content %}{% generation %}{{ c }}{% endgeneration %}{% endwith %}{% endfor %}",
    "after a discarded macro": "{% macro noise() %}{% generation %}x{% endgeneration %}ü{% endmacro %}{% for m in messages %}{% set _ = noise() %}{{ m.role }}{% generation %}{{ m.content }}{% endgeneration %}{% endfor %}",
}
for tpl_name, tpl in {**GEN_TEMPLATES, **GEN_BUFFERED}.items():
    add("generation", f"{tpl_name}/mask", tpl, [GEN_CONV], return_assistant_tokens_mask=True, add_generation_prompt=True)
    add("generation", f"{tpl_name}/no mask", tpl, [GEN_CONV], add_generation_prompt=True)
    add("generation", f"{tpl_name}/batched mask", tpl, [GEN_CONV, [U], []], return_assistant_tokens_mask=True)
add("generation", "buffered block, continued", GEN_BUFFERED["in a set block"], [CONT_CONVS["non-ASCII"]], return_assistant_tokens_mask=True, continue_final_message=True)
add("generation", "nested blocks, continued", GEN_BUFFERED["nested blocks"], [CONT_CONVS["non-ASCII"]], return_assistant_tokens_mask=True, continue_final_message=True)
add("generation", "mask without generation block", SHOW, [[U, A]], return_assistant_tokens_mask=True)
add("generation", "astral characters before the block", "{% for m in messages %}{{ m.role }}😀{% generation %}{{ m.content }}{% endgeneration %}{% endfor %}", [[{"role": "user", "content": "𝄞𝄞"}, {"role": "assistant", "content": "é😀"}]], return_assistant_tokens_mask=True)
add("generation", "mask truthy non-bool", VERBATIM, [[U, A]], return_assistant_tokens_mask=1)
add("generation", "mask falsy non-bool", VERBATIM, [[U, A]], return_assistant_tokens_mask=0)

# Tools: JSON schemas and Python functions (type hints, docstrings, methods), bad tools.
TOOL_CONV = [U, {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "weather", "arguments": {"place": "Zürich", "days": 2}}}]}, {"role": "tool", "content": "sunny"}]
for name, tools in {
    "schema": [WEATHER_SCHEMA],
    "function, Optional and choices": [get_weather],
    "function, Union, list and return": [search],
    "function, Literal, dict, tuple, nested Optional": [pick],
    "function without arguments": [no_args],
    "bound method with float default": [Toolbox().lookup],
    "static method": [Toolbox.ping],
    "mixed schema and functions": [WEATHER_SCHEMA, get_weather, search],
    "empty list": [],
    "None": None,
    "tuple of schemas": (WEATHER_SCHEMA,),
    "schema as ordered dict": [collections.OrderedDict(WEATHER_SCHEMA)],
    "schema with tuple and enum values": [{"type": "function", "function": {"name": "f", "enum": (Unit.C, Unit.F), "default": Unit.C}}],
    "schema with big and odd numbers": [{"name": "n", "big": 2**100, "neg": -(2**64), "f": 1e100, "tiny": 5e-324, "nan": math.nan, "inf": -math.inf, "z": -0.0, "one": 1.0}],
    "undocumented function": [undocumented],
    "untyped function": [untyped],
    "lambda": [lambda x: x],
    "builtin function": [len],
    "class": [Toolbox],
    "callable instance": [type("C", (), {"__call__": lambda self, x: x})()],
    "string": ["weather"],
    "mapping proxy": [__import__("types").MappingProxyType({"name": "m"})],
}.items():
    add("tools", name, TOOLS, [TOOL_CONV], tools=tools)
for name, args in {
    "string arguments": '{"place": "Zürich"}',
    "nan and inf": {"x": math.nan, "y": math.inf, "z": -math.inf},
    "1e100 and tiny": {"x": 1e100, "y": 1e-7, "z": 123456789.0, "w": 1e16, "v": 0.1 + 0.2},
    "large ints": {"a": 2**63, "b": -(2**63) - 1, "c": 2**64, "d": 10**30},
    "nested tuples": {"a": (1, (2, "x")), "b": [None, True, False]},
    "non-ASCII and escapes": {"s": "日本\n\t\"q\" \\ </script> \u2028 \x00"},
    "empty": {},
    "None": None,
}.items():
    conv = [U, {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": args}}]}]
    add("tools", f"arguments: {name}", TOOLS, [conv])
add("tools", "tojson ensure_ascii", "{{ tools | tojson(ensure_ascii=true) }}", [[U]], tools=[{"d": "Zürich 😀"}])
add("tools", "tojson bad option", "{{ tools | tojson(bogus=1) }}", [[U]], tools=[{"d": 1}])
add("tools", "tojson of a placeholder", "{{ tools | tojson }}", [[U]], tools=[{"obj": Picture(), "set": {1}}])

# Documents.
for name, docs in {
    "two documents": [{"title": "A", "text": "alpha"}, {"title": "B ü", "text": "beta", "extra": [1, 2]}],
    "empty list": [],
    "None": None,
    "tuple": ({"title": "T", "text": "t"},),
    "ordered dict": [collections.OrderedDict(text="t", title="T")],
    "missing keys": [{"body": "b"}],
    "a string": ["d"],
    "a mapping proxy": [__import__("types").MappingProxyType({"title": "m"})],
    "a dataclass": [Msg("r", "c")],
    "a dict, not a list": {"title": "T", "text": "t"},
    # transformers only iterates them: nothing to refuse in an empty string or dict.
    "an empty string": "",
    "an empty dict": {},
    "an int": 3,
}.items():
    add("documents", name, DOCS, [[U]], documents=docs)

# Inputs given as iterators, and flags that are not bools (the template reads their truth or
# prints them).
GEN = "{{ messages }}|{{ tools }}|{{ add_generation_prompt }}{% if add_generation_prompt %}+{% endif %}|{{ messages[-1].content }}"
add("flags", "conversations as a generator", GEN, Make(lambda: ([U] for _ in range(2))))
add("flags", "tools as a generator", GEN, [[U]], tools=Make(lambda: (t for t in [WEATHER_SCHEMA])))
add("flags", "tools as a dict", GEN, [[U]], tools={"name": "x"})
add("flags", "tools as an empty string", GEN, [[U]], tools="")
add("flags", "tools as an empty dict", GEN, [[U]], tools={})
add("flags", "tools as an int", GEN, [[U]], tools=5)
for value in ("yes", "", None, [1], [], 0, 2.5, {"a": 1}):
    add("flags", f"add_generation_prompt={value!r}", GEN, [[U, A]], add_generation_prompt=value)
for value in ("", "no", None, [], [0]):
    add("flags", f"return_assistant_tokens_mask={value!r}", VERBATIM, [[U, A]], return_assistant_tokens_mask=value)
for value in (None, [], [1], Unit.C, 0.0, 1.5):
    add("flags", f"continue_final_message={value!r}", CHATML, [[U, A]], continue_final_message=value)
add("flags", "continue an enum content", CHATML, [[U, {"role": "assistant", "content": Unit.C}]], continue_final_message=True)

# Template kwargs: passed through, shadowing globals and the call's own names.
for name, kwargs in {
    "plain value": {"enable_thinking": False, "date_string": "26 Jul 2024"},
    "None value": {"custom": None},
    "foreign value": {"custom": Picture()},
    "shadows raise_exception": {"raise_exception": "no"},
    "shadows namespace": {"namespace": 1},
    "shadows range": {"range": [1, 2]},
    "shadows dict": {"dict": {"a": 1}},
    "shadows strftime_now": {"strftime_now": "today"},
    "shadows messages": {"messages": [{"role": "x"}]},
    "shadows self": {"self": 1},
    "shadows loop": {"loop": 1},
    "non-identifier name": {"a-b": 1, "": 2},
    "shadows a special token": {"bos_token": "<B>"},
    "many": {f"k{i}": i for i in range(300)},
}.items():
    # Globals print their Python repr (with an address), so they are shown only when shadowed.
    template = (
        "{{ enable_thinking }}{{ custom }}{% for g in [raise_exception, namespace, range, dict, strftime_now] %}"
        "{% if g is callable %}callable{% else %}{{ g }}{% endif %},{% endfor %}"
        "{% for m in messages %}{{ m.role }}{% endfor %}{{ loop }}{{ self is defined }}"
        "{{ bos_token }}{{ k299 }}{{ date_string }}"
    )
    add("kwargs", name, template, [[U]], **kwargs)
    add("kwargs", f"{name} (mask)", template, [[U]], return_assistant_tokens_mask=True, **kwargs)
add("kwargs", "call shadowed raise_exception", "{{ raise_exception('boom') }}", [[U]], raise_exception="no")
add("kwargs", "call shadowed range", "{% for i in range(2) %}{{ i }}{% endfor %}", [[U]], range=[5])
add("kwargs", "compiled_template with mask", "{{ compiled_template }}", [[U]], compiled_template=1, return_assistant_tokens_mask=True)
add("kwargs", "messages with a bad message first", "x", [[1]], messages=[])
add("kwargs", "messages with a continue error first", "x", [[]], messages=[], continue_final_message=True)
add("kwargs", "messages, no conversations", "x", [], messages=[])
add("kwargs", "compiled_template without mask", "{{ compiled_template }}", [[U]], compiled_template=1)
add("kwargs", "conversations name", "{{ conversations }}", [[U]], chat_template_kwargs=1)
add("kwargs", "template_kwargs name", "{{ template_kwargs }}", [[U]], template_kwargs=1)

# Foreign values given as kwargs: converted as transformers' _plain_template_data does.
FOREIGN = "{{ g }}|{{ g | tojson }}|{{ g is string }}{{ g is number }}{{ g is mapping }}{{ g is sequence }}|{% if g %}T{% endif %}"
for name, make in {
    "range": lambda: range(3),
    "bytearray": lambda: bytearray(b"x"),
    "complex": lambda: 1j,
    "decimal": lambda: __import__("decimal").Decimal("1.5"),
    "fraction": lambda: __import__("fractions").Fraction(1, 3),
    "namedtuple": lambda: collections.namedtuple("P", "x y")(1, "b"),
    "defaultdict": lambda: collections.defaultdict(int, a=1),
    "Counter": lambda: collections.Counter("aab"),
    "str subclass": lambda: type("S", (str,), {})("x"),
    "list subclass": lambda: type("L", (list,), {})([1, (2,)]),
    "dict subclass": lambda: type("D", (dict,), {})(a=1),
    "tuple subclass": lambda: type("T", (tuple,), {})((1,)),
    "date": lambda: __import__("datetime").date(2020, 1, 2),
    "path": lambda: __import__("pathlib").PurePosixPath("/x"),
    "a type": lambda: int,
    "a builtin": lambda: len,
    "generator": lambda: (i for i in [1]),
    "odd keys": lambda: {None: 1, True: 2, 2.5: 3, (1, "a"): 4},
    "set": lambda: {3},
}.items():
    add("foreign values", name, FOREIGN, [[U]], g=Make(make))

# The template's own text: trailing newlines (jinja2 drops one), whitespace control.
for name, template in {
    "one trailing newline": "x\n",
    "two trailing newlines": "x\n\n",
    "trailing CRLF": "x\r\n",
    "empty": "",
    "only whitespace": "  \n ",
    "block then newline": "{% if true %}a{% endif %}\n",
    "lstrip and trim": "  {% for m in messages %}\n  {{ m.role }}\n  {% endfor %}\n",
    "minus markers": "a  {%- if true -%}  b  {%- endif -%}  c",
    "plus marker": "  {%+ if true %}x{% endif %}",
    "comment": "a {# note #} b {#- trimmed -#} c",
    "raw block": "{% raw %}{{ not rendered }}{% endraw %}",
}.items():
    add("template text", name, template, [[U]])

# Numbers and text.
NUM = "{% for m in messages %}{{ m.content }}|{{ m.content | tojson }}|{{ m.content is number }}|{{ m.content is integer }}|{{ m.content is float }}|{{ m.content | string }}\n{% endfor %}"
for name, value in {
    "1e100": 1e100,
    "1e16": 1e16,
    "1e-7": 1e-7,
    "nan": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "-0.0": -0.0,
    "0.1+0.2": 0.1 + 0.2,
    "5e-324": 5e-324,
    "max float": 1.7976931348623157e308,
    "2**63": 2**63,
    "-(2**63)": -(2**63),
    "2**64-1": 2**64 - 1,
    "2**200": 2**200,
    "-(10**40)": -(10**40),
    "True": True,
    "long string": "ab" * 200_000,
    "non-ASCII": "Zürich — 日本語 — 😀 — \u200b — \r\n",
    "lone surrogate escaped": "a\\ud800b",
}.items():
    add("numbers and text", name, NUM, [[{"role": "user", "content": value}]])
ARITH = "{% for m in messages %}{% set x = m.content %}{{ x * 2 }}|{{ x + 1 }}|{{ x // 3 }}|{{ x % 7 }}|{{ -x }}|{{ x | abs }}|{{ x | int }}|{{ x | float }}|{{ x | round(2) }}|{{ x > 1 }}\n{% endfor %}"
for name, value in {"1e100": 1e100, "nan": math.nan, "inf": math.inf, "2**70": 2**70, "-7": -7, "2.5": 2.5, "1e-7": 1e-7}.items():
    add("numbers and text", f"arithmetic {name}", ARITH, [[{"role": "user", "content": value}]])

# Division by zero raises Python's ZeroDivisionError (neither a ValueError nor a TypeError).
for name, template in {
    "int floor division": "{{ g // 0 }}",
    "int modulo": "{{ g % 0 }}",
    "int true division": "{{ g / 0 }}",
    "float division": "{{ (g * 1.0) / 0 }}",
    "float floor division": "{{ (g * 1.0) // 0.0 }}",
    "float modulo": "{{ (g * 1.0) % 0 }}",
    "big int modulo": "{{ (g * 2 ** 200) % 0 }}",
    "zero to a negative power": "{{ 0.0 ** -g }}",
    "slice filter of zero": "{{ [1, 2] | slice(0) | list }}",
}.items():
    add("numbers and text", f"zero division: {name}", template, [[U]], g=5)

# Case mappings Python's str methods and jinja2's filters make (title case is not upper case
# for ß, ligatures, digraphs and Greek with the iota subscript; a capital sigma lowers to ς
# at the end of a word).
CASES_TEXT = "ßtraße ﬁsh ǆemal ǅemal ᾳσ ᾈa ΣΑΣ ΟΔΟΣ. Σ'Σ ΑΣ̈ x ЀΣ-σΣ (ΣΣ)"
for method in ("title()", "capitalize()", "swapcase()", "lower()", "upper()", "istitle()", "casefold()"):
    add("case mapping", f"str.{method}", "{{ g.%s }}|{{ ('x ' ~ g).%s }}" % (method, method), [[U]], g=CASES_TEXT)
for flt in ("title", "capitalize", "lower", "upper"):
    add("case mapping", f"{flt} filter", "{{ g | %s }}" % flt, [[U]], g=CASES_TEXT)
add("case mapping", "istitle of title-case letters", "{{ 'ǅemal'.istitle() }}{{ 'ᾈa'.istitle() }}{{ 'Aǅ'.istitle() }}", [[U]])

# wordwrap is Python's textwrap: words broken at hyphens and em-dashes, long words cut to
# fill the line, whitespace inside a line kept, only ASCII whitespace separating words.
WRAP_TEXT = "Grüße aus Zürich -- heute well-known e-mail co-op-ed a---b\tTab  two  spaces\u00a0nbsp supercalifragilistic\nnext line 😀😀😀😀😀😀"
for width in (1, 5, 7, 12, 79):
    add("wordwrap", f"width {width}", "{{ g | wordwrap(%d) }}|{{ g | wordwrap(%d, false) }}|{{ g | wordwrap(%d, true, '/', false) }}" % (width, width, width), [[U]], g=WRAP_TEXT)
add("wordwrap", "zero width", "{{ g | wordwrap(0) }}", [[U]], g="a b")
add("wordwrap", "zero width, empty text", "[{{ '' | wordwrap(0) }}]", [[U]])

# Builtins templates use, on odd inputs (filters, tests, methods, loop helpers, sandboxed
# mutators, autoescape).
BUILTIN_CASES = [
 ("join non-str", "{{ g | join(', ') }}", {"g": [1, None, 2.5, True, [1], {"a": 1}]}),
 ("join attribute", "{{ g | join(',', attribute='a') }}", {"g": [{"a": 1}, {"a": "x"}]}),
 ("default bool", "{{ g | default('d') }}|{{ g | default('d', true) }}|{{ none_here | default('x') }}", {"g": ""}),
 ("string none", "{{ g | string }}|{{ g | lower }}", {"g": None}),
 ("list of dict", "{{ g | list }}|{{ g | first }}|{{ g | last }}", {"g": {"b": 1, "a": 2}}),
 ("list of str", "{{ g | list }}|{{ g | first }}|{{ g | last }}|{{ g | reverse | list }}", {"g": "héllo"}),
 ("int of huge float", "{{ g | int }}|{{ g | float }}", {"g": 1e300}),
 ("int of nan", "{{ g | int }}", {"g": math.nan}),
 ("int of inf", "{{ g | int }}", {"g": math.inf}),
 ("round nan", "{{ g | round }}", {"g": math.nan}),
 ("loop cycle", "{% for x in g %}{{ loop.cycle('a', 'b') }}{{ loop.revindex }}{{ loop.previtem }}{{ loop.nextitem }}{{ loop.changed(x) }}{% endfor %}", {"g": [1, 1, 2]}),
 ("selectattr defined", "{{ g | selectattr('a', 'defined') | list }}|{{ g | rejectattr('a') | list }}", {"g": [{"a": 0}, {}, {"a": 1}]}),
 ("selectattr none", "{{ g | selectattr('a', 'none') | list }}", {"g": [{"a": None}, {"a": 1}]}),
 ("map default", "{{ g | map(attribute='a', default='z') | list }}", {"g": [{"a": 0}, {}]}),
 ("map filter args", "{{ g | map('replace', 'a', 'b') | list }}", {"g": ["aa", "ca"]}),
 ("sort attribute", "{{ g | sort(attribute='a,b') | list }}", {"g": [{"a": 2, "b": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 1}]}),
 ("sort mixed types", "{{ g | sort }}", {"g": [1, "a"]}),
 ("sort case", "{{ g | sort }}|{{ g | sort(case_sensitive=true) }}", {"g": ["b", "A", "a", "B"]}),
 ("max attribute", "{{ g | max(attribute='a') }}", {"g": [{"a": 1}, {"a": 3}]}),
 ("tojson markup", "{{ g | tojson }}", {"g": "<script>&'"}),
 ("items on list", "{{ g.items() }}", {"g": [1]}),
 ("get default", "{{ g.get('x', 5) }}|{{ g.get('a') }}|{{ g.keys() | list }}|{{ g.values() | list }}", {"g": {"a": 1}}),
 ("in operators", "{{ 'a' in g }}|{{ 1 in g }}|{{ none in g }}", {"g": {"a": 1, 1: 2}}),
 ("in list of dicts", "{{ {'a': 1} in g }}", {"g": [{"a": 1}]}),
 ("string concat number", "{{ 'a' + g }}", {"g": 1}),
 ("tilde", "{{ g ~ 1 ~ none ~ true ~ [1] }}", {"g": "x"}),
 ("mul str", "{{ 'ab' * g }}|{{ g * [1] }}", {"g": 3}),
 ("neg mul str", "{{ 'ab' * -1 }}", {}),
 ("compare str int", "{{ 'a' < 1 }}", {}),
 ("eq int float", "{{ 1 == 1.0 }}{{ true == 1 }}{{ none == false }}", {}),
 ("slice step", "{{ g[::2] }}{{ g[::-1] }}{{ g[10:] }}{{ g[-100:2] }}", {"g": "abcdé"}),
 ("index oob", "{{ g[10] }}", {"g": [1]}),
 ("dict index missing", "[{{ g['zz'] }}]", {"g": {"a": 1}}),
 ("attr of int", "[{{ g.real }}][{{ g.imag }}]", {"g": 3}),
 ("str methods chain", "{{ g.strip().split(',')|map('trim')|join('|') }}", {"g": " a, b ,c "}),
 ("startswith tuple", "{{ g.startswith(('x', 'h')) }}{{ g.endswith('o', 0, 2) }}", {"g": "hello"}),
 ("format map", "{{ '{a}-{b}'.format(a=1, b='x') }}{{ '%(a)s' % g }}", {"g": {"a": 1}}),
 ("percent tuple", "{{ '%s-%s' % (1, 'x') }}{{ '%5.1f%%' % 3.14159 }}", {}),
 ("count overlap", "{{ 'aaaa'.count('aa') }}{{ 'abc'.find('') }}{{ 'abc'.rfind('c', -1) }}", {}),
 ("isinstance tests", "{{ g is iterable }}{{ g is mapping }}{{ g is sequence }}{{ g is string }}{{ g is callable }}", {"g": (1, 2)}),
 ("tests numbers", "{{ 3 is odd }}{{ 4 is even }}{{ 9 is divisibleby 3 }}{{ 3.0 is integer }}{{ true is integer }}{{ true is number }}{{ true is boolean }}", {}),
 ("test eq", "{{ g is eq 1 }}{{ g is ne 2 }}{{ g is gt 0 }}{{ g is sameas 1 }}{{ none is none }}", {"g": 1}),
 ("test in", "{{ 'a' is in 'abc' }}{{ 1 is in [1] }}", {}),
 ("test lower upper", "{{ 'ab' is lower }}{{ 'AB' is upper }}{{ '' is lower }}", {}),
 ("namespace in loop", "{% set ns = namespace(x=[]) %}{% for m in messages %}{% set ns.x = ns.x + [m.role] %}{% endfor %}{{ ns.x }}{{ ns }}", {}),
 ("set in loop scope", "{% set x = 1 %}{% for m in messages %}{% set x = 2 %}{% endfor %}{{ x }}", {}),
 ("macro varargs", "{% macro f(a, b=2) %}{{ a }}{{ b }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ f(1, 2, 3, c=4) }}", {}),
 ("macro caller args", "{% macro f() %}{{ caller(1) }}{% endmacro %}{% call(x) f() %}[{{ x }}]{% endcall %}", {}),
 ("filter block upper", "{% filter upper %}héllo{% endfilter %}", {}),
 ("dict literal order", "{{ {'b': 1, 'a': 2} }}{{ dict(b=1, a=2) }}{{ {'a': 1, 'a': 2} }}", {}),
 ("list methods", "{{ g.index(2) }}{{ g.count(1) }}", {"g": [1, 2, 1]}),
 ("append sandbox", "{{ g.append(1) }}", {"g": [1]}),
 ("update sandbox", "{{ g.update({'a': 1}) }}", {"g": {}}),
 ("pop sandbox", "{{ g.pop() }}", {"g": [1]}),
 ("strftime weird", "{{ strftime_now('%Y-%m-%d %%') | length }}", {}),
 ("range big", "{{ range(10) | list }}{{ range(0, 10, 3) | list }}{{ range(5, 0, -2) | list }}", {}),
 ("range huge", "{{ range(200000) | length }}", {}),
 ("lipsum", "{{ lipsum is defined }}{{ cycler is defined }}{{ joiner is defined }}", {}),
 ("cycler", "{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}{{ c.current }}", {}),
 ("joiner", "{% set j = joiner('|') %}{{ j() }}a{{ j() }}b", {}),
 ("abs neg zero", "{{ -0.0 | abs }}{{ g | abs }}", {"g": -(2**70)}),
 ("filesizeformat", "{{ 1000 | filesizeformat }}|{{ 1024 | filesizeformat(true) }}|{{ 1e15 | filesizeformat }}", {}),
 ("indent", "{{ g | indent(2) }}|{{ g | indent(2, true) }}|{{ g | indent('> ', blank=true) }}", {"g": "a\n\nb\n"}),
 ("center filter", "{{ 'ab' | center(7) }}|", {}),
 ("format filter", "{{ '%s=%d' | format('a', 3) }}", {}),
 ("pprint", "{{ g | pprint }}", {"g": {"b": [1, 2], "a": "x" * 90}}),
 ("urlize", "{{ 'see http://x.com/a?b=1 now' | urlize }}", {}),
 ("items dictsort mixed", "{{ g | dictsort }}", {"g": {"b": 1, "A": 2}}),
 ("xmlattr", "{{ {'class': 'a b', 'x': none, 'y': '<'} | xmlattr }}", {}),
 ("random/shuffle absent", "{{ [1] | random }}", {}),
 ("attr filter", "{{ g | attr('a') }}|{{ g | attr('items') is defined }}", {"g": {"a": 1}}),
 ("batch fill", "{{ [1,2,3] | batch(2) | list }}", {}),
 ("unique attribute", "{{ g | unique(attribute='a') | list }}", {"g": [{"a": 1}, {"a": 1}, {"a": 2}]}),
 ("groupby default", "{% for k, v in g | groupby('a', default='z') %}{{ k }}{{ v | length }}{% endfor %}", {"g": [{"a": 1}, {}]}),
 ("sum attribute start", "{{ g | sum(attribute='a', start=10) }}", {"g": [{"a": 1}, {"a": 2}]}),
 ("count filter", "{{ g | count }}{{ g | length }}", {"g": {"a": 1}}),
 ("wordcount empty", "{{ '' | wordcount }}", {}),
 ("trim chars", "{{ 'xxaxx' | trim('x') }}", {}),
 ("striptags", "{{ '<b>a</b>  <!-- c -->b &amp; c' | striptags }}", {}),
 ("safe escape concat", "{{ ('<a>' | safe) ~ '<b>' }}{{ ('<a>' | escape) ~ '<b>' }}", {}),
 ("autoescape block", "{% autoescape true %}{{ '<x>' }}{{ '<y>' | safe }}{% endautoescape %}", {}),
]
for name, template, kwargs in BUILTIN_CASES:
    add("template builtins", name, template, [[U]], **kwargs)

# Template globals transformers' tests use.
add("globals", "raise_exception", "{{ raise_exception('no ' + messages[0].role) }}", [[U]])
add("globals", "raise_exception without argument", "{{ raise_exception() }}", [[U]])
add("globals", "namespace", "{% set ns = namespace(n=0, found=false) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}", [[U, A, U]])
add("globals", "namespace underscore", "{% set ns = namespace(_x=1) %}{{ ns._x }}", [[U]])
add("globals", "namespace underscore set", "{% set ns = namespace() %}{% set ns._y = 1 %}x", [[U]])
add("globals", "dict global", "{{ dict(a=1, b=messages[0].role) }}{{ dict.fromkeys(['x', 'y'], 0) }}", [[U]])
add("globals", "strftime_now date", "{{ strftime_now('%Y') | length }}", [[U]])
add("globals", "loop controls", "{% for m in messages %}{% if loop.first %}{% continue %}{% endif %}{{ m.role }}{% if loop.index == 2 %}{% break %}{% endif %}{% endfor %}", [[U, A, U, A]])
add("globals", "syntax error", "{% for m in messages %}", [[U]])
add("globals", "unknown tag", "{% frobnicate %}", [[U]])
add("globals", "unknown filter", "{{ messages | frobnicate }}", [[U]])
add("globals", "unknown test", "{{ messages is frobnicate }}", [[U]])
add("globals", "unknown filter in a loop", "{% for m in messages %}{{ m | frobnicate }}{% endfor %}", [[U]])
add("globals", "unknown filter in a macro", "{% macro f() %}{{ 1 | frobnicate }}{% endmacro %}x", [[U]])
add("globals", "unknown filter block", "{% if messages %}{% filter frobnicate %}x{% endfilter %}{% endif %}", [[U]])
add("globals", "unknown filter in a taken branch", "{% if messages %}{{ 1 | frobnicate }}{% endif %}", [[U]])
add("globals", "unknown test in an untaken branch", "{% if not messages %}{{ 1 is frobnicate }}{% endif %}ok", [[U]])
# jinja2 compiles the inside of a loop, macro, call, captured block or `with` as a new frame,
# where an unknown filter or test is a compile error again even inside an `if`.
for where, template in {
    "loop in an if": "{% if messages %}{% for m in messages %}{{ m | frobnicate }}{% endfor %}{% endif %}",
    "loop filter in an if": "{% if messages %}{% for m in messages if m is frobnicate %}{% endfor %}{% endif %}",
    "loop else in an if": "{% if messages %}{% for m in [] %}{% else %}{{ 1 | frobnicate }}{% endfor %}{% endif %}",
    "loop iterable in an if": "{% if not messages %}{% for m in (messages | frobnicate) %}{% endfor %}{% endif %}ok",
    "macro in an if": "{% if messages %}{% macro f() %}{{ 1 | frobnicate }}{% endmacro %}{% endif %}",
    "macro default in an if": "{% if messages %}{% macro f(a=(1 | frobnicate)) %}{% endmacro %}{% endif %}",
    "set block in an if": "{% if messages %}{% set x %}{{ 1 | frobnicate }}{% endset %}{% endif %}",
    "set value in an if": "{% if not messages %}{% set x = 1 | frobnicate %}{% endif %}ok",
    "with in an if": "{% if messages %}{% with a = 1 %}{{ a | frobnicate }}{% endwith %}{% endif %}",
    "with value in an if": "{% if not messages %}{% with a = (1 | frobnicate) %}{% endwith %}{% endif %}ok",
    "call block in an if": "{% macro w() %}{{ caller() }}{% endmacro %}{% if messages %}{% call w() %}{{ 1 | frobnicate }}{% endcall %}{% endif %}",
    "generation in an if": "{% if messages %}{% generation %}{{ 1 | frobnicate }}{% endgeneration %}{% endif %}",
    "recursive loop in an if": "{% if messages %}{% for m in messages recursive %}{{ m | frobnicate }}{% endfor %}{% endif %}",
    "if in an if": "{% if not messages %}{% if messages %}{{ 1 | frobnicate }}{% endif %}{% endif %}ok",
    "if in a loop": "{% for m in messages %}{% if m.nothing %}{{ m | frobnicate }}{% endif %}{% endfor %}ok",
}.items():
    add("globals", f"unknown filter: {where}", template, [[U]])
add("globals", "unknown filter in a conditional expression", "{{ 1 if messages else (2 | frobnicate) }}", [[U]])
add("globals", "sandboxed attribute", "{{ messages.__class__ }}", [[U]])
add("globals", "undefined attribute of undefined", "{{ nothing.here }}", [[U]])
add("globals", "undefined printed", "[{{ nothing }}]", [[U]])
add("globals", "None template", None, [[U]])
add("globals", "non-str template", 5, [[U]])


@pytest.mark.parametrize("cls,name,template,conversations,kwargs", CASES, ids=[f"{c}:{n}" for c, n, *_ in CASES])
def test_render_jinja_template_matches_transformers(cls, name, template, conversations, kwargs):
    theirs, ours = render_both(template, conversations, **kwargs)
    problem = mismatch(theirs, ours)
    assert problem is None, problem


def test_case_counts():
    counts = collections.Counter(c for c, *_ in CASES)
    assert all(n >= 5 for n in counts.values()), counts
    assert len(CASES) >= 300, len(CASES)


# ---------------------------------------------------------------------------------------------
# tokenizer.apply_chat_template, unpatched and with chatcodec.patch_transformers(), and
# ChatTemplate.apply, on model folders made from corpus templates (a small real tokenizer.json
# with <s>, </s> and <unk>, the template in tokenizer_config.json, as test_apply.py makes them).

APPLY_TEMPLATES = [
    "Qwen-Qwen3-0.6B.jinja",
    "Meta-Llama-3.1-8B-Instruct.jinja",
    "CohereForAI-c4ai-command-r7b-12-2024-rag.jinja",
    "HuggingFaceTB-SmolLM3-3B__v2.jinja",
    "Mistral-Small-3.2-24B-Instruct-2506.jinja",
    "Phi-3.5-mini-instruct.jinja",
]


@pytest.fixture(scope="module")
def tokenizer_folders(tmp_path_factory):
    tokenizers = need("tokenizers")
    out = tmp_path_factory.mktemp("heldout-models")
    vocab = {t: i for i, t in enumerate(["<unk>", "<s>", "</s>", "hello", "<|im_start|>", "<|im_end|>"])}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.add_special_tokens(["<unk>", "<s>", "</s>"])
    tok.add_tokens(["<|im_start|>", "<|im_end|>"])
    made = {}
    for name in APPLY_TEMPLATES:
        made[name] = model_folder(out, name, tok.to_str())
    return made


THINK = {"role": "assistant", "reasoning_content": "Let me think: 2 + 2.", "content": "It is 4."}
CALL = {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Zürich", "unit": None}}}]}
TOOL_RESULT = {"role": "tool", "name": "get_weather", "content": "12 °C"}
APPLY_CASES = {
    "one turn": ([U], {}),
    "generation prompt": ([S, U], {"add_generation_prompt": True}),
    "reasoning history": ([U, THINK, U], {"add_generation_prompt": True}),
    "thinking off": ([U], {"add_generation_prompt": True, "enable_thinking": False}),
    "tools as functions": ([U, CALL, TOOL_RESULT], {"tools": [get_weather, search, Toolbox().lookup]}),
    "tools as schemas and functions": ([U], {"tools": [WEATHER_SCHEMA, pick], "add_generation_prompt": True}),
    "bad tool": ([U], {"tools": [undocumented]}),
    "documents": ([U], {"documents": [{"title": "Zürich", "text": "A city."}, {"title": "Bern", "text": "Another."}], "add_generation_prompt": True}),
    "continue": ([U, {"role": "assistant", "content": "It is "}], {"continue_final_message": True}),
    "continue reasoning": ([U, {"role": "assistant", "reasoning_content": "First, ", "content": ""}], {"continue_final_message": "reasoning_content"}),
    "continue with generation prompt": ([U, A], {"continue_final_message": True, "add_generation_prompt": True}),
    "batched": ([[U], [S, U, A], [U, THINK]], {}),
    "batched tuples": (((U,), (U, A)), {}),
    "batched conversation objects": ([Conversation([U]), Conversation([U, A])], {}),
    "empty": ([], {}),
    "None content dropped": ([U, {"role": "assistant", "content": None, "name": None}, U], {}),
    "content parts": ([{"role": "user", "content": [{"type": "text", "text": "Describe"}, {"type": "image", "image": Picture()}]}], {"add_generation_prompt": True}),
    "non-ASCII": ([{"role": "user", "content": "Grüße aus 日本 😀" * 50}], {}),
    "kwarg shadows a special token": ([U], {"eos_token": "<END>", "bos_token": "<BEGIN>"}),
    "date kwarg": ([S, U], {"date_string": "26 Nov 2026", "add_generation_prompt": True}),
    "kwarg messages": ([U], {"messages": []}),
    "kwarg conversations": ([U], {"conversations": []}),
    "kwarg self": ([U], {"self": 1}),
    "numbers in tool arguments": ([U, {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1e100, "y": math.nan, "z": 2**80}}}]}], {}),
}
TOKENIZED_CASES = {
    "ids": ([U, A], {"return_dict": False}),
    "dict": ([U, A], {}),
    "mask": ([S, U, A, U, {"role": "assistant", "content": "Grüße 😀 again"}], {"return_assistant_tokens_mask": True}),
    "mask batched": ([[U, A], [U, THINK]], {"return_assistant_tokens_mask": True}),
    "mask with continue": ([U, A], {"return_assistant_tokens_mask": True, "continue_final_message": True}),
    "sanitized control tokens": ([{"role": "user", "content": "say </s> and <|im_end|>"}], {"sanitize_control_tokens": True}),
}


PATCHED_MODULES = (
    "transformers.utils.chat_template_utils",
    "transformers.tokenization_utils_base",
    "transformers.processing_utils",
)


@contextlib.contextmanager
def patched(on=True):
    """chatcodec.patch_transformers() for the duration; every module's function restored
    after, and transformers' own in place before (else a comparison would be chatcodec's
    against itself)."""
    modules = [need(m) for m in PATCHED_MODULES]
    saved = [m.render_jinja_template for m in modules]
    assert all(f is not chatcodec.render_jinja_template for f in saved), "left patched"
    if on:
        chatcodec.patch_transformers()
    try:
        yield
    finally:
        for m, f in zip(modules, saved):
            m.render_jinja_template = f


def apply_outcome(tok, conversation, kwargs, patched_now):
    with patched(patched_now):
        got = outcome(tok.apply_chat_template, fresh(conversation), **fresh(kwargs))
    if got[0] == "ok" and not isinstance(got[1], (str, list)):
        got = ("ok", {k: list(v) for k, v in got[1].items()})
    return got


@pytest.mark.parametrize("name", APPLY_TEMPLATES)
def test_apply_chat_template_matches_transformers(tokenizer_folders, name):
    transformers = need("transformers")
    tok = transformers.AutoTokenizer.from_pretrained(tokenizer_folders[name])
    ours = chatcodec.ChatTemplate.from_pretrained(tokenizer_folders[name])
    problems = []
    cases = [(c, k, dict(v, tokenize=False)) for k, (c, v) in APPLY_CASES.items()]
    cases += [(c, k, v) for k, (c, v) in TOKENIZED_CASES.items()]
    ok = 0
    for conversation, case_name, kwargs in cases:
        want = apply_outcome(tok, conversation, kwargs, False)
        got = apply_outcome(tok, conversation, kwargs, True)
        ok += want[0] == "ok"
        if got != want and not (got[0] == want[0] == "error" and got[1] == want[1]):
            problems.append(f"{case_name}: patched {got!r:.400} / unpatched {want!r:.400}")
        # ChatTemplate.apply renders one conversation as apply_chat_template(tokenize=False).
        batched = isinstance(conversation, (list, tuple)) and conversation and not isinstance(conversation[0], dict)
        if kwargs.get("tokenize") is False and not batched:
            direct = outcome(ours.apply, fresh(conversation), **{k: v for k, v in fresh(kwargs).items() if k != "tokenize"})
            if direct != want and not (direct[0] == want[0] == "error" and direct[1] == want[1]):
                problems.append(f"{case_name}: ChatTemplate.apply {direct!r:.400} / transformers {want!r:.400}")
    assert ok >= 15, ok
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# Requests shaped as an OpenAI-compatible server hands them to the renderer (vLLM's chat
# handling): tool-call arguments as JSON strings or parsed into dicts, tool results with
# `tool_call_id`, `name` on messages, parallel calls, content as a string or as text parts with
# media placeholders, several system messages. Rendered with every corpus template vLLM ships.

SERVER_TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Wetter für eine Stadt", "strict": True, "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}, "days": {"type": "integer", "default": 1}}, "required": ["city"], "additionalProperties": False}}},
    {"type": "function", "function": {"name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "array", "items": {"type": "string"}}, "filters": {"type": "object", "properties": {"year": {"type": ["integer", "null"]}}}}}}},
]


def server_requests():
    calls = [
        {"id": "call_a1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Zürich", "unit": "c"}'}},
        {"id": "call_b2", "type": "function", "function": {"name": "search", "arguments": '{"q": ["a", "b"], "filters": {"year": null}}'}},
    ]
    parsed = [dict(c, function=dict(c["function"], arguments=json.loads(c["function"]["arguments"]))) for c in calls]
    results = [
        {"role": "tool", "tool_call_id": "call_a1", "name": "get_weather", "content": '{"temp": 12.5}'},
        {"role": "tool", "tool_call_id": "call_b2", "name": "search", "content": "[]"},
    ]
    user = {"role": "user", "name": "alice", "content": "Wie ist das Wetter?"}
    return {
        "string arguments": {"messages": [user, {"role": "assistant", "content": "", "tool_calls": calls}, *results], "tools": SERVER_TOOLS, "add_generation_prompt": True},
        "dict arguments": {"messages": [user, {"role": "assistant", "content": None, "tool_calls": parsed}, *results], "tools": SERVER_TOOLS, "add_generation_prompt": True},
        "one call, no tools listed": {"messages": [user, {"role": "assistant", "tool_calls": parsed[:1]}, results[0]]},
        "text parts": {"messages": [{"role": "system", "content": [{"type": "text", "text": "Sei kurz."}]}, {"role": "user", "content": [{"type": "text", "text": "Hallo"}, {"type": "text", "text": "Welt"}]}], "add_generation_prompt": True},
        "media placeholders": {"messages": [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "What is in the image?"}, {"type": "video"}]}], "add_generation_prompt": True},
        "two system messages": {"messages": [{"role": "system", "content": "A"}, {"role": "system", "content": "B"}, user], "add_generation_prompt": True},
        "continue assistant": {"messages": [user, {"role": "assistant", "content": "Es ist "}], "continue_final_message": True},
        "developer role": {"messages": [{"role": "developer", "content": "Rules"}, user]},
    }


@pytest.mark.parametrize("name", [t for t in templates() if t.startswith("vllm-")])
def test_server_shaped_requests_match_transformers(name):
    source = read_template(name)
    problems = []
    for case_name, request in server_requests().items():
        req = dict(request)
        messages = req.pop("messages")
        for mask in ([False, True] if "generation" in source else [False]):
            theirs, ours = render_both(source, [messages], return_assistant_tokens_mask=mask, **req)
            problem = mismatch(theirs, ours)
            if problem:
                problems.append(f"{case_name}: {problem}")
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# A processor's apply_chat_template (processing_utils: OpenAI image_url blocks become image
# blocks, None keys dropped, batches told apart by their first item), unpatched and with
# chatcodec.patch_transformers(). The processor holds only a tokenizer: the image and video
# processors need PIL and torchvision, and rendering (tokenize=False) does not use them.

PROCESSOR_TEMPLATES = {
    "parts": PARTS,
    "vision tokens": (
        "{% for m in messages %}<|{{ m.role }}|>{% if m.content is string %}{{ m.content }}{% else %}"
        "{% for c in m.content %}{% if c.type == 'image' %}<|vision_start|>{{ c.url or c.path or '' }}<|image_pad|><|vision_end|>"
        "{% elif c.type == 'video' %}<|video_pad|>{% elif c.type == 'audio' %}<|audio|>{% else %}{{ c.text }}{% endif %}{% endfor %}{% endif %}"
        "{% if m.role == 'assistant' %}{% generation %}{{ m.get('reasoning_content', '') }}{% endgeneration %}{% endif %}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}{{ extra | default('') }}"
    ),
}
PROCESSOR_CASES = {
    "image_url block": ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x/ü.png"}}, {"type": "text", "text": "Was ist das?"}]}], {"add_generation_prompt": True}),
    "image_url as a string": ([{"role": "user", "content": [{"type": "image_url", "image_url": "data:image/png;base64,AAAA"}, {"type": "text", "text": "?"}]}], {}),
    "image, video and audio": ([{"role": "user", "content": [{"type": "image", "path": "a.jpg"}, {"type": "video", "url": "v.mp4"}, {"type": "audio", "path": "s.wav"}, {"type": "text", "text": "all"}]}], {"extra": "X"}),
    "None keys": ([{"role": "user", "content": "hi", "name": None}, {"role": "assistant", "content": None, "reasoning_content": "r"}], {}),
    "batched": ([[{"role": "user", "content": [{"type": "text", "text": "a"}]}], [{"role": "user", "content": "b"}]], {}),
    "continue": ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "I see "}]}], {"continue_final_message": True}),
    "tools and documents": ([{"role": "user", "content": "hi"}], {"tools": [get_weather], "documents": [{"title": "t", "text": "x"}]}),
    "kwarg messages": ([{"role": "user", "content": "hi"}], {"messages": []}),
}


def processor(template):
    tokenizers = need("tokenizers")
    transformers = need("transformers")
    vocab = {t: i for i, t in enumerate(["<unk>", "<s>", "</s>"])}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.add_special_tokens(["<unk>", "<s>", "</s>"])
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>")

    class TextProcessor(transformers.ProcessorMixin):
        attributes = ["tokenizer"]
        tokenizer_class = "PreTrainedTokenizerFast"

        def __init__(self, tokenizer=None, chat_template=None):
            super().__init__(tokenizer, chat_template=chat_template)

    return TextProcessor(tokenizer=fast, chat_template=template)


@pytest.mark.parametrize("name", list(PROCESSOR_TEMPLATES))
def test_processor_apply_chat_template_matches_transformers(name):
    proc = processor(PROCESSOR_TEMPLATES[name])
    problems, ok = [], 0
    for case_name, (conversation, kwargs) in PROCESSOR_CASES.items():
        with patched(False):
            want = outcome(proc.apply_chat_template, fresh(conversation), tokenize=False, **fresh(kwargs))
        with patched():
            got = outcome(proc.apply_chat_template, fresh(conversation), tokenize=False, **fresh(kwargs))
        ok += want[0] == "ok"
        if got != want and not (got[0] == want[0] == "error" and got[1] == want[1]):
            problems.append(f"{case_name}: patched {got!r:.400} / unpatched {want!r:.400}")
    assert ok >= 5, ok
    assert not problems, "\n".join(problems)


def test_named_templates_are_picked_as_transformers_picks_them(tmp_path):
    """A model with several named templates: `tool_use` whenever `tools` is not None (an empty
    list too), else `default`. ChatTemplate.apply takes no `chat_template` (it renders its
    own template; a named one is loaded with from_pretrained(path, name=...)): it raises a
    TypeError rather than render the wrong template (a documented difference)."""
    transformers = need("transformers")
    tokenizers = need("tokenizers")
    vocab = {t: i for i, t in enumerate(["<unk>", "<s>", "</s>"])}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.add_special_tokens(["<unk>", "<s>", "</s>"])
    (tmp_path / "tokenizer.json").write_text(tok.to_str(), encoding="utf-8")
    named = [
        {"name": "default", "template": "default {{ tools }} {{ messages | length }}"},
        {"name": "tool_use", "template": "tool_use {{ tools }} {{ messages | length }}"},
        {"name": "rag", "template": "rag {{ documents }}"},
    ]
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "</s>", "unk_token": "<unk>", "chat_template": named}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    tokenizer = transformers.AutoTokenizer.from_pretrained(tmp_path)
    ours = chatcodec.ChatTemplate.from_pretrained(tmp_path)
    for tools in (None, [], (), [WEATHER_SCHEMA], [get_weather]):
        want = tokenizer.apply_chat_template([U], tools=tools, tokenize=False)
        assert ours.apply([U], tools=tools) == want, tools
    rag = chatcodec.ChatTemplate.from_pretrained(tmp_path, name="rag")
    docs = [{"title": "t", "text": "x"}]
    assert rag.apply([U], documents=docs) == tokenizer.apply_chat_template([U], documents=docs, chat_template="rag", tokenize=False)
    with pytest.raises(TypeError, match="takes no chat_template"):
        ours.apply([U], chat_template="rag")
