#!/usr/bin/env python3
"""The Jinja differential suite: cases written from jinja2's Template Designer Documentation.

    jinja_cases.py            prints the cases as JSON (a list of {"name", "template", "vars"})
    jinja_cases.py --goldens  renders every case with the reference (transformers' sandboxed
                              jinja2 environment, through oracle.py) and writes
                              corpus/jinja/goldens.json: each case with {"ok": true, "text"} or
                              {"ok": false, "error_type", "error"}

Every filter, test, global, method, statement and expression form of the template language
that a chat template could use, each with ordinary, edge and error inputs. The goldens only
ever come from the reference; tests/jinja_suite.rs renders the same cases with chatcodec and
requires the same text where the reference renders and an error where it raises.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "corpus", "jinja", "goldens.json")

VARS = {
    "s": "Hello World",
    "e": "",
    "u": "héllo wörld ß",
    "html": "<a href=\"x\">T&amp;C</a> <b>bold</b>",
    "n": 42,
    "neg": -7,
    "f": 3.14159,
    "big": 1234567890123456789,
    "t": True,
    "no": False,
    "none": None,
    "l": [3, 1, 2],
    "ls": ["b", "a", "C"],
    "empty": [],
    "nested": [[1, 2], [3, [4, 5]]],
    "d": {"b": 2, "a": 1, "c": 3},
    "users": [
        {"name": "ann", "age": 31, "admin": True, "tags": ["x"]},
        {"name": "bob", "age": 25, "admin": False, "tags": []},
        {"name": "cid", "age": 31, "admin": False, "tags": ["y", "z"]},
    ],
    "msgs": [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "yo"},
    ],
    "tree": [
        {"name": "a", "children": [{"name": "a1", "children": []}, {"name": "a2", "children": [{"name": "a2x", "children": []}]}]},
        {"name": "b", "children": []},
    ],
    "text": "The quick brown fox jumps over the lazy dog. " * 3,
    "url": "Visit https://example.com/path?q=1&r=2 or www.test.org, mail me@example.com!",
    "ws": "  \t padded \n ",
    "lines": "a\nb\r\nc\n",
    "num_s": "  42  ",
    "float_s": "2.5e3",
}


def cases():
    out = []

    def add(name, template, variables=None):
        out.append({"name": name, "template": template, "vars": VARS if variables is None else variables})

    def exprs(group, items):
        for i, e in enumerate(items):
            add(f"{group}/{i:02d}", "{{ " + e + " }}")

    # ---- filters ----------------------------------------------------------------------------
    filters = {
        "abs": ["neg|abs", "n|abs", "f|abs", "-0.0|abs", "big|abs", "s|abs", "none|abs", "(-big)|abs"],
        "attr": ["d|attr('a')", "users[0]|attr('name')", "s|attr('upper')", "d|attr('zz') is undefined", "none|attr('x')"],
        "batch": ["l|batch(2)|list", "l|batch(2, 'x')|list", "empty|batch(3)|list", "s|batch(4)|list", "l|batch(1)|list", "l|batch(0)|list", "range(7)|batch(3, 0)|list"],
        "capitalize": ["s|capitalize", "u|capitalize", "e|capitalize", "'ABC def'|capitalize", "n|capitalize"],
        "center": ["s|center(20)", "s|center(3)", "'x'|center(6)", "e|center(4)", "s|center", "'ab'|center(5)"],
        "count": ["l|count", "s|count", "d|count", "empty|count", "n|count"],
        "default": ["undefined_x|default('dflt')", "none|default('dflt')", "none|default('dflt', true)", "e|default('dflt', true)", "e|d('z')", "undefined_x|d", "0|default(5, boolean=true)"],
        "dictsort": ["d|dictsort", "d|dictsort(reverse=true)", "d|dictsort(by='value')", "{'B': 1, 'a': 2}|dictsort", "{'B': 1, 'a': 2}|dictsort(case_sensitive=true)", "l|dictsort", "d|dictsort(by='x')"],
        "escape": ["html|e", "html|escape", "s|e", "n|e", "none|e", "(html|e)|e", "'\"\\''|e"],
        "filesizeformat": ["1000|filesizeformat", "1024|filesizeformat(true)", "0|filesizeformat", "123456789|filesizeformat", "10**20|filesizeformat", "1.5|filesizeformat", "s|filesizeformat"],
        "first": ["l|first", "s|first", "empty|first is undefined", "d|first", "n|first"],
        "float": ["'3.5'|float", "n|float", "s|float", "s|float(1.5)", "float_s|float", "none|float", "'inf'|float", "'nan'|float", "' 7 '|float"],
        "forceescape": ["html|forceescape", "(html|safe)|forceescape", "n|forceescape"],
        "format": ["'%s-%d'|format('a', 3)", "'%05.2f'|format(f)", "'%(x)s'|format(x=1)", "'%x %o %e'|format(255, 8, 12345.678)", "'%s'|format(l)", "'%d'|format('z')", "'%s %s'|format(1)", "'%c'|format(65)", "'%r'|format('q')", "'%-6s|'|format('ab')", "'%+d'|format(5)", "'%%'|format()"],
        "groupby": ["users|groupby('age')|list", "users|groupby('admin')|map(attribute='grouper')|list", "users|groupby('age', reverse=true)|map(attribute='list')|map('length')|list", "users|groupby('nope')|list", "users|groupby('age', default=0)|list|length"],
        "indent": ["lines|indent", "lines|indent(2, true)", "lines|indent('> ')", "'a\\n\\nb'|indent(2, blank=true)", "e|indent", "n|indent", "'x'|indent(first=true)"],
        "int": ["'42'|int", "num_s|int", "f|int", "'3.9'|int", "s|int", "s|int(7)", "'0x1A'|int(base=16)", "'0b101'|int(0, 2)", "'1_000'|int", "'99999999999999999999999'|int", "none|int", "t|int", "'-12'|int", "'0o17'|int(0, 8)"],
        "items": ["d|items|list", "empty|items|list", "none|items|list", "{}|items|list"],
        "join": ["l|join", "l|join(', ')", "ls|join('-')", "users|join(', ', attribute='name')", "empty|join('x')", "s|join('.')", "[1, none, 'a']|join('/')", "[[1], [2]]|join(',')"],
        "last": ["l|last", "s|last", "empty|last is undefined", "(d|list)|last"],
        "length": ["l|length", "s|length", "d|length", "u|length", "empty|length", "n|length", "none|length"],
        "list": ["s|list", "d|list", "l|list", "range(3)|list", "n|list", "none|list", "(1, 2)|list"],
        "lower": ["s|lower", "u|upper|lower", "'ẞ'|lower", "n|lower"],
        "map": ["users|map(attribute='name')|list", "ls|map('upper')|list", "l|map('string')|list", "users|map(attribute='x', default='?')|list", "users|map(attribute='tags.0', default='-')|list", "l|map('float')|list", "ls|map('replace', 'a', 'A')|list", "users|map('nonexistent')|list", "d|map('upper')|list"],
        "max": ["l|max", "ls|max", "ls|max(case_sensitive=true)", "users|max(attribute='age')", "empty|max is undefined", "[1, 'a']|max", "s|max"],
        "min": ["l|min", "ls|min", "users|min(attribute='age')", "empty|min is undefined", "u|min"],
        "pprint": ["d|pprint", "l|pprint", "s|pprint", "users|pprint", "none|pprint", "range(40)|list|pprint", "{'k': ['a' * 30, 'b' * 30, 'c' * 30]}|pprint", "nested|pprint", "(1, 'a')|pprint", "u|pprint"],
        "reject": ["l|reject('odd')|list", "ls|reject('lower')|list", "[0, 1, none, '', 'x']|reject|list", "l|reject('gt', 1)|list", "l|reject('nosuchtest')|list"],
        "rejectattr": ["users|rejectattr('admin')|map(attribute='name')|list", "users|rejectattr('age', 'gt', 30)|map(attribute='name')|list", "users|rejectattr('tags')|list|length", "msgs|rejectattr('role', 'equalto', 'system')|map(attribute='content')|list"],
        "replace": ["s|replace('o', '0')", "s|replace('o', '0', 1)", "s|replace('', '-')", "e|replace('', 'x')", "s|replace('zz', 'y')", "n|replace('4', '5')", "s|replace('l', 'L', 0)", "s|replace('l', 'L', -1)"],
        "reverse": ["l|reverse|list", "s|reverse", "empty|reverse|list", "d|reverse|list", "n|reverse"],
        "round": ["f|round", "f|round(2)", "f|round(2, 'floor')", "f|round(1, 'ceil')", "2.5|round", "3.5|round", "-2.5|round", "n|round", "f|round(2, 'bad')", "1e300|round(2)", "0.125|round(2)", "s|round"],
        "safe": ["html|safe", "(html|safe)|e", "n|safe", "none|safe"],
        "select": ["l|select('odd')|list", "[0, 1, none, 'x', '']|select|list", "l|select('ge', 2)|list", "ls|select('in', ['a', 'b'])|list", "users|select('mapping')|list|length", "l|select('divisibleby', 3)|list"],
        "selectattr": ["users|selectattr('admin')|map(attribute='name')|list", "users|selectattr('age', 'eq', 31)|map(attribute='name')|list", "msgs|selectattr('role', 'in', ['user', 'assistant'])|list|length", "users|selectattr('missing')|list", "users|selectattr('age', 'lt', 30)|first"],
        "slice": ["range(10)|slice(3)|list", "l|slice(2)|list", "range(7)|slice(3, 'x')|list", "empty|slice(2)|list", "s|slice(3)|list", "l|slice(0)|list"],
        "sort": ["l|sort", "ls|sort", "ls|sort(case_sensitive=true)", "l|sort(reverse=true)", "users|sort(attribute='age')|map(attribute='name')|list", "users|sort(attribute='age,name')|map(attribute='name')|list", "[1, 'a']|sort", "d|sort", "s|sort"],
        "string": ["n|string", "l|string", "d|string", "none|string", "t|string", "f|string", "big|string", "html|safe|string", "u|string", "1e100|string", "(0.1 + 0.2)|string"],
        "striptags": ["html|striptags", "'a  <br/> b\\n c'|striptags", "'&lt;x&gt; &amp;'|striptags", "n|striptags", "'<!-- c -->x'|striptags"],
        "sum": ["l|sum", "users|sum(attribute='age')", "l|sum(start=10)", "empty|sum", "[0.1, 0.2]|sum", "ls|sum", "[[1], [2]]|sum(start=[])"],
        "title": ["s|lower|title", "'hello-world foo_bar'|title", "u|title", "\"it's o'neil\"|title", "e|title"],
        "tojson": ["d|tojson", "l|tojson", "s|tojson", "u|tojson", "html|tojson", "none|tojson", "f|tojson", "big|tojson", "users|tojson(indent=2)", "d|tojson(sort_keys=true)", "t|tojson", "(1, 2)|tojson", "{1: 2}|tojson", "undefined_x|tojson", "range(3)|tojson", "'\\u2028'|tojson", "(0.1)|tojson", "1e100|tojson", "d|tojson(separators=(',', ':'))", "[1.0, -0.0]|tojson"],
        "trim": ["ws|trim", "s|trim('Hd')", "e|trim", "'xxaxx'|trim('x')", "n|trim"],
        "truncate": ["text|truncate(20)", "text|truncate(20, true)", "text|truncate(20, false, '…')", "s|truncate(9)", "s|truncate(11)", "text|truncate(20, leeway=0)", "text|truncate(2)", "e|truncate(3)"],
        "unique": ["[1, 2, 1, 3, 2]|unique|list", "['a', 'A', 'b']|unique|list", "['a', 'A', 'b']|unique(case_sensitive=true)|list", "users|unique(attribute='age')|map(attribute='name')|list", "s|unique|list", "empty|unique|list"],
        "upper": ["s|upper", "u|upper", "n|upper", "'ß'|upper"],
        "urlencode": ["'a b&c=d/é'|urlencode", "d|urlencode", "[('a', 1), ('b', 'x y')]|urlencode", "n|urlencode", "'~-._'|urlencode"],
        "urlize": ["url|urlize", "url|urlize(10)", "url|urlize(nofollow=true)", "url|urlize(target='_blank')", "url|urlize(rel='noopener')", "'see http://a.b/c).'|urlize", "'<tag> http://x.org'|urlize", "e|urlize", "'mailto:a@b.co'|urlize", "'(www.example.com)'|urlize", "'http://example.com/&amp;'|urlize(extra_schemes=['tel:'])", "'tel:+123'|urlize(extra_schemes=['tel:'])"],
        "wordcount": ["text|wordcount", "e|wordcount", "u|wordcount", "'a-b c_d'|wordcount", "n|wordcount"],
        "wordwrap": ["text|wordwrap(20)", "text|wordwrap(20, false)", "'abcdefghijklmnop'|wordwrap(5)", "'abcdefghijklmnop'|wordwrap(5, false)", "text|wordwrap(30, wrapstring='|')", "'a\\n\\nb c d'|wordwrap(3)", "text|wordwrap(20, break_on_hyphens=false)", "e|wordwrap(5)"],
        "xmlattr": ["{'class': 'x', 'id': 'y'}|xmlattr", "{'a': none, 'b': 'q\"t'}|xmlattr", "{'a': 1}|xmlattr(false)", "{'bad key': 1}|xmlattr", "{}|xmlattr"],
        "unknown": ["s|no_such_filter"],
    }
    for name, items in filters.items():
        exprs(f"filter/{name}", items)

    # ---- tests ------------------------------------------------------------------------------
    test_inputs = ["n", "neg", "f", "s", "e", "l", "empty", "d", "none", "t", "no", "undefined_x", "big", "html|safe", "range(2)", "'abc'", "'ABC'", "0", "2"]
    tests = ["boolean", "callable", "defined", "even", "false", "float", "integer", "iterable",
             "lower", "mapping", "none", "number", "odd", "sequence", "string", "true",
             "undefined", "upper", "escaped"]
    for t in tests:
        add(f"test/{t}", "{% for v in [" + ", ".join(x for x in test_inputs if x != "undefined_x") + "] %}{{ v is " + t + " }},{% endfor %}{{ undefined_x is " + t + " }}")
    exprs("test/args", [
        "n is divisibleby 7", "n is divisibleby 5", "n is divisibleby(0)", "n is eq 42", "n is ne 42", "n is gt 41", "n is ge 43",
        "n is lt 1", "n is le 42", "'a' is in 'abc'", "2 is in l", "'x' is in d", "l is sameas l", "none is sameas none",
        "n is equalto 42", "n is greaterthan 1", "n is lessthan 1", "'upper' is filter", "'odd' is test", "'nope' is filter",
        "s is not string", "n is not odd", "n is no_such_test", "users[0].tags is sequence", "msgs[0] is mapping",
        "'x' is in none", "none is callable", "range is callable", "namespace is callable",
    ])

    # ---- globals ----------------------------------------------------------------------------
    exprs("global/range", [
        "range(5)|list", "range(2, 8, 2)|list", "range(5, 0, -1)|list", "range(0)|list", "range(3)", "range(0, 10)",
        "range(1, 2, 3)", "range(3)|tojson", "range(3) * 3", "range(3)|length", "range(10)[2:5]", "range(10)[-1]",
        "range(3) == range(3)", "2 in range(3)", "range(0, 1, 0)|list", "range('a')", "range(3)|string", "range(3)|reverse|list",
        "range(2**40, 2**40 + 2)|list", "range(-3)|list", "range(3)[5]",
        "range(0 - 2**62, 2**62, 2**61)|list", "range(2**62, 0 - 2**62, 0 - 2**61)|list", "range(9, -9, -4)|list", "range(0 - 2**63, 2**63 - 1, 2**62)|list",
        "range(1, 2, 3, 4)", "range('a', 2, 3, 4)",
    ])
    exprs("global/dict", ["dict(a=1, b=2)", "dict()", "dict(d, z=9)", "dict([('k', 'v')])", "dict(a=1)|tojson", "dict(1)"])
    exprs("global/namespace", ["namespace(a=1).a", "namespace()", "namespace(d).b", "namespace(a=1, b=[1])", "namespace(a=1)|tojson"])
    exprs("global/cycler", ["cycler('a', 'b').next()", "cycler().next()", "cycler('a').current", "cycler('a', 'b')"])
    exprs("global/joiner", ["joiner()()", "joiner(', ')()", "joiner('|')"])
    exprs("global/other", ["raise_exception('boom')", "undefined_fn()", "lipsum is defined", "self", "loop is defined", "caller is defined"])
    add("global/cycler_loop", "{% set c = cycler('odd', 'even') %}{% for i in range(5) %}{{ c.next() }} {% endfor %}{{ c.current }}")
    add("global/cycler_reset", "{% set c = cycler(1, 2, 3) %}{{ c.next() }}{{ c.next() }}{{ c.reset() }}{{ c.next() }}")
    add("global/joiner_loop", "{% set j = joiner(' | ') %}{% for x in ls %}{{ j() }}{{ x }}{% endfor %}")
    add("global/strftime", "{{ strftime_now('%Y-%m-%d %H:%M:%S %A %B %j %p %I %%') }}")
    add("global/strftime_bad", "{{ strftime_now(3) }}")

    # ---- methods ----------------------------------------------------------------------------
    exprs("method/str", [
        "s.upper()", "s.lower()", "s.title()", "u.capitalize()", "s.swapcase()", "u.casefold()", "s.strip('Hd')", "ws.lstrip()", "ws.rstrip()",
        "s.split()", "s.split('o')", "s.split('o', 1)", "s.rsplit('o', 1)", "lines.splitlines()", "lines.splitlines(true)", "e.split()", "e.split(',')",
        "s.startswith('He')", "s.startswith(('x', 'H'))", "s.endswith('ld')", "s.find('o')", "s.rfind('o')", "s.find('z')", "s.index('o')", "s.index('z')",
        "s.rindex('o')", "s.count('l')", "s.replace('l', 'L', 2)", "s.center(17, '*')", "s.ljust(14, '.')", "s.rjust(14)", "'42'.zfill(5)", "'-42'.zfill(5)",
        "s.partition(' ')", "s.rpartition('o')", "','.join(ls)", "s.isalpha()", "'abc'.isalpha()", "'123'.isdigit()", "'١٢٣'.isdigit()", "'abc1'.isalnum()",
        "'  '.isspace()", "'Abc Def'.istitle()", "'ABC'.isupper()", "'abc'.islower()", "s.removeprefix('Hell')", "s.removesuffix('World')",
        "'{} and {}'.format('a', 'b')", "'{0}{1}{0}'.format('x', 'y')", "'{name}!'.format(name='Al')", "'{:>6}|{:<4}|{:^5}'.format('r', 'l', 'c')",
        "'{:.3f} {:,} {:x} {:08.2f} {:e} {:%}'.format(f, 1234567, 255, f, f, 0.25)", "'{a[0]} {b.x}'.format(a=[1], b={'x': 2})", "'{}'.format()",
        "'{0:{1}}'.format(3, 4)", "'{x}'.format_map({'x': 5})", "'{x} {y}'.format_map(d)", "'{!r} {!s}'.format('q', 'q')",
        "s.encode()", "s.expandtabs()", "'a\\tb'.expandtabs(4)", "s.isnumeric()", "'Ⅻ'.isnumeric()", "'12'.isdecimal()", "s.isidentifier()", "'x'.isprintable()",
        "s.upper", "s.nosuch()", "s.format", "'%s' % 'x'", "'%d items' % n", "'%s=%s' % ('a', 1)", "'%(a)s' % d", "'%5.1f%%' % f",
        "s[0]", "s[-1]", "s[1:4]", "s[::-1]", "s[100]", "s[::2]", "u[1]",
        "s.split(none, 1)", "s.ljust(3)", "s.title().swapcase()",
    ])
    exprs("method/dict", [
        "d.get('a')", "d.get('z')", "d.get('z', 0)", "d.keys()|list", "d.values()|list", "d.items()|list", "d.a", "d['b']", "d['zz']",
        "d.zz is undefined", "d.copy()", "d.pop('a')", "d.update({'x': 1})", "d.setdefault('q', 1)", "d.clear()", "'a' in d", "d|length",
        "d.items()", "d.keys()", "d.get()", "{'a': {'b': [1, {'c': 2}]}}.a.b[1].c",
    ])
    exprs("method/list", [
        "l.count(1)", "l.index(2)", "l.index(9)", "l[0]", "l[-1]", "l[1:]", "l[::-1]", "l[5]", "l.append(4)", "l.pop()", "l.sort()",
        "l.reverse()", "l.copy()", "l + [4]", "l * 2", "[1] * 0", "l == [3, 1, 2]", "l < [4]", "1 in l", "l|sum / l|length",
        "nested[1][1][0]", "nested.1.1.0", "[[1]].0.0", "[[1, 2]][0][1]", "(1, 2)[0]", "(1,)", "()", "[]", "[1, [2]][1][0]",
    ])

    # ---- expressions ------------------------------------------------------------------------
    exprs("expr/arith", [
        "1 + 2 * 3", "(1 + 2) * 3", "7 // 2", "-7 // 2", "7 % 3", "-7 % 3", "7 / 2", "4 / 2", "2 ** 10", "2 ** -1", "2 ** 0.5", "-2 ** 2",
        "1 / 0", "1 // 0", "1 % 0", "1.0 / 0", "n + f", "s + '!'", "s ~ n", "n ~ none", "l + l", "s * 2", "2 * s", "s * -1", "s + n",
        "none + 1", "big * big", "big + 1", "-big", "big // 7", "big % 97", "2 ** 100", "10 ** 30", "(10 ** 30)|round", "(10**30)|int", "1e308 * 10",
        "0.1 + 0.2", "1 / 3", "2.0 ** 64", "10 / 3 * 3", "7.5 // 2", "-7.5 % 2", "1_000 + 1", "0x1F", "0o17", "0b101", "1e3", "1E-2", ".5",
        "3 - -3", "+n", "not n", "not none", "n and s", "e or 'fallback'", "none or 0 or [] or 'x'", "n > 5 and n < 50", "1 < 2 < 3", "3 > 2 > 2",
        "'a' < 'b'", "'a' < 1", "[1, 2] < [1, 3]", "none == none", "1 == 1.0", "'1' == 1", "t == 1", "t + t", "n is number and n is not string",
    ])
    exprs("expr/literals", [
        "'single'", "\"double\"", "'esc\\'aped'", "'tab\\there'", "'nl\\nx'|length", "'\\x41\\u00e9\\U0001F600'", "'\\N{BULLET}'", "'back\\\\slash'",
        "'a' 'b'", "true", "True", "false", "none", "None", "[1, 'a', none, true]", "{'k': 'v', 1: 2}", "{'k': 'v'}.k", "(1, 2, 3)|length",
        "1.5e-3", "12345678901234567890123", "-12345678901234567890123 // 7", "1_2_3", "0.000001", "1e16", "123456789.0", "1e-7", "float('inf') if false else 0",
    ])
    exprs("expr/cond", ["'y' if t else 'n'", "'y' if no else 'n'", "'y' if no", "('y' if no) is undefined", "s if s else e", "1 if none else 2 if t else 3"])
    exprs("expr/attr", [
        "users[0].name", "users[0]['name']", "users.0.name", "users[0].missing", "users[0].missing.deeper", "none.x", "undefined_x.y",
        "users[-1].tags[1]", "msgs|map(attribute='role')|join(',')", "s.__class__", "d.__len__", "l.__getitem__(0)", "''.__class__.__mro__",
        "d['__class__']", "range.__globals__", "users[5]", "users['a']",
    ])
    exprs("expr/call", [
        "dict(**d)", "dict(*[])", "'{}-{}'.format(*l)", "'{a}'.format(**{'a': 1})", "range(*[1, 4])|list", "namespace(**d).c",
        "s.replace(old='l', new='L')", "'x'.join(ls, 1)", "d.get('a', 1, 2)", "range(1, 2, 3, 4)", "s.upper(1)",
    ])

    # ---- statements -------------------------------------------------------------------------
    stmts = {
        "if": [
            "{% if n > 40 %}big{% elif n > 10 %}mid{% else %}small{% endif %}",
            "{% if none %}a{% elif e %}b{% else %}c{% endif %}",
            "{% if undefined_x %}a{% else %}b{% endif %}",
            "{% if undefined_x.y %}a{% endif %}",
            "{% if l %}has{% endif %}{% if empty %}x{% else %}none{% endif %}",
            "{% if n %}{% if s %}both{% endif %}{% endif %}",
        ],
        "for": [
            "{% for x in l %}{{ loop.index }}/{{ loop.index0 }}/{{ loop.revindex }}/{{ loop.revindex0 }}/{{ loop.first }}/{{ loop.last }}/{{ loop.length }} {% endfor %}",
            "{% for x in l %}{{ loop.previtem }}>{{ x }}<{{ loop.nextitem }} {% endfor %}",
            "{% for x in l %}{{ loop.cycle('a', 'b') }}{{ loop.changed(x > 1) }} {% endfor %}",
            "{% for x in empty %}x{% else %}empty{% endfor %}",
            "{% for x in l if x > 1 %}{{ x }}{{ loop.index }}{{ loop.length }}{% else %}none{% endfor %}",
            "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",
            "{% for a, (b, c) in [(1, (2, 3))] %}{{ a }}{{ b }}{{ c }}{% endfor %}",
            "{% for x in l %}{% if x == 1 %}{% continue %}{% endif %}{% if x == 2 %}{% break %}{% endif %}{{ x }}{% endfor %}",
            "{% for x in s %}{{ x }}.{% endfor %}",
            "{% for k in d %}{{ k }}{% endfor %}",
            "{% for x in none %}{% endfor %}",
            "{% for x in n %}{% endfor %}",
            "{% for a, b in l %}{% endfor %}",
            "{% for x in l %}{% set y = x %}{% endfor %}{{ y is defined }}",
            "{% for x in range(3) %}{% for y in range(2) %}{{ loop.index }}{{ x }}{% endfor %}|{% endfor %}",
            "{% for x in l %}{{ loop.depth }}{{ loop.depth0 }}{% endfor %}",
            "{% for node in tree recursive %}{{ loop.depth }}:{{ node.name }}{% if node.children %}[{{ loop(node.children) }}]{% endif %};{% endfor %}",
            "{% for node in tree recursive %}{{ node.name }}{{ loop.depth0 }}{{ loop.index }}{{ loop.last }}{{ loop(node.children) }}{% endfor %}",
            "{% for n in tree recursive if n.name != 'b' %}{{ n.name }}({{ loop(n.children) }}){% endfor %}",
            "{% for n in tree recursive %}{{ n.name }}{% else %}E{% endfor %}",
            "{% for x in l %}{{ loop(x) }}{% endfor %}",
            "{% for x in l %}{{ loop }}{% endfor %}",
            "{% for x in users|groupby('age') %}{{ x.grouper }}:{{ x.list|map(attribute='name')|join(',') }} {% endfor %}",
            "{% for g, items in users|groupby('age') %}{{ g }}={{ items|length }} {% endfor %}",
            "{% for x in l|batch(2) %}{{ x }}{% endfor %}",
            "{% for x in range(3) %}{% set ns = namespace(v=x) %}{{ ns.v }}{% endfor %}",
        ],
        "set": [
            "{% set x = 5 %}{{ x }}",
            "{% set a, b = 1, 2 %}{{ a }}{{ b }}",
            "{% set a, b = [3, 4] %}{{ a + b }}",
            "{% set a, b = 1, 2, 3 %}",
            "{% set ns = namespace(a=0) %}{% set ns.a = ns.a + 1 %}{{ ns.a }}",
            "{% set ns = namespace() %}{% set ns.a, ns.b = 1, 2 %}{{ ns.a }}{{ ns.b }}",
            "{% set ns = namespace() %}{% set ns.a, x = 1, 2 %}{{ ns.a }}{{ x }}",
            "{% set d2 = {} %}{% set d2.a = 1 %}",
            "{% set x %}block {{ n }}{% endset %}[{{ x }}]",
            "{% set x | upper %}shout {{ s }}{% endset %}{{ x }}",
            "{% set x | trim | replace('a', 'b') %}  aaa  {% endset %}{{ x }}",
            "{% set true = 1 %}",
            "{% set none = 1 %}",
            "{% set loop = 1 %}{{ loop }}",
            "{% set self = 1 %}{{ self }}",
            "{% set x = 1 %}{% set x = x + 1 %}{{ x }}",
            "{% set ns = namespace(items=[]) %}{% for i in range(3) %}{% set ns.items = ns.items + [i] %}{% endfor %}{{ ns.items }}",
        ],
        "macro": [
            "{% macro m(a, b=2) %}{{ a }}-{{ b }}{% endmacro %}{{ m(1) }} {{ m(1, 3) }} {{ m(b=5, a=4) }}",
            "{% macro m() %}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, x=3) }}",
            "{% macro m(a) %}{{ a }}{% endmacro %}{{ m() }}",
            "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}",
            "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(b=1) }}",
            "{% macro m(a=1, b) %}{% endmacro %}",
            "{% macro m(a, b) %}{% endmacro %}{{ m }}",
            "{% macro m(a, b=1) %}{% endmacro %}{{ m.name }} {{ m.arguments }} {{ m.catch_kwargs }} {{ m.catch_varargs }} {{ m.caller }}",
            "{% macro m() %}{{ kwargs }}{% endmacro %}{{ m.catch_kwargs }}{{ m(a=1) }}",
            "{% macro m() %}[{{ caller() }}]{% endmacro %}{% call m() %}inner {{ n }}{% endcall %}",
            "{% macro m() %}{{ caller(1, 2) }}{% endmacro %}{% call(a, b) m() %}{{ a + b }}{% endcall %}",
            "{% macro m() %}{{ caller }}{% endmacro %}{% call m() %}x{% endcall %}",
            "{% macro m() %}{{ m.caller }}{% endmacro %}{% call m() %}x{% endcall %}",
            "{% macro outer() %}{% macro inner() %}in{% endmacro %}{{ inner() }}{% endmacro %}{{ outer() }}",
            "{% macro fact(k) %}{% if k <= 1 %}1{% else %}{{ k * fact(k - 1)|int }}{% endif %}{% endmacro %}{{ fact(6) }}",
            "{% macro m(x) %}{{ x }}{% endmacro %}{{ m(1)|length }}{{ m('ab') ~ '!' }}",
            "{% macro m() %}{% endmacro %}{{ m() is string }}{{ m()|length }}",
        ],
        "filter_block": [
            "{% filter upper %}hello {{ s }}{% endfilter %}",
            "{% filter replace('l', 'L')|trim %}  hello  {% endfilter %}",
            "{% filter center(11) %}mid{% endfilter %}|",
            "{% filter nosuch %}x{% endfilter %}",
        ],
        "with": [
            "{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}{{ a is defined }}",
            "{% with %}{% set x = 1 %}{{ x }}{% endwith %}{{ x is defined }}",
            "{% with a = n %}{% with b = a + 1 %}{{ b }}{% endwith %}{% endwith %}",
        ],
        "raw": [
            "{% raw %}{{ not rendered }}{% endraw %}",
            "a {%- raw %} b {% endraw -%} c",
            "a {% raw -%} b {%- endraw %} c",
            "  {% raw %}x{% endraw %}  \n  y",
            "{% raw %}\n  keep\n{% endraw %}\n",
            "{% raw +%} x {% endraw %}",
            "{%+ raw %} x {% endraw %}",
            "{% raw %}{% if %}{% endraw %}",
        ],
        "whitespace": [
            "  {% if t %}\n  yes\n  {% endif %}\n",
            "a  {{- s -}}  b",
            "a  {{+ s +}}  b",
            "{% for x in l -%}\n  {{ x }}\n{%- endfor %}",
            "  {%+ if t %}x{% endif %}",
            "{# comment #}a{#- trimmed -#}  b",
            "line\n  {# c #}\nnext",
            "{% if t %}\r\nwin\r\n{% endif %}\r\n",
            "x\n{%- if t %}\ny{% endif -%}\nz",
        ],
        "include": [
            "{% include 'other.html' %}",
            "{% extends 'base.html' %}",
            "{% import 'm.html' as m %}",
            "{% from 'm.html' import x %}",
            "{% block b %}inside{% endblock %}",
            "{% do l.append(1) %}",
            "{% autoescape true %}{{ html }}{% endautoescape %}",
        ],
        "block": [
            "a{% block b %}in {{ s }}{% endblock %}b{{ self.b() }}",
            "{% block b %}{{ super() }}{% endblock %}",
            "{% block b %}{{ super }}{% endblock %}",
            "{% for x in l %}{% block b %}{{ x }}{{ loop is defined }}{% endblock %}{% endfor %}",
            "{% for x in l %}{% block b scoped %}{{ x }}{% endblock %}{% endfor %}",
            "{% set y = 5 %}{% block b %}{{ y }}{% endblock %}",
            "{% block b %}1{% endblock %}{% block b %}2{% endblock %}",
            "{% block b %}x{% endblock b %}",
            "{% block b %}x{% endblock c %}",
            "{{ self.b }}",
            "{{ self.zz() }}",
            "{% block b %}{% set z = 1 %}{{ z }}{% endblock %}{{ z }}",
            "{% block a %}A{% block b %}B{% endblock %}{% endblock %}{{ self.b() }}",
            "{% macro m() %}{% block q %}x{% endblock %}{% endmacro %}",
            "{% macro m(x) %}{% block q %}[{{ x }}]{% endblock %}{% endmacro %}{{ m(1) }}{{ self.q() }}",
            "{% block b -%}  x  {%- endblock %}",
            "{% block b %}x{% endblock %}{{ self.b() is string }}{{ self.b()|length }}",
            "{% set y = 1 %}{{ self.b() }}{% set y = 2 %}{% block b %}{{ y }}{% endblock %}{% set y = 3 %}{{ self.b() }}",
            "{% block b %}{% for x in l %}{{ x }}{% endfor %}{% endblock %}{{ self.b()|length }}",
            "{% block b scoped %}{% set q = 1 %}{{ q }}{% endblock %}{{ q }}",
            "{% with a = 5 %}{% block b scoped %}{{ a }}{% endblock %}{% endwith %}",
            "{% with a = 5 %}{% block b %}{{ a }}{% endblock %}{% endwith %}",
            "{% block b %}x{% endblock %}{% block c %}{{ self.b() }}y{% endblock %}",
            "{% for m in msgs %}{% block turn scoped %}<{{ m.role }}>{{ m.content }}{% endblock %}{% endfor %}",
            "{% if t %}{% block b %}yes{% endblock %}{% endif %}",
            "{% if no %}{% block b %}yes{% endblock %}{% endif %}{{ self.b() }}",
            "{% block %}x{% endblock %}",
            "{% block b %}x",
            "{{ super() }}",
        ],
        "autoescape": [
            "{% autoescape true %}{{ html }}{% endautoescape %}",
            "{% autoescape false %}{{ html }}{% endautoescape %}",
            "{% autoescape true %}{{ html|safe }}{{ '<' ~ html }}{% endautoescape %}",
            "{% autoescape true %}{% set x = '<b>' %}{{ x }}{% endautoescape %}{{ x }}",
            "{% autoescape true %}{% set x %}<{{ '<' }}{% endset %}{{ x }}|{{ x is escaped }}{% endautoescape %}",
            "{% autoescape true %}{{ 1 }}{{ none }}{{ [html] }}{% endautoescape %}",
            "{% autoescape n > 1 %}{{ html }}{% endautoescape %}",
            "{% autoescape n < 1 %}{{ html }}{% endautoescape %}",
            "{% autoescape true %}{% macro m() %}<{{ '<' }}{% endmacro %}{{ m() }}{{ m() is escaped }}{% endautoescape %}",
            "{% macro m() %}<{{ '<' }}{% endmacro %}{% autoescape true %}{{ m() }}{% endautoescape %}",
            "{% autoescape true %}{{ '<'|e }}{{ '<'|escape|escape }}{{ html|tojson }}{% endautoescape %}",
            "{% autoescape true %}{% autoescape false %}{{ html }}{% endautoescape %}{{ html }}{% endautoescape %}",
            "{% autoescape true %}{{ '%s'|format('<') }}{{ '<'|upper }}{{ html|replace('a','<') }}{% endautoescape %}",
            "{% autoescape true %}{% filter upper %}<{{ '<' }}{% endfilter %}{% endautoescape %}",
            "{% autoescape true %}{{ 'a' ~ 1 }}{{ '<' + '>' }}{% endautoescape %}",
            "{% autoescape true %}{% for x in ['<'] %}{{ x }}{{ loop.cycle('<', '>') }}{% endfor %}{% endautoescape %}",
            "{% autoescape true %}{{ html|striptags }}{{ html|safe|striptags }}{% endautoescape %}",
            "{% autoescape true %}{{ l|join('<') }}{{ ['<', '>']|join('&') }}{% endautoescape %}",
            "{% autoescape true %}{{ {'<': 1} }}{% endautoescape %}",
            "{% autoescape 'x' %}{{ html }}{% endautoescape %}",
            "{% autoescape %}{{ html }}{% endautoescape %}",
            "{% autoescape true %}{{ '<b>'|center(9) }}{{ html|pprint }}{% endautoescape %}",
            "{% autoescape true %}{{ s|safe + '<' }}{{ '<' in html|safe }}{% endautoescape %}",
            "{% macro m() %}<{% endmacro %}{% autoescape true %}{{ m() is escaped }}{{ m() ~ '<' }}{% endautoescape %}{{ m() is escaped }}",
            "{% macro m() %}[{{ caller() }}]{% endmacro %}{% autoescape true %}{% call m() %}<{{ '<' }}{% endcall %}{% endautoescape %}",
            "{% autoescape true %}{% macro m() %}x{% endmacro %}{% endautoescape %}{{ m() }}",
            "{% autoescape true %}{% set x %}<{% endset %}{% endautoescape %}{{ x is escaped }}",
            "{% autoescape true %}{% block b %}<{{ '<' }}{% endblock %}{{ self.b() is escaped }}{% endautoescape %}",
            "{% for m in msgs %}{% autoescape true %}{% if loop.first %}{% continue %}{% endif %}{{ '<' ~ m.role }}{% endautoescape %}{% macro f() %}{% endmacro %}{{ f() is escaped }}{% endfor %}",
            "{% for x in l %}{% autoescape true %}{% break %}{% endautoescape %}{% endfor %}{% macro f() %}{% endmacro %}{{ f() is escaped }}",
            "{% autoescape true %}{{ '<' if t else '>' }}{{ s ~ html|safe }}{% endautoescape %}",
            "{% autoescape true %}{% for m in msgs %}<|{{ m.role }}|>{{ m.content ~ '<&>' }}\n{% endfor %}{% endautoescape %}",
            "{% autoescape true %}{{ html }}",
        ],
        "bytes": [
            "{{ s.encode() }}", "{{ u.encode() }}", "{{ u.encode('ascii') }}", "{{ u.encode('latin-1') }}", "{{ s.encode()|length }}",
            "{{ s.encode() ~ 'x' }}", "{{ [s.encode()] }}", "{{ s.encode()|tojson }}", "{{ s.encode() == s }}", "{{ s.encode()[0] }}",
            "{{ s.encode().decode() }}", "{{ 'a\"\\'\n'.encode() }}", "{{ s.encode() is string }}", "{{ s.encode()|upper }}",
            "{{ s.encode(errors='strict') }}", "{{ u.encode('ascii', 'ignore') }}", "{{ u.encode('ascii', 'replace') }}", "{{ s.encode()|list }}",
            "{{ u.encode('ascii', 'backslashreplace') }}", "{{ u.encode('ascii', 'xmlcharrefreplace') }}", "{{ 'ü€😀'.encode() }}",
            "{{ u.encode().decode('latin-1') }}", "{{ u.encode().decode('ascii') }}", "{{ u.encode().decode('ascii', 'replace') }}",
            "{{ u.encode().decode('ascii', 'ignore') }}", "{{ u.encode('latin-1').decode() }}", "{{ u.encode('latin-1').decode('utf-8', 'replace') }}",
            "{{ s.encode() == s.encode() }}", "{{ s.encode() in [s.encode()] }}", "{{ s.encode()[-1] }}", "{{ s.encode() is iterable }}",
            "{{ s.encode('UTF-8') }}", "{{ s.encode('utf8') }}", "{{ s.encode(1) }}", "{{ s.encode('ascii', 'strict', 3) }}",
            "{{ e.encode() }}", "{{ e.encode()|length }}", "{{ s.encode() if s.encode() }}", "{{ e.encode() or 'empty' }}",
            "{{ ('\t\\\x00\x7f').encode() }}", "{{ s.encode().decode(errors='strict') }}", "{{ s.encode()|first }}", "{{ s.encode()|join('-') }}",
        ],
        "generation": [
            "{% generation %}gen {{ s }}{% endgeneration %}",
            "{% for m in msgs %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}{% endgeneration %}{% endif %}{% endfor %}",
        ],
        "errors": [
            "{% if %}", "{{ }}", "{{ 1 + }}", "{% for %}", "{% endfor %}", "{% if t %}", "{{ s | }}", "{{ 'unterminated }}", "{{ (1 }}",
            "{% set %}", "{% macro %}{% endmacro %}", "{% unknown_tag %}", "{{ 10_ }}", "{{ 1__0 }}", "{{ 0x }}", "{{ 1e }}", "{{ 08 }}",
            "{{ '\\q' }}", "{{ '\\N{NO SUCH NAME}' }}", "{{ '\\x4' }}", "{{ '\\u12' }}", "{% for x in l %}{% endif %}", "{% break %}",
            "{{ a.1b }}", "{{ {1: 2 }}", "{{ [1, 2 }}", "{{ x is }}", "{% set x = %}", "{% set 1 = 2 %}", "{% for 1 in l %}{% endfor %}",
            "{{ s|map(x=1)|list }}", "{{ l|sort(nope=1) }}", "{{ s|upper(1) }}", "{{ s|replace('a') }}", "{{ s|truncate('x') }}",
            "{{ d|dictsort(1, 2, 3, 4) }}", "{{ range() }}", "{{ dict(1, 2) }}", "{{ 'a'|center(1, 2, 3) }}", "{{ l|join(1, 2, 3) }}",
            "{% macro m(a, a) %}{% endmacro %}", "{% set x.y = 1 %}", "{{ none() }}", "{{ l() }}", "{{ 'x'() }}",
        ],
        "numbers": [
            "{{ '%d'|format(1e308) }}", "{{ '%d'|format(2.9) }}", "{{ '%i'|format(-2.9) }}", "{{ '%.3g'|format(1234.5) }}", "{{ '%g'|format(1e-5) }}",
            "{{ '%s'|format(1e16) }}", "{{ '%s'|format(1.0) }}", "{{ 1e16 }}", "{{ 1.0 }}", "{{ 100.0 / 3 }}", "{{ 2 ** 62 * 4 }}", "{{ (2 ** 64) / 2 }}",
            "{{ '١٢٣'|int }}", "{{ '١٢٣'|int + 1 }}", "{{ '٣.٥'|float }}", "{{ (10 ** 30)|round }}", "{{ (10 ** 30)|round(-2) }}", "{{ 12345|round(-2) }}",
            "{{ 1.5|round|int }}", "{{ -0.0 }}", "{{ 0.0 == -0.0 }}", "{{ 1e-320 }}", "{{ 2 ** 1000 }}", "{{ (2 ** 1000)|string|length }}",
            "{{ 10 ** -2 }}", "{{ 7 // 0.5 }}", "{{ 7 % -3 }}", "{{ -7 % -3 }}", "{{ 3 * 1.1 }}", "{{ 1/7 }}", "{{ 123456789012345.678 }}",
            "{{ 1e22 }}", "{{ 1e21 }}", "{{ 0.1 * 3 }}", "{{ 5 // 2.0 }}", "{{ (-2) ** 0.5 }}", "{{ 4 ** 0.5 }}", "{{ big / 3 }}",
            "{{ '%.2f'|format(2.675) }}", "{{ '%.0f'|format(0.5) }}", "{{ '%.0f'|format(1.5) }}", "{{ '%e'|format(0) }}", "{{ '%x'|format(-255) }}",
            "{{ '{:,.2f}'.format(1234567.891) }}", "{{ '{:_}'.format(10**7) }}", "{{ '{:b}'.format(10) }}", "{{ '{:#x}'.format(255) }}", "{{ '{:=+8}'.format(-3) }}",
            "{{ '{:.2%}'.format(1/3) }}", "{{ '{:g}'.format(1e20) }}", "{{ '{:5.1f}|'.format(-0.04) }}", "{{ '{:c}'.format(97) }}", "{{ '{:s}'.format(1) }}",
            "{{ 9007199254740993 }}", "{{ 9007199254740993 + 0.0 }}", "{{ 2**53 + 1 == (2**53 + 1)|float }}", "{{ (0.1).__class__ }}", "{{ 1 is integer }}",
        ],
        "repr": [
            "{{ [s, n, f, none, t, d] }}", "{{ (1, 'a') }}", "{{ (1,) }}", "{{ {'a': [1, {'b': none}]} }}", "{{ ['it\\'s', \"q\\\"t\", '\\n'] }}",
            "{{ [1.0, 1e100, 0.1, -0.0, 1e-5] }}", "{{ d.items() }}", "{{ d.keys() }}", "{{ d.values() }}", "{{ users|groupby('age')|first }}",
            "{{ namespace(a=1) }}", "{{ range(3) }}", "{{ range(1, 10, 2) }}", "{{ cycler(1) }}", "{{ joiner() }}", "{{ lipsum is callable }}",
            "{{ [html|safe] }}", "{{ html|safe }}", "{{ ['é', '\\u2028', '\\x00'] }}", "{{ [big, -big] }}", "{{ s.split }}", "{{ dict }}",
            "{{ ['\\t', '\\\\'] }}", "{{ [undefined_x] }}", "{{ undefined_x }}", "{{ [none][0] }}",
        ],
    }
    for group, items in stmts.items():
        for i, src in enumerate(items):
            add(f"stmt/{group}/{i:02d}", src)

    # ---- generators: each filter's generator function in its repr; errors raised when the
    # generator is iterated, not when the filter is called --------------------------------
    exprs("generator", [
        "l|select", "l|reject", "users|selectattr('admin')", "users|rejectattr('admin')", "l|map('string')",
        "d|items", "l|unique", "l|batch(2)", "l|slice(2)", "undefined_x|items", "e|items", "none|items", "n|items",
        "l|items", "n|items|list", "l|items|list", "1 in (n|items)", "(n|items)|first", "(n|items)|join",
        "(n|items)|reverse", "(n|items)|sort", "(n|items) is iterable", "(n|items)|length", "(n|items)|tojson",
        "s|items|list", "(l|map('upper'))", "(l|map('upper'))|list",
        "n|map('upper')", "n|map('upper')|list", "n|select", "n|select|list", "n|unique", "n|unique|list",
        "n|batch(2)", "n|batch(2)|list", "n|slice(2)", "n|slice(2)|list", "l|slice(0)", "l|slice(0)|list",
        "l|map('nosuchfilter')", "l|map('nosuchfilter')|list", "l|select('nosuchtest')", "l|select('nosuchtest')|first",
        "l|map", "l|map|list", "l|batch", "l|slice", "l|unique(1, 2, 3)", "l|unique(nope=1)", "l|items(1)",
        "ls|select('divisibleby', 2)", "ls|select('divisibleby', 2)|list", "users|selectattr('age', 'nosuchtest')",
        "(n|map('upper')) is iterable", "(n|map('upper'))|length", "(n|map('upper'))|string", "1 in (n|select)",
    ])
    add("generator/for", "{% for k in n|items %}{{ k }}{% else %}none{% endfor %}")
    add("generator/if", "{% if n|items %}truthy{% endif %}")

    # ---- pprint wrapping, urlize options, recursive loops ----------------------------------
    exprs("pprint/wrap", [
        "range(100)|list|pprint", "(range(30)|list + ['x' * 50])|pprint", "{'z': 1, 'a': 2, 'm': [3, 2, 1]}|pprint",
        "{'b': 'x' * 70, 'a': 'y' * 70}|pprint", "['x' * 100]|pprint", "('x' * 100,)|pprint", "('word ' * 40)|pprint",
        "('word ' * 40).split()|pprint", "{'k': {'nested': ['a' * 20, 'b' * 20, 'c' * 20, 'd' * 20], 'z': none}}|pprint",
        "[[1, 2, 3] * 10, [4, 5, 6] * 10, {'q': 'r' * 80}]|pprint", "('line one\nline two ' * 8)|pprint", "['ab\ncd ' * 20]|pprint",
        "{1: 'a', 'b': 2, none: 3}|pprint", "{2: 'b', 1: 'a', 3: 'c'}|pprint", "{(1, 2): 'x' * 80, (0, 5): 'y'}|pprint",
        "(users * 2)|pprint", "msgs|pprint", "tree|pprint", "text|pprint", "[text, text]|pprint", "{'text': text}|pprint",
        "('a' * 40, 'b' * 40)|pprint", "[]|pprint", "{}|pprint", "()|pprint", "e|pprint", "[e, none, t, f, big]|pprint",
        "([1.5, -0.0, 1e100] * 8)|pprint", "([html|safe] * 5)|pprint", "((html|safe) * 5)|pprint", "{'é' * 45: 'ü' * 45}|pprint",
        "('é' * 100)|pprint", "[['x' * 38, 'y' * 38], ['z' * 77]]|pprint", "('x' * 78)|pprint", "('x' * 79)|pprint", "['x' * 76]|pprint",
        "['x' * 77]|pprint", "[['x' * 75]]|pprint", "{'a': 'x' * 73}|pprint", "{'a': 'x' * 74}|pprint", "{'a': ['x' * 70]}|pprint",
        "d.items()|list|pprint", "d.items()|pprint", "namespace(a='x' * 90)|pprint", "[tree, tree, users]|pprint",
        "('aaa ' * 30).split() | batch(7) | list | pprint", "{'a\nb': 'c\nd' * 30}|pprint", "('\t' * 50 ~ ' x' * 20)|pprint",
        "[1, [2, [3, [4, [5, ['x' * 70]]]]]]|pprint", "{'k': ('x' * 40, 'y' * 40)}|pprint", "[('x' * 80,)]|pprint",
        "{'a': 1, 'b': {'c': [1, 2, 3] * 9, 'd': ['x' * 30] * 3}, 'e': ('f', 'g' * 75)}|pprint", "([{'k1': 11111, 'k0': 0, 'k2': 22222}] * 3)|pprint",
        "('x' * 70 + ' ' + 'y' * 20)|pprint", "('x ' * 50)|pprint", "(' ' * 100)|pprint", "('x' * 100 + ' y')|pprint", "['x' * 100 + ' y']|pprint",
        "{'k': 'a b c ' * 30}|pprint", "[['a b c ' * 30]]|pprint", "('a\nb' * 50)|pprint", "('\n' * 5 + 'x' * 80)|pprint", "(\"it's \" * 20)|pprint",
        "('q' ~ '\"' ~ 't ' * 15)|pprint", "([none] * 30)|pprint", "([true, false] * 15)|pprint", "([big] * 5)|pprint", "([-big] * 5)|pprint", "([1.0e-10, 2.5e20] * 5)|pprint",
        "{'b': none, 'a': undefined_x}|pprint", "[d, d, d, d, d, d]|pprint", "{'nested': {'deeper': {'deepest': ['x' * 20] * 4}}}|pprint",
        "{'z': 0, 'y': 1, 'x': 2, 'w': 3, 'v': 4, 'u': 5, 'tt': 'x' * 40, 'ss': 7}|pprint", "{1.5: 'a', 1: 'b', -2: 'c', true: 'd'}|pprint",
        "{'b': 1, 'a': 2}.items()|list|pprint", "([('b', 1), ('a', 2)] * 6)|pprint", "(text * 3)|pprint",
    ])
    exprs("urlize/more", [
        "'http://example.com'|urlize", "'https://example.com/a/b?c=d#e'|urlize", "'www.example.com'|urlize", "'example.com'|urlize",
        "'example.org/path'|urlize", "'example.io'|urlize", "'sub.example.info'|urlize", "'http://127.0.0.1:8080/x'|urlize",
        "'http://[::1]/'|urlize", "'http://[2001:db8::1]:80'|urlize", "'http://999.1.1.1'|urlize", "'http://1.2.3'|urlize",
        "'HTTP://EXAMPLE.COM'|urlize", "'WWW.EXAMPLE.COM'|urlize", "'http://xn--bcher-kva.example'|urlize", "'http://localhost'|urlize",
        "'http://a.b'|urlize", "'http://ex_ample.com'|urlize", "'a@b.co'|urlize", "'user.name+tag@sub.example.org'|urlize",
        "'@a@b.com'|urlize", "'a@b'|urlize", "'mailto:x@y.com?cc=z@y.com'|urlize", "'mailto:'|urlize", "'x:y@z.com'|urlize",
        "'www.x@y.com'|urlize", "'(http://example.com)'|urlize", "'(http://example.com/wiki/Foo_(bar))'|urlize",
        "'<http://example.com>'|urlize", "'http://example.com/a(b)c).'|urlize", "'http://example.com,'|urlize",
        "'http://example.com...'|urlize", "'((http://x.com)))'|urlize", "'http://example.com/?a=1&b=2'|urlize",
        "'\"http://example.com\"'|urlize", "\"'http://example.com'\"|urlize", "'http://example.com/<script>'|urlize",
        "'a  b\n\thttp://x.com\n'|urlize", "'http://example.com/very/long/path/to/something'|urlize(15)",
        "'www.example.com'|urlize(3)", "'http://x.com'|urlize(100)", "'http://x.com'|urlize(0)", "'a@b.com'|urlize(2)",
        "'http://x.com'|urlize(trim_url_limit=5)", "'http://x.com'|urlize(nofollow=true, rel='external')",
        "'http://x.com'|urlize(rel='b a noopener')", "'http://x.com'|urlize(target='_blank', rel='x')",
        "'http://x.com'|urlize(target='\"><')", "'http://x.com'|urlize(rel='\"q\"')", "'a@b.com'|urlize(target='_blank', nofollow=true)",
        "'mailto:a@b.com'|urlize(target='t')", "'ftp://files.example.com/x'|urlize", "'ftp://files.example.com/x'|urlize(extra_schemes=['ftp://'])",
        "'ftp://'|urlize(extra_schemes=['ftp://'])", "'tel:123 sms:456'|urlize(extra_schemes=['tel:', 'sms:'])",
        "'x'|urlize(extra_schemes=['bad scheme'])", "'x'|urlize(extra_schemes=['a:'])", "'x'|urlize(extra_schemes='tel:')",
        "'tel:<1>'|urlize(extra_schemes=['tel:'], target='_t')", "n|urlize", "none|urlize", "(html|safe)|urlize", "html|urlize",
        "'&lt;http://x.com&gt;'|urlize", "'<<http://x.com>>'|urlize", "'http://x.com>'|urlize", "'http://x.com\n'|urlize",
        "'see: http://a.com, http://b.org; www.c.net.'|urlize", "'http://x.com'|urlize(1, true, '_b', 'r')",
        "'http://x.com'|urlize(nope=1)", "'http://x.com'|urlize('a')", "(url|urlize) is string", "'example.com:8080/x'|urlize",
        "'www.example.com:99999'|urlize", "'www.example.com:123456'|urlize", "'http://a-b.c-d.com'|urlize", "'http://%41.com'|urlize",
        "'https://例え.テスト/パス'|urlize", "'ex.com'|urlize", "'foo.bar.museum'|urlize", "'http://x.com#frag'|urlize",
        "'http://x.comx'|urlize", "'http://123.com'|urlize", "'www.a'|urlize", "'http://[1:2:3]'|urlize",
        "'http://example.com/abc'|urlize(-3)", "'http://example.com/abc'|urlize(2.5)", "'http://x.co'|urlize(20.5)", "'http://x.com'|urlize(true)",
        "'http://x.com'|urlize(none, none, none, none, none)", "'http://x.com'|urlize(target=none)", "'http://x.com'|urlize(target='')",
        "'http://x.com'|urlize(rel=1)", "'http://x.com'|urlize(rel=0)", "'http://x.com'|urlize(target=3)", "'http://x.com'|urlize(target='<b>'|safe)",
        "'x'|urlize(extra_schemes=[1])", "'x y'|urlize(extra_schemes=[])", "'git+ssh://h/r'|urlize(extra_schemes=['git+ssh://'])",
        "'A.b-c:x'|urlize(extra_schemes=['A.b-c:'])", "'tel:1'|urlize(extra_schemes=['tel:', 'te:'])", "'x'|urlize(extra_schemes=['tel:///'])",
        "'http://x.com/ünï'|urlize", "'http://bücher.com'|urlize", "'ü@ß.de'|urlize", "'a@b.c-d'|urlize", "'a@b-.cd'|urlize", "'a@.b.cd'|urlize",
        "'a@b.cd.'|urlize", "'a@@b.cd'|urlize", "'a@b.cd,a@e.fg'|urlize", "'x\u3000http://x.com\u00a0y'|urlize", "'http://x.com\x1fz'|urlize",
        "'(((www.x.com'|urlize", "'www.x.com)))'|urlize", "'(www.x.com/a_(b)'|urlize", "'<www.x.com>.'|urlize", "'www.x.com&gt;'|urlize",
        "'http://x.com:'|urlize", "'http://x.com:0'|urlize", "'http://x.com?'|urlize", "'http://1.2.3.4567'|urlize", "'http://1.2.3.4:5/p'|urlize",
        "'http://[fe80::1%25eth0]'|urlize", "'http://[::ffff:1.2.3.4]'|urlize", "'http://[1::2::3::4::5::6::7::8]'|urlize", "'https://[ABCD:ef::]'|urlize",
        "'www.ab.cd.ef.com'|urlize", "'a.com'|urlize", "'ab.COM'|urlize", "'xn--p1ai.xn--p1ai'|urlize", "'www.xn--p1ai'|urlize",
        "'http://xn--p1ai'|urlize", "'https://KELVIN.\u212aE'|urlize", "'some text without links.'|urlize", "'   '|urlize", "'\n\nwww.x.org\n'|urlize",
        "url|urlize(10, true, '_top', 'ext')|length", "[1, 2]|urlize", "d|urlize", "undefined_x|urlize", "'http://x.com'|urlize(undefined_x)",
    ])
    stmt_rec = [
        "{% for n in tree recursive %}{{ n.name }}@{{ loop.depth }}/{{ loop.depth0 }}:{{ loop.index }}/{{ loop.length }}/{{ loop.first }}/{{ loop.last }}{% if n.children %}<{{ loop(n.children) }}>{% endif %} {% endfor %}",
        "{% for n in tree recursive %}{{ loop.revindex }}{{ loop.previtem.name if loop.previtem }}{{ loop.nextitem.name if loop.nextitem }}{{ loop.cycle('x', 'y') }}[{{ loop(n.children) }}]{% endfor %}",
        "{% for n in tree recursive %}{% if n.children %}{{ loop(n.children) }}{% endif %}{% else %}<empty@{{ loop is defined }}>{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{{ loop(n.children) }}{% else %}!{% endfor %}",
        "{% for n in tree if n.children recursive %}{{ n.name }}({{ loop(n.children) }}){% else %}-{% endfor %}",
        "{% for n in tree if n.name|length > 1 or n.name == 'a' recursive %}{{ n.name }}{{ loop.index }}/{{ loop.length }}({{ loop(n.children) }}){% endfor %}",
        "{% for n in tree recursive %}{% set inner = loop(n.children) %}{{ n.name }}={{ inner|length }}:{{ inner|upper }};{% endfor %}",
        "{% for n in tree recursive %}{{ (loop(n.children) ~ '|') * 2 }}{{ n.name }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop(n.children) is string }}{% endfor %}",
        "{% for n in tree recursive %}{% for c in n.children %}{{ c.name }}{{ loop.depth }}{% endfor %}/{{ loop.depth }}{{ loop(n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{% for m in n.children recursive %}<{{ m.name }}{{ loop.depth }}{{ loop(m.children) }}>{% endfor %}{{ loop.depth }};{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{% for c in n.children %}[{{ loop(c.children) }}]{% endfor %}{% endfor %}",
        "{% for k, v in {'a': {'b': {'c': {}}, 'd': {}}}.items() recursive %}{{ k }}{{ loop.depth }}({{ loop(v.items()) }}){% endfor %}",
        "{% for x in [1, [2, [3, 4]], 5] recursive %}{% if x is iterable %}{{ loop(x) }}{% else %}{{ x }}@{{ loop.depth }}{% endif %},{% endfor %}",
        "{% for x in [[[[]]]] recursive %}{{ loop.depth }}{{ loop(x) }}{% endfor %}",
        "{% for x in [1, 2] recursive %}{{ x }}{% if x < 2 %}{{ loop([x + 1]) }}{% endif %}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{% if loop.depth < 2 %}{{ loop(n.children) }}{% endif %}{% endfor %}",
        "{% for n in tree recursive %}{% if n.name == 'a2' %}{% break %}{% endif %}{{ n.name }}{{ loop(n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{% if n.name == 'a1' %}{% continue %}{% endif %}{{ n.name }}{{ loop(n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop(n.children, 1) }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop() }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop(none) }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop(5) }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop('ab') }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop.depth }}{% endfor %}{{ loop is defined }}",
        "{% for n in tree %}{{ loop(n.children) }}{% endfor %}",
        "{% for x in l %}{{ loop([]) }}{% endfor %}",
        "{% for n in tree recursive %}{% set x = n.name %}{{ x }}{{ loop(n.children) }}{{ x }}{% endfor %}",
        "{% set ns = namespace(c=0) %}{% for n in tree recursive %}{% set ns.c = ns.c + 1 %}{{ loop(n.children) }}{% endfor %}{{ ns.c }}",
        "{% macro show(t) %}{% for n in t recursive %}{{ n.name }}{{ loop(n.children) }}{% endfor %}{% endmacro %}{{ show(tree) }}|{{ show(tree[0].children) }}",
        "{% for n in tree recursive %}{{ caller is defined }}{% endfor %}",
        "{% for n in tree recursive -%}\n  {{ n.name }}\n  {%- if n.children %}\n    {{- loop(n.children) }}\n  {%- endif %}\n{%- endfor %}",
        "{% for n in tree recursive %}\n{{ n.name }}\n{% if n.children %}\n{{ loop(n.children) }}\n{% endif %}\n{% endfor %}",
        "{% for n in tree|reverse recursive %}{{ n.name }}{{ loop(n.children|reverse) }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{{ loop(n.children|selectattr('name', 'ne', 'a2x')) }}{% endfor %}",
        "{% for a, b in [(1, [(2, []), (3, [(4, [])])])] recursive %}{{ a }}{{ loop.depth }}{{ loop(b) }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop.changed(loop.depth) }}{{ loop(n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{% filter upper %}{{ loop(n.children) }}{% endfilter %}{% endfor %}",
        "{% for n in tree recursive %}{% set ch %}{{ loop(n.children) }}{% endset %}[{{ ch }}]{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{{ loop(n.children)|length }}{% endfor %}",
        "{% for x in 'ab' recursive %}{{ x }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop(n.children) }}{% endfor %}{% for m in tree recursive %}{{ m.name }}{% endfor %}",
        "{% for recursive in l %}{{ recursive }}{% endfor %}",
        "{% for n in tree recursive recursive %}{% endfor %}",
        "{% for n in tree if n recursive %}{% endfor %}",
        "{% for n in tree if n.name != 'a1' recursive %}{{ n.name }}{{ loop.index }}/{{ loop.length }}{{ loop.last }}({{ loop(n.children) }}){% else %}[none@{{ n is defined }}]{% endfor %}",
        "{% for x in [3, [1, 8, [9, 2]], 7] if x is not number or x > 2 recursive %}{% if x is number %}{{ x }}:{{ loop.depth }}:{{ loop.revindex }} {% else %}({{ loop(x) }}){% endif %}{% else %}E{% endfor %}",
        "{% for x in [[], [[]], [1]] if x != 1 recursive %}<{{ loop(x) if x is iterable else x }}>{% else %}e{{ loop is defined }}{% endfor %}",
        "{% for n in tree if undefined_x recursive %}{{ n }}{% else %}nothing{% endfor %}",
        "{% for n in tree if loop is defined recursive %}{{ n.name }}{% endfor %}",
        "{% set depth = 9 %}{% for n in tree recursive %}{{ depth }}{{ loop(n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{% set depth = loop.depth %}{{ depth }}{{ loop(n.children) }}{{ depth }}{% endfor %}",
        "{% for n in [tree[0]] recursive %}{{ n.name }}{% for x in [1] %}{% endfor %}{{ loop(n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{{ loop(n.children)|safe }}{{ (loop(n.children)|safe) is escaped }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{{ loop(n.children) == '' }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{% if loop.depth == 1 %}{% for c in n.children recursive %}({{ c.name }}{{ loop.depth }}{{ loop(c.children) }}){% endfor %}{% endif %}{% endfor %}",
        "{% for n in tree recursive %}{{ loop.depth0 }}{% if n.children %}{{ loop(n.children) }}{% endif %}{{ loop.depth0 }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}:{{ loop.index0 }}:{{ loop.revindex0 }}{{ loop(n.children) }}{% endfor %}",
        "{% for n in msgs recursive %}{{ n.role }}{% endfor %}",
        "{% for n in users recursive %}{{ n.name }}{{ loop(n.tags) if n.tags is mapping else '' }}{% endfor %}",
        "{% for n in tree recursive %}{{ loop(n.children) ~ n.name }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{% for i in range(2) %}{% endfor %}{{ loop(n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{% for i in range(2) %}{{ loop.index }}{% endfor %}{{ loop.index }}{{ loop(n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{% macro m() %}{{ n.name }}{% endmacro %}{{ m() }}{{ loop(n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{{ loop(n.children)|trim|wordcount }}{% endfor %}",
    ]
    for i, src in enumerate(stmt_rec):
        add(f"stmt/recursive/{i:02d}", src)

    # ---- integer literals beyond 64 and 128 bits (Python ints are unbounded) -----------------
    exprs("expr/bigint", [
        "10234237582375823572357238572385723582375827582375238572385723857238572385723523758",
        "340282366920938463463374607431768211455",
        "-170141183460469231731687303715884105728",
        "170141183460469231731687303715884105728 - 1",
        "0x1ffffffffffffffffffffffffffffffff",
        "0o7777777777777777777777777777777777777777777777777",
        "0b1_0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "1_000_000_000_000_000_000_000_000_000_000_000_000_000",
        "-340282366920938463463374607431768211455 * 2",
        "99999999999999999999999999999999999999999999 // 7",
        "99999999999999999999999999999999999999999999 % 97",
        "99999999999999999999999999999999999999999999 / 3",
        "(99999999999999999999999999999999999999999999)|string|length",
        "99999999999999999999999999999999999999999999 > 1",
        "99999999999999999999999999999999999999999999 == 99999999999999999999999999999999999999999999",
        "[340282366920938463463374607431768211456]|tojson",
        "340282366920938463463374607431768211456|float",
        "340282366920938463463374607431768211456 is number",
        "'%d'|format(340282366920938463463374607431768211456)",
        "[1, 2][340282366920938463463374607431768211456]",
        "'x' * 340282366920938463463374607431768211456",
        "340282366920938463463374607431768211456 - 340282366920938463463374607431768211455",
    ])

    # ---- macro argument binding, caller and macro attributes ---------------------------------
    mac = "{% macro two(a, b) %}[{{ a }},{{ b }}]{% endmacro %}"
    macv = "{% macro kw(a, b=2) %}[{{ a }},{{ b }},{{ kwargs }},{{ varargs }}]{% endmacro %}"
    stmt_bind = [
        mac + "{{ two(1, a=2) }}",
        mac + "{{ two(1, 2, 3) }}",
        mac + "{{ two(1, 2, 3, a=4) }}",
        mac + "{{ two(1, c=3) }}",
        mac + "{{ two(b=1, a=2) }}",
        mac + "{{ two(1, b=2) }}",
        mac + "{{ two(a=1, a=2) }}",
        mac + "{{ two() }}",
        mac + "{{ two(1, caller=2) }}",
        macv + "{{ kw(1, a=5) }}",
        macv + "{{ kw(1, 2, 3, b=4) }}",
        macv + "{{ kw(1, 2, 3, c=4) }}",
        macv + "{{ kw(b=0, a=1) }}",
        "{% macro info(a, b) %}{{ caller.name }}|{{ caller.arguments }}|{{ caller.caller }}|{{ caller.catch_kwargs }}|{{ caller.catch_varargs }}|{{ caller(a, b) }}{% endmacro %}{% call(a, b) info(1, 2) %}{{ a }}{{ b }}{% endcall %}",
        "{% macro info() %}{{ caller.name is none }}{{ caller }}{% endmacro %}{% call info() %}x{% endcall %}",
        "{% macro info() %}{{ caller() }}{% endmacro %}{% call info() %}{{ caller is defined }}{% endcall %}",
        "{% macro m(a, b=1) %}{{ caller is defined }}{% endmacro %}{{ m.name }}|{{ m.arguments }}|{{ m.caller }}|{{ m.catch_kwargs }}|{{ m.catch_varargs }}|{{ m }}",
        "{% macro m() %}{{ caller() }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m.name }}|{{ m.arguments }}|{{ m.caller }}|{{ m.catch_kwargs }}|{{ m.catch_varargs }}",
        "{% macro outer() %}{{ caller.name }}{% endmacro %}{% call outer() %}{% endcall %}",
    ]
    for i, src in enumerate(stmt_bind):
        add(f"stmt/macro_bind/{i:02d}", src)

    # ---- a loop object under another name -----------------------------------------------------
    stmt_alias = [
        "{% for n in tree recursive %}{% set parent = loop %}{{ n.name }}({% for c in [1] %}{{ parent(n.children) }}{% endfor %}){% endfor %}",
        "{% for n in tree recursive %}{% set p = loop %}{{ n.name }}{{ loop.depth }}[{{ p(n.children) }}]{% endfor %}",
        "{% for n in tree recursive %}{% set p = loop %}{% for c in n.children %}{{ c.name }}{{ p(c.children) }}{% endfor %};{% endfor %}",
        "{% for n in tree recursive %}{% set p = loop %}{{ p(n.children, 1) }}{% endfor %}",
        "{% for n in tree recursive %}{% set p = loop %}{{ p(items=n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{% set p = loop %}{{ p() }}{% endfor %}",
        "{% for x in l %}{% set p = loop %}{{ p([]) }}{% endfor %}",
        "{% macro walk(lp, items) %}{{ lp(items) }}{% endmacro %}{% for n in tree recursive %}{{ n.name }}{{ walk(loop, n.children) }}{% endfor %}",
        "{% for n in tree recursive %}{% set p = loop %}{% for c in n.children recursive %}{{ c.name }}{{ loop.depth }}{{ p(c.children) }}{% endfor %}{% endfor %}",
        "{% for n in tree recursive %}{{ n.name }}{{ [loop][0](n.children) }}{% endfor %}",
    ]
    for i, src in enumerate(stmt_alias):
        add(f"stmt/loop_alias/{i:02d}", src)

    # ---- extends/include/import/from: no loader, so an error only when reached ----------------
    stmt_loader = [
        "before\n{% if no %}\n  {% extends 'something.html' %}\n{% endif %}\nand after\n",
        "a{% if no %}{% include 'b.html' %}{% endif %}b",
        "a{% if no %}{% include 'b.html' ignore missing with context %}{% endif %}b",
        "a{% if no %}{% include ['b.html', 'c.html'] without context %}{% endif %}b",
        "a{% if no %}{% import 'm.html' as m with context %}{% endif %}b{{ m is defined }}",
        "a{% if no %}{% from 'm.html' import x, y as z without context %}{% endif %}b",
        "a{% if no %}{% from 'm.html' import x, %}{% endif %}b",
        "a{% for x in empty %}{% extends x %}{% endfor %}b",
        "{% macro m() %}{% include 'x' %}{% endmacro %}ok",
        "a{% extends 'b.html' %}b",
        "{% include 'b.html' ignore missing %}ok",
        "{% if t %}{% include s %}{% endif %}",
        "{% from 'm.html' import x with context %}",
        "{% if no %}{% from 'm.html' import _x %}{% endif %}",
        "{% if no %}{% from 'm.html' import %}{% endif %}",
        "{% if no %}{% import 'm.html' %}{% endif %}",
        "{% if no %}{% import 'm.html' as none %}{% endif %}",
        "{% if no %}{% include 'm.html' ignore %}{% endif %}",
        "{% if no %}{% extends %}{% endif %}",
        "{% if no %}{% extends 'a' 'b' %}{% endif %}",
    ]
    for i, src in enumerate(stmt_loader):
        add(f"stmt/loader/{i:02d}", src)

    # ---- `%` and `*` of str and Markup against every kind of right operand -------------------
    # Python's `%` takes a subscriptable argument (dict, list, range, Undefined) as a mapping
    # and then skips the "not all arguments converted" check; markupsafe wraps the argument in a
    # helper that is subscriptable when the argument is. `Markup * x` is `str.__mul__(x)`.
    operands = ["[1, 2]", "{'a': 1}", "range(2)", "zz", "(1,)", "()", "'x'", "'x'|safe", "1", "none",
                "true", "2.5", "namespace()", "d.items()", "l|reverse", "cycler(1)"]
    for i, b in enumerate(operands):
        add(f"expr/percent_operand/{i:02d}", "{{ 'abc' % " + b + " }}|{{ 'a%sc' % " + b + " }}")
        add(f"expr/markup_percent_operand/{i:02d}", "{{ ('abc'|safe) % " + b + " }}|{{ ('a%sc'|safe) % " + b + " }}")
        add(f"expr/markup_percent_key/{i:02d}", "{{ ('a%(a)sc'|safe) % " + b + " }}")
        add(f"expr/markup_repeat/{i:02d}", "{{ ('ab'|safe) * " + b + " }}")
        add(f"expr/str_repeat/{i:02d}", "{{ 'ab' * " + b + " }}")
    markup_percent = [
        "{{ ('a%rc'|safe) % '<' }}", "{{ ('a%rc'|safe) % ('<', ) }}", "{{ ('a%(a)rc'|safe) % {'a': '<'} }}",
        "{{ ('a%sc'|safe) % {'a': '<'} }}", "{{ ('a%(a)sc'|safe) % {'a': '<'} }}", "{{ ('a%ac'|safe) % 'é<' }}",
        "{{ ('a%sc'|safe) % ('<b>'|safe, ) }}", "{{ ('a%rc'|safe) % ('<b>'|safe, ) }}", "{{ ('%d|%.1f|%x'|safe) % (5, 2.25, 255) }}", "{{ ('%d|%i|%u|%e|%g'|safe) % (5, 6, 7, 2.5, 0.5) }}",
        "{{ ('%o'|safe) % 8 }}", "{{ ('%X'|safe) % 255 }}", "{{ ('%c'|safe) % 65 }}", "{{ ('%c'|safe) % 'x' }}",
        "{{ ('%5s|%-4r|'|safe) % ('<', '&') }}", "{{ ('%s'|safe) % none }}", "{{ ('%s %s'|safe) % (['<'], {'k': '>'}) }}",
    ]
    for i, src in enumerate(markup_percent):
        add(f"expr/markup_percent/{i:02d}", src)

    # ---- subscripts as jinja2 parses them: comma-separated keys or slices, `a[]` is `a[()]` --------
    subscripts = [
        "{% set a = {(): 5} %}{{ a[] }}", "{{ 'abc'[] }}", "{{ l[] is undefined }}", "{{ d[]|default('fb') }}",
        "{{ zz[] }}", "{{ l[1,] }}", "{{ l[1 2] }}", "{% set a = {(1, 2): 5} %}{{ a[1, 2] }}|{{ a[(1, 2)] }}",
        "{{ l[1:2, 3] }}", "{{ l[1:2:1:1] }}", "{{ l[,] }}", "{{ l[:,] }}", "{{ l[::] }}|{{ l[::-1] }}|{{ l[:1:] }}",
        "{{ l[:2] }}{{ l[1:] }}{{ l[:] }}{{ l[1::] }}", "{{ d[1:2, 'a'] }}", "{{ l[0][] }}", "{{ s[0, 1] }}",
    ]
    for i, src in enumerate(subscripts):
        add(f"expr/subscript_syntax/{i:02d}", src)
    # `break`/`continue` outside a loop: jinja2's generated Python does not compile (SyntaxError).
    outside = ["{% break %}", "{% if t %}{% continue %}{% endif %}", "{% for x in l %}{% endfor %}{% break %}",
               "{% macro m() %}{% break %}{% endmacro %}{% for x in l %}{{ m() }}{% endfor %}",
               "{% for x in l %}{% call m() %}{% break %}{% endcall %}{% endfor %}",
               "{% for x in l %}{% else %}{% break %}{% endfor %}",
               "{% for x in l %}{% set y %}{% break %}{% endset %}{% endfor %}ok"]
    for i, src in enumerate(outside):
        add(f"stmt/loop_control_outside/{i:02d}", src)

    # ---- a loop's `if` filter is asked for each item when its turn comes ------------------------
    # (the body's effects reach the filter of later items; an item is unpacked only then);
    # `loop.length`/`loop.last` in the body look ahead.
    lazy = [
        "{% set ns = namespace(go=true) %}{% for x in l if ns.go %}{{ x }}{% set ns.go = false %}{% endfor %}",
        "{% set ns = namespace(n=0) %}{% for x in [1, 2, 3, 4] if x > ns.n %}{{ x }}{% set ns.n = x + 1 %}{% endfor %}",
        "{% for a, b in [[1, 2], [1]] if true %}{{ a }}{{ zz.y }}{% endfor %}",
        "{% set y = true %}{% for x in [1, 2] if y %}{{ x }}{% set y = false %}{% endfor %}{{ y }}",
        "{% set x = 9 %}{% for x in [1, 2] if x > 5 %}{{ x }}{% else %}E{{ x }}{% endfor %}{{ x }}",
        "{% for x in [1, 2, 3] if x > 1 %}{{ x }}{% if x == 2 %}{% continue %}{% endif %}|{% else %}E{% endfor %}",
        "{% for x in l if x > 1 %}{{ x }}{% break %}{% endfor %}",
        "{% for x in empty if x %}{% else %}empty{% endfor %}",
        "{% for k, v in d.items() if v > 1 %}{{ k }}{{ v }}{% else %}no{% endfor %}",
        "{% for m in msgs if m.role != 'system' %}{% for k in [1, 2] if k > 1 %}{{ m.role }}{{ k }}{% endfor %}{% endfor %}",
        "{% for x in l if loop is undefined %}{{ x }}{% endfor %}",
        "{% for x in [1, 2] %}{% for y in [3, 4] if loop.index == 1 %}{{ x }}{{ y }}{% endfor %}{% endfor %}",
        "{% set ns = namespace(go=true) %}{% for x in l if ns.go %}{{ x }}{{ loop.last }}{% set ns.go = false %}{% endfor %}",
        "{% set ns = namespace(go=true) %}{% for x in l if ns.go %}{{ x }}{{ loop.length }}{% set ns.go = false %}{% endfor %}",
        "{% for x in l if x is odd %}{{ x }}{% set x = 0 %}{{ x }}{% endfor %}",
        "{% for x in l if x > 1 %}{% set t = x %}{% endfor %}{{ t is defined }}",
    ]
    for i, src in enumerate(lazy):
        add(f"stmt/loop_filter_turn/{i:02d}", src)

    # ---- what jinja2 refuses when it compiles: `loop` assigned inside a loop, a `caller`
    # parameter without a default in a body that reads it, a trailing comma in a signature,
    # call arguments out of order ------------------------------------------------------------
    refused = [
        "{% for loop in l %}{% endfor %}", "{% for a, loop in [[1, 2]] %}{% endfor %}",
        "{% for x in l %}{% set loop = 1 %}{% endfor %}", "{% for x in l %}{% else %}{% set loop = 1 %}{% endfor %}",
        "{% for x in l %}{% for loop in l %}{% endfor %}{% endfor %}",
        "{% for x in l %}{% macro m() %}{% set loop = 2 %}{% endmacro %}{% endfor %}",
        "{% for x in l %}{% set a, loop = 1, 2 %}{% endfor %}", "{% for x in l %}{% set loop %}a{% endset %}{% endfor %}",
        "{% for x in l %}{% with loop = 1 %}{{ loop }}{% endwith %}{% endfor %}", "{% set loop = 1 %}{{ loop }}",
        "{% macro m(loop) %}{{ loop }}{% endmacro %}{% for x in [1] %}{{ m(x) }}{% endfor %}",
        "{% macro x(caller) %}[{{ caller() }}]{% endmacro %}{{ x(1) }}", "{% macro x(caller) %}[]{% endmacro %}{{ x(1) }}",
        "{% macro x(a, caller=none) %}[{{ caller }}]{% endmacro %}{{ x(1) }}",
        "{% macro x(caller, b=1) %}{% macro y() %}{{ caller }}{% endmacro %}{% endmacro %}ok",
        "{% macro f(caller) %}{% endmacro %}{% call(caller) f() %}{{ caller }}{% endcall %}",
        "{% macro f(a,) %}{% endmacro %}", "{% macro f(a) %}{{ caller(1) }}{% endmacro %}{% call(x,) f() %}{{ x }}{% endcall %}",
        "{% macro f() %}{% endmacro %}{% call() f() %}{% endcall %}ok",
        "{{ range(*[1], 4) }}", "{{ range(*[1], *[2]) }}", "{{ dict(**{'a': 1}, b=1) }}", "{{ dict(b=1, **{'a': 1}) }}",
        "{{ range(1, *[4]) }}", "{{ dict(a=1, *[]) }}", "{{ range(**{}, **{}) }}", "{{ range(3,) }}",
        "{{ dict(*[], **{}) }}", "{{ dict(**{}, *[]) }}", "{{ range(1, a=2, 3) }}",
    ]
    for i, src in enumerate(refused):
        add(f"stmt/compile_refusals/{i:02d}", src)

    # ---- a macro defined in a macro keeps its definer's variables after that call returns --------
    closures = [
        "{%- set first = namespace() -%}{%- set second = namespace() -%}{%- macro outer(target, value) -%}{%- macro inner() -%}{{ value }}{%- endmacro -%}{%- set target.inner = inner -%}{%- endmacro -%}{{- outer(first, 'first') -}}{{- outer(second, 'second') -}}{{- first.inner() }}|{{ second.inner() -}}",
        "{% set ns = namespace() %}{% macro outer() %}{% set w = 'y' %}{% macro inner() %}[{{ w }}]{% endmacro %}{% set ns.f = inner %}{% set w = 'z' %}{% endmacro %}{{ outer() }}{{ ns.f() }}",
        "{% macro outer(v) %}{% macro inner() %}[{{ v }}]{% endmacro %}{{ inner() }}{% endmacro %}{{ outer('x') }}",
        "{% set ns = namespace() %}{% macro outer(v) %}{% macro inner(n) %}{{ v }}{% if n %}{{ ns.f(n - 1) }}{% endif %}{% endmacro %}{% set ns.f = inner %}{% endmacro %}{{ outer('q') }}{{ ns.f(3) }}",
        "{% set ns = namespace() %}{% macro outer(v) %}{% macro inner() %}{{ v }}{{ caller() }}{% endmacro %}{% set ns.f = inner %}{% endmacro %}{{ outer(1) }}{% call ns.f() %}c{% endcall %}",
        "{% set ns = namespace(l=[]) %}{% macro outer(v) %}{% macro inner() %}{{ v }}{% endmacro %}{% set ns.l = ns.l + [inner] %}{% endmacro %}{% for i in range(3) %}{{ outer(i) }}{% endfor %}{% for f in ns.l %}{{ f() }}{% endfor %}",
    ]
    for i, src in enumerate(closures):
        add(f"stmt/macro_closure/{i:02d}", src)

    # ---- attributes jinja2's Undefined has: found, and refused by the sandbox ------------------
    undefined_attrs = [
        "{{ zz._undefined_name }}", "{{ zz._undefined_hint }}|{{ zz._undefined_obj }}|{{ zz._undefined_exception }}",
        "{{ zz._fail_with_undefined_error }}", "{{ zz._foo }}", "{{ zz.__class__ }}", "{{ zz._undefined_name ~ 'a' }}",
        "{{ zz._undefined_name is defined }}", "{{ zz.__len__ }}", "{{ zz.__html__ }}", "{{ zz._undefined_name + 1 }}",
        "{{ zz.__class__.y }}", "{{ zz.__index__ }}", "{{ d.zz.__class__ }}", "{{ zz['_undefined_name'] }}",
    ]
    for i, src in enumerate(undefined_attrs):
        add(f"expr/undefined_attrs/{i:02d}", src)

    # ---- printf-style precision, `%c` padding, `%` conversions with flags --------------------
    printf = ["%.3d", "%5.3d|", "%-6.3d|", "%+.3d", "%.3x", "%#.3x", "%#.4o", "%.0d", "%08.3d", "%.10d", "%.3u",
              "%05c", "%-5c|", "%+c", "%.2c", "% %s", "%5%", "%(a)%", "%-%", "%z", "%.3d%%", "%%%d"]
    for i, f in enumerate(printf):
        add(f"expr/printf_precision/{i:02d}", "{{ '" + f + "' % 7 }}|{{ '" + f + "' % -7 }}|{{ '" + f + "' % (65,) }}|{{ '" + f + "' % {'a': 5} }}")
        add(f"expr/printf_precision_big/{i:02d}", "{{ '" + f + "' % 12345678901234567890123456789012345678901234 }}")
    # `str.isalpha`/`isalnum`/`isascii` and `\\w` of wordcount as Python's Unicode database says.
    unicode_classes = ["a", "é", "ß", "٣", "\u093e", "Ⅻ", "Ⓐ", "_", "中", "½", "ǅ", "ʰ", "\u0301", "①", "𝟘", "\u200d"]
    # `str.format` specs: zero padding with grouping, separators per type, `z`, the checks
    # of int/str `__format__` (each spec over an int, a negative int, a float and a string).
    fmt_specs = ["08,", "08_", "010,.2f", "_x", ",x", "_b", "#010_x", "010_o", "+c", "#c", ",c", ".2d", "05",
                 "<05", "=5", "#5", "z", "z.1f", "z5", "0=10,", ",n", ",,", ",_", "_,", "*^12,.2f", "-08,", "010,%",
                 "x<08,", "0>8,", "#012_b"]
    for i, f in enumerate(fmt_specs):
        add(f"method/format_spec/{i:02d}", "".join(
            "{{ '{:" + f + "}'.format(" + a + ") }}|" for a in ["1234"]) +
            "{{ '{:" + f + "}'.format(-0x12ff0ef7) }}|{{ '{:" + f + "}'.format(-0.0) }}|{{ '{:" + f + "}'.format('ab') }}")
    # `{% raw %}`: lstrip_blocks before `{% endraw %}`, and nothing after the opening tag.
    raws = ["{% raw %}", "ab{% raw %}", "{% raw %}\n", "{% raw %} ", "{% raw -%}\n  ", "{% raw %}x",
            "{{ n }}{% raw %}\n\n    {% endraw %}\n\n{{ n }}", "{{ n }}{% raw %}\n\n      {% endraw +%}\n\n{{ n }}",
            "{% raw %}a\n\t {%+ endraw %}b", "{% raw %}a\n \t{%- endraw %}b", "{% raw %}  {% endraw %}|",
            "  {% raw %}a{% endraw %}", "{% raw %}a\n  {% endraw -%}  b", "x\n    {% raw %}b\n   {% endraw %}\n"]
    for i, src in enumerate(raws):
        add(f"stmt/raw_edges/{i:02d}", src)
    # jinja2's eval-context filters under autoescape (xmlattr, urlize, join, replace) and
    # Markup.format_map.
    escaped = ["{{ {'a': '<b'}|xmlattr }}", "{{ ['<', '<i>'|safe]|join(',') }}", "{{ ['<', 'x']|join('<br>'|safe) }}",
               "{{ ['<', 'x']|join('<,') }}", "{{ ['<'|safe, 'x']|join('<,') }}", "{{ '<a> & b'|replace('&', '<and>'|safe) }}",
               "{{ '<a> & b'|replace('&'|safe, '+') }}", "{{ ('<a> & b'|safe)|replace('&', '<+>') }}", "{{ '<a> & b'|replace('&', '+') }}",
               "{{ 'see http://x.com/?a=<b>'|urlize }}", "{{ users|join(',', attribute='name') }}", "{{ ('{a}'|safe).format_map({'a': '<'}) }}",
               "{{ ['a', none, 1]|join('|'|safe) }}", "{{ 'a<b'|replace(old='<', new='<i>'|safe) }}", "{{ ('a<b'|safe)|replace('<', new='&') }}"]
    for i, src in enumerate(escaped):
        add(f"filter/autoescaped/{i:02d}", "{% autoescape true %}" + src + "{% endautoescape %}|" + src)
        add(f"filter/autoescaped_computed/{i:02d}", "{% autoescape t %}" + src + "{% endautoescape %}")
    # `{% block name required %}`: only whitespace and comments inside; rendering it fails.
    required = ["{% block b required %}{% endblock %}", "{% if false %}{% block b required %}{% endblock %}{% endif %}x",
                "{% block b required %}\n  {# c #}\n{% endblock %}", "{% block b scoped required %}{% endblock %}",
                "{% block b required %}x{% endblock %}", "{% block b required scoped %}{% endblock %}",
                "{% if false %}{{ self.b() }}{% endif %}{% block b required %}{% endblock %}",
                "{% for x in [] %}{% block b required %}{% endblock %}{% endfor %}ok", "{{ self.b is defined }}{% if false %}{% block b required %}{% endblock %}{% endif %}"]
    for i, src in enumerate(required):
        add(f"stmt/block_required/{i:02d}", src)
    # Markup.format / format_map: each field's formatted text escaped, after lookups.
    markup_fmt = ['{{ ("a{x.foo}b{y}"|safe).format_map({"x": {"foo": 42}, "y": "<foo>"}) }}',
                  '{{ ("{0[a]}|{1!r}|{2:>5}|{3}"|safe).format({"a": "<"}, "<", "<", "<b>"|safe) }}',
                  '{{ ("{0:>5}"|safe).format("<b>"|safe) }}', '{{ ("{a}"|safe).format(a=1.5) }}', '{{ ("{}{}"|safe).format("&", none) }}',
                  '{{ ("{0!s}"|safe).format("<b>"|safe) }}', '{{ ("{0.name}"|safe).format(users[0]) }}', '{{ ("{:,}"|safe).format(1234567) }}']
    for i, src in enumerate(markup_fmt):
        add(f"method/markup_format/{i:02d}", src)
    # `reverse` of each kind of value: the reverse iterator's type follows what it reverses.
    reversed_kinds = ["{{ d.items()|reverse }}", "{{ (1, 2)|reverse }}", "{{ d|reverse }}", "{{ zz|reverse }}",
                      "{{ d.keys()|reverse }}", "{{ d.values()|reverse }}", "{{ l|reverse }}",
                      "{{ ('a'.encode())|reverse }}", "{{ range(3)|reverse }}", "{{ (d|reverse)|length }}", "{{ (d.items()|reverse)|list }}"]
    for i, src in enumerate(reversed_kinds):
        add(f"filter/reverse_kinds/{i:02d}", src)
    for i, c in enumerate(unicode_classes):
        add(f"method/str_unicode_class/{i:02d}",
            "{{ '" + c + "'.isalpha() }}|{{ '" + c + "'.isalnum() }}|{{ '" + c + "'.isascii() }}|{{ ('a" + c + "b')|wordcount }}")
    return out


def main(argv):
    all_cases = cases()
    names = [c["name"] for c in all_cases]
    assert len(names) == len(set(names)), "duplicate case names"
    if argv[1:] != ["--goldens"]:
        json.dump(all_cases, sys.stdout, indent=1, ensure_ascii=False)
        return 0
    sys.path.insert(0, HERE)
    import oracle

    oracle.set_now(oracle.DEFAULT_NOW)
    results = []
    for c in all_cases:
        try:
            text = oracle.render_vars(c["template"], json.loads(json.dumps(c["vars"])))
            r = {"ok": True, "text": text}
        except Exception as e:  # noqa: BLE001 - every error is a result
            r = {"ok": False, "error_type": type(e).__name__, "error": str(e)[:300]}
        results.append({"name": c["name"], "template": c["template"], "result": r})
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"vars": VARS, "cases": results}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    sys.stderr.write(f"{len(results)} cases written to {OUT}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
