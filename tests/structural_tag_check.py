"""xgrammar structural tags (`{"type": "structural_tag", "format": ...}`) for the grammar checks:

- validate(tag): the JSON against the structural-tag format as xgrammar documents it
  (docs/structural_tag/structural_tag.md: every format type, its fields and their types), and
  each JSON schema inside it compiled by llguidance;
- to_lark(tag): the equivalent Lark grammar for llguidance, following xgrammar's semantics:
  `any_text` is text containing none of its `excludes` nor the `end` of the nearest enclosing
  `tag`; `triggered_tags` is such text (also without its triggers) where each trigger starts
  one of its tags, again and again unless `stop_after_first`, starting with a tag when
  `at_least_one`; `tags_with_separator` is the tags separated by the separator; `json_schema`
  becomes llguidance's `%json {...}`; a `grammar` node (GBNF) becomes Lark rules;
- xgrammar_accepts(tag, texts): when the xgrammar package can be imported, its own verdicts.

Free text is lowered to character-level rules (an Aho-Corasick automaton over the excluded
strings) and literals are written one character at a time, so llguidance's lexer never has to
choose between a literal and free text that starts with the same character.
"""

import json
import re

TYPES = {
    "const_string": ({"value"}, set()),
    "json_schema": ({"json_schema"}, {"style", "any_order", "max_whitespace_cnt"}),
    "qwen_xml_parameter": ({"json_schema"}, set()),
    "any_text": (set(), {"excludes", "max_tokens", "max_chars"}),
    "grammar": ({"grammar"}, set()),
    "regex": ({"pattern"}, set()),
    "sequence": ({"elements"}, set()),
    "or": ({"elements"}, set()),
    "optional": ({"content"}, set()),
    "plus": ({"content"}, set()),
    "star": ({"content"}, set()),
    "repeat": ({"min", "max", "content"}, set()),
    "tag": ({"begin", "content", "end"}, set()),
    "triggered_tags": ({"triggers", "tags"}, {"at_least_one", "stop_after_first", "excludes"}),
    "tags_with_separator": ({"tags", "separator"}, {"at_least_one", "stop_after_first"}),
    "dispatch": ({"rules"}, {"loop", "excludes"}),
    "token": ({"token"}, set()),
    "exclude_token": (set(), {"exclude_tokens"}),
    "any_tokens": (set(), {"exclude_tokens", "max_tokens"}),
    "token_triggered_tags": ({"trigger_tokens", "tags"}, {"exclude_tokens", "at_least_one", "stop_after_first"}),
    "token_dispatch": ({"rules"}, {"loop", "exclude_tokens"}),
}
STYLES = {"json", "qwen_xml", "minimax_xml", "deepseek_xml", "glm_xml", "cohere_xml", "kimi_k3_xml"}


class Invalid(ValueError):
    pass


def _need(cond, path, what):
    if not cond:
        raise Invalid("%s: %s" % (path, what))


def _strs(v, path, nonempty=False):
    _need(isinstance(v, list) and all(isinstance(x, str) for x in v), path, "a list of strings")
    if nonempty:
        _need(v and all(v), path, "a non-empty list of non-empty strings")


def _token(v, path):
    _need(isinstance(v, (int, str)) and not isinstance(v, bool), path, "a token id or string")


