#!/usr/bin/env python3
"""The reference renderer: Hugging Face transformers' own `render_jinja_template`.

chatcodec must render every chat template byte for byte like transformers 5.23.0 on
jinja2 3.1.6. This script *is* that truth: it calls transformers itself, with only the clock
fixed (`strftime_now` reads `datetime.now()` in transformers' module; we replace that module's
`datetime` with one whose `now()` returns a fixed time, so transformers' own function runs).

Usage (files may be `-` for stdin):

    oracle.py [--now 2026-01-15T10:30:00] vars TEMPLATE VARS.json
        Plain Jinja: `_compile_jinja_template(src).render(**vars)`.
    oracle.py [--now ...] request TEMPLATE REQUEST.json
        A chat request, as `render_jinja_template` takes it: keys `messages`, `tools`,
        `documents`, `add_generation_prompt`, `continue_final_message`; every other key is a
        keyword argument (`enable_thinking`, `bos_token`, ...). Absent tools/documents are None.
    oracle.py [--now ...] batch < jobs.json > results.json
        A JSON list of jobs, each `{"template": SRC}` or `{"template_file": PATH}` plus
        `{"vars": {...}}` or `{"request": {...}}`, optionally `"now"`. Writes a JSON list of
        results in order: `{"ok": true, "text": ...}` or
        `{"ok": false, "error_type": ..., "error": ...}`.

Single renders print the text exactly (no newline added) and exit 0; a template error prints
`error: TYPE: message` on stderr and exits 1; bad input exits 2. When the reference itself is
unavailable (transformers/jinja2 missing or the wrong version) it exits 3, so callers can tell
"no reference here" from a real failure. Set CHATCODEC_ORACLE_ANY_VERSION=1 to accept other
versions.
"""

import datetime as _dt
import json
import os
import signal
import sys

TRANSFORMERS_VERSION = "5.23.0"
JINJA2_VERSION = "3.1.6"
DEFAULT_NOW = "2026-01-15T10:30:00"
# A render that takes longer than this is reported as an error instead of hanging the batch.
JOB_TIMEOUT_SECONDS = float(os.environ.get("CHATCODEC_ORACLE_TIMEOUT", "20"))

REQUEST_KEYS = ("messages", "tools", "documents", "add_generation_prompt", "continue_final_message")


def _load_reference():
    """Imports transformers' renderer, checks versions and fixes its clock hook; exits 3 if absent."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import jinja2
        import transformers
        from transformers.utils import chat_template_utils as ctu
    except Exception as e:  # noqa: BLE001 - any import failure means "no reference here"
        sys.stderr.write(f"reference unavailable: cannot import transformers/jinja2: {e}\n")
        sys.exit(3)
    if os.environ.get("CHATCODEC_ORACLE_ANY_VERSION") != "1" and (
        transformers.__version__ != TRANSFORMERS_VERSION or jinja2.__version__ != JINJA2_VERSION
    ):
        sys.stderr.write(
            f"reference unavailable: need transformers=={TRANSFORMERS_VERSION} and "
            f"jinja2=={JINJA2_VERSION}, found {transformers.__version__} and {jinja2.__version__}\n"
        )
        sys.exit(3)
    return ctu


CTU = _load_reference()


class _FixedDateTime(_dt.datetime):
    """`datetime` whose `now()` is a fixed time; installed as transformers' module global."""

    fixed = _dt.datetime.fromisoformat(DEFAULT_NOW)

    @classmethod
    def now(cls, tz=None):
        return cls.fixed


# transformers' `strftime_now` closure looks up the module global `datetime` at call time,
# so this fixes the clock of every template compiled by transformers, cached or not.
CTU.datetime = _FixedDateTime


def set_now(now):
    """Fixes the clock to `now` (ISO 8601 `YYYY-MM-DDTHH:MM:SS`)."""
    _FixedDateTime.fixed = _dt.datetime.fromisoformat(now or DEFAULT_NOW)


def render_vars(source, variables):
    """Plain Jinja: transformers' compiled environment, the JSON object's keys as variables."""
    if not isinstance(variables, dict):
        raise InputError("vars must be a JSON object")
    return CTU._compile_jinja_template(source).render(**variables)


