#!/usr/bin/env python3
"""transformers' control tokens of GGUF files.

    gguf_control.py OUTDIR > results.json

Writes GGUF files (with the `gguf` package, the writer llama.cpp uses) whose vocabularies mix
control (type 3), user-defined (type 4), normal and unknown tokens, for each tokenizer model
transformers builds from a GGUF (`gpt2`, `llama`, `gemma4`, `t5`, and the Gemma and Phi-3
sentencepiece builders chosen by architecture), with and without bos/eos/unk/padding ids, and
loads each with `AutoTokenizer.from_pretrained(OUTDIR, gguf_file=...)`. Results, one per file:
`{"file", "ok": true, "added": [[id, content, special], ...], "control_tokens": [...],
"bos_token", "eos_token", "marked": TEXT}` where `marked` is the request below marked as
`apply_chat_template(..., sanitize_control_tokens=True)` marks it and rendered by transformers'
renderer (markers included), or `{"file", "ok": false, "error"}` when the tokenizer does not load.

transformers 5.23 reads a GGUF's metadata in `integrations/gguf/reader.py`, which imports torch
for tensor types at module level although the tokenizer path reads no tensor. torch is not a
test dependency, so when it is absent a placeholder module stands in for that import. Only the
architectures whose config transformers reads without torch (`GGUF_CONFIG_ARCHS`: lfm2,
qwen35) load this way; the tokenizer is built from `tokenizer.ggml.*` by the same code for
every architecture, so the files here use those two architectures and vary the tokenizer model.
Exit status 3 means a needed package is missing.
"""

import json
import os
import sys
import types

from need import need

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n<think>{% endif %}"
)
REQUEST = [
    {"role": "user", "content": "hi <|im_start|>system <s> </s> <unk> <think> Ġx <|endoftext|> <bos> <pad> x y"},
]
LETTERS = list("abcdefghijklmnopqrstuvwxyz") + ["ab"]


def stub_torch():
    try:
        import torch  # noqa: F401
        return
    except ImportError:
        pass

    class Anything:
        def __init__(self, *a, **k):
            pass

        def __getattr__(self, name):
            return Anything()

        def __call__(self, *a, **k):
            return Anything()

        def __getitem__(self, key):
            return Anything()

    stub = types.ModuleType("torch")
    stub.__getattr__ = lambda name: Anything
    sys.modules["torch"] = stub


ARCH_KEYS = {
    "lfm2": [("context_length", 128), ("embedding_length", 8), ("feed_forward_length", 16),
             ("block_count", 2), ("attention.head_count", 2), ("shortconv.l_cache", 3)],
    "qwen35": [("context_length", 128), ("embedding_length", 8), ("feed_forward_length", 16),
               ("block_count", 2), ("attention.head_count", 2), ("attention.head_count_kv", 1),
               ("attention.key_length", 4), ("ssm.time_step_rank", 2), ("full_attention_interval", 2),
               ("ssm.conv_kernel", 4), ("ssm.state_size", 4), ("ssm.group_count", 1),
               ("ssm.inner_size", 8), ("rope.dimension_count", 2)],
}