def validate(tag, check_schema=None):
    """Raises Invalid unless `tag` is a structural tag of xgrammar's documented shape; calls
    check_schema(schema, path) for every JSON schema inside. Returns the number of nodes."""
    _need(isinstance(tag, dict), "$", "an object")
    _need(set(tag) == {"type", "format"}, "$", "exactly the keys type and format")
    _need(tag["type"] == "structural_tag", "$.type", '"structural_tag"')
    count = [0]

    def fmt(f, path):
        count[0] += 1
        _need(isinstance(f, dict) and isinstance(f.get("type"), str), path, "a format object with a type")
        t = f["type"]
        _need(t in TYPES, path, "a known format type, not %r" % t)
        req, opt = TYPES[t]
        keys = set(f) - {"type"}
        _need(req <= keys, path, "%s needs %s" % (t, sorted(req - keys)))
        _need(keys <= req | opt, path, "%s has unknown fields %s" % (t, sorted(keys - req - opt)))
        for k in ("at_least_one", "stop_after_first", "any_order", "loop"):
            if k in f:
                _need(isinstance(f[k], bool), path + "." + k, "a boolean")
        for k in ("max_tokens", "max_chars", "max_whitespace_cnt"):
            if f.get(k) is not None:
                _need(isinstance(f[k], int) and 0 <= f[k] <= 2147483647, path + "." + k, "a count")
        if t == "const_string":
            _need(isinstance(f["value"], str), path + ".value", "a string")
        elif t in ("json_schema", "qwen_xml_parameter"):
            s = f["json_schema"]
            _need(isinstance(s, (dict, bool)), path + ".json_schema", "an object or a boolean")
            if "style" in f:
                _need(f["style"] in STYLES, path + ".style", "one of %s" % sorted(STYLES))
            if check_schema:
                check_schema(s, path + ".json_schema")
        elif t == "any_text":
            if "excludes" in f:
                _strs(f["excludes"], path + ".excludes")
        elif t in ("grammar", "regex"):
            k = "grammar" if t == "grammar" else "pattern"
            _need(isinstance(f[k], str) and f[k], path + "." + k, "a non-empty string")
        elif t in ("sequence", "or"):
            _need(isinstance(f["elements"], list) and f["elements"], path + ".elements", "a non-empty list")
            for i, e in enumerate(f["elements"]):
                fmt(e, "%s.elements[%d]" % (path, i))
        elif t in ("optional", "plus", "star"):
            fmt(f["content"], path + ".content")
        elif t == "repeat":
            _need(isinstance(f["min"], int) and isinstance(f["max"], int), path, "integer min and max")
            _need(f["min"] >= 0 and (f["max"] == -1 or f["max"] >= f["min"]), path, "0 <= min <= max or max = -1")
            fmt(f["content"], path + ".content")
        elif t == "tag":
            tagf(f, path, string_begin=False)
        elif t == "triggered_tags":
            _strs(f["triggers"], path + ".triggers", nonempty=True)
            _need(isinstance(f["tags"], list) and f["tags"], path + ".tags", "a non-empty list")
            for i, x in enumerate(f["tags"]):
                p = "%s.tags[%d]" % (path, i)
                tagf(x, p, string_begin=True)
                hits = [tr for tr in f["triggers"] if x["begin"].startswith(tr)]
                _need(len(hits) == 1, p + ".begin", "starts with exactly one trigger (%d do)" % len(hits))
            if "excludes" in f:
                _strs(f["excludes"], path + ".excludes")
        elif t == "tags_with_separator":
            _need(isinstance(f["separator"], str), path + ".separator", "a string")
            _need(isinstance(f["tags"], list) and f["tags"], path + ".tags", "a non-empty list")
            for i, x in enumerate(f["tags"]):
                tagf(x, "%s.tags[%d]" % (path, i), string_begin=False)
        elif t == "dispatch":
            _need(isinstance(f["rules"], list) and f["rules"], path + ".rules", "a non-empty list")
            for i, r in enumerate(f["rules"]):
                p = "%s.rules[%d]" % (path, i)
                _need(isinstance(r, list) and len(r) == 2 and isinstance(r[0], str), p, "a [pattern, format] pair")
                fmt(r[1], p + "[1]")
            if "excludes" in f:
                _strs(f["excludes"], path + ".excludes")
        elif t == "token":
            _token(f["token"], path + ".token")
        elif t in ("exclude_token", "any_tokens"):
            for x in f.get("exclude_tokens", []):
                _token(x, path + ".exclude_tokens")
        elif t == "token_triggered_tags":
            for x in f["trigger_tokens"]:
                _token(x, path + ".trigger_tokens")
            for i, x in enumerate(f["tags"]):
                tagf(x, "%s.tags[%d]" % (path, i), string_begin=False)
        elif t == "token_dispatch":
            for i, r in enumerate(f["rules"]):
                p = "%s.rules[%d]" % (path, i)
                _need(isinstance(r, list) and len(r) == 2, p, "a [token, format] pair")
                _token(r[0], p + "[0]")
                fmt(r[1], p + "[1]")

    def tagf(f, path, string_begin):
        _need(isinstance(f, dict) and f.get("type", "tag") == "tag", path, "a tag")
        keys = set(f) - {"type"}
        _need(keys == {"begin", "content", "end"}, path, "a tag has begin, content and end")
        b, e = f["begin"], f["end"]
        if string_begin:
            _need(isinstance(b, str), path + ".begin", "a string (tags behind triggers)")
        elif isinstance(b, dict):
            fmt(b, path + ".begin")
            _need(b["type"] == "token", path + ".begin", "a string or a token")
        else:
            _need(isinstance(b, str), path + ".begin", "a string or a token")
        if isinstance(e, dict):
            fmt(e, path + ".end")
            _need(e["type"] == "token", path + ".end", "a string, strings or a token")
        elif isinstance(e, list):
            _strs(e, path + ".end")
        else:
            _need(isinstance(e, str), path + ".end", "a string, strings or a token")
        count[0] += 1
        fmt(f["content"], path + ".content")
        # xgrammar: unbounded content needs a non-empty end (it stops the free text).
        ends = [e] if isinstance(e, str) else (e if isinstance(e, list) else ["<token>"])
        _need(not unlimited(f["content"]) or any(ends), path + ".end",
              "non-empty: the content is unbounded")

    fmt(tag["format"], "$.format")
    return count[0]


