#!/usr/bin/env python3
"""Throughput of one shared `ChatTemplate` rendered from 1, 2, 4 and 8 Python threads (not a
test), next to a control that shows how many cores the machine gives the process. `apply` converts the request with the GIL held, then releases it while rendering, so
the rendering part runs on as many cores as there are; the conversion and the building of
the result string do not.

    python3 python/bench/bench_threads.py [--runs 3] [--seconds 1.0]

Two requests on Qwen3-0.6B's template: the corpus tool scenario (a short render, where the
GIL-held part weighs more) and a 40-turn conversation (a long render). For each thread count
and run, every thread renders the request in a loop for `--seconds`; reported: renders per
second over all threads (mean of the runs, spread min..max), the speed-up over one thread, and
the CPU cores the process used (its CPU time over the wall time: above 1.0 only when threads
ran at the same time, which the GIL would prevent if it were held while rendering). The
machine's core count and load average are printed: with other processes busy, the scaling is
capped by the cores left over, not by the GIL.

A control runs the same loop with a workload that releases the GIL and holds no lock of ours:
hashing 1 MiB with `hashlib.sha256`. Its speed-up over one thread is what the machine gives a
process's threads at that moment (on a loaded machine, or with the kernel's autogroup
scheduling sharing the CPU per session, it can stay near 1x); compare the renders' speed-up
with it, not with the thread count.
"""

import argparse
import copy
import hashlib
import json
import os
import pathlib
import statistics
import threading
import time

import chatcodec

THREADS = (1, 2, 4, 8)
CORPUS = pathlib.Path(__file__).resolve().parents[3] / "shared" / "corpus"


def requests():
    tools = json.loads((CORPUS / "scenarios" / "03_tools_call_result.json").read_text(encoding="utf-8"))
    tools.pop("description", None)
    long = {"messages": [{"role": "system", "content": "You are a helpful assistant."}], "add_generation_prompt": True}
    for i in range(20):
        long["messages"].append({"role": "user", "content": f"Question {i}: what is {i} squared, and why? " * 3})
        long["messages"].append({"role": "assistant", "content": f"{i} squared is {i * i}, since {i} x {i} = {i * i}. " * 3})
    return [("tool scenario", tools), ("40-turn chat", long)]


def throughput(tpl, messages, req, threads, seconds):
    return loop(lambda: tpl.apply(messages, **req), threads, seconds)


BLOCK = b"x" * (1 << 20)


def control(threads, seconds):
    """The same loop hashing 1 MiB per call (`hashlib` releases the GIL for large inputs)."""
    return loop(lambda: hashlib.sha256(BLOCK).digest(), threads, seconds)


def loop(call, threads, seconds):
    counts = [0] * threads
    stop = threading.Event()
    start = threading.Barrier(threads + 1)

    def worker(i):
        start.wait()
        n = 0
        while not stop.is_set():
            call()
            n += 1
        counts[i] = n

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    start.wait()
    t0, c0 = time.perf_counter(), time.process_time()
    time.sleep(seconds)
    stop.set()
    for t in ts:
        t.join()
    wall = time.perf_counter() - t0
    return sum(counts) / wall, (time.process_time() - c0) / wall


def table(measure, runs, scale, unit):
    """One line per thread count: the rate `measure(threads)` gives (divided by `scale`), mean
    and spread over `runs`, its speed-up over one thread, and the CPU cores used."""
    base = None
    for threads in THREADS:
        results = [measure(threads) for _ in range(runs)]
        rates = [r / scale for r, _ in results]
        cores = [c for _, c in results]
        mean = statistics.mean(rates)
        base = base or mean
        print(f"  {threads} thread(s): {mean:7.1f} {unit} ({min(rates):.1f}..{max(rates):.1f}), "
              f"{mean / base:.2f}x one thread, CPU cores used {statistics.mean(cores):.2f} "
              f"({min(cores):.2f}..{max(cores):.2f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0)
    args = ap.parse_args()
    with open(CORPUS / "templates" / "Qwen-Qwen3-0.6B.jinja", encoding="utf-8", newline="") as f:
        tpl = chatcodec.ChatTemplate(f.read(), eos_token="<|im_end|>")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print("control (hashlib.sha256 of 1 MiB, GIL released):")
    table(lambda threads: control(threads, args.seconds), args.runs, 1, "MiB/s")
    for name, request in requests():
        req = copy.deepcopy(request)
        messages = req.pop("messages")
        prompt = tpl.apply(messages, **req)
        print(f"{name}: {len(messages)} messages, {len(prompt)} characters of prompt")
        table(lambda threads: throughput(tpl, messages, req, threads, args.seconds), args.runs,
              1000, "k renders/s")
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
