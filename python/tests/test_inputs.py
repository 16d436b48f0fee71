"""Foreign Python inputs render exactly as transformers renders them (its
`_plain_template_data`): enums, numpy scalars, dataclasses, pydantic models, tuples, mappings,
huge ints, and placeholders for everything else; cycles raise with the path, never crash."""

import collections
import dataclasses
import datetime
import enum
import types

import pytest

import chatcodec
from conftest import need

SHOW = (
    "{% for m in messages %}{{ m.role }}: {{ m.content }} | {{ m.content | tojson }}"
    " | {% if m.content %}T{% else %}F{% endif %} | {{ m.content is string }}"
    " {{ m.content is number }} {{ m.content is mapping }} {{ m.content is sequence }}\n"
    "{% endfor %}{{ extra }} | {{ extra | tojson }}"
)


class Colour(str, enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Ratio(float):
    pass


@dataclasses.dataclass
class Point:
    x: int
    y: tuple


class Weird(collections.abc.Mapping):
    def __init__(self, d):
        self._d = d

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


class Custom:
    pass


def foreign_values():
    np = need("numpy")
    pydantic = need("pydantic")

    class Model(pydantic.BaseModel):
        name: str
        tags: list

    return {
        "object": object(),
        "bytes": b"raw",
        "set": {1},
        "frozenset": frozenset(),
        "custom": Custom(),
        "datetime": datetime.datetime(2026, 1, 1),
        "ndarray": np.zeros(3),
        "np.int64": np.int64(-7),
        "np.float32": np.float32(1.5),
        "np.bool_ false": np.bool_(False),
        "np.str_": np.str_("numpy text"),
        "str enum": Colour.RED,
        "int enum": Level.HIGH,
        "float subclass": Ratio(0.25),
        "dataclass": Point(1, (2, "b")),
        "pydantic": Model(name="m", tags=[1, (2,)]),
        "tuple": (1, "a", None),
        "one-tuple": ("x",),
        "ordered dict": collections.OrderedDict(b=1, a=2),
        "mappingproxy": types.MappingProxyType({"k": [1, 2]}),
        "abc mapping": Weird({"w": Colour.RED}),
        "int keys": {1: "one", (2, 3): "pair"},
        "huge int": 2**200,
        "huge negative": -(3**90),
        "u64": 2**64 - 1,
        "nested": [{"a": (Level.HIGH, [np.int64(1)])}, b"x"],
        "bool": True,
        "none": None,
        "float": 1e300,
        "empty list": [],
    }


@pytest.mark.parametrize("key", list(range(30)))
def test_foreign_input_renders_like_transformers(key):
    ctu = need("transformers.utils.chat_template_utils")
    values = foreign_values()
    name, value = list(values.items())[key]

    def render(fn):
        conv = [{"role": "user", "content": value}, {"role": "assistant", "content": [value, value]}]
        try:
            return fn([conv], chat_template=SHOW, extra={"v": value}, add_generation_prompt=True)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__

    want, got = render(ctu.render_jinja_template), render(chatcodec.render_jinja_template)
    if isinstance(want, str):
        assert isinstance(got, str), f"{name}: transformers raised {want}, chatcodec gave {got}"
    else:
        assert got == want, name


def test_every_foreign_value_is_covered():
    assert len(foreign_values()) == 30


def test_plain_data_matches_transformers():
    ctu = need("transformers.utils.chat_template_utils")
    for name, value in foreign_values().items():
        want = ctu._plain_template_data(value)
        got = chatcodec.plain_data(value)
        assert got == want and type(got) is type(want), name


def test_cycles_raise_with_the_path():
    looped = [1]
    looped.append(looped)
    conv = [{"role": "user", "content": "a"}, {"role": "user", "content": looped}]
    with pytest.raises(ValueError, match=r'conversations\[0\]\[1\]\["content"\]\[1\] contains itself'):
        chatcodec.render_jinja_template([conv], chat_template="{{ messages }}")
    d = {"role": "user"}
    d["content"] = d
    with pytest.raises(ValueError, match=r'conversations\[0\]\[0\]\["content"\] contains itself'):
        chatcodec.render_jinja_template([[d]], chat_template="{{ messages }}")
    with pytest.raises(ValueError, match=r'^cyclic structure: tools\[0\]'):
        t = {"type": "function"}
        t["function"] = [t]
        chatcodec.render_jinja_template([[{"role": "user"}]], tools=[t], chat_template="x")
    # transformers itself overflows the recursion limit here.
    ctu = need("transformers.utils.chat_template_utils")
    with pytest.raises(RecursionError):
        ctu.render_jinja_template([conv], chat_template="{{ messages }}")


def test_deep_nesting_raises_instead_of_crashing():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ValueError, match="nested deeper"):
        chatcodec.render_jinja_template([[{"role": "user", "content": deep}]], chat_template="x")


def test_shared_objects_are_not_cycles():
    shared = {"k": "v"}
    conv = [{"role": "user", "content": [shared, shared]}]
    (text,), _ = chatcodec.render_jinja_template([conv], chat_template="{{ messages[0].content }}")
    assert text == "[{'k': 'v'}, {'k': 'v'}]"


