"""`ChatTemplate.caps` and the polyfills (`ChatTemplate.polyfill`, `apply(polyfill=...)`) on
real corpus templates."""

import copy
import json

import pytest

import chatcodec
from conftest import ROOT, corpus_dir, read_template

# What a template shows when a message's content is null depends on whether null keys are
# dropped first: `ChatTemplate` applies as `apply_chat_template` (drops them), the crate's
# reviewed snapshot probes as `render_jinja_template` (keeps them). E.g. DeepSeek-R1-Distill
# prints tool calls only `if message['content'] is none`, which a dropped key never is.
NULL_SENSITIVE = {"requires_non_null_content", "supports_tool_calls", "supports_parallel_tool_calls"}

CANONICAL = {
    "messages": [
        {"role": "system", "content": "You are helpful. Codeword: Zebra42."},
        {"role": "user", "content": "What is the weather in Paris? (first question)"},
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "The user wants the weather: ThinkMark7.",
            "tool_calls": [
                {
                    "id": "call_abc123",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_abc123", "content": "Sunny, 22C ResultMark9"},
        {"role": "user", "content": "And tomorrow? (second question)"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Get the current weather for a city DescMark3",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "City name"}},
                    "required": ["city"],
                },
            },
        }
    ],
    "add_generation_prompt": True,
}
NEEDED = ["first question", "second question", "Zebra42", "get_weather", "DescMark3", "Paris", "ResultMark9"]


def template(name):
    return chatcodec.ChatTemplate(read_template(name), bos_token="<s>", eos_token="</s>")


def canonical():
    req = copy.deepcopy(CANONICAL)
    return req.pop("messages"), req


def test_caps_match_the_reviewed_snapshot():
    corpus_dir()
    snapshot = [json.loads(line) for line in (ROOT / "corpus" / "caps.jsonl").read_text().splitlines()]
    assert len(snapshot) > 300
    differing = {}
    for entry in snapshot:
        caps = template(entry["template"]).caps
        assert set(caps) == set(entry["caps"]), entry["template"]
        for key, want in entry["caps"].items():
            if caps[key] != want:
                assert key in NULL_SENSITIVE, (entry["template"], key, caps[key], want)
                differing[entry["template"]] = key
    # The null-sensitive fields differ on a minority only (31 templates at the time of writing).
    assert len(differing) < 50, differing


def test_caps_reviewed_facts():
    qwen = template("Qwen-Qwen3-0.6B.jinja").caps
    assert qwen["supports_system_role"] and qwen["supports_tools"] and qwen["supports_tool_calls"]
    assert qwen["reasoning_format"] == "reasoning_content_field"
    assert not qwen["shows_past_reasoning"]
    assert qwen["generation_prompt"] == "<|im_start|>assistant\n"
    assert "enable_thinking" in qwen["kwargs"]
    assert template("openbmb-MiniCPM3-4B.jinja").caps["reasoning_format"] == "thought_field"
    ds = template("deepseek-ai-DeepSeek-V3.2.jinja").caps
    assert ds["reasoning_kwargs"] == {"thinking": True}
    oss = template("openai-gpt-oss-120b.jinja").caps
    assert {"reasoning_effort", "builtin_tools", "model_identity"} <= set(oss["kwargs"])
    nemo = template("mistralai-Mistral-Nemo-Instruct-2407.jinja").caps
    assert nemo["tool_call_id_format"] == "alphanumeric9"
    assert any("alphanumeric strings with length 9" in r for r in nemo["raises"])
    zephyr = template("HuggingFaceH4-zephyr-7b-beta.jinja").caps
    assert not zephyr["supports_tool_calls"] and not zephyr["supports_tools"]


def test_caps_are_probed_once():
    t = template("Qwen-Qwen3-0.6B.jinja")
    first = t.caps
    first["supports_tools"] = "edited"  # a fresh dict each read: edits do not stick
    assert t.caps["supports_tools"] is True


def test_polyfill_off_checks_and_names_the_message():
    t = template("HuggingFaceH4-zephyr-7b-beta.jinja")
    messages, req = canonical()
    req.pop("tools")
    with pytest.raises(chatcodec.TemplateError) as e:
        t.polyfill(messages, polyfill="tool_responses", **req)
    msg = str(e.value)
    assert "message 2: 1 tool call(s), but the template does not show tool calls" in msg
    assert "'tool_calls' polyfill is off" in msg
    with pytest.raises(chatcodec.TemplateError, match="message 3:"):
        t.polyfill(messages, polyfill=["tool_calls"], **req)
    adapted = t.polyfill(messages, polyfill="tool_calls,tool_responses", **req)
    assert [m["role"] for m in adapted["messages"]] == ["system", "user", "assistant", "user", "user"]
    with pytest.raises(chatcodec.TemplateError):
        t.polyfill(messages, polyfill=False, **req)


def test_polyfilled_apply_shows_every_part():
    t = template("HuggingFaceH4-zephyr-7b-beta.jinja")
    messages, req = canonical()
    with pytest.raises(chatcodec.TemplateError):
        t.apply(messages, **req)  # the null content of the call message, dropped, is undefined
    prompt = t.apply(messages, polyfill=True, **req)
    for needed in NEEDED:
        assert needed in prompt, needed
    # The same as applying the adapted request (no retry needed here).
    adapted = t.polyfill(messages, **req)
    assert t.apply(**adapted) == prompt


def test_mistral_ids_are_mapped_consistently():
    t = template("mistralai-Mistral-Nemo-Instruct-2407.jinja")
    messages, req = canonical()
    adapted = t.polyfill(messages, **req)
    call_id = adapted["messages"][2]["tool_calls"][0]["id"]
    assert len(call_id) == 9 and call_id.isalnum()
    assert adapted["messages"][3]["tool_call_id"] == call_id
    assert "Paris" in t.apply(messages, polyfill="all", **req)
    with pytest.raises(chatcodec.TemplateError, match="message 2"):
        t.polyfill(messages, polyfill="none", **req)


def test_polyfill_leaves_a_request_that_needs_nothing_alone():
    t = template("Qwen-Qwen3-0.6B.jinja")
    messages, req = canonical()
    adapted = t.polyfill(messages, **req)
    want = copy.deepcopy(CANONICAL)
    want["messages"][3]["name"] = "get_weather"  # a result's name comes from its call
    assert adapted == want
    assert t.apply(messages, polyfill=True, **req) == t.apply(messages, **req)
    assert t.apply(messages, polyfill=None, **req) == t.apply(messages, **req)


def test_polyfill_arguments_are_checked():
    t = template("Qwen-Qwen3-0.6B.jinja")
    messages, req = canonical()
    with pytest.raises(ValueError, match="unknown polyfill 'tool_cals'"):
        t.apply(messages, polyfill="system_role,tool_cals", **req)
    with pytest.raises(TypeError):
        t.apply(messages, polyfill=3, **req)
    with pytest.raises(ValueError, match="return_assistant_tokens_mask"):
        t.apply(messages, polyfill=True, return_assistant_tokens_mask=True, **req)


def test_canonical_request_renders_on_the_corpus_with_polyfills():
    names = sorted(p.name for p in (corpus_dir() / "templates").glob("*.jinja"))
    passed = []
    for name in names:
        try:
            t = template(name)
        except chatcodec.TemplateError:
            continue
        messages, req = canonical()
        try:
            prompt = t.apply(messages, polyfill=True, **req)
        except (chatcodec.TemplateError, ValueError, TypeError):
            continue
        if all(n in prompt for n in NEEDED):
            passed.append(name)
    assert len(passed) >= 300, f"{len(passed)} of {len(names)}"