def _excluded(f):
    return f["type"] in ("any_text", "triggered_tags", "dispatch") and bool(f.get("excludes"))


def unlimited(f):
    """xgrammar's notion of a format with no length bound (StructuralTagAnalyzer::IsUnlimited)."""
    t = f["type"]
    if t in ("any_text", "triggered_tags", "token_triggered_tags", "dispatch", "token_dispatch",
             "any_tokens", "tags_with_separator", "star", "plus"):
        return True
    if t in ("sequence", "or"):
        return any(unlimited(x) and not _excluded(x) for x in f["elements"])
    if t == "optional":
        return unlimited(f["content"])
    if t == "repeat":
        return f["max"] == -1 or (f["max"] != 0 and unlimited(f["content"]))
    return False


# ---------------------------------------------------------------------------------------------
# Translation to Lark


def _lit(s):
    return " ".join(json.dumps(c) for c in s) if s else '""'


def _cls_lark(body):
    """A regex character class `[...]` as a Lark regex lexeme."""
    body = re.sub(r"\\u([0-9A-Fa-f]{4})", lambda m: "\\x{%s}" % m.group(1), body)
    return "/" + body.replace("/", "\\/") + "/"


class Lark:
    def __init__(self):
        self.rules = []
        self.n = 0
        self.automata = {}

    def rule(self, body, base="r"):
        self.n += 1
        name = "%s_%d" % (base, self.n)
        self.rules.append("%s: %s" % (name, body))
        return name

    def avoid(self, stops):
        """Text containing none of `stops` (any text when there are none)."""
        stops = sorted(set(s for s in stops if s))
        key = tuple(stops)
        if key in self.automata:
            return self.automata[key]
        if not stops:
            name = self.rule("", "anytext")
            self.rules[-1] = "%s: (/(?s:.)/ %s)?" % (name, name)
            self.automata[key] = name
            return name
        # Trie, failure links, then one rule per live state.
        children, done = [{}], [False]
        for s in stops:
            q = 0
            for c in s:
                if c not in children[q]:
                    children.append({})
                    done.append(False)
                    children[q][c] = len(children) - 1
                q = children[q][c]
            done[q] = True
        fail = [0] * len(children)
        order, queue = [], list(children[0].values())
        while queue:
            u = queue.pop(0)
            order.append(u)
            for c, v in children[u].items():
                f = fail[u]
                while True:
                    w = children[f].get(c)
                    if w is not None and w != v:
                        fail[v] = w
                        break
                    if f == 0:
                        fail[v] = 0
                        break
                    f = fail[f]
                queue.append(v)
        for u in order:
            done[u] = done[u] or done[fail[u]]

        def step(q, c):
            while True:
                if c in children[q]:
                    return children[q][c]
                if q == 0:
                    return 0
                q = fail[q]

        alphabet = sorted(set("".join(stops)))
        self.n += 1
        base = "avoid_%d" % self.n
        names = {q: "%s_s%d" % (base, q) for q in range(len(children)) if not done[q]}
        for q, name in names.items():
            special = [c for c in alphabet if step(q, c) != 0 or done[step(q, c)]]
            cls = "".join(_esc_class(c) for c in special)
            alts = ["%s %s" % (("/[^%s]/" % cls) if special else "/(?s:.)/", names[0])]
            for c in special:
                t = step(q, c)
                if not done[t]:
                    alts.append("%s %s" % (json.dumps(c), names[t]))
            self.rules.append("%s: (%s)?" % (name, " | ".join(alts)))
        self.automata[key] = names[0]
        return names[0]

    def grammar(self, gbnf):
        """Our GBNF (name ::= expr lines) as Lark rules; returns the root's name."""
        self.n += 1
        prefix = "g%d_" % self.n
        tok = re.compile(r'\s+|"(?:\\.|[^"\\])*"|\[(?:\\.|[^\]\\])*\]|[A-Za-z0-9_-]+|::=|[()|?*+]')
        for line in gbnf.splitlines():
            if not line.strip():
                continue
            out, pos = [], 0
            while pos < len(line):
                m = tok.match(line, pos)
                if not m:
                    raise Invalid("grammar node: cannot read %r" % line[pos:pos + 20])
                pos = m.end()
                t = m.group(0)
                if t.isspace():
                    continue
                if t.startswith('"'):
                    s = json.loads(re.sub(r"\\x([0-9A-Fa-f]{2})", r"\\u00\1", t))
                    out.append("(%s)" % _lit(s) if len(s) > 1 else _lit(s))
                elif t.startswith("["):
                    out.append(_cls_lark(re.sub(r"\\x([0-9A-Fa-f]{2})", r"\\x{\1}", t)))
                elif t == "::=":
                    out.append(":")
                elif t in "()|?*+":
                    out.append(t)
                else:
                    out.append(prefix + t.replace("-", "_"))
            _need(len(out) > 2 and out[1] == ":", "grammar node", "rules of the form name ::= expr")
            self.rules.append("%s: %s" % (out[0], " ".join(out[2:])))
        return prefix + "root"