def test_a_key_that_empties_its_dict_while_read_does_not_crash():
    # Reading a key that is not a str may run Python code (here a pydantic-like
    # `model_dump`); that code empties the dict being read. The value read next must still be
    # alive: the render sees the pair it was given, never freed memory.
    class Key:
        def __init__(self, d):
            self.d = d

        def __hash__(self):
            return 1

        def model_dump(self):
            self.d.clear()
            return "k"

    for _ in range(50):
        d = {}
        d[Key(d)] = "value " * 50 + "end"
        conv = [{"role": "user", "content": d}]
        (text,), _ = chatcodec.render_jinja_template([conv], chat_template="{{ messages[0].content }}")
        assert text == repr({"k": "value " * 50 + "end"})


def test_a_key_freed_while_converting_is_not_taken_for_a_later_one():
    # Dict keys are remembered by address while converting (messages repeat them). Python
    # code run meanwhile (here a pydantic-like `model_dump`) frees a key read before and makes
    # a new one, which CPython may place at the freed address: each is read as its own text.
    prefix = "ke"
    for _ in range(50):
        first = {prefix + "y1": "a"}
        later = {"x": "y"}

        class Model:
            def model_dump(self):
                first.clear()
                later[prefix + "y2"] = "b"
                return "m"

        conv = [{"role": "user", "content": [first, Model(), later]}]
        (text,), _ = chatcodec.render_jinja_template([conv], chat_template="{{ messages[0].content }}")
        assert text == "[{'key1': 'a'}, 'm', {'x': 'y', 'key2': 'b'}]"


def test_a_key_freed_by_a_conversation_object_is_not_taken_for_a_later_one():
    # The same between conversations: reading a Conversation object's `messages` runs Python
    # code, which here frees a key of the conversation before and makes a new one.
    ctu = need("transformers.utils.chat_template_utils")
    prefix = "ke"

    def render(fn):
        first = [{"role": "user", prefix + "y1": "a"}]

        class Conversation:
            @property
            def messages(self):
                first[0].pop(prefix + "y1", None)
                return [{"role": "user", prefix + "y2": "b"}]

        texts, _ = fn([first, Conversation()], chat_template="{{ messages }}")
        return texts

    want = ["[{'role': 'user', 'key1': 'a'}]", "[{'role': 'user', 'key2': 'b'}]"]
    assert render(ctu.render_jinja_template) == want
    for _ in range(50):
        assert render(chatcodec.render_jinja_template) == want


def test_errors_keep_callers_except_clauses():
    jinja2 = need("jinja2")
    with pytest.raises(jinja2.TemplateError, match="^boom$"):
        chatcodec.render_jinja_template([[{"role": "user"}]], chat_template="{{ raise_exception('boom') }}")
    with pytest.raises(jinja2.TemplateError):
        chatcodec.render_jinja_template([[{"role": "user"}]], chat_template="{% if %}")
    with pytest.raises(TypeError):
        chatcodec.render_jinja_template([["not a dict"]], chat_template="x")
    with pytest.raises(ValueError, match="continue_final_message is set but the conversation is empty"):
        chatcodec.render_jinja_template([[]], chat_template="{{ messages }}", continue_final_message=True)
    with pytest.raises(ValueError, match="Tools should either be a JSON schema"):
        chatcodec.render_jinja_template([[{"role": "user"}]], tools=[1], chat_template="x")
    with pytest.raises(TypeError, match="Documents should be a list of dicts"):
        chatcodec.render_jinja_template([[{"role": "user"}]], documents=["d"], chat_template="x")


def test_function_tools_become_schemas_as_transformers_does():
    ctu = need("transformers.utils.chat_template_utils")

    def get_weather(city: str, unit: str = "celsius"):
        """Get the weather.

        Args:
            city: The city.
            unit: The unit.
        """

    src = "{{ tools | tojson }}"
    want = ctu.render_jinja_template([[{"role": "user"}]], tools=[get_weather], chat_template=src)
    got = chatcodec.render_jinja_template([[{"role": "user"}]], tools=[get_weather], chat_template=src)
    assert got == want


def test_several_conversations_and_conversation_objects():
    ctu = need("transformers.utils.chat_template_utils")

    class Conversation:
        def __init__(self, messages):
            self.messages = messages

    src = "{% for m in messages %}{% generation %}<{{ m.content }}>{% endgeneration %}é{% endfor %}"
    convs = [[{"role": "user", "content": "ü"}], Conversation([{"role": "user", "content": "b"}, {"role": "a", "content": "ç"}])]
    for mask in (False, True):
        want = ctu.render_jinja_template(convs, chat_template=src, return_assistant_tokens_mask=mask)
        got = chatcodec.render_jinja_template(convs, chat_template=src, return_assistant_tokens_mask=mask)
        assert got == want


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a",
        "x" * 5000,
        "x" * 31 + "é",
        "x" * 32 + "é",
        "x" * 100 + "é" + "y" * 100,
        "é" + "x" * 64,
        "日本語",
        "\x7f\x00 tab\t",
        "a\U0001F600b",
    ],
)
def test_prompts_come_back_as_the_same_text(text):
    # ASCII prompts are copied into a new one-byte string directly; any other text goes
    # through CPython's decoder. Either way the result is an ordinary, equal `str`.
    for render in (
        lambda: chatcodec.render_jinja_template(
            [[{"role": "user", "content": text}]], chat_template="{{ messages[0].content }}"
        )[0][0],
        lambda: chatcodec.ChatTemplate("{{ messages[0].content }}").apply(
            [{"role": "user", "content": text}]
        ),
    ):
        out = render()
        assert type(out) is str
        assert out == text and hash(out) == hash(text) and len(out) == len(text)
        assert out.isascii() == text.isascii()
