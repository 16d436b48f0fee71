#!/usr/bin/env python3
"""Writes corpus/goldens/: the reference's output for every case of our own corpus.

The cases (see corpus/templates/README.md):

- `corpus/templates/NAME.jinja` with `NAME.vars.json` and/or `NAME.VARIANT.vars.json`:
  plain Jinja with that JSON object's keys as variables -> golden `NAME.json` / `NAME.VARIANT.json`.
- `corpus/templates/NAME.jinja` with no vars file: a chat template, rendered against every
  request in `corpus/requests/*.json` -> golden `NAME@REQUEST.json`.

Every golden comes from tests/reference/oracle.py (transformers' own renderer, clock fixed at
2026-01-15T10:30:00), never from chatcodec. Each golden file is a JSON object:
`{"template", "vars" | "request", "now", "ok": true, "text"}` or
`{..., "ok": false, "error_type", "error"}`.

    python3 tests/reference/make_goldens.py          # (re)write corpus/goldens/
    python3 tests/reference/make_goldens.py --check  # exit 1 if corpus/goldens/ is stale
    python3 tests/reference/make_goldens.py --show NAME  # print the cases of one template
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TEMPLATES = os.path.join(ROOT, "corpus", "templates")
REQUESTS = os.path.join(ROOT, "corpus", "requests")
GOLDENS = os.path.join(ROOT, "corpus", "goldens")
NOW = "2026-01-15T10:30:00"

sys.path.insert(0, HERE)
import oracle  # noqa: E402  (exits 3 when the reference is unavailable)


def variant_of(stem, name):
    """For `STEM.vars.json` "", for `STEM.VARIANT.vars.json` (no dot in VARIANT) "VARIANT", else None."""
    if name == stem + ".vars.json":
        return ""
    if name.startswith(stem + ".") and name.endswith(".vars.json"):
        variant = name[len(stem) + 1 : -len(".vars.json")]
        if variant and "." not in variant:
            return variant
    return None


def cases():
    """Yields (golden file name, case description without results, job) for every case."""
    names = sorted(os.listdir(TEMPLATES))
    requests = sorted(n for n in os.listdir(REQUESTS) if n.endswith(".json"))
    for tname in names:
        if not tname.endswith(".jinja"):
            continue
        stem = tname[: -len(".jinja")]
        var_files = [n for n in names if variant_of(stem, n) is not None]
        with open(os.path.join(TEMPLATES, tname), encoding="utf-8", newline="") as f:
            source = f.read()
        if var_files:
            for vname in var_files:
                variant = variant_of(stem, vname)
                golden = f"{stem}.{variant}.json" if variant else f"{stem}.json"
                with open(os.path.join(TEMPLATES, vname), encoding="utf-8") as f:
                    variables = json.load(f)
                case = {"template": tname, "vars": vname, "now": NOW}
                yield golden, case, {"template": source, "vars": variables, "now": NOW}
        else:
            for rname in requests:
                with open(os.path.join(REQUESTS, rname), encoding="utf-8") as f:
                    request = json.load(f)
                golden = f"{stem}@{rname}"
                case = {"template": tname, "request": rname, "now": NOW}
                yield golden, case, {"template": source, "request": request, "now": NOW}


def render_all():
    """Returns {golden file name: golden file text} for every case, rendered by the reference."""
    out = {}
    for golden, case, job in cases():
        result = oracle.run_job(job, {})
        out[golden] = json.dumps({**case, **result}, ensure_ascii=False, indent=1) + "\n"
    return out


def main(argv):
    if argv[:1] == ["--show"] and len(argv) == 2:
        for golden, _case, job in cases():
            if golden.split(".")[0].split("@")[0] == argv[1]:
                result = oracle.run_job(job, {})
                print(f"=== {golden}")
                print(result["text"] if result["ok"] else f"!! {result['error_type']}: {result['error']}")
        return 0
    check = argv == ["--check"]
    if argv and not check:
        sys.stderr.write(__doc__)
        return 2
    goldens = render_all()
    os.makedirs(GOLDENS, exist_ok=True)
    existing = {n for n in os.listdir(GOLDENS) if n.endswith(".json")}
    stale = []
    for name, text in sorted(goldens.items()):
        path = os.path.join(GOLDENS, name)
        old = None
        if name in existing:
            with open(path, encoding="utf-8", newline="") as f:
                old = f.read()
        if old != text:
            stale.append(name)
            if not check:
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
    extra = sorted(existing - set(goldens))
    if not check:
        for name in extra:
            os.remove(os.path.join(GOLDENS, name))
    ok = sum(1 for t in goldens.values() if json.loads(t)["ok"])
    print(f"{len(goldens)} cases ({ok} ok, {len(goldens) - ok} errors); "
          f"{len(stale)} changed, {len(extra)} removed")
    if check and (stale or extra):
        for name in stale:
            print(f"stale or missing: corpus/goldens/{name}")
        for name in extra:
            print(f"no longer a case: corpus/goldens/{name}")
        print("run: python3 tests/reference/make_goldens.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