def _esc_class(c):
    if c in "\\]^-[/":
        return "\\" + c
    if c == "\n":
        return "\\n"
    if c == "\r":
        return "\\r"
    if c == "\t":
        return "\\t"
    if ord(c) < 0x20:
        return "\\x{%X}" % ord(c)
    return c


_CLASS = re.compile(r"^(\[(?:\\.|[^\]\\])*\])([*+]?)$")


def to_lark(tag):
    """The Lark grammar (llguidance's dialect) equivalent to the structural tag `tag`."""
    L = Lark()

    def node(f, ends):
        t = f["type"]
        if t == "const_string":
            return "(%s)" % _lit(f["value"])
        if t == "json_schema":
            if f.get("style", "json") != "json":
                raise Invalid("json_schema style %r is not translated" % f["style"])
            return "%json " + json.dumps(f["json_schema"])
        if t == "regex":
            m = _CLASS.match(f["pattern"])
            if f["pattern"] == "[\\s\\S]":
                return "/(?s:.)/"
            if not m:
                raise Invalid("regex %r is not translated" % f["pattern"])
            c = _cls_lark(m.group(1))
            if m.group(2) == "*":
                r = L.rule("")
                L.rules[-1] = "%s: (%s %s)?" % (r, c, r)
                return r
            if m.group(2) == "+":
                r = L.rule("")
                L.rules[-1] = "%s: %s %s?" % (r, c, r)
                return r
            return c
        if t == "grammar":
            return L.grammar(f["grammar"])
        if t == "any_text":
            return L.avoid(list(f.get("excludes", [])) + ends)
        if t == "sequence":
            return "(%s)" % " ".join(node(x, ends) for x in f["elements"])
        if t == "or":
            return "(%s)" % " | ".join(node(x, ends) for x in f["elements"])
        if t == "optional":
            return "(%s)?" % node(f["content"], ends)
        if t in ("star", "plus"):
            r = L.rule(node(f["content"], ends))
            return "%s%s" % (r, "*" if t == "star" else "+")
        if t == "repeat":
            c = L.rule(node(f["content"], ends))
            lo, hi = f["min"], f["max"]
            parts = [c] * lo + (["%s*" % c] if hi == -1 else ["%s?" % c] * (hi - lo))
            return "(%s)" % (" ".join(parts) or '""')
        if t == "tag":
            return tagn(f)
        if t == "triggered_tags":
            free = L.avoid(list(f["triggers"]) + list(f.get("excludes", [])) + ends)
            group = L.rule(" | ".join(tagn(x) for x in f["tags"]))
            first, loop = f.get("at_least_one", False), not f.get("stop_after_first", False)
            if first and not loop:
                return group
            if loop:
                d = L.rule("")
                L.rules[-1] = "%s: %s (%s %s)?" % (d, free, group, d)
            else:
                d = L.rule("%s %s?" % (free, group))
            return "(%s %s)" % (group, d) if first else d
        if t == "tags_with_separator":
            tags = L.rule(" | ".join(tagn(x) for x in f["tags"]))
            sep = "(%s)" % _lit(f["separator"]) if f["separator"] else ""
            body = tags if f.get("stop_after_first", False) else "%s (%s %s)*" % (tags, sep, tags)
            return "(%s)" % body if f.get("at_least_one", False) else "(%s)?" % body
        raise Invalid("format %r is not translated" % t)

    def tagn(f):
        e = f["end"] if isinstance(f["end"], list) else [f["end"]]
        content = node(f["content"], [x for x in e if x])
        end = "(%s)" % " | ".join("(%s)" % _lit(x) for x in e)
        return "(%s %s %s)" % ("(%s)" % _lit(f["begin"]), content, end)

    start = node(tag["format"], [])
    return "\n".join(["start: " + start] + L.rules) + "\n"


