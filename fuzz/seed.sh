#!/bin/sh
# Builds the seed corpora of the fuzz targets from ../shared/corpus (relative to the repo
# root) at run time: nothing third-party is copied into the repository.
#   fuzz/seed.sh [OUT]   (default OUT: fuzz/corpus, which .gitignore keeps out of git)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
shared="$root/../shared/corpus"
out=${1:-"$here/corpus"}
if [ ! -d "$shared/templates" ]; then
    echo "seed.sh: $shared not found; fuzzing starts from empty corpora" >&2
    mkdir -p "$out/compile" "$out/render" "$out/request" "$out/gguf" "$out/output" "$out/grammar"
    exit 0
fi
python3 - "$shared" "$root" "$out" <<'PY'
import json, os, struct, sys
shared, root, out = sys.argv[1:4]
for d in ("compile", "render", "request", "gguf", "output", "grammar"):
    os.makedirs(os.path.join(out, d), exist_ok=True)
tdir = os.path.join(shared, "templates")
scen = [json.load(open(os.path.join(shared, "scenarios", f)))
        for f in sorted(os.listdir(os.path.join(shared, "scenarios"))) if f.endswith(".json")]
scen = [s.get("request", s) if isinstance(s, dict) else s for s in scen]
templates = sorted(f for f in os.listdir(tdir) if f.endswith(".jinja"))
for i, name in enumerate(templates):
    src = open(os.path.join(tdir, name), "rb").read()
    open(os.path.join(out, "compile", name), "wb").write(src)
    open(os.path.join(out, "grammar", name), "wb").write(src)
    req = scen[i % len(scen)] if scen else {}
    open(os.path.join(out, "render", name), "wb").write(src + b"\0" + json.dumps(req).encode())
for i, s in enumerate(scen):
    for pick in range(6):
        open(os.path.join(out, "request", f"s{i}_{pick}"), "wb").write(bytes([pick]) + json.dumps(s).encode())

def gguf(kvs):
    def string(s):
        b = s.encode()
        return struct.pack("<Q", len(b)) + b
    body = b""
    for k, v in kvs:
        body += string(k)
        if isinstance(v, str):
            body += struct.pack("<I", 8) + string(v)
        elif isinstance(v, list):
            body += struct.pack("<II", 9, 8) + struct.pack("<Q", len(v)) + b"".join(string(x) for x in v)
        else:
            body += struct.pack("<I", 4) + struct.pack("<I", v)
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + body
for i, name in enumerate(templates[:40]):
    src = open(os.path.join(tdir, name), encoding="utf-8", errors="replace").read()
    kvs = [("general.architecture", "llama"), ("tokenizer.chat_template", src),
           ("tokenizer.ggml.tokens", ["<s>", "</s>", "<|im_start|>"]),
           ("tokenizer.ggml.bos_token_id", 0), ("tokenizer.ggml.eos_token_id", 1)]
    open(os.path.join(out, "gguf", f"t{i}.gguf"), "wb").write(gguf(kvs))
# Output seeds: model output texts in each format's syntax, from the repo's own test inputs.
texts = [
    "Let me check.<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"é\"}}\n</tool_call>",
    "<think>Ω reasoning</think>answer 日",
    "<|channel|>analysis<|message|>think ß<|end|><|start|>assistant<|channel|>final<|message|>hi 🙂",
    "[TOOL_CALLS]f[ARGS]{\"a\": 1}",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜>",
    "<function=f>\n<parameter=k>\nv é\n</parameter>\n</function>",
    "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1}}",
    "<minimax:tool_call><invoke name=\"f\"><parameter name=\"k\">v</parameter></invoke>",
]
for i, t in enumerate(texts):
    for pick in range(0, 64, 7):
        open(os.path.join(out, "output", f"o{i}_{pick}"), "wb").write(bytes([pick, i]) + t.encode())
print(f"seeded {out}: {len(templates)} templates, {len(scen)} scenarios")
PY