def render_request(source, request):
    """A chat request, exactly as `render_jinja_template` takes it; returns the one prompt."""
    if not isinstance(request, dict):
        raise InputError("a request must be a JSON object")
    if "messages" not in request:
        raise InputError("a request needs \"messages\"")
    kwargs = {k: v for k, v in request.items() if k not in REQUEST_KEYS}
    rendered, _ = CTU.render_jinja_template(
        conversations=[request["messages"]],
        tools=request.get("tools"),
        documents=request.get("documents"),
        chat_template=source,
        continue_final_message=request.get("continue_final_message", False),
        add_generation_prompt=request.get("add_generation_prompt", False),
        **kwargs,
    )
    return rendered[0]


class InputError(Exception):
    """The job itself is malformed (not a template error)."""


class JobTimeout(Exception):
    """A render ran longer than JOB_TIMEOUT_SECONDS."""


def _on_alarm(signum, frame):
    raise JobTimeout(f"render took longer than {JOB_TIMEOUT_SECONDS:g}s")


def run_job(job, file_cache):
    """Runs one batch job; returns its result object. Never raises for template errors."""
    try:
        if not isinstance(job, dict):
            raise InputError("a job must be a JSON object")
        if "template" in job:
            source = job["template"]
        elif "template_file" in job:
            path = job["template_file"]
            if path not in file_cache:
                with open(path, encoding="utf-8", newline="") as f:
                    file_cache[path] = f.read()
            source = file_cache[path]
        else:
            raise InputError("a job needs \"template\" or \"template_file\"")
        set_now(job.get("now"))
        signal.setitimer(signal.ITIMER_REAL, JOB_TIMEOUT_SECONDS)
        try:
            if "vars" in job:
                text = render_vars(source, job["vars"])
            elif "request" in job:
                text = render_request(source, job["request"])
            else:
                raise InputError("a job needs \"vars\" or \"request\"")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        return {"ok": True, "text": text}
    except Exception as e:  # noqa: BLE001 - every failure is a result, the batch goes on
        return error_result(e)


def error_result(e):
    """The result object of a failed render: the exception's class name and message."""
    return {"ok": False, "error_type": type(e).__name__, "error": str(e)}


def read_json(path):
    """Reads a JSON file (or stdin for `-`)."""
    try:
        if path == "-":
            return json.load(sys.stdin)
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"error: cannot read {path}: {e}\n")
        sys.exit(2)


def read_text(path):
    """Reads a template file exactly (no newline translation: jinja2 does its own)."""
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, ValueError) as e:
        sys.stderr.write(f"error: cannot read {path}: {e}\n")
        sys.exit(2)


def main(argv):
    now = None
    if len(argv) >= 2 and argv[0] == "--now":
        now, argv = argv[1], argv[2:]
    elif argv and argv[0].startswith("--now="):
        now, argv = argv[0][len("--now="):], argv[1:]
    try:
        set_now(now)
    except ValueError as e:
        sys.stderr.write(f"error: invalid --now: {e}\n")
        return 2
    signal.signal(signal.SIGALRM, _on_alarm)

    if argv[:1] == ["batch"] and len(argv) == 1:
        jobs = read_json("-")
        if not isinstance(jobs, list):
            sys.stderr.write("error: batch input must be a JSON list of jobs\n")
            return 2
        cache = {}
        results = []
        for job in jobs:
            if now is not None and isinstance(job, dict) and "now" not in job:
                job["now"] = now
            results.append(run_job(job, cache))
        # ASCII transport: lone surrogates and every other code point survive any decoder.
        json.dump(results, sys.stdout, ensure_ascii=True)
        sys.stdout.write("\n")
        return 0

    if len(argv) == 3 and argv[0] in ("vars", "request"):
        source = read_text(argv[1])
        data = read_json(argv[2])
        job = {"template": source, argv[0]: data, "now": now}
        result = run_job(job, {})
        if result["ok"]:
            sys.stdout.buffer.write(result["text"].encode("utf-8", "surrogatepass"))
            return 0
        sys.stderr.write(f"error: {result['error_type']}: {result['error']}\n")
        return 2 if result["error_type"] == "InputError" else 1

    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
