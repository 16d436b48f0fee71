"""Threads: shared templates give the same outputs from 8 threads as from one, the template
cache of `render_jinja_template` holds up when threads compile and evict concurrently, and
the GIL is released while rendering."""

import copy
import sys
import threading
import time

import chatcodec
from conftest import corpus_dir, read_template, scenarios


def outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - errors must match too
        return f"{type(e).__name__}: {e}"


def in_threads(fn, n=8):
    results = [None] * n

    def worker(i):
        results[i] = fn()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def jobs():
    out = []
    for _, request in scenarios():
        req = copy.deepcopy(request)
        messages = req.pop("messages")
        out.append((messages, req))
    return out


def test_eight_threads_share_templates_of_the_corpus():
    names = sorted(p.name for p in (corpus_dir() / "templates").glob("*.jinja"))[::10]
    templates = []
    for name in names:
        try:
            templates.append(chatcodec.ChatTemplate(read_template(name), bos_token="<s>", eos_token="</s>"))
        except chatcodec.TemplateError:
            pass
    work = jobs()

    def run_all():
        return [outcome(lambda: t.apply(m, **r)) for t in templates for m, r in work]

    want = run_all()
    assert sum(isinstance(w, str) and not w.startswith("Template") for w in want) > 50
    for got in in_threads(lambda: [run_all() for _ in range(3)]):
        assert all(g == want for g in got)


def test_render_jinja_template_cache_under_threads():
    # More distinct sources than the cache keeps: threads compile, hit and evict at once.
    names = sorted(p.name for p in (corpus_dir() / "templates").glob("*.jinja"))
    sources = [read_template(n) for n in names[: chatcodec._chatcodec.TEMPLATE_CACHE_SIZE + 16]]
    messages, req = jobs()[1]

    def run_all():
        return [
            outcome(lambda: chatcodec.render_jinja_template([messages], chat_template=s, **req)) for s in sources
        ]

    want = run_all()
    for got in in_threads(run_all):
        assert got == want


def test_the_gil_is_released_while_rendering():
    # With a 10 s switch interval the interpreter never takes the GIL from a thread running
    # Python code within this test: another thread can only run while the GIL is released.
    t = chatcodec.ChatTemplate(read_template("Qwen-Qwen3-0.6B.jinja"))
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " * 20} for i in range(40)]
    counter = [0]
    stop = threading.Event()

    def other():
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)  # releases the GIL: the main thread gets it back at once

    saved = sys.getswitchinterval()
    sys.setswitchinterval(10.0)
    thread = threading.Thread(target=other)
    try:
        thread.start()
        start = counter[0]
        deadline = time.monotonic() + 2.0
        while counter[0] == start and time.monotonic() < deadline:
            t.apply(messages)
        advanced = counter[0] > start
    finally:
        stop.set()
        sys.setswitchinterval(saved)
        thread.join()
    assert advanced, "no other thread ran during the renders: the GIL was held"


def test_template_cache_finds_equal_text_and_allows_reentry():
    class Source(str):
        def __hash__(self):
            # Python code run during the lookup may itself render.
            assert chatcodec.render_jinja_template([[]], chat_template="ok")[0] == ["ok"]
            return str.__hash__(self)

    convo = [{"role": "user", "content": "hi"}]
    src = Source("{{ messages | length }} {{ messages[0].content }}")
    assert chatcodec.render_jinja_template([convo], chat_template=src)[0] == ["1 hi"]
    # The same text in another object (built at run time, so not the same constant).
    same = "".join(["{{ messages | length }}", " {{ messages[0].content }}"])
    assert same is not str(src)
    assert chatcodec.render_jinja_template([convo], chat_template=same)[0] == ["1 hi"]


def test_inputs_changed_by_another_thread_during_renders():
    # The render borrows the text of the caller's strings with the GIL released; another
    # thread replacing (and so freeing) them meanwhile must not matter.
    t = chatcodec.ChatTemplate(read_template("Qwen-Qwen3-0.6B.jinja"))
    messages = [{"role": "user", "content": "start " * 50}, {"role": "assistant", "content": "ok"}]
    stop = threading.Event()

    def mutate():
        i = 0
        while not stop.is_set():
            messages[0]["content"] = f"turn {i} " * (50 + i % 7)
            messages[1] = {"role": "assistant", "content": "".join(["reply ", str(i)])}
            i += 1

    other = threading.Thread(target=mutate)
    other.start()
    try:
        for _ in range(3000):
            prompt = t.apply(messages)
            assert prompt.startswith("<|im_start|>user\n")
            assert prompt.count("<|im_start|>") == 2
    finally:
        stop.set()
        other.join()
