"""Random Jinja expressions (seeded) over variables of every JSON type, rendered by chatcodec
and by transformers: the same text, or the same exception class.

The generator combines literals and variables with filters, tests, operators, methods,
subscripts, slices and conditionals, three levels deep. Two jinja2 behaviours are left out
by construction, as they come from its compile-time constant folding rather than from
evaluation: slicing a literal number (`{{ 0.5[:2] }}` folds to an undefined value, while
`x[:2]` of a number variable raises TypeError), and a filter or test that exists in no
environment behind a constant `or` (`{{ 1 or x | nosuch }}` folds the filter away). Memory
addresses in reprs (`<generator object ... at 0x...>`) are compared without the address, and
the iterator `reverse` returns by its kind only (Python names it after the reversed type:
`reversed` for a tuple, `dict_reversekeyiterator` for a dict).

A second test builds statements around such expressions: loops with filters, `else` and
`loop` attributes, `if`/`elif`/`else`, `set` and block `set`, namespaces, macros with
defaults, `varargs` and `kwargs`, filter blocks, comments and whitespace control.
"""

import random
import re

import chatcodec
from conftest import need, same_outcome

VARS = {
    "s": "Hello, World", "u": "naïve 日本", "e": "", "n": 7, "m": -3, "f": 2.5, "z": 0,
    "b": True, "l": [3, 1, 2], "ls": ["b", "a", "c"], "d": {"k": 1, "a": "x"},
    "dl": [{"a": 1, "b": "x"}, {"a": 2}], "no": None, "t": (1, "a"), "big": 2**70,
}
# `**` is left out: jinja2 computes `7 ** 2**70` (or `l * big`) without a limit.
NAMES = list(VARS) + ["missing"]
LITERALS = ["'lit'", "\"q'\"", "42", "-1", "0.5", "1e3", "true", "false", "none", "[1, 2]",
            "{'a': 1}", "(1,)", "''"]
FILTERS = [
    "length", "first", "last", "upper", "lower", "title", "capitalize", "trim", "string", "int",
    "float", "abs", "list", "sort", "reverse", "unique", "join", "join(', ')", "tojson",
    "default('D')", "default('D', true)", "replace('l', 'L')", "truncate(5)", "center(9)",
    "indent(2)", "wordcount", "round", "round(1, 'floor')", "sum", "min", "max", "items",
    "dictsort", "selectattr('a')", "map(attribute='a')", "map('string')", "select('odd')",
    "reject('none')", "batch(2)", "slice(2)", "count", "e", "escape", "safe", "striptags",
    "urlencode", "format(1)", "attr('a')", "xmlattr", "wordwrap(3)", "pprint",
]
TESTS = [
    "defined", "undefined", "none", "string", "number", "integer", "float", "mapping",
    "sequence", "iterable", "callable", "odd", "even", "divisibleby(3)", "in([1,2])", "eq(7)",
    "lt(3)", "true", "false", "boolean", "sameas(none)", "lower", "upper", "escaped", "filter",
    "test",
]
OPS = ["+", "-", "*", "/", "//", "%", "~", "==", "!=", "<", ">=", "in", "not in", "and",
       "or"]
METHODS = [
    "upper()", "lower()", "strip()", "split()", "split(',')", "startswith('H')",
    "endswith('d')", "replace('o', '0')", "find('o')", "count('l')", "title()", "format(1)",
    "items()", "keys()", "values()", "get('a')", "get('zz', 5)", "index(1)",
    "join(['a', 'b'])", "zfill(5)", "center(7, '*')", "splitlines()", "rstrip('d')",
    "lstrip('H')", "isdigit()", "isalpha()",
]


def expr(r, depth):
    k = r.random()
    if depth <= 0 or k < 0.3:
        return r.choice(NAMES if r.random() < 0.6 else LITERALS)
    if k < 0.5:
        return f"{expr(r, depth - 1)} | {r.choice(FILTERS)}"
    if k < 0.6:
        return f"{expr(r, depth - 1)} is {r.choice(['', 'not '])}{r.choice(TESTS)}"
    if k < 0.75:
        op = r.choice(OPS)
        left, right = expr(r, depth - 1), expr(r, depth - 1)
        if op == "*" and "big" in left + right:
            op = "+"
        return f"({left} {op} {right})"
    if k < 0.82:
        return f"{expr(r, depth - 1)}.{r.choice(METHODS)}"
    if k < 0.88:
        # Subscripts of a variable (see the module doc for literals).
        return f"{r.choice(NAMES)}[{r.choice(['0', '-1', '1:', ':2', '::-1', repr('a'), 'n'])}]"
    if k < 0.93:
        return f"({expr(r, depth - 1)} if {expr(r, depth - 1)} else {expr(r, depth - 1)})"
    if k < 0.97:
        return f"not {expr(r, depth - 1)}"
    return f"[{expr(r, depth - 1)}, {expr(r, depth - 1)}]"


