"""StreamParser: the same deltas and final message as `chatcodec parse --stream`, fresh call
ids unless seeded, tool-name checks, and the format told from a template."""

import json
import os
import subprocess

import pytest

import chatcodec
from conftest import ROOT, read_template

OUT = (
    "thinking 日本</think>\n\nHi! <tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Zürich"}}\n</tool_call>'
)


def cli():
    exe = ROOT / "target" / "release" / "chatcodec"
    if not exe.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{exe} is missing in CI (cargo build --release first)")
        pytest.skip(f"{exe} is missing")
    return exe


@pytest.mark.parametrize("chunk", [1, 3, 7, 1000])
def test_deltas_equal_the_cli(chunk):
    run = subprocess.run(
        [cli(), "parse", "--format", "hermes", "--forced-open", "--stream", "--id-seed", "5",
         "--chunk-bytes", str(chunk)],
        input=OUT.encode(), capture_output=True, check=True,
    )
    lines = [json.loads(line) for line in run.stdout.decode().splitlines()]
    want_deltas, want_message = lines[:-1], lines[-1]["message"]
    p = chatcodec.StreamParser(format="hermes", reasoning="open", id_seed=5)
    data = OUT.encode()
    got, pending = [], b""
    for i in range(0, len(data), chunk):
        # The CLI feeds bytes; Python feeds str: carry an incomplete UTF-8 tail over.
        pending += data[i : i + chunk]
        try:
            text, pending = pending.decode(), b""
        except UnicodeDecodeError as e:
            text, pending = pending[: e.start].decode(), pending[e.start :]
        got += p.feed(text)
    got += p.close()
    message = p.finish()
    assert message == want_message

    def joined(deltas):
        out = {"content": "", "reasoning_content": "", "args": "", "ids": []}
        for d in deltas:
            out["content"] += d.get("content") or ""
            out["reasoning_content"] += d.get("reasoning_content") or ""
            for tc in d.get("tool_calls") or []:
                out["args"] += tc.get("function", {}).get("arguments", "")
                if "id" in tc:
                    out["ids"].append(tc["id"])
        return out

    # Chunking may differ at UTF-8 boundaries; the concatenated deltas may not.
    assert joined(got) == joined(want_deltas)
    if chunk in (1000,):
        assert got == want_deltas


def test_ids_are_fresh_unless_seeded():
    def first_id(**kw):
        p = chatcodec.StreamParser(format="hermes", reasoning="open", **kw)
        p.feed(OUT)
        return p.finish()["tool_calls"][0]["id"]

    assert first_id() != first_id()
    assert first_id(id_seed=1) == first_id(id_seed=1)


def test_tools_restrict_call_names():
    tools = [{"type": "function", "function": {"name": "search", "parameters": {}}}]
    p = chatcodec.StreamParser(format="hermes", reasoning="open", tools=tools)
    p.feed(OUT)
    m = p.finish()
    assert "tool_calls" not in m and "<tool_call>" in m["content"]


def test_format_from_template():
    t = chatcodec.ChatTemplate(read_template("Qwen-Qwen3-0.6B.jinja"))
    assert t.format == "hermes"
    p = chatcodec.StreamParser(template=t, reasoning="open")
    p.feed(OUT)
    assert p.finish()["tool_calls"][0]["function"]["name"] == "get_weather"
    with pytest.raises(ValueError):
        chatcodec.StreamParser(format="nope")
    with pytest.raises(TypeError):
        chatcodec.StreamParser()
    assert ("hermes", ) == tuple(n for n, _ in chatcodec.formats() if n == "hermes")


@pytest.mark.parametrize("names", [
    {"tool_call_parser": "hermes", "reasoning_parser": "qwen3"},
    {"tool_call_parser": "hermes"},
    {"reasoning_parser": "qwen3"},
    {"tool_call_parser": "qwen25"},
])
def test_parser_names_equal_the_cli(names):
    """vLLM's (and SGLang's) parser names choose the format, the reasoning assumption and the
    unknown-tool rule as `parse --tool-call-parser/--reasoning-parser` does."""
    tools = [{"type": "function", "function": {"name": "get_time", "parameters": {}}}]
    args = [cli(), "parse", "--id-seed", "5"]
    for k, v in names.items():
        args += ["--" + k.replace("_", "-"), v]
    with open(ROOT / "target" / "tools_names.json", "w", encoding="utf-8") as f:
        json.dump(tools, f)
    args += ["--tools", str(ROOT / "target" / "tools_names.json")]
    want = json.loads(subprocess.run(args, input=OUT.encode(), capture_output=True,
                                     check=True).stdout)
    p = chatcodec.StreamParser(tools=tools, id_seed=5, **names)
    for ch in OUT:
        p.feed(ch)
    assert p.finish() == want


@pytest.mark.parametrize("name,reasoning,want", [
    ("deepseek_v3", "auto", {"content": "<think>plan</think>Hi."}),
    ("deepseek_v3", "open", {"reasoning_content": "plan", "content": "Hi."}),
    ("deepseek_v3", "closed", {"content": "<think>plan</think>Hi."}),
    ("holo2", "auto", {"reasoning_content": "plan", "content": "Hi."}),
    ("holo2", "closed", {"content": "<think>plan</think>Hi."}),
])
def test_reasoning_parsers_that_follow_thinking(name, reasoning, want):
    """`reasoning="open"`/`"closed"` stand for the request's thinking switch for the
    parsers that follow it, as the CLI's --forced-open/--forced-closed do."""
    p = chatcodec.StreamParser(reasoning_parser=name, reasoning=reasoning)
    p.feed("<think>plan</think>Hi.")
    m = p.finish()
    assert {k: m.get(k) for k in want} == want
    flag = {"auto": [], "open": ["--forced-open"], "closed": ["--forced-closed"]}[reasoning]
    out = subprocess.run([cli(), "parse", "--reasoning-parser", name, *flag],
                         input=b"<think>plan</think>Hi.", capture_output=True, check=True).stdout
    assert json.loads(out) == m


def test_parser_names_are_checked():
    with pytest.raises(ValueError, match="unknown tool-call parser"):
        chatcodec.StreamParser(tool_call_parser="nope")
    with pytest.raises(TypeError):
        chatcodec.StreamParser(format="hermes", tool_call_parser="hermes")
