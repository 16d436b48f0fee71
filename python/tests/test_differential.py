"""chatcodec.render_jinja_template against transformers' own render_jinja_template over every
corpus template and scenario: the same prompts, the same generation indices, and an exception
exactly where transformers raises one.

Each scenario is rendered as it is, with `return_assistant_tokens_mask` for templates that
have `{% generation %}` blocks, and with `continue_final_message` when it ends with an
assistant message. The one intended difference: chatcodec's generation indices stop at the
end of a prompt cut by `continue_final_message` (transformers' can point past it), so
transformers' indices are clipped to the prompt before comparing.
"""

import copy

import pytest

import chatcodec
from conftest import clip, need, read_template, scenarios, templates


def variants(source, request):
    base = copy.deepcopy(request)
    yield "as is", base
    if "generation" in source:
        yield "mask", {**copy.deepcopy(request), "return_assistant_tokens_mask": True}
    msgs = request.get("messages") or []
    if msgs and msgs[-1].get("role") == "assistant":
        cont = copy.deepcopy(request)
        cont["add_generation_prompt"] = False
        cont["continue_final_message"] = True
        yield "continue", cont
        if "generation" in source:
            yield "continue+mask", {**cont, "return_assistant_tokens_mask": True}


def call(fn, source, req):
    req = copy.deepcopy(req)
    messages = req.pop("messages")
    try:
        return ("ok", fn([messages], chat_template=source, **req))
    except RecursionError as e:  # noqa: F841 - an exception like any other
        return ("error", e)
    except Exception as e:  # noqa: BLE001
        return ("error", e)


@pytest.mark.parametrize("name", templates())
def test_template_matches_transformers(name):
    ctu = need("transformers.utils.chat_template_utils")
    source = read_template(name)
    problems = []
    compared = 0
    for scenario, request in scenarios():
        for variant, req in variants(source, request):
            want = call(ctu.render_jinja_template, source, req)
            got = call(chatcodec.render_jinja_template, source, req)
            compared += 1
            where = f"{scenario} ({variant})"
            if want[0] != got[0]:
                problems.append(f"{where}: transformers {want[0]} {want[1]!r:.300}, chatcodec {got[0]} {got[1]!r:.300}")
            elif want[0] == "ok":
                (w_text, w_idx), (g_text, g_idx) = want[1], got[1]
                if w_text != g_text:
                    problems.append(f"{where}: prompts differ:\n{w_text!r:.500}\n{g_text!r:.500}")
                elif clip(w_text, w_idx) != g_idx:
                    problems.append(f"{where}: indices {w_idx} vs {g_idx}")
    assert compared >= 6
    assert not problems, "\n".join(problems)


# Small templates of the kinds transformers' own tokenizer tests use for `continue_final_message`
# and assistant masks: a trimmed final message, `{% generation %}` around all or part of a turn.
SMALL_TEMPLATES = [
    "{%- for message in messages %}\n"
    "    {{- '<|im_start|>' + message['role'] + '\\n' + message['content'] | trim + '<|im_end|>' + '\\n' }}\n"
    "{%- endfor %}",
    "{% for m in messages %}{{ m.role }}: {% generation %}{{ m.content }}{% endgeneration %}\n{% endfor %}",
    "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content | trim }}"
    "{% endgeneration %}{% else %}{{ m.content }}{% endif %}{% endfor %}",
]
SMALL_CONVERSATIONS = [
    [{"role": "system", "content": "system message"}, {"role": "user", "content": "user message"},
     {"role": "assistant", "content": "assistant message "}],
    [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "  hello  "}],
    [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "x"}]}],
]
SMALL_OPTIONS = [
    {},
    {"continue_final_message": True},
    {"return_assistant_tokens_mask": True},
    {"continue_final_message": True, "return_assistant_tokens_mask": True},
    {"add_generation_prompt": True, "continue_final_message": True},
    {"continue_final_message": "assistant message"},
]


@pytest.mark.parametrize("t", range(len(SMALL_TEMPLATES)))
def test_small_templates_match_transformers(t):
    ctu = need("transformers.utils.chat_template_utils")
    source = SMALL_TEMPLATES[t]
    problems = []
    for messages in SMALL_CONVERSATIONS:
        for options in SMALL_OPTIONS:
            req = {"messages": messages, **options}
            want = call(ctu.render_jinja_template, source, req)
            got = call(chatcodec.render_jinja_template, source, req)
            if want[0] != got[0]:
                problems.append(f"{options} {messages[-1]}: transformers {want}, chatcodec {got}")
            elif want[0] == "ok" and (want[1][0] != got[1][0] or clip(*want[1]) != got[1][1]):
                problems.append(f"{options} {messages[-1]}: transformers {want[1]}, chatcodec {got[1]}")
    assert not problems, "\n".join(problems)
