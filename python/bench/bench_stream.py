#!/usr/bin/env python3
"""Side-by-side timing (not a test): the cost per streamed token of chatcodec.StreamParser
from Python, next to a pure-Python incremental parser of the same format (marker search over a buffer, JSON of each
call parsed at its end), which is the least any Python streaming parser does.

    python3 python/bench/bench_stream.py [--runs 3]

Each run streams the output 20 times with each parser and keeps the median stream.

The output is a Hermes/Qwen3-style turn (reasoning, prose, two tool calls) split into tokens of
about four characters, as a tokenizer's detokenizer hands them over; repeated to ~4000 tokens.

When vLLM is importable (it needs torch; e.g. a virtual environment with `pip install vllm` and
the chatcodec wheel), a second table compares chatcodec with vLLM's own Hermes tool parser
(`Hermes2ProToolParser.extract_tool_calls_streaming`, called the way vLLM's server calls it:
previous text, current text and delta per token) on the same turn without reasoning (vLLM
runs a separate reasoning parser that needs token ids; the tool parser alone is measured),
one turn (~60 tokens) and the turn repeated 20 times. The Hermes parser needs only a
tokenizer-like object for its construction; a stand-in with the two marker tokens is given.
"""

import argparse
import json
import statistics
import time

import chatcodec

TURN = (
    "<think>The user asks for the weather in two cities; I will call the tool twice and then "
    "summarise the answers briefly.</think>Let me look that up for you. <tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>'
    "<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}}\n</tool_call>'
)


def tokens(text, size=4):
    return [text[i : i + size] for i in range(0, len(text), size)]


class PyHermes:
    """A minimal pure-Python streaming parser of the Hermes format: reasoning, content and
    tool calls as OpenAI deltas (arguments sent once each call is complete)."""

    MARKERS = ("<think>", "</think>", "<tool_call>", "</tool_call>")

    def __init__(self):
        self.buf = ""
        self.state = "content"
        self.calls = []
        self.content = []
        self.reasoning = []

    def _emit_text(self, text, out):
        if not text:
            return
        if self.state == "reasoning":
            self.reasoning.append(text)
            out.append({"reasoning_content": text})
        elif self.state == "content":
            self.content.append(text)
            out.append({"content": text})
        else:
            self.call_buf.append(text)

    def feed(self, text):
        out = []
        self.buf += text
        while self.buf:
            i = self.buf.find("<")
            if i < 0:
                self._emit_text(self.buf, out)
                self.buf = ""
                break
            self._emit_text(self.buf[:i], out)
            self.buf = self.buf[i:]
            for m in self.MARKERS:
                if self.buf.startswith(m):
                    self.buf = self.buf[len(m):]
                    if m == "<think>":
                        self.state = "reasoning"
                    elif m == "</think>":
                        self.state = "content"
                    elif m == "<tool_call>":
                        self.state = "call"
                        self.call_buf = []
                    else:
                        call = json.loads("".join(self.call_buf))
                        idx = len(self.calls)
                        self.calls.append(call)
                        out.append({"tool_calls": [{"index": idx, "id": f"call_{idx}", "type": "function",
                                                    "function": {"name": call["name"],
                                                                 "arguments": json.dumps(call["arguments"])}}]})
                        self.state = "content"
                    break
            else:
                if any(m.startswith(self.buf) for m in self.MARKERS):
                    break  # a marker may be arriving: wait for more
                self._emit_text(self.buf[0], out)
                self.buf = self.buf[1:]
        return out

    def finish(self):
        return {"role": "assistant", "content": "".join(self.content),
                "reasoning_content": "".join(self.reasoning), "tool_calls": self.calls}


def per_token(make, toks, passes=20):
    """The median over `passes` whole streams of the time per token (one stream lasts about a
    millisecond: single streams are at the mercy of the scheduler)."""
    times = []
    for _ in range(passes):
        p = make()
        t0 = time.perf_counter_ns()
        for t in toks:
            p.feed(t)
        p.finish()
        times.append((time.perf_counter_ns() - t0) / len(toks))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    toks = tokens(TURN * 20)
    baseline = "pure-Python Hermes parser"
    ours, theirs = [], []
    for _ in range(args.runs):
        ours.append(per_token(lambda: chatcodec.StreamParser(format="hermes", id_seed=0), toks) / 1000)
        theirs.append(per_token(PyHermes, toks) / 1000)
    m = chatcodec.StreamParser(format="hermes", id_seed=0)
    for t in toks[: len(tokens(TURN))]:
        m.feed(t)
    assert len(m.finish()["tool_calls"]) == 2

    print(f"{len(toks)} tokens of ~4 characters, {args.runs} runs")
    print("chatcodec.StreamParser.feed per token:", spread(ours))
    print(f"{baseline} per token:", spread(theirs))
    vllm_table(args.runs)


# The turn without reasoning, for the tool parser alone.
CALLS = TURN[TURN.index("</think>") + len("</think>"):]


class VllmHermes:
    """vLLM's Hermes tool parser driven as vLLM's server drives it: per token, the text
    before, the text so far and the new text."""

    def __init__(self, parser_class, request):
        class Tokenizer:
            def get_vocab(self):
                return {"<tool_call>": 1, "</tool_call>": 2}

        self.parser = parser_class(Tokenizer())
        self.request = request
        self.text = ""
        self.deltas = []

    def feed(self, token):
        before, self.text = self.text, self.text + token
        d = self.parser.extract_tool_calls_streaming(before, self.text, token, [], [], [], self.request)
        if d is not None:
            self.deltas.append(d)

    def finish(self):
        return self.deltas


def vllm_table(runs):
    try:
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
        from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser
    except Exception as e:  # noqa: BLE001
        print(f"vLLM not importable ({type(e).__name__}): its parser is not measured")
        return
    import vllm

    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}])
    check = VllmHermes(Hermes2ProToolParser, request)
    for t in tokens(CALLS):
        check.feed(t)
    names = [c.function.name for d in check.deltas for c in d.tool_calls if c.function and c.function.name]
    assert names == ["get_weather", "get_weather"], names
    print(f"\nvLLM {vllm.__version__} Hermes2ProToolParser, the turn without reasoning, {runs} runs")
    for repeat in (1, 20):
        toks = tokens(CALLS * repeat)
        ours = [per_token(lambda: chatcodec.StreamParser(format="hermes", id_seed=0), toks) / 1000
                for _ in range(runs)]
        theirs = [per_token(lambda: VllmHermes(Hermes2ProToolParser, request), toks, passes=5) / 1000
                  for _ in range(runs)]
        ratio = [b / a for a, b in zip(ours, theirs)]
        print(f"{len(toks)} tokens: chatcodec {spread(ours)}, vLLM {spread(theirs)}, "
              f"vLLM / chatcodec {statistics.mean(ratio):.0f}x ({min(ratio):.0f}..{max(ratio):.0f})")


def spread(v):
    return f"{statistics.mean(v):.2f} us ({min(v):.2f}..{max(v):.2f})"


if __name__ == "__main__":
    main()
