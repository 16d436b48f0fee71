"""Shared helpers of the Python tests: the corpus, and skips that fail in CI."""

import json
import os
import pathlib

import pytest

os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"


def need(module):
    """Imports `module`, or skips the test (fails it when CI=true: CI must run everything)."""
    try:
        return __import__(module, fromlist=["_"])
    except Exception as e:  # noqa: BLE001
        if os.environ.get("CI") == "true":
            pytest.fail(f"{module} is needed in CI: {e}")
        pytest.skip(f"{module} unavailable: {e}")


def corpus_dir():
    if not CORPUS.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CORPUS} is missing in CI")
        pytest.skip(f"{CORPUS} is missing")
    return CORPUS


def templates():
    if not CORPUS.is_dir():
        return []
    return sorted(p.name for p in (CORPUS / "templates").glob("*.jinja"))


def scenarios():
    """The corpus scenarios as (name, request) pairs, descriptions dropped."""
    out = []
    for p in sorted((corpus_dir() / "scenarios").glob("*.json")):
        req = json.loads(p.read_text(encoding="utf-8"))
        req.pop("description", None)
        out.append((p.stem, req))
    return out


def read_template(name):
    with open(corpus_dir() / "templates" / name, encoding="utf-8", newline="") as f:
        return f.read()


def same_outcome(theirs, ours):
    """Whether chatcodec's outcome of a render, `("ok", result...)` or `("error", exception)`,
    matches transformers': the same result, or an exception of the class transformers
    raised (chatcodec's classes subclass it)."""
    if theirs[0] == "ok":
        return ours == theirs
    return ours[0] == "error" and isinstance(ours[1], type(theirs[1]))


def model_folder(out, name, tokenizer_json):
    """A model folder under `out` for corpus template `name`: `tokenizer_json` and a
    tokenizer_config.json with <s>, </s>, <unk> and the template (as
    tests/reference/load_corpus.py makes them)."""
    folder = out / name.removesuffix(".jinja")
    folder.mkdir()
    (folder / "tokenizer.json").write_text(tokenizer_json, encoding="utf-8")
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "chat_template": read_template(name),
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def clip(rendered, indices):
    """Generation indices cut to the end of each prompt (chatcodec's documented behaviour
    with `continue_final_message`; transformers' may reach past it)."""
    if not indices:
        return indices
    return [
        [(min(s, len(text)), min(e, len(text))) for s, e in spans if s < len(text)]
        for text, spans in zip(rendered, indices)
    ]