# ---------------------------------------------------------------------------------------------
# xgrammar itself, when it can be imported


_XGR = []


def xgrammar():
    """The xgrammar module, or None. Its package requires torch, which it needs only for GPU
    bitmasks: without torch, a stand-in module is put in its place after xgrammar's FFI layer
    has loaded. $CHATCODEC_XGRAMMAR names a folder to import it from."""
    if _XGR:
        return _XGR[0]
    mod = None
    try:
        import os
        import sys
        import types

        # An install made with `pip install --no-deps --target DIR` (see .ci/run).
        if os.environ.get("CHATCODEC_XGRAMMAR"):
            sys.path.insert(0, os.environ["CHATCODEC_XGRAMMAR"])
        try:
            import torch  # noqa: F401
        except ImportError:
            import tvm_ffi  # noqa: F401

            import importlib.machinery

            stub = types.ModuleType("torch")
            stub.__spec__ = importlib.machinery.ModuleSpec("torch", None)

            class Any:
                def __getattr__(self, name):
                    return Any()

                def __call__(self, *a, **k):
                    return Any()

            stub.Tensor = stub.dtype = stub.device = object
            stub.__getattr__ = lambda name: Any()
            sys.modules["torch"] = stub
        import xgrammar as mod  # noqa: F811
        from xgrammar.testing import _is_grammar_accept_string  # noqa: F401
    except Exception:
        mod = None
    _XGR.append(mod)
    return mod


def xgrammar_accepts(tag, texts):
    """xgrammar's verdict on each text, or None when xgrammar is not available."""
    x = xgrammar()
    if x is None:
        return None
    from xgrammar.testing import _is_grammar_accept_string

    g = x.Grammar.from_structural_tag(tag)
    return [bool(_is_grammar_accept_string(g, t)) for t in texts]


# ---------------------------------------------------------------------------------------------
# Self-test: the validator refuses malformed tags, and the translation follows xgrammar's
# semantics on small tags (checked by llguidance, and by xgrammar where it can be imported).


