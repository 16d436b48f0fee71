"""Checks exported grammars with a real grammar engine (llguidance), and renders the assistant
turns they are checked on with transformers' reference renderer.

    python3 tests/grammar_check.py render  < {"templates": [{"file", "format", "think_open", "end_of_turn",
                                                             "prompt_prefix"}],
                                              "tools": [...], "calls": [...], "reasoning": str,
                                              "bad_name": str, "bad_type": [param, value]}
        -> [{"file", "format", "good" | null, "bad_name", "bad_type", "forced_open",
             "after_prompt_prefix", "error"}]
    python3 tests/grammar_check.py check   < {"cases": [{"id", "syntax": "gbnf"|"lark"|"structural_tag",
                                              "grammar": str, "accept": [str], "reject": [str]}]}
        -> [{"id", "error", "accepted": [bool], "rejected": [bool], "why": [str], "xgrammar"}]

A text is accepted when every byte is allowed and the matcher accepts at the end. A structural
tag must be JSON of xgrammar's structural-tag format with valid JSON schemas inside
(tests/structural_tag_check.py); it is checked through the equivalent Lark grammar, and, where
the xgrammar package can be imported, by xgrammar itself (the case's "xgrammar" field: its
verdict on each accepted then rejected text, null when not importable, or the error).
"""
import json
import os
import sys

EOT = ["<|im_end|>", "<|eot_id|>", "<|eom_id|>", "</s>", "<|end|>", "<|eot|>", "<|eom|>", "<|eos|>",
       "<｜end▁of▁sentence｜>", "<|END_OF_TURN_TOKEN|>", "<turn|>", "<end_of_turn>", "<|end_of_text|>",
       "<seed:eos>", "[e~[", "<|close|>message<|sep|>", "<|end_of_msg|>", "<|message_sep|>",
       "<SPECIAL_12>", "<|tool_response>", "<|assistant_end|>", "<|user|>", "<|observation|>", "<|return|>"]