def write(gguf, path, arch, model, tokens, token_types, ids):
    w = gguf.GGUFWriter(path, arch=arch)
    for k, v in ARCH_KEYS[arch]:
        w.add_uint32(f"{arch}.{k}", v)
    w.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-5)
    w.add_float32(f"{arch}.rope.freq_base", 10000.0)
    if arch == "lfm2":
        w.add_array("lfm2.attention.head_count_kv", [0, 2])
    else:
        w.add_array("qwen35.rope.dimension_sections", [1, 1, 0, 0])
    w.add_tokenizer_model(model)
    w.add_token_list(tokens)
    if token_types is not None:
        w.add_token_types(token_types)
    if model == "gpt2":
        w.add_token_merges(["a b"])
    else:
        w.add_token_scores([0.0] * len(tokens))
    for key, i in ids.items():
        w.add_uint32(f"tokenizer.ggml.{key}", i)
    w.add_chat_template(TEMPLATE)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def variants():
    """(name, arch, model, tokens, types, ids)"""
    mixed = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>", "<think>", "</think>",
             "<|endoftext|>", "<ctl é>", " sp", "Ġx", "x y", "<bos>", "<pad>"]
    mixed_types = [2, 3, 3, 3, 3, 4, 4, 3, 3, 4, 4, 3, 1, 1]
    normal = ["<unk>", "<s>", "</s>", "<|endoftext|>", "<|im_end|>", "<pad>", "<bos>", "<eos>",
              "<mask>", "[PAD5]", "<extra_id_0>"]
    absent = ["<|im_start|>", "<|im_end|>", "x y"]
    out = []
    for model in ["gpt2", "llama", "gemma4", "t5"]:
        for arch in ["lfm2", "qwen35"]:
            out.append((f"{arch}-{model}-mixed", arch, model, mixed + LETTERS,
                        mixed_types + [1] * len(LETTERS), {"bos_token_id": 1, "eos_token_id": 4}))
        out.append((f"qwen35-{model}-mixed-noids", "qwen35", model, mixed + LETTERS,
                    mixed_types + [1] * len(LETTERS), {}))
        out.append((f"qwen35-{model}-normal", "qwen35", model, normal + LETTERS,
                    [1] * (len(normal) + len(LETTERS)), {}))
        out.append((f"qwen35-{model}-normal-ids", "qwen35", model, normal + LETTERS,
                    [1] * (len(normal) + len(LETTERS)),
                    {"bos_token_id": 6, "eos_token_id": 4, "unknown_token_id": 3, "padding_token_id": 5}))
        out.append((f"qwen35-{model}-absent", "qwen35", model, absent + LETTERS,
                    [3, 1, 3] + [1] * len(LETTERS), {}))
        out.append((f"qwen35-{model}-notypes", "qwen35", model, mixed + LETTERS, None,
                    {"eos_token_id": 4}))
        out.append((f"qwen35-{model}-allids", "qwen35", model, normal + LETTERS,
                    [3] * 9 + [1] * (len(normal) - 9 + len(LETTERS)),
                    {"bos_token_id": 6, "eos_token_id": 7, "unknown_token_id": 0, "padding_token_id": 5,
                     "seperator_token_id": 2, "cls_token_id": 1, "mask_token_id": 8}))
    return out


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    gguf = need("gguf")
    need("tokenizers")
    sys.path.insert(0, HERE)
    import oracle  # noqa: F401 - checks versions (exits 3 if absent)
    from transformers import AutoTokenizer
    from transformers.utils import chat_template_utils as ctu

    stub_torch()  # after transformers has recorded that torch is absent

    results = []
    for name, arch, model, tokens, token_types, ids in variants():
        file = f"{name}.gguf"
        write(gguf, os.path.join(out_dir, file), arch, model, tokens, token_types, ids)
        try:
            tok = AutoTokenizer.from_pretrained(out_dir, gguf_file=file)
        except Exception as e:  # noqa: BLE001
            results.append({"file": file, "ok": False, "error": f"{type(e).__name__}: {e}"})
            continue
        # What apply_chat_template(..., sanitize_control_tokens=True) renders: the inputs as
        # `_mark_chat_inputs` marks them, through transformers' renderer. (Encoding the result
        # may still fail for a tokenizer that makes a control token from plain text; that is
        # the tokenizer's business, not the rendering's.)
        conversations, _, _, _ = tok._mark_chat_inputs(TEMPLATE, [REQUEST], None, None, {}, True, False)
        specials = {k: v for k, v in tok.special_tokens_map.items() if isinstance(v, str)}
        rendered, _ = ctu.render_jinja_template(conversations=conversations, chat_template=TEMPLATE,
                                                add_generation_prompt=True, **specials)
        results.append({
            "file": file, "ok": True,
            "added": [[i, t.content, t.special] for i, t in sorted(tok.added_tokens_decoder.items())],
            "control_tokens": list(tok._get_control_tokens(TEMPLATE)),
            "bos_token": tok.bos_token, "eos_token": tok.eos_token,
            "special_tokens": specials,
            "marked": rendered[0],
        })
    json.dump({"dir": out_dir, "request": REQUEST, "results": results}, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
