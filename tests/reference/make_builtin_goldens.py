#!/usr/bin/env python3
"""Goldens for chatcodec's own templates (corpus/builtin/), made by the reference renderer.

Renders each case with oracle.py's `render_request` (transformers' render_jinja_template) and
writes corpus/builtin/goldens.json: a list of {"template", "id", "request", "expected"} (or
"error" when the reference fails). Cases: the seed-001 fixtures T01-T17 for qwen3_5.jinja,
and a few requests for every family template.

    python3 tests/reference/make_builtin_goldens.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILTIN = os.path.join(ROOT, "corpus", "builtin")
sys.path.insert(0, HERE)
import oracle  # noqa: E402

U = lambda t: {"role": "user", "content": t}  # noqa: E731
A = lambda t: {"role": "assistant", "content": t}  # noqa: E731
S = lambda t: {"role": "system", "content": t}  # noqa: E731
WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Weather <in> a \"city\" & more",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}
BARE = {"name": "get_time", "parameters": {"type": "object", "properties": {}}}


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def tool(cid, text):
    return {"role": "tool", "tool_call_id": cid, "content": text}


QWEN35 = [
    ("T01", {"messages": [U("Hi"), A("Hello!")]}),
    ("T02", {"messages": [S("You are terse."), U("Hi")], "add_generation_prompt": True}),
    ("T03", {"messages": [U("Weather?")], "tools": [WEATHER, BARE], "enable_thinking": True, "add_generation_prompt": True}),
    ("T04", {"messages": [U("Berlin?"), {"role": "assistant", "content": None, "tool_calls": [call("c1", "get_weather", {"city": "Berlin"})]}], "tools": [WEATHER]}),
    ("T05", {"messages": [U("Both"), {"role": "assistant", "content": "", "tool_calls": [call("a", "get_weather", {"city": "A"}), call("b", "get_weather", {"city": "B"})]}]}),
    ("T06", {"messages": [U("Berlin?"), {"role": "assistant", "tool_calls": [call("c1", "get_weather", {"city": "Berlin"})]}, tool("c1", "Sunny, 20C")], "add_generation_prompt": True}),
    ("T07", {"messages": [U("Hi")], "enable_thinking": True, "add_generation_prompt": True}),
    ("T08", {"messages": [U("Hi")], "enable_thinking": False, "add_generation_prompt": True}),
    ("T09", {"messages": [U("Think hard /think"), A("ok"), U("Quick answer /no_think")], "add_generation_prompt": True}),
    ("T10", {"messages": [U("Q1"), A("<think>\nreasoning one\n</think>\n\nAnswer one"), U("Q2"), A("<think>\nr2\n</think>\n\nAnswer two"), U("Q3")], "add_generation_prompt": True}),
    ("T11", {"messages": [U("Go"), {"role": "assistant", "tool_calls": [call("x", "get_time", {})]}, tool("x", "12:00"), A("Noon.")]}),
    ("T12", {"messages": [U("Quote"), {"role": "assistant", "content": None, "tool_calls": [call("q", "echo", {"text": "say \"\"\"hi\"\"\" & <b>'''x'''</b>\n\\"}), call("r", "echo", "{\"text\": \"raw \\\"string\\\"\"}")]}]}),
    ("T13", {"messages": [U("Q"), {"role": "assistant", "content": "<think>\nneed a tool\n</think>\n\n", "tool_calls": [call("c", "get_time", {})]}, tool("c", "12:00"), A("It is noon."), U("Thanks")], "add_generation_prompt": True}),
    ("T14", {"messages": [S("First system."), {"role": "developer", "content": "Second system."}, S("Third."), U("Hi")], "add_generation_prompt": True}),
    ("T15", {"messages": [U("Both"), {"role": "assistant", "tool_calls": [call("a", "get_weather", {"city": "A"}), call("b", "get_weather", {"city": "B"})]}, tool("a", "rain"), tool("b", "sun")], "add_generation_prompt": True}),
    ("T16", {"messages": [U("Q"), A("<think>\nmy thoughts\n</think>\n\nFinal answer")], "enable_thinking": False}),
    ("T17", {"messages": [U("Q"), A("Plain answer")], "enable_thinking": False}),
]

FAMILY = [
    ("plain", {"messages": [S("Be brief."), U("Hi"), A("Hello"), U("Bye")], "add_generation_prompt": True}),
    ("tools", {"messages": [U("Weather in Paris?"), {"role": "assistant", "content": None, "tool_calls": [call("c1", "get_weather", {"city": "Paris"})]}, tool("c1", "Sunny")], "tools": [WEATHER], "add_generation_prompt": True}),
    ("thinking_off", {"messages": [U("Hi")], "add_generation_prompt": True, "enable_thinking": False}),
    ("thinking_on", {"messages": [U("Q"), A("<think>\nx\n</think>\n\nA"), U("Q2")], "add_generation_prompt": True, "enable_thinking": True}),
    ("bos_eos", {"messages": [U("Hi"), A("Yo")], "bos_token": "<s>", "eos_token": "</s>"}),
]


def main():
    cases = [("qwen3_5.jinja", i, r) for i, r in QWEN35]
    for name in ["chatml", "qwen3", "llama2", "llama3", "glm4", "generic"]:
        cases += [(f"{name}.jinja", i, r) for i, r in FAMILY]
    out = []
    for template, cid, request in cases:
        source = open(os.path.join(BUILTIN, template), encoding="utf-8").read()
        oracle.set_now(None)
        try:
            out.append({"template": template, "id": cid, "request": request,
                        "expected": oracle.render_request(source, request)})
        except Exception as e:  # noqa: BLE001
            out.append({"template": template, "id": cid, "request": request,
                        "error": f"{type(e).__name__}: {e}"})
    with open(os.path.join(BUILTIN, "goldens.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    errors = [c for c in out if "error" in c]
    print(f"{len(out)} cases, {len(errors)} reference errors", file=sys.stderr)
    for c in errors:
        print(f"  {c['template']} {c['id']}: {c['error']}", file=sys.stderr)


if __name__ == "__main__":
    main()