def render_all(req):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from transformers.utils.chat_template_utils import render_jinja_template
    import output_roundtrip as rt

    kw = dict(bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>")
    tools = req["tools"]

    def render(src, msgs, gen, extra):
        out = render_jinja_template(conversations=[msgs], tools=tools, chat_template=src,
                                    add_generation_prompt=gen, **kw, **extra)
        while isinstance(out, (tuple, list)):
            out = out[0]
        return out

    def turn(src, t, calls, string_args):
        fmt = t["format"]
        tool_calls = [{"id": rt.call_id(fmt, c["name"], i), "type": "function",
                       "function": {"name": c["name"],
                                    "arguments": json.dumps(c["arguments"]) if string_args else c["arguments"]}}
                      for i, c in enumerate(calls)]
        head = [{"role": "system", "content": "You are helpful."},
                {"role": "user", "content": "Weather in Paris, and search rust peg?"}]
        msg = {"role": "assistant", "content": "", "tool_calls": tool_calls, "reasoning_content": req["reasoning"]}
        extra = ({"functions": json.dumps([x["function"] for x in tools]), "datetime": "2024-07-26"}
                 if fmt == "firefunction-v2" else {})
        prompt = render(src, head, True, extra)
        full = render(src, head + [msg], False, extra)
        if not full.startswith(prompt):
            # A prompt that closes thinking (enable_thinking unset) is not followed by the
            # reasoning the history turn writes: render both with thinking enabled.
            try:
                on = dict(extra, enable_thinking=True)
                p2, f2 = render(src, head, True, on), render(src, head + [msg], False, on)
                if f2.startswith(p2):
                    prompt, full = p2, f2
            except Exception:
                pass
        if full.startswith(prompt):
            text = full[len(prompt):]
        else:
            # The history renders the last user turn differently: take what follows the user's
            # words, less what the prompt writes after them (the generation prompt).
            u = head[-1]["content"]
            t0 = full[full.rfind(u) + len(u):] if u in full else full[rt.split_point(prompt, full):]
            ptail = prompt[prompt.rfind(u) + len(u):] if u in prompt else ""
            n = 0
            while n < min(len(t0), len(ptail)) and t0[n] == ptail[n]:
                n += 1
            head_ = t0[:n]
            for o_, c_ in (("<", ">"), ("[", "]")):
                i_ = head_.rfind(o_)
                if i_ >= 0 and head_.rfind(c_) < i_:
                    n = min(n, i_)
            text, rest = t0[n:], ptail[n:].strip()
            if rest and text.lstrip().startswith(rest):
                text = text.lstrip()[len(rest):]
            elif rest:
                # The prompt's header differs from the history's (a template writing a
                # literal {role}): the turn starts after the last marker they share.
                for k in range(len(rest)):
                    suf = rest[k:]
                    if suf[0] in "<[" and len(suf) >= 4 and suf in text[:len(rest) + 40]:
                        text = text[text.index(suf) + len(suf):]
                        break
        if not all(c["name"] in text for c in calls):
            raise ValueError("the rendered turn does not contain the calls")
        # The end of turn: the first end marker after the last call's name.
        k = text.rfind(calls[-1]["name"])
        ends = [text.find(e, k) for e in EOT + [t.get("end_of_turn") or "\x00"] if text.find(e, k) >= 0]
        if ends:
            text = text[:min(ends)]
        text = text.rstrip()
        op = t.get("think_open") or ""
        cl = t.get("think_close") or ""
        forced = (bool(op) and prompt.rstrip().endswith(op) and not text.lstrip().startswith(op)
                  and bool(cl) and cl in text)
        pp = t.get("prompt_prefix") or ""
        after = bool(pp) and full.startswith(prompt) and prompt.endswith(pp) and not text.startswith(pp)
        return text, forced, after

    results = []
    for t in req["templates"]:
        res = {"file": t["file"], "format": t["format"], "good": None, "forced_open": False, "error": None}
        try:
            with open(t["file"], encoding="utf-8") as f:
                src = f.read()
        except OSError as e:
            res["error"] = str(e)
            results.append(res)
            continue
        p, v = req["bad_type"]
        for cs in (req["calls"], [c for c in req["calls"] if p in c["arguments"]][:1]):
            bn = [dict(cs[0], name=req["bad_name"])] + cs[1:]
            bt = [dict(c, arguments=dict(c["arguments"], **{p: v})) if p in c["arguments"] else c for c in cs]
            for string_args in (False, True):
                try:
                    res["good"], res["forced_open"], res["after_prompt_prefix"] = turn(src, t, cs, string_args)
                    res["bad_name"], _, _ = turn(src, t, bn, string_args)
                    res["bad_type"], _, _ = turn(src, t, bt, string_args)
                    res["calls"] = len(cs)
                    res["error"] = None
                    break
                except Exception as e:  # the template refused this shape
                    res["good"] = None
                    res["error"] = "%s: %s" % (type(e).__name__, e)
            if res["good"] is not None:
                break
        results.append(res)
    return results


class ByteTokenizer:
    """One token per byte, plus an end-of-sequence token."""

    def __init__(self):
        self.tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
        self.eos_token_id = 256
        self.bos_token_id = None
        self.special_token_ids = [256]

    def __call__(self, b):
        return list(b)


def byte_matcher():
    """llguidance over a byte-level tokenizer: `matcher(grammar)` gives a matcher and its
    error (or None); `run(matcher, text)` feeds the text byte by byte and says whether it is
    accepted, and if not why."""
    import llguidance as L

    tok = L.LLTokenizer(L.TokenizerWrapper(ByteTokenizer()))

    def matcher(g):
        m = L.LLMatcher(tok, g, log_level=0)
        return m, (m.get_error() if m.is_error() else None)

    def run(m0, text):
        m = m0.deep_copy()
        data = text.encode()
        for i, b in enumerate(data):
            if not m.consume_token(b):
                return False, "byte %d rejected after %r" % (i, data[max(0, i - 40):i + 1].decode(errors="replace"))
        return (True, "") if m.is_accepting() else (False, "not accepting at the end")

    return matcher, run


def check_all(req):
    import llguidance as L

    import structural_tag_check as ST

    matcher, run = byte_matcher()

    def check_schema(schema, path):
        try:
            import jsonschema
        except ImportError:
            jsonschema = None
        if jsonschema is not None and isinstance(schema, dict):
            jsonschema.Draft202012Validator.check_schema(schema)
        why = L.LLMatcher.validate_grammar(L.grammar_from("json_schema", json.dumps(schema)))
        if why:
            raise ST.Invalid("%s: %s" % (path, why))

    def struct_grammar(text):
        tag = json.loads(text)
        ST.validate(tag, check_schema)
        return ST.to_lark(tag)

    out = []
    for c in req["cases"]:
        r = {"id": c["id"], "error": None, "accepted": [], "rejected": [], "why": []}
        try:
            if c["syntax"] == "structural_tag":
                g = L.grammar_from("lark", struct_grammar(c["grammar"]))
            else:
                g = L.grammar_from(c["syntax"], c["grammar"])
            m0, e = matcher(g)
            if e:
                raise ValueError(e)
        except Exception as e:
            r["error"] = "%s: %s" % (type(e).__name__, e)
            out.append(r)
            continue
        for t in c["accept"]:
            ok, why = run(m0, t)
            r["accepted"].append(ok)
            r["why"].append(why)
        for t in c["reject"]:
            ok, why = run(m0, t)
            r["rejected"].append(not ok)
        if c["syntax"] == "structural_tag":
            # xgrammar's own verdicts, where it can be imported.
            try:
                x = ST.xgrammar_accepts(json.loads(c["grammar"]), c["accept"] + c["reject"])
            except Exception as e:
                x = "%s: %s" % (type(e).__name__, e)
            r["xgrammar"] = x
        out.append(r)
    return out


def selftest():
    """The structural-tag checker's own test (structural_tag_check.selftest)."""
    import structural_tag_check as ST

    matcher, run = byte_matcher()
    return {"failures": ST.selftest(matcher, run), "xgrammar": ST.xgrammar() is not None}


def main():
    req = json.load(sys.stdin)
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "render":
        json.dump(render_all(req), sys.stdout)
    elif mode == "check":
        json.dump(check_all(req), sys.stdout)
    elif mode == "selftest":
        json.dump(selftest(), sys.stdout)
    else:
        sys.exit("usage: grammar_check.py render|check|selftest < request.json")


if __name__ == "__main__":
    main()