ADDRESS = re.compile(r" at 0x[0-9a-f]+", re.IGNORECASE)
REVERSED = re.compile(r"<(reversed|list_reverseiterator|dict_reversekeyiterator) object")


def outcome(fn, template):
    try:
        out, _ = fn([[{"role": "user", "content": "hi"}]], chat_template=template, **VARS)
        return "ok", REVERSED.sub("<reverse iterator", ADDRESS.sub(" at 0x", out[0]))
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return "error", e


def test_random_expressions_match_transformers():
    ctu = need("transformers.utils.chat_template_utils")
    differences = []
    for seed in range(3000):
        template = "{{ " + expr(random.Random(seed), 3) + " }}"
        theirs = outcome(ctu.render_jinja_template, template)
        ours = outcome(chatcodec.render_jinja_template, template)
        if not same_outcome(theirs, ours):
            differences.append(f"{template}\n    transformers {theirs[1]!r:.150}\n    chatcodec {ours[1]!r:.150}")
    assert not differences, f"{len(differences)} of 3000 differ:\n" + "\n".join(differences[:15])


LOOP_ATTRS = ["loop.index", "loop.index0", "loop.revindex", "loop.first", "loop.last",
              "loop.length", "loop.cycle('a', 'b')", "loop.previtem", "loop.nextitem",
              "loop.depth", "loop.changed(x)"]


def statement(r, depth, in_loop=False):
    def dash():
        return r.choice(["", "-"])

    k = r.random()
    if depth <= 0 or k < 0.25:
        if in_loop and r.random() < 0.4:
            return "{{ " + r.choice(LOOP_ATTRS) + " }}"
        return "{{" + dash() + " " + expr(r, 2) + " " + dash() + "}}" + r.choice(["", " ", "\n", "x"])
    if k < 0.45:
        body = statement(r, depth - 1, True) + statement(r, depth - 1, True)
        otherwise = ""
        if r.random() < 0.3:
            otherwise = "{%" + dash() + " else " + dash() + "%}" + statement(r, depth - 1)
        condition = " if " + expr(r, 2) if r.random() < 0.2 else ""
        target = r.choice(["x", "x", "k, v"])
        return ("{%" + dash() + f" for {target} in {expr(r, 2)}{condition} " + dash() + "%}"
                + body + otherwise + "{%" + dash() + " endfor " + dash() + "%}")
    if k < 0.6:
        s = "{% if " + expr(r, 2) + " %}" + statement(r, depth - 1, in_loop)
        if r.random() < 0.5:
            s += "{% elif " + expr(r, 2) + " %}" + statement(r, depth - 1, in_loop)
        if r.random() < 0.5:
            s += "{% else %}" + statement(r, depth - 1, in_loop)
        return s + "{% endif %}"
    if k < 0.7:
        return "{% set y = " + expr(r, 2) + " %}{{ y }}"
    if k < 0.78:
        return ("{% set ns = namespace(a=" + expr(r, 2) + ") %}{% set ns.a = " + expr(r, 2)
                + " %}{{ ns.a }}")
    if k < 0.85:
        return ("{% macro mm(p, q=" + expr(r, 0) + ") %}[{{ p }}|{{ q }}|{{ varargs }}|"
                "{{ kwargs }}]{% endmacro %}{{ mm(" + expr(r, 2) + ") }}{{ mm(1, 2, 3, z=4) }}")
    if k < 0.9:
        name = r.choice(["upper", "trim", "indent(2)", "title", "e"])
        return "{% filter " + name + " %}" + statement(r, depth - 1, in_loop) + "{% endfilter %}"
    if k < 0.95:
        return "{% set blk %}" + statement(r, depth - 1, in_loop) + "{% endset %}{{ blk | length }}"
    return "{# c #}" + statement(r, depth - 1, in_loop)


def test_random_statements_match_transformers():
    ctu = need("transformers.utils.chat_template_utils")
    differences = []
    for seed in range(2500):
        r = random.Random(seed)
        template = statement(r, 3) + statement(r, 2)
        theirs = outcome(ctu.render_jinja_template, template)
        ours = outcome(chatcodec.render_jinja_template, template)
        if not same_outcome(theirs, ours):
            differences.append(f"{template}\n    transformers {theirs[1]!r:.150}\n    chatcodec {ours[1]!r:.150}")
    assert not differences, f"{len(differences)} of 2500 differ:\n" + "\n".join(differences[:10])
