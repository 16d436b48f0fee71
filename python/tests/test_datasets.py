"""The README's recipe for a chat dataset: `datasets.Dataset.map(render, batched=True,
num_proc=N)` with `render_jinja_template` gives, in worker processes, the prompts that
transformers' own function gives for the same batches.

`datasets` stores messages as Arrow structs: a key that some messages have and others lack
comes back as None in every message, and nested dicts come back with the union of their keys.
Both functions see the same rows, so they must agree on them too.
"""

import json

import chatcodec
from conftest import corpus_dir, need

TEMPLATES = [
    "Qwen-Qwen2.5-7B-Instruct.jinja",
    "meta-llama-Llama-3.1-8B-Instruct.jinja",
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
]


def _rows():
    rows = []
    for i in range(30):
        msgs = [{"role": "user", "content": f"question {i}"}]
        if i % 3 == 0:
            msgs.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": f"call{i:09d}",
                            "type": "function",
                            "function": {"name": "lookup", "arguments": {"x": i}},
                        }
                    ],
                }
            )
            msgs.append({"role": "tool", "tool_call_id": f"call{i:09d}", "content": "ok"})
            msgs.append({"role": "assistant", "content": f"done {i}"})
        else:
            msgs.append({"role": "assistant", "content": f"answer {i}"})
        rows.append({"messages": msgs})
    return rows


def _render(template, fn):
    def render(batch):
        prompts, _ = fn(
            batch["messages"],
            chat_template=template,
            add_generation_prompt=False,
            bos_token="<s>",
            eos_token="</s>",
        )
        return {"text": prompts}

    return render


def test_dataset_map_with_worker_processes_matches_transformers(tmp_path):
    datasets = need("datasets")
    ctu = need("transformers.utils.chat_template_utils")
    data = tmp_path / "chats.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows()), encoding="utf-8")
    ds = datasets.load_dataset("json", data_files=str(data), split="train", cache_dir=str(tmp_path))
    for name in TEMPLATES:
        path = corpus_dir() / "templates" / name
        template = path.read_text(encoding="utf-8")
        ours = ds.map(
            _render(template, chatcodec.render_jinja_template),
            batched=True,
            batch_size=7,
            num_proc=2,
            load_from_cache_file=False,
        )
        theirs = ds.map(
            _render(template, ctu.render_jinja_template),
            batched=True,
            batch_size=7,
            load_from_cache_file=False,
        )
        assert ours["text"] == theirs["text"], name
        assert len(ours["text"]) == 30 and all(ours["text"]), name
