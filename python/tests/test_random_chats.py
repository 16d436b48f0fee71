"""Random chat requests (seeded) on every corpus template, rendered by chatcodec and by
transformers: the same prompt, or the same exception class.

Each request mixes what real clients send: an optional system message, one to three user
turns, assistant replies with plain, empty, `None` or list content, reasoning, tool calls
(with and without ids, arguments as objects or JSON strings) and their tool results, tools,
`enable_thinking`, special tokens and documents. Many templates refuse some of these (roles
out of order, missing fields): then both must refuse with the same class.
"""

import random

import chatcodec
from conftest import corpus_dir, need, read_template, same_outcome

TEXTS = [
    "Hello!", "", "What's 2+2?", "Multi\nline\ntext", "  spaced  ", "日本語 ✓",
    "<tool_call>x</tool_call>", '{"a": 1}', "<think>hm</think>answer", "x" * 200,
]


def tool(r):
    parameters = {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": "query"},
            "n": {"type": "integer", "default": 3},
            "e": {"type": "string", "enum": ["a", "b"]},
        },
        "required": r.choice([["q"], [], ["q", "n"]]),
    }
    return {
        "type": "function",
        "function": {
            "name": r.choice(["get_weather", "search", "calc"]),
            "description": r.choice(["Does a thing.", "", "Ünïcode"]),
            "parameters": parameters,
        },
    }


def call(r, i):
    args = r.choice([{"q": "paris", "n": 2}, {}, '{"q": "x"}', {"nested": {"a": [1, 2.5, None, True]}}])
    c = {"type": "function", "function": {"name": r.choice(["get_weather", "search"]), "arguments": args}}
    if r.random() < 0.8:
        c["id"] = f"call{i:05d}x"
    return c


def content(r):
    k = r.random()
    if k < 0.7:
        return r.choice(TEXTS)
    if k < 0.8:
        return None
    parts = [{"type": "text", "text": r.choice(TEXTS)} for _ in range(r.randrange(1, 3))]
    return parts + ([{"type": "image"}] if r.random() < 0.3 else [])


def request(r):
    msgs = []
    if r.random() < 0.5:
        msgs.append({"role": "system", "content": content(r)})
    for turn in range(r.randrange(1, 4)):
        msgs.append({"role": "user", "content": content(r)})
        if r.random() >= 0.7:
            continue
        reply = {"role": "assistant", "content": content(r)}
        if r.random() < 0.3:
            reply["reasoning_content"] = r.choice(TEXTS)
        msgs.append(reply)
        if r.random() < 0.35:
            reply["tool_calls"] = [call(r, turn * 10 + j) for j in range(r.randrange(1, 3))]
            for c in reply["tool_calls"]:
                result = {"role": "tool", "content": r.choice(TEXTS)}
                if r.random() < 0.8:
                    result["tool_call_id"] = c.get("id", "zz")
                if r.random() < 0.5:
                    result["name"] = c["function"]["name"]
                msgs.append(result)
    kw = {"add_generation_prompt": r.random() < 0.6}
    if r.random() < 0.4:
        kw["tools"] = [tool(r) for _ in range(r.randrange(0, 3))]
    if r.random() < 0.3:
        kw["enable_thinking"] = r.random() < 0.5
    if r.random() < 0.2:
        kw["bos_token"], kw["eos_token"] = "<s>", "</s>"
    if r.random() < 0.1:
        kw["documents"] = [{"title": "T", "text": "doc text"}]
    return msgs, kw


def outcome(fn, source, msgs, kw):
    try:
        out, _ = fn([msgs], chat_template=source, **kw)
        return "ok", out[0]
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return "error", e


def test_random_chats_on_every_corpus_template():
    ctu = need("transformers.utils.chat_template_utils")
    paths = sorted((corpus_dir() / "templates").glob("*.jinja"))
    assert len(paths) > 300
    differences, rendered = [], 0
    for ti, path in enumerate(paths):
        source = read_template(path.name)
        for k in range(12):
            msgs, kw = request(random.Random(ti * 1000 + k))
            theirs = outcome(ctu.render_jinja_template, source, msgs, kw)
            ours = outcome(chatcodec.render_jinja_template, source, msgs, kw)
            rendered += theirs[0] == "ok"
            if not same_outcome(theirs, ours):
                differences.append(f"{path.name} seed {ti * 1000 + k}: {theirs[1]!r:.200} / {ours[1]!r:.200}")
    assert not differences, f"{len(differences)} differ:\n" + "\n".join(differences[:10])
    # Most requests render somewhere: the comparison is not only of errors.
    assert rendered > 1000


def test_random_chats_generation_indices():
    """With `return_assistant_tokens_mask`, on the corpus templates that mark assistant text
    with `{% generation %}`: the same prompt and generation indices (with
    `continue_final_message`, transformers' indices clipped to the cut prompt, chatcodec's
    documented behaviour)."""
    ctu = need("transformers.utils.chat_template_utils")
    paths = [
        p for p in sorted((corpus_dir() / "templates").glob("*.jinja"))
        if "{% generation %}" in p.read_text(encoding="utf-8").replace("{%-", "{%").replace("-%}", "%}")
    ]
    assert paths, "the corpus has templates with generation blocks"
    differences, rendered = [], 0
    for ti, path in enumerate(paths):
        source = read_template(path.name)
        for k in range(60):
            msgs, kw = request(random.Random(ti * 1000 + k))
            for cont in (False, True):
                args = dict(kw, return_assistant_tokens_mask=True, continue_final_message=cont)
                if cont:
                    args.pop("add_generation_prompt")
                results = []
                for fn in (ctu.render_jinja_template, chatcodec.render_jinja_template):
                    try:
                        out, indices = fn([msgs], chat_template=source, **args)
                        results.append(("ok", out[0], [tuple(s) for s in indices[0]]))
                    except Exception as e:  # noqa: BLE001
                        results.append(("error", e))
                theirs, ours = results
                if theirs[0] == "ok":
                    rendered += 1
                    end = len(theirs[1])
                    spans = [(s, min(e, end)) for s, e in theirs[2] if s < end]
                    theirs = ("ok", theirs[1], spans)
                if not same_outcome(theirs, ours):
                    differences.append(f"{path.name} seed {ti * 1000 + k} continue={cont}: {theirs!r:.200} / {ours!r:.200}")
    assert not differences, f"{len(differences)} differ:\n" + "\n".join(differences[:10])
    assert rendered > 50
