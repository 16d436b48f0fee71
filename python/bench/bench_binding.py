#!/usr/bin/env python3
"""The binding's fixed cost, split (not a test): times per call of `render_jinja_template`
called as transformers calls it (a list of conversations, keywords and `**kwargs`), on the
median corpus scenario (the one `bench_render.py` uses for its fixed cost).

    python3 python/bench/bench_binding.py [--runs 3] [--calls 200000]

Reported per case: the median over runs of the time per call, and the spread (min..max).

- `python no-op, same signature`: a Python function with render_jinja_template's signature,
  called the same way: what CPython's call machinery costs the caller (argument list and
  `**kwargs` dict built, the call made), for comparison;
- `no conversation`: `render_jinja_template([[]], chat_template="")`: argument reading,
  template cache lookup, an empty render, the result lists and tuple;
- `3 messages, empty template`: the scenario's request with a template that prints nothing:
  the above plus reading the messages and keywords (and the engine's per-message work);
- `plain_data`: the messages read and turned back into Python objects.

    python3 python/bench/bench_binding.py --loop TEMPLATE SCENARIO N

calls `render_jinja_template` N times on one corpus template and scenario (file names under
../shared/corpus) and nothing else: a fixed loop for `valgrind --tool=callgrind`, whose
instruction counts for N and N + 10000 calls give the cost of one call.
"""

import argparse
import json
import pathlib
import statistics
import time

import chatcodec

CORPUS = pathlib.Path(__file__).resolve().parents[3] / "shared" / "corpus"


def per_call(fn, calls):
    t0 = time.perf_counter_ns()
    for _ in range(calls):
        fn()
    return (time.perf_counter_ns() - t0) / calls


def noop(
    conversations,
    tools=None,
    documents=None,
    chat_template=None,
    return_assistant_tokens_mask=False,
    continue_final_message=False,
    add_generation_prompt=False,
    **kwargs,
):
    return None


def loop(template, scenario, n):
    with open(CORPUS / "templates" / template, encoding="utf-8", newline="") as f:
        src = f.read()
    req = json.loads((CORPUS / "scenarios" / scenario).read_text(encoding="utf-8"))
    req.pop("description", None)
    msgs = req.pop("messages")
    render = chatcodec.render_jinja_template
    for _ in range(int(n)):
        render([msgs], chat_template=src, **req)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--calls", type=int, default=200_000)
    ap.add_argument("--loop", nargs=3, metavar=("TEMPLATE", "SCENARIO", "N"))
    args = ap.parse_args()
    if args.loop:
        loop(*args.loop)
        return
    paths = sorted((CORPUS / "scenarios").glob("*.json"))
    path = paths[len(paths) // 2]
    req = json.loads(path.read_text(encoding="utf-8"))
    req.pop("description", None)
    msgs = req.pop("messages")
    render = chatcodec.render_jinja_template
    cases = {
        "python no-op, same signature": lambda: noop([msgs], chat_template="", **req),
        "no conversation": lambda: render([[]], chat_template=""),
        f"{len(msgs)} messages, empty template": lambda: render([msgs], chat_template="", **req),
        "plain_data": lambda: chatcodec.plain_data(msgs),
    }
    print(f"{path.name}: {len(msgs)} messages, keywords {sorted(req)}; "
          f"{args.calls} calls per run, {args.runs} runs")
    for name, fn in cases.items():
        fn()
        times = [per_call(fn, args.calls) for _ in range(args.runs)]
        print(f"{name:32} {statistics.median(times) / 1000:.3f} us "
              f"({min(times) / 1000:.3f}..{max(times) / 1000:.3f})")


if __name__ == "__main__":
    main()
