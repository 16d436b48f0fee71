#!/usr/bin/env python3
"""transformers' control-token guard on model folders made from the corpus templates.

    control_tokens.py < job.json > results.json

The job: `{"out": DIR, "templates": [PATH, ...], "cases": [REQUEST, ...]}`. For template i it
writes DIR/t<i>/, a Hugging Face model folder: the template in tokenizer_config.json and a
tokenizer.json (made by `tokenizers`) whose added tokens are the special tokens <unk>, <s>,
</s>, <|endoftext|> and, not special, markers of many chat formats (ADDED below), so which of
them are control tokens depends on the template's literal text. Every third folder also
lists `chat_control_tokens` in its config (then that list decides).

Each request is rendered by `AutoTokenizer.from_pretrained(folder).apply_chat_template(...,
tokenize=True, sanitize_control_tokens=True)`; the text transformers renders (with the
U+F0000/U+F0001 markers, before encoding) is taken from its `render_jinja_template`.

Results: `{"folders": [DIR, ...], "results": [[R per case] per template]}`, each R
`{"ok": true, "text": ..., "control_tokens": [...]}` or `{"ok": false, "error": ...}`.
Exit status 3 means the needed Python packages are missing.
"""

import json
import os
import sys

from need import need

HERE = os.path.dirname(os.path.abspath(__file__))
SPECIAL = ["<unk>", "<s>", "</s>", "<|endoftext|>"]
ADDED = [
    "<|im_start|>", "<|im_end|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
    "[INST]", "[/INST]", "<think>", "</think>", "<tool_call>", "</tool_call>", "<|user|>",
    "<|assistant|>", "<|system|>", "<start_of_turn>", "<end_of_turn>", "<|end|>",
    "<|begin_of_text|>", "\n", "<|tool|>", "[TOOL_CALLS]", "<|im_start|>assistant",
]
CONTROL_LIST = ["<|im_start|>", "<|end|>", "[INST]"]


def main():
    job = json.load(sys.stdin)
    tokenizers = need("tokenizers")
    sys.path.insert(0, HERE)
    import oracle  # noqa: F401 - fixes transformers' clock, checks versions (exits 3 if absent)

    from transformers import AutoTokenizer
    from transformers import tokenization_utils_base as tub

    out = job["out"]
    os.makedirs(out, exist_ok=True)
    vocab = {t: i for i, t in enumerate(SPECIAL + ["hello"])}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.add_special_tokens(SPECIAL)
    tok.add_tokens(ADDED)
    shared = os.path.join(out, "tokenizer.json")
    tok.save(shared)
    tokenizer_json = open(shared, encoding="utf-8").read()
    folders, results = [], []
    for i, path in enumerate(job["templates"]):
        with open(path, encoding="utf-8", newline="") as f:
            source = f.read()
        folder = os.path.join(out, f"t{i}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
            f.write(tokenizer_json)
        cfg = {
            "tokenizer_class": "PreTrainedTokenizerFast",
            "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
            "chat_template": source,
        }
        if i % 3 == 2:
            cfg["chat_control_tokens"] = CONTROL_LIST
        with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump(cfg, f, ensure_ascii=False)
        folders.append(folder)
        t = AutoTokenizer.from_pretrained(folder)
        row = []
        for case in job["cases"]:
            req = dict(case)
            messages = req.pop("messages")
            tools = req.pop("tools", None)
            documents = req.pop("documents", None)
            agp = req.pop("add_generation_prompt", False)
            cfm = req.pop("continue_final_message", False)
            seen = []
            real = tub.render_jinja_template

            def spy(**kw):
                rendered, indices = real(**kw)
                seen.append(rendered[0])
                return rendered, indices

            tub.render_jinja_template = spy
            try:
                t.apply_chat_template(
                    messages, tools=tools, documents=documents, add_generation_prompt=agp,
                    continue_final_message=cfm, tokenize=True, sanitize_control_tokens=True, **req,
                )
                r = {"ok": True}
            except Exception as e:  # noqa: BLE001
                # Encoding can fail after rendering; the render is what is compared.
                r = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            finally:
                tub.render_jinja_template = real
            if seen:
                r = {"ok": True, "text": seen[0]}
                r["control_tokens"] = list(t._get_control_tokens(t.chat_template))
            row.append(r)
        results.append(row)
    json.dump({"folders": folders, "results": results}, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
