"""`tokenizer.apply_chat_template` with the one-line patch equals it unpatched, and
`ChatTemplate.from_pretrained(folder).apply` equals both, for a model folder made from every
corpus template (a real tokenizer.json with <s>, </s>, <unk>, the template in
tokenizer_config.json, as tests/reference/load_corpus.py makes them). Threads share one
ChatTemplate and get the same prompts."""

import copy
import threading

import pytest

import chatcodec
from conftest import model_folder, need, read_template, scenarios, templates


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    tokenizers = need("tokenizers")
    out = tmp_path_factory.mktemp("models")
    vocab = {t: i for i, t in enumerate(["<unk>", "<s>", "</s>", "hello"])}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.add_special_tokens(["<unk>", "<s>", "</s>"])
    tokenizer_json = tok.to_str()
    made = {}
    for name in templates():
        made[name] = model_folder(out, name, tokenizer_json)
    return made


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001
        return ("error", type(e).__name__)


def test_patched_apply_chat_template_equals_unpatched(folders):
    transformers = need("transformers")
    tub = need("transformers.tokenization_utils_base")
    cases = scenarios()
    problems, compared, ok = [], 0, 0
    real = tub.render_jinja_template
    for name, folder in folders.items():
        tok = transformers.AutoTokenizer.from_pretrained(folder)
        ours = chatcodec.ChatTemplate.from_pretrained(folder)
        for scenario, request in cases:
            req = copy.deepcopy(request)
            messages = req.pop("messages")

            def apply():
                return tok.apply_chat_template(messages, tokenize=False, **req)

            want = outcome(apply)
            tub.render_jinja_template = chatcodec.render_jinja_template
            try:
                got = outcome(apply)
            finally:
                tub.render_jinja_template = real
            direct = outcome(lambda: ours.apply(messages, **req))
            compared += 1
            ok += want[0] == "ok"
            if got[0] != want[0] or (want[0] == "ok" and got != want):
                problems.append(f"{name} {scenario}: patched {got!r:.200} vs {want!r:.200}")
            if direct[0] != want[0] or (want[0] == "ok" and direct != want):
                problems.append(f"{name} {scenario}: ChatTemplate {direct!r:.200} vs {want!r:.200}")
    assert compared > 1000 and ok > 500, (compared, ok)
    assert not problems, "\n".join(problems[:30])


def test_patch_transformers_one_line():
    tub = need("transformers.tokenization_utils_base")
    ctu = need("transformers.utils.chat_template_utils")
    pu = need("transformers.processing_utils")
    saved = (tub.render_jinja_template, ctu.render_jinja_template, pu.render_jinja_template)
    try:
        chatcodec.patch_transformers()
        assert tub.render_jinja_template is chatcodec.render_jinja_template
        assert ctu.render_jinja_template is chatcodec.render_jinja_template
        assert pu.render_jinja_template is chatcodec.render_jinja_template
    finally:
        # All three, or later tests would compare chatcodec's renderer against itself.
        tub.render_jinja_template, ctu.render_jinja_template, pu.render_jinja_template = saved


def test_eight_threads_share_one_template():
    t = chatcodec.ChatTemplate(read_template("Qwen-Qwen3-0.6B.jinja"), eos_token="<|im_end|>")
    jobs = []
    for _, request in scenarios():
        req = copy.deepcopy(request)
        messages = req.pop("messages")
        jobs.append((messages, req))

    def run_all():
        out = []
        for messages, req in jobs:
            try:
                out.append(t.apply(messages, **req))
            except Exception as e:  # noqa: BLE001
                out.append(type(e).__name__)
        return out

    want = run_all()
    assert any(isinstance(w, str) and "<|im_start|>" in w for w in want)
    results = [None] * 8

    def worker(i):
        results[i] = [run_all() for _ in range(50)]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for r in results:
        assert r is not None and all(x == want for x in r)


def test_from_pretrained_reads_gguf_files(tmp_path):
    gguf = need("gguf")
    np = need("numpy")
    source = read_template("Qwen-Qwen3-0.6B.jinja")
    path = tmp_path / "model.gguf"
    tokens = ["<unk>", "<s>", "</s>", "hello"]
    w = gguf.GGUFWriter(str(path), arch="llama")
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * len(tokens))
    w.add_token_types([2, 3, 3, 1])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_chat_template(source)
    w.add_tensor("token_embd.weight", np.zeros((len(tokens), 4), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    t = chatcodec.ChatTemplate.from_pretrained(path)
    assert t.source == source
    assert t.special_tokens.get("eos_token") == "</s>"
    assert t.format == "hermes"
    for _, request in scenarios():
        req = copy.deepcopy(request)
        messages = req.pop("messages")
        want = outcome(lambda: chatcodec.ChatTemplate(source, bos_token="<s>", eos_token="</s>").apply(messages, **req))
        assert outcome(lambda: t.apply(messages, **req)) == want


def test_signature_is_transformers():
    import inspect

    ctu = need("transformers.utils.chat_template_utils")
    ours = inspect.signature(chatcodec.render_jinja_template)
    theirs = inspect.signature(ctu.render_jinja_template)
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == [
        (p.name, p.kind, p.default) for p in theirs.parameters.values()
    ]
