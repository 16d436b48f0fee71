#!/usr/bin/env python3
"""Side-by-side timing (not a test): chatcodec.render_jinja_template against transformers'
render_jinja_template over the corpus, and the cost of the binding itself.

    python3 python/bench/bench_render.py [--runs 3] [--reps 10] [--rounds 5] [--timing batch|per-call]

For every corpus template and scenario that transformers renders without error, both
functions render the same request (templates compiled and cached first, as both cache
them). With `--timing batch` (the default, as `timeit` and pytest-benchmark time): `rounds`
times, `reps` calls in a row between two clock reads; the per-request time is the median of
the rounds' means. With `--timing per-call`: `reps` calls, each between two clock reads; the
per-request time is the median of those (each time then includes the clock reads and the
loop step, about 0.1 us here, which the batch amortizes). Reported per run: the median over
all requests of each function's time and of the per-request ratio (and that ratio's median
per scenario); then over runs, the mean and spread (min..max). Also: the binding's fixed cost (a template that prints nothing, the
median scenario's data converted) and `plain_data` conversion alone.
"""

import argparse
import copy
import json
import os
import pathlib
import statistics
import time

os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import chatcodec  # noqa: E402
from transformers.utils import chat_template_utils as ctu  # noqa: E402

CORPUS = pathlib.Path(__file__).resolve().parents[3] / "shared" / "corpus"


def load():
    scenarios = []
    for p in sorted((CORPUS / "scenarios").glob("*.json")):
        req = json.loads(p.read_text(encoding="utf-8"))
        req.pop("description", None)
        scenarios.append((p.stem, req))
    templates = []
    for p in sorted((CORPUS / "templates").glob("*.jinja")):
        with open(p, encoding="utf-8", newline="") as f:
            templates.append(f.read())
    return templates, scenarios


def timed(fn, reps):
    """The median time of one call of `fn`, each call timed alone."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times)


def timed_batch(fn, reps, rounds):
    """The median over `rounds` of the mean time of one call of `fn` in `reps` calls in a row."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for _ in range(reps):
            fn()
        times.append((time.perf_counter_ns() - t0) / reps)
    return statistics.median(times)


def cases(templates, scenarios):
    out = []
    for src in templates:
        for name, req in scenarios:
            r = copy.deepcopy(req)
            msgs = r.pop("messages")
            try:
                ctu.render_jinja_template([msgs], chat_template=src, **r)
                chatcodec.render_jinja_template([msgs], chat_template=src, **r)
            except Exception:  # noqa: BLE001 - only requests both render
                continue
            out.append((name, src, msgs, r))
    return out


def run(all_cases, measure):
    ours, theirs, ratios = [], [], []
    by_scenario = {}
    for name, src, msgs, r in all_cases:
        a = measure(lambda: chatcodec.render_jinja_template([msgs], chat_template=src, **r))
        b = measure(lambda: ctu.render_jinja_template([msgs], chat_template=src, **r))
        ours.append(a)
        theirs.append(b)
        ratios.append(b / a)
        by_scenario.setdefault(name, []).append(b / a)
    medians = {k: statistics.median(v) for k, v in by_scenario.items()}
    return statistics.median(ours), statistics.median(theirs), statistics.median(ratios), medians


def spread(values, unit=""):
    return f"{statistics.mean(values):.2f}{unit} ({min(values):.2f}..{max(values):.2f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--timing", choices=["batch", "per-call"], default="batch")
    args = ap.parse_args()
    templates, scenarios = load()
    all_cases = cases(templates, scenarios)
    if args.timing == "batch":
        how = f"{args.rounds} rounds of {args.reps} calls in a row"

        def measure(fn):
            return timed_batch(fn, args.reps, args.rounds)
    else:
        how = f"{args.reps} calls each timed alone"

        def measure(fn):
            return timed(fn, args.reps)
    print(f"{len(all_cases)} requests ({len(templates)} templates x {len(scenarios)} scenarios, "
          f"those both render), {how}, {args.runs} runs")
    results = []
    for i in range(args.runs):
        o, t, ratio, medians = run(all_cases, measure)
        results.append((o, t, ratio, medians))
        print(f"run {i + 1}: chatcodec {o / 1000:.1f} us, transformers {t / 1000:.1f} us, "
              f"median ratio {ratio:.1f}x")
    print("chatcodec median us:   ", spread([r[0] / 1000 for r in results]))
    print("transformers median us:", spread([r[1] / 1000 for r in results]))
    print("speed-up (median of per-request ratios):", spread([r[2] for r in results], "x"))
    for name in results[0][3]:
        n = sum(1 for c in all_cases if c[0] == name)
        print(f"  {name} ({n} requests):", spread([r[3][name] for r in results], "x"))

    # The binding's own cost: conversion and call overhead with a template that prints nothing.
    req = copy.deepcopy(scenarios[len(scenarios) // 2][1])
    msgs = req.pop("messages")
    empty = []
    conv = []
    for _ in range(args.runs):
        empty.append(timed(lambda: chatcodec.render_jinja_template([msgs], chat_template="", **req), 20000))
        conv.append(timed(lambda: chatcodec.plain_data(msgs), 20000))
    print(f"binding fixed cost (empty template, {len(msgs)} messages):", spread([e / 1000 for e in empty], " us"))
    print("plain_data round trip of those messages (convert + back to Python):",
          spread([c / 1000 for c in conv], " us"))


if __name__ == "__main__":
    main()
