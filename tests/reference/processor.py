#!/usr/bin/env python3
"""transformers' processor path, run on processor folders made here.

    processor.py < job.json > results.json

The job: `{"out": DIR, "templates": [PATH, ...], "cases": [{"request": {...}, "mask": bool}]}`.
For template i it writes DIR/t<i>/, a processor folder: a real tokenizer (tokenizer.json made by
`tokenizers`, tokenizer_config.json with <s>, </s>, <unk>), the template in chat_template.jinja
and a processor_config.json. It also writes DIR/layout_<name>/ folders whose processor template
comes from each file transformers reads (legacy chat_template.json, processor_config.json,
additional_chat_templates/), and folders transformers refuses.

Each folder is loaded with `ProcessorMixin.from_pretrained` (a processor whose only part is the
tokenizer, so no image library is needed: the chat-template path is the same for every
processor) and every case is rendered with `processor.apply_chat_template(conversation, ...,
tokenize=False)`. A case with "mask" also reports the generation spans that the processor's
call to `render_jinja_template` found, as UTF-8 byte offsets.

Results: `{"templates": [{"dir": D, "results": [R per case]}], "layouts": [{"name": N, "dir":
D, "result": R}]}` with R `{"ok": true, "text": ..., "mask": [[s, e]]?}` or `{"ok": false,
"error": ...}`. Exit status 3 means the needed Python packages are missing.
"""

import json
import os
import sys

from need import need

HERE = os.path.dirname(os.path.abspath(__file__))

# Small templates of ours for the layout folders: each says which file it came from.
LAYOUT_TEMPLATE = (
    "{% for m in messages %}[%s] {{ m.role }}:{% if m.content is string %}{{ m.content }}"
    "{% else %}{% for c in m.content %}{{ c.type }}{% if c.url is defined %}={{ c.url }}{% endif %};"
    "{% endfor %}{% endif %}\n{% endfor %}{{ image_token | default('') }}"
)


def tagged(tag):
    return LAYOUT_TEMPLATE.replace("[%s]", f"[{tag}]")


def write_tokenizer(folder, tokenizer_json, extra=None):
    os.makedirs(folder, exist_ok=True)
    with open(tokenizer_json, "rb") as src, open(os.path.join(folder, "tokenizer.json"), "wb") as dst:
        dst.write(src.read())
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
    }
    config.update(extra or {})
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, ensure_ascii=False)


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def write_json(path, value):
    write_text(path, json.dumps(value, indent=2, ensure_ascii=False))


def layouts(out, tokenizer_json):
    """Folders whose processor template comes from each place transformers looks."""
    made = []

    def folder(name, files, tokenizer_extra=None):
        d = os.path.join(out, f"layout_{name}")
        write_tokenizer(d, tokenizer_json, tokenizer_extra)
        for rel, content in files.items():
            path = os.path.join(d, rel)
            if isinstance(content, str):
                write_text(path, content)
            else:
                write_json(path, content)
        made.append((name, d))

    proc = {"processor_class": "Proc"}
    folder("legacy_json_over_jinja", {
        "chat_template.json": {"chat_template": tagged("legacy")},
        "chat_template.jinja": tagged("jinja"),
    })
    folder("processor_config_over_files", {
        "processor_config.json": dict(proc, chat_template=tagged("processor_config")),
        "chat_template.jinja": tagged("jinja"),
    })
    folder("jinja_with_additional", {
        "processor_config.json": proc,
        "chat_template.jinja": tagged("jinja"),
        "additional_chat_templates/other.jinja": tagged("other"),
    })
    folder("legacy_with_additional", {
        "chat_template.json": {"chat_template": tagged("legacy")},
        "additional_chat_templates/other.jinja": tagged("other"),
    })
    folder("additional_without_default", {
        "processor_config.json": proc,
        "additional_chat_templates/a.jinja": tagged("a"),
        "additional_chat_templates/b.jinja": tagged("b"),
    })
    folder("tokenizer_template_only", {"preprocessor_config.json": {"do_resize": False}},
           {"chat_template": tagged("tokenizer")})
    folder("crlf_jinja", {"processor_config.json": proc,
                          "chat_template.jinja": tagged("crlf").replace("\n", "\r\n")})
    folder("image_token", {"processor_config.json": proc, "chat_template.jinja": tagged("tok")},
           {"extra_special_tokens": {"image_token": "<|image|>"}})
    return made


def byte_spans(text, spans):
    return [[len(text[:s].encode("utf-8")), len(text[:e].encode("utf-8"))] for s, e in spans]


def render(processor, pu, case):
    req = dict(case["request"])
    messages = req.pop("messages")
    tools = req.pop("tools", None)
    documents = req.pop("documents", None)
    agp = req.pop("add_generation_prompt", False)
    cfm = req.pop("continue_final_message", False)
    mask = bool(case.get("mask"))
    seen = []
    real = pu.render_jinja_template

    def spy(**kw):
        rendered, indices = real(**kw)
        seen.append((rendered[0], indices[0] if indices else []))
        return rendered, indices

    pu.render_jinja_template = spy
    try:
        text = processor.apply_chat_template(
            json.loads(json.dumps(messages)), tools=tools, documents=documents,
            add_generation_prompt=agp, continue_final_message=cfm, tokenize=False,
            return_assistant_tokens_mask=mask, **req,
        )
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}
    finally:
        pu.render_jinja_template = real
    result = {"ok": True, "text": text}
    if mask:
        result["mask"] = byte_spans(seen[0][0], seen[0][1])
    return result


def main():
    job = json.load(sys.stdin)
    sys.path.insert(0, HERE)
    import oracle  # noqa: F401 - fixes transformers' clock, checks versions (exits 3 if absent)

    tokenizers = need("tokenizers")
    from transformers import ProcessorMixin
    from transformers import processing_utils as pu

    class Proc(ProcessorMixin):
        """A processor whose only part is its tokenizer."""

        attributes = ["tokenizer"]
        tokenizer_class = "AutoTokenizer"

        def __init__(self, tokenizer=None, chat_template=None, **kwargs):
            super().__init__(tokenizer, chat_template=chat_template)

    out = job["out"]
    os.makedirs(out, exist_ok=True)
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<|image|>": 3}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.add_special_tokens(["<unk>", "<s>", "</s>", "<|image|>"])
    tokenizer_json = os.path.join(out, "tokenizer.json")
    tok.save(tokenizer_json)

    def load(d):
        try:
            return Proc.from_pretrained(d), None
        except Exception as e:  # noqa: BLE001
            return None, {"ok": False, "error": f"{type(e).__name__}: {e}"}

    templates = []
    for i, path in enumerate(job["templates"]):
        with open(path, encoding="utf-8", newline="") as f:
            source = f.read()
        d = os.path.join(out, f"t{i}")
        write_tokenizer(d, tokenizer_json)
        write_text(os.path.join(d, "chat_template.jinja"), source)
        write_json(os.path.join(d, "processor_config.json"), {"processor_class": "Proc"})
        processor, failed = load(d)
        results = [failed or render(processor, pu, case) for case in job["cases"]]
        templates.append({"dir": d, "results": results})

    made = []
    probe = {"request": job["cases"][0]["request"]}
    for name, d in layouts(out, tokenizer_json):
        processor, failed = load(d)
        made.append({"name": name, "dir": d, "result": failed or render(processor, pu, probe)})
    json.dump({"templates": templates, "layouts": made}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
