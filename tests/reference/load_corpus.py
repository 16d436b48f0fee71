#!/usr/bin/env python3
"""Model files for every corpus template, made by the real writers, and transformers' renders.

    load_corpus.py < job.json > results.json

The job: `{"out": DIR, "templates": [{"path": PATH, "cases": [INDEX, ...]}, ...], "cases":
[{"request": {...}, "mask": bool}, ...]}`: each template is rendered with the cases it lists.
For template i it writes, under DIR:

    t<i>/config/  a Hugging Face model folder whose tokenizer_config.json holds the template
    t<i>/jinja/   the same tokens, the template in chat_template.jinja
    t<i>/named/   tokenizer_config.json with a list of named templates: `default` (a small
                  template of ours) and `tool_use` (the corpus template), so transformers
                  picks by whether the request has tools
    t<i>.gguf     a GGUF file (gguf's GGUFWriter, as llama.cpp writes them) with the template
                  as tokenizer.chat_template and bos/eos/unk as token ids

Every folder has a real tokenizer.json (made by `tokenizers`) with the special tokens <s>, </s>
and <unk>, so `AutoTokenizer.from_pretrained` loads it. Each case is then rendered by
transformers itself on both folders: `apply_chat_template(messages, tools=..., documents=...,
add_generation_prompt=..., continue_final_message=..., tokenize=False, **kwargs)`; a case
with "mask" runs `apply_chat_template(..., tokenize=True, return_dict=True,
return_assistant_tokens_mask=True)` and reports the character spans transformers' renderer
found inside `{% generation %}` blocks, as UTF-8 byte offsets.

(transformers can also read GGUF files, but its reader needs torch; the GGUF file holds the
same template and tokens as the folders, so its reference is theirs.)

Results: `{"templates": [{"config": DIR, "jinja": DIR, "gguf": PATH, "sources": {"config": T,
"jinja": T}}]` (T: the template text the tokenizer holds), "results": [[{"config":
R, "jinja": R} or null per case] per template]}` (null: a case the template does not list), each R `{"ok": true, "text": ..., "mask": [[s, e]]?}`
or `{"ok": false, "error": ...}`.

Exit status 3 means the needed Python packages are missing (callers print SKIPPED).
"""

import json
import os
import shutil
import sys

from need import need

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENS = ["<unk>", "<s>", "</s>", "hello"]


# The `default` template of the named-templates folders (ours, not from the corpus).
NAMED_DEFAULT = "{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}"


def write_files(out, templates):
    gguf = need("gguf")
    tokenizers = need("tokenizers")
    import numpy as np

    os.makedirs(out, exist_ok=True)
    vocab = {t: i for i, t in enumerate(TOKENS)}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.add_special_tokens(["<unk>", "<s>", "</s>"])
    shared_tokenizer = os.path.join(out, "tokenizer.json")
    tok.save(shared_tokenizer)
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
    }
    layout = []
    for i, path in enumerate(templates):
        with open(path, encoding="utf-8", newline="") as f:
            source = f.read()  # as the file has it, \r\n included
        base = os.path.join(out, f"t{i}")
        entry = {
            "config": os.path.join(base, "config"),
            "jinja": os.path.join(base, "jinja"),
            "named": os.path.join(base, "named"),
            "gguf": base + ".gguf",
        }
        for kind in ("config", "jinja", "named"):
            folder = entry[kind]
            os.makedirs(folder, exist_ok=True)
            shutil.copyfile(shared_tokenizer, os.path.join(folder, "tokenizer.json"))
            cfg = dict(config)
            if kind == "config":
                cfg["chat_template"] = source
            elif kind == "named":
                cfg["chat_template"] = [
                    {"name": "default", "template": NAMED_DEFAULT},
                    {"name": "tool_use", "template": source},
                ]
            else:
                path_jinja = os.path.join(folder, "chat_template.jinja")
                with open(path_jinja, "w", encoding="utf-8", newline="") as f:
                    f.write(source)
            with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
                json.dump(cfg, f, indent=2, ensure_ascii=False)
        w = gguf.GGUFWriter(entry["gguf"], arch="llama")
        w.add_name(os.path.basename(path))
        w.add_tokenizer_model("llama")
        w.add_token_list(TOKENS)
        w.add_token_scores([0.0] * len(TOKENS))
        w.add_token_types([2, 3, 3, 1])
        w.add_bos_token_id(1)
        w.add_eos_token_id(2)
        w.add_unk_token_id(0)
        w.add_chat_template(source)
        w.add_tensor("token_embd.weight", np.zeros((len(TOKENS), 4), dtype=np.float32))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        layout.append(entry)
    return layout


def byte_spans(text, spans):
    return [[len(text[:s].encode("utf-8")), len(text[:e].encode("utf-8"))] for s, e in spans]


def render(tok, tub, case):
    req = dict(case["request"])
    messages = req.pop("messages")
    tools = req.pop("tools", None)
    documents = req.pop("documents", None)
    agp = req.pop("add_generation_prompt", False)
    cfm = req.pop("continue_final_message", False)
    try:
        if not case.get("mask"):
            text = tok.apply_chat_template(
                messages, tools=tools, documents=documents, add_generation_prompt=agp,
                continue_final_message=cfm, tokenize=False, **req,
            )
            return {"ok": True, "text": text}
        seen = []
        real = tub.render_jinja_template

        def spy(**kw):
            rendered, indices = real(**kw)
            seen.append((rendered[0], indices[0]))
            return rendered, indices

        tub.render_jinja_template = spy
        try:
            tok.apply_chat_template(
                messages, tools=tools, documents=documents, add_generation_prompt=agp,
                continue_final_message=cfm, tokenize=True, return_dict=True,
                return_assistant_tokens_mask=True, **req,
            )
        finally:
            tub.render_jinja_template = real
        text, spans = seen[0]
        return {"ok": True, "text": text, "mask": byte_spans(text, spans)}
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}


def main():
    job = json.load(sys.stdin)
    sys.path.insert(0, HERE)
    import oracle  # noqa: F401 - fixes transformers' clock, checks versions (exits 3 if absent)

    from transformers import AutoTokenizer
    from transformers import tokenization_utils_base as tub

    layout = write_files(job["out"], [t["path"] for t in job["templates"]])
    results = []
    for entry, template in zip(layout, job["templates"]):
        toks = {
            kind: AutoTokenizer.from_pretrained(entry[kind]) for kind in ("config", "jinja", "named")
        }
        entry["sources"] = {kind: tok.chat_template for kind, tok in toks.items()}
        wanted = set(template["cases"])
        results.append([
            {kind: render(tok, tub, case) for kind, tok in toks.items()} if i in wanted else None
            for i, case in enumerate(job["cases"])
        ])
    json.dump({"templates": layout, "results": results}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
