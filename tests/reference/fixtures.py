#!/usr/bin/env python3
"""Real model files for the loader tests, made by the real writers, and the reference answers.

    fixtures.py gguf OUTDIR
        Writes GGUF files with the `gguf` package (GGUFWriter, the writer llama.cpp uses):
        single.gguf (one template, tokens, bos/eos ids), named.gguf (default + tool_use + rag
        templates), notemplate.gguf (tokens only), truncated.gguf (single.gguf cut inside
        its metadata) and badmagic.gguf (single.gguf with the magic replaced).
    fixtures.py models OUTDIR
        Writes Hugging Face model folders as `save_pretrained` lays them out, each with a real
        tokenizer.json (made by `tokenizers`) so transformers' AutoTokenizer loads them:
        jinja/ (chat_template.jinja + additional_chat_templates/), config_str/ (template string in
        tokenizer_config.json), config_list/ (list of {name, template}), json/ (legacy
        chat_template.json), none/ (no template).
    fixtures.py apply < jobs.json > results.json
        Each job `{"model": DIR, "request": {...}, "template_name": NAME?, "mask": bool?}` is
        rendered by transformers itself: `AutoTokenizer.from_pretrained(DIR).apply_chat_template(
        ..., tokenize=False)`; with "mask", `render_jinja_template(return_assistant_tokens_mask=True)`
        with the tokenizer's chosen template and special tokens gives the generation spans.
        Results: `{"ok": true, "text": ..., "mask": [[s, e], ...]?}` or `{"ok": false, "error": ...}`.

Exit status 3 means the needed Python packages are missing (callers print SKIPPED).
"""

import json
import os
import sys

from need import need

HERE = os.path.dirname(os.path.abspath(__file__))

TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{{ eos_token }}\n"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
TOOL_TEMPLATE = (
    "{{ bos_token }}[TOOLS]{{ tools | tojson }}[/TOOLS]{% for m in messages %}"
    "<|{{ m.role }}|>{{ m.content }}{{ eos_token }}{% endfor %}"
)
RAG_TEMPLATE = "RAG {{ documents | tojson }}{% for m in messages %}{{ m.content }}{% endfor %}"
MASK_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}{% if m.role == 'assistant' %}<|assistant|>"
    "{% generation %}{{ m.content }}{{ eos_token }}{% endgeneration %}{% else %}"
    "<|{{ m.role }}|>{{ m.content }}{{ eos_token }}{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
TOKENS = ["<unk>", "<s>", "</s>", "<|user|>", "<|assistant|>", "hello"]


def write_gguf(out):
    gguf = need("gguf")
    import numpy as np

    os.makedirs(out, exist_ok=True)

    def base(path, templates):
        w = gguf.GGUFWriter(path, arch="llama")
        w.add_name("chatcodec-test")
        w.add_tokenizer_model("llama")
        w.add_token_list(TOKENS)
        w.add_token_scores([0.0] * len(TOKENS))
        w.add_token_types([2, 3, 3, 1, 1, 1])
        w.add_bos_token_id(1)
        w.add_eos_token_id(2)
        w.add_unk_token_id(0)
        if templates is not None:
            w.add_chat_template(templates)
        w.add_tensor("token_embd.weight", np.zeros((len(TOKENS), 8), dtype=np.float32))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()

    single = os.path.join(out, "single.gguf")
    base(single, TEMPLATE)
    base(
        os.path.join(out, "named.gguf"),
        [
            {"name": "default", "template": TEMPLATE},
            {"name": "tool_use", "template": TOOL_TEMPLATE},
            {"name": "rag", "template": RAG_TEMPLATE},
        ],
    )
    base(os.path.join(out, "notemplate.gguf"), None)
    data = open(single, "rb").read()
    # Cut inside the metadata: past the header, before the chat template string ends.
    cut = data.find(b"tokenizer.chat_template") + 40
    open(os.path.join(out, "truncated.gguf"), "wb").write(data[:cut])
    open(os.path.join(out, "badmagic.gguf"), "wb").write(b"GGML" + data[4:])