def _tt(at_least_one, stop_after_first):
    call = {"type": "tag", "begin": "<f=a>", "content": {"type": "json_schema", "json_schema": {
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}, "end": "</f>"}
    return {"type": "structural_tag", "format": {"type": "triggered_tags", "triggers": ["<f="], "tags": [call],
            "at_least_one": at_least_one, "stop_after_first": stop_after_first}}


SEMANTICS = [
    (_tt(False, False), ["hi", "", 'x<f=a>{"n": 1}</f>y<f=a>{"n": 2}</f>z'],
     ['x<f=b>{"n": 1}</f>', 'x<f=a>{"n": "1"}</f>']),
    (_tt(True, False), ['<f=a>{"n": 1}</f>y<f=a>{"n": 2}</f>'], ["hi", 'x<f=a>{"n": 1}</f>']),
    (_tt(False, True), ["hi", 'x<f=a>{"n": 1}</f>'], ['x<f=a>{"n": 1}</f>y', '<f=a>{"n": 1}</f><f=a>{"n": 1}</f>']),
    (_tt(True, True), ['<f=a>{"n": 1}</f>'], ["hi", 'x<f=a>{"n": 1}</f>', '<f=a>{"n": 1}</f>y']),
    ({"type": "structural_tag", "format": {"type": "tag", "begin": "<s>", "content": {
        "type": "tags_with_separator", "separator": ",", "at_least_one": True, "tags": [
            {"type": "tag", "begin": "[", "content": {"type": "const_string", "value": "x"}, "end": "]"}]},
        "end": "</s>"}},
     ["<s>[x]</s>", "<s>[x],[x]</s>"], ["<s></s>", "<s>[x][x]</s>", "<s>[x],</s>"]),
    ({"type": "structural_tag", "format": {"type": "sequence", "elements": [
        {"type": "tag", "begin": "<t>", "content": {"type": "sequence", "elements": [
            {"type": "any_text", "excludes": ["|"]}, {"type": "const_string", "value": "|"},
            {"type": "any_text"}]}, "end": "</t>"},
        {"type": "regex", "pattern": "[0-9]+"}]}},
     ["<t>a|b</t>7", "<t>|</t>12", "<t>a||</t>1"], ["<t>a</t>7", "<t>a|b</t>", "<t>a|b</t>c</t>7"]),
    ({"type": "structural_tag", "format": {"type": "grammar", "grammar": 'root ::= "a" root-2\nroot-2 ::= [b-c]*\n'}},
     ["a", "abcb"], ["", "ad"]),
]

INVALID = [
    {"type": "structural_tag"},
    {"type": "structural_tag", "format": {"type": "nope"}},
    {"type": "structural_tag", "format": {"type": "const_string", "value": "x", "extra": 1}},
    {"type": "structural_tag", "format": {"type": "sequence", "elements": []}},
    {"type": "structural_tag", "format": {"type": "json_schema", "json_schema": {}, "style": "yaml"}},
    {"type": "structural_tag", "format": {"type": "triggered_tags", "triggers": ["<a"], "tags": [
        {"type": "tag", "begin": "<b>", "content": {"type": "const_string", "value": "x"}, "end": ""}]}},
    {"type": "structural_tag", "format": {"type": "tag", "begin": "", "content": {"type": "any_text"}, "end": ""}},
    {"type": "structural_tag", "format": {"type": "tag", "begin": "<a>", "content": {"type": "const_string", "value": "x"}}},
    {"type": "structural_tag", "structures": [], "triggers": []},
]


def selftest(matcher, run):
    """Returns a list of failures (empty when all pass)."""
    fails = []
    for bad in INVALID:
        try:
            validate(bad)
            fails.append("validate accepted %s" % json.dumps(bad))
        except Invalid:
            pass
    import llguidance as L

    for tag, accept, reject in SEMANTICS:
        try:
            validate(tag)
            m0, err = matcher(L.grammar_from("lark", to_lark(tag)))
            if err:
                raise Invalid(err)
        except Exception as e:
            fails.append("%s: %s" % (json.dumps(tag["format"])[:80], e))
            continue
        for t in accept + reject:
            want = t in accept
            got = run(m0, t)[0]
            if got != want:
                fails.append("%s: llguidance on %r: %s" % (json.dumps(tag["format"])[:60], t, got))
        x = xgrammar_accepts(tag, accept + reject)
        if x is not None and x != [t in accept for t in accept + reject]:
            fails.append("%s: xgrammar says %s" % (json.dumps(tag["format"])[:60], x))
    return fails
