"""Renders an assistant turn with known tool calls through chat templates with transformers'
reference renderer, and prints the assistant part of each render as JSON.

stdin: {"templates": [{"file": path, "format": name}], "calls": [...], "reasoning": str}
stdout: one JSON list: {"file", "format", "assistant" | null, "forced_open", "error"}.
"""
import json
import sys

from transformers.utils.chat_template_utils import render_jinja_template

KW = dict(bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>")
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather for a place",
     "parameters": {"type": "object", "properties": {"location": {"type": "string"}, "unit": {"type": "string"}},
                    "required": ["location"]}}},
    {"type": "function", "function": {"name": "search", "description": "Search the web",
     "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                    "required": ["query"]}}},
]


def render(template, messages, gen, extra):
    out = render_jinja_template(conversations=[messages], tools=TOOLS, chat_template=template,
                                add_generation_prompt=gen, **KW, **extra)
    if isinstance(out, tuple):
        out = out[0]
    if isinstance(out, list):
        out = out[0]
    return out


SENTINEL = "TOOL_RESULT_SENTINEL"


def split_point(prompt, full):
    """The length of the common prefix, backed off so it does not end inside a marker."""
    n = 0
    while n < min(len(prompt), len(full)) and prompt[n] == full[n]:
        n += 1
    head = full[:n]
    for open_, close in (("<", ">"), ("[", "]")):
        i = head.rfind(open_)
        if i >= 0 and head.rfind(close) < i:
            n = min(n, i)
    while full[:n].endswith(">>>"):
        n -= 3
    return n


def call_id(fmt, name, i):
    # Kimi templates write the id as is, and Kimi ids are functions.NAME:IDX.
    return "functions.%s:%d" % (name, i) if fmt == "kimi-k2" else "call%05d" % i


def assistant_part(template, fmt, calls, reasoning, string_args, with_result):
    tool_calls = [{"id": call_id(fmt, c["name"], i), "type": "function",
                   "function": {"name": c["name"], "arguments": json.dumps(c["arguments"]) if string_args else c["arguments"]}}
                  for i, c in enumerate(calls)]
    head = [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": "Weather in Paris, and search rust peg?"}]
    turn = {"role": "assistant", "content": "", "tool_calls": tool_calls, "reasoning_content": reasoning}
    # Firefunction v2's template reads the tool list (a JSON string) and the date from variables.
    extra = ({"functions": json.dumps([t["function"] for t in TOOLS]), "datetime": "2024-07-26"}
             if fmt == "firefunction-v2" else {})
    prompt = render(template, head, True, extra)
    tail = [{"role": "tool", "tool_call_id": call_id(fmt, calls[0]["name"], 0), "name": calls[0]["name"], "content": SENTINEL}] if with_result else []
    full = render(template, head + [turn] + tail, False, extra)
    n = split_point(prompt, full)
    text = full[n:]
    if with_result:
        text = text[: max(text.find(SENTINEL), 0)]
    opens = ("<think>", "<mm:think>", "<|open|>think<|sep|>")
    forced_open = prompt.rstrip().endswith(opens) and not text.lstrip().startswith(opens)
    return text, forced_open


def main():
    req = json.load(sys.stdin)
    results = []
    for t in req["templates"]:
        res = {"file": t["file"], "format": t["format"], "assistant": None, "forced_open": False, "error": None}
        try:
            with open(t["file"], encoding="utf-8") as f:
                src = f.read()
        except OSError as e:
            res["error"] = str(e)
            results.append(res)
            continue
        variants = [(calls, sa, wr) for calls in (req["calls"], req["calls"][:1])
                    for wr in (False, True) for sa in (False, True)]
        for calls, string_args, with_result in variants:
            try:
                a, fo = assistant_part(src, t["format"], calls, req["reasoning"], string_args, with_result)
            except Exception as e:  # the template refused this shape
                res["error"] = "%s: %s" % (type(e).__name__, e)
                continue
            if all(c["name"] in a for c in calls):
                res["assistant"], res["forced_open"], res["error"], res["calls"] = a, fo, None, calls
                break
            res["error"] = "the rendered turn does not contain the calls"
        results.append(res)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