def write_tokenizer(folder, config, extra_files):
    tokenizers = need("tokenizers")
    os.makedirs(folder, exist_ok=True)
    vocab = {t: i for i, t in enumerate(TOKENS)}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.save(os.path.join(folder, "tokenizer.json"))
    cfg = {"tokenizer_class": "PreTrainedTokenizerFast", **config}
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2, ensure_ascii=False)
    for name, text in extra_files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def write_models(out):
    added = lambda s: {  # noqa: E731 - how save_pretrained serializes an AddedToken
        "__type": "AddedToken", "content": s, "lstrip": False, "normalized": False,
        "rstrip": False, "single_word": False, "special": True,
    }
    write_tokenizer(
        os.path.join(out, "jinja"),
        {"bos_token": added("<s>"), "eos_token": added("</s>"), "unk_token": "<unk>",
         "chat_template": "IGNORED: the .jinja file wins"},
        {
            "chat_template.jinja": MASK_TEMPLATE,
            "additional_chat_templates/tool_use.jinja": TOOL_TEMPLATE,
            "additional_chat_templates/rag.jinja": RAG_TEMPLATE,
        },
    )
    write_tokenizer(
        os.path.join(out, "config_str"),
        {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "</s>", "unk_token": "<unk>",
         "image_token": "<|user|>", "chat_template": TEMPLATE},
        {},
    )
    write_tokenizer(
        os.path.join(out, "config_list"),
        {"bos_token": "<s>", "eos_token": "</s>", "chat_template": [
            {"name": "default", "template": TEMPLATE},
            {"name": "tool_use", "template": TOOL_TEMPLATE},
            {"name": "rag", "template": RAG_TEMPLATE},
        ]},
        {},
    )
    write_tokenizer(
        os.path.join(out, "config_list_nodefault"),
        {"bos_token": "<s>", "eos_token": "</s>", "chat_template": [
            {"name": "tool_use", "template": TOOL_TEMPLATE},
            {"name": "rag", "template": RAG_TEMPLATE},
        ]},
        {},
    )
    write_tokenizer(
        os.path.join(out, "json"),
        {"bos_token": "<s>", "eos_token": "</s>"},
        {"chat_template.json": json.dumps({"chat_template": TEMPLATE}, indent=2)},
    )
    write_tokenizer(os.path.join(out, "none"), {"bos_token": "<s>", "eos_token": "</s>"}, {})


def apply(jobs):
    sys.path.insert(0, HERE)
    import oracle  # fixes transformers' clock, checks versions (exits 3 if absent)

    from transformers import AutoTokenizer

    ctu = oracle.CTU
    results = []
    for job in jobs:
        try:
            tok = AutoTokenizer.from_pretrained(job["model"])
            req = dict(job["request"])
            messages = req.pop("messages")
            tools = req.pop("tools", None)
            documents = req.pop("documents", None)
            agp = req.pop("add_generation_prompt", False)
            cfm = req.pop("continue_final_message", False)
            text = tok.apply_chat_template(
                messages, tools=tools, documents=documents, chat_template=job.get("template_name"),
                add_generation_prompt=agp, continue_final_message=cfm, tokenize=False, **req,
            )
            result = {"ok": True, "text": text}
            if job.get("mask"):
                source = tok.get_chat_template(job.get("template_name"), tools)
                rendered, spans = ctu.render_jinja_template(
                    conversations=[messages], tools=tools, documents=documents,
                    chat_template=source, return_assistant_tokens_mask=True,
                    add_generation_prompt=agp, **{**tok.special_tokens_map, **req},
                )
                assert rendered[0] == text
                result["mask"] = [list(s) for s in spans[0]]
            results.append(result)
        except Exception as e:  # noqa: BLE001
            results.append({"ok": False, "error": f"{type(e).__name__}: {e}"})
    return results


def main(argv):
    if len(argv) >= 3 and argv[1] == "gguf":
        write_gguf(argv[2])
    elif len(argv) >= 3 and argv[1] == "models":
        write_models(argv[2])
    elif len(argv) >= 2 and argv[1] == "apply":
        json.dump(apply(json.load(sys.stdin)), sys.stdout)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
