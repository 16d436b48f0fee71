"""Failures raise what transformers raises, so callers' `except` clauses keep working: for each
failing template, chatcodec's exception is an instance of the class transformers' renderer
raises (a jinja2 exception, or the Python one jinja2 lets through). And random nested data,
through templates that print, test, iterate and filter it, renders the same text or fails
with the same class."""

import math
import random

import pytest

import chatcodec
from conftest import need, same_outcome

MSGS = [{"role": "user", "content": "hi"}]

# name -> template: most fail in transformers, a few render where one might expect an error.
CASES = {
    "unknown filter": "{{ 1 | no_such_filter }}",
    "unknown filter in an if": "{% if messages %}{{ 1 | no_such_filter }}{% endif %}",
    "unknown test": "{{ 1 is no_such_test }}",
    "unknown test in a conditional": "{{ 1 if messages is no_such_test else 2 }}",
    "unknown function": "{{ no_such_function() }}",
    "unknown method": "{{ 'a'.no_such_method() }}",
    "method of none": "{{ none.foo() }}",
    "syntax: missing expression": "{% if %}",
    "syntax: dangling operator": "{{ 1 + }}",
    "syntax: unclosed block": "{% for x in y %}",
    "undefined attribute": "{{ missing.foo }}",
    "security: dunder": "{{ ''.__class__ }}",
    "security: mutation": "{% set l = [1] %}{{ l.append(2) }}",
    "security: namespace underscore": "{% set ns = namespace() %}{% set ns._a = 1 %}",
    "raise_exception": "{{ raise_exception('boom') }}",
    "add int and str": "{{ 1 + 'a' }}",
    "compare int and str": "{{ 1 < 'a' }}",
    "division by zero": "{{ 1 / 0 }}",
    "floor division by zero": "{{ 1 // 0 }}",
    "modulo by zero": "{{ 1 % 0 }}",
    "format: missing index": "{{ '{}'.format() }}",
    "format: missing name": "{{ '{a}'.format() }}",
    "percent: missing key": "{{ '%(a)s' % {} }}",
    "split with empty separator": "{{ 'a'.split('') }}",
    "range too big": "{{ range(10**7) | list | length }}",
    "float overflow": "{{ 10.0 ** 400 }}",
    "macro recursion": "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
    "dictsort of a list": "{{ [1] | dictsort }}",
    "items of a list": "{{ [1] | items | list }}",
    "reverse of none": "{{ none | reverse }}",
    "map without a filter": "{{ [1] | map | list }}",
    "round with a bad method": "{{ 1.5 | round(0, 'x') }}",
    "dictsort by something else": "{{ {'a': 1} | dictsort(by='x') }}",
    "attribute of a non-namespace": "{% set x = 1 %}{% set x.a = 2 %}",
    "str method with a bad argument": "{{ 'a'.startswith(1) }}",
    "unpack too few": "{% for a, b in [1] %}{% endfor %}",
    "unpack too many": "{% set a, b = [1, 2, 3] %}",
    "call a number": "{{ 1() }}",
    "join with a number separator": "{{ [1, none] | join(1) }}",
    "tojson of a namespace": "{{ namespace() | tojson }}",
    "length of a number": "{{ 1 | length }}",
    "iterate a number": "{% for x in 1 %}{% endfor %}",
    "encode with a codec that cannot": "{{ 'é'.encode('ascii') }}",
    "decode bytes the codec cannot": "{{ 'é'.encode().decode('ascii') }}",
    "encode with a number for the codec": "{{ 'a'.encode(1) }}",
    "truncate shorter than its end": "{{ 'abcdef' | truncate(2) }}",
    "macro with a repeated parameter": "{% macro m(a, a) %}{% endmacro %}",
    "call with a repeated keyword": "{% macro m(a) %}{% endmacro %}{{ m(a=1, a=2) }}",
    "break outside a loop": "{% break %}",
    "continue after a loop": "{% for x in [1] %}{% endfor %}{% continue %}",
    "slice inside a tuple subscript": "{{ messages[1:2, 0] }}",
    "block defined twice": "{% block b %}{% endblock %}{% block b %}{% endblock %}",
    "extends inside a loop": "{% for x in [] %}{% extends x %}{% endfor %}",
    "import of an underscore name": "{% if false %}{% from 'm' import _x %}{% endif %}",
    "urlize with a bad scheme": "{{ 'x' | urlize(extra_schemes=['a:']) }}",
    "urlize with an undefined limit": "{{ 'http://x.com' | urlize(nope) }}",
    "markup repeated by undefined": "{{ ('ab' | safe) * nope }}",
    "multiply strings": "{{ 'a' * 'b' }}",
    "negate a string": "{{ -'a' }}",
    "cycler without items": "{{ cycler().next() }}",
    "sum of strings": "{{ ['a'] | sum }}",
    "min of mixed types": "{{ [1, 'a'] | min }}",
    "sort of mixed types": "{{ [1, 'a'] | sort }}",
    "unique of unhashables": "{{ [[1]] | unique | list }}",
    "in a number": "{{ 1 in 2 }}",
    "unhashable dict key": "{{ {[1]: 2} }}",
    "keyword a method does not take": "{{ 'a'.split(nosuch=1) }}",
    "too many method arguments": "{{ 'a'.upper(1) }}",
    "too many macro arguments": "{% macro f() %}{% endmacro %}{{ f(1) }}",
    "unknown macro keyword": "{% macro f() %}{% endmacro %}{{ f(x=1) }}",
    "batch of zero": "{{ [1] | batch(0) | list }}",
    "slice filter of zero": "{{ [1] | slice(0) | list }}",
    "percent format of a string as a number": "{{ '%d' | format('x') }}",
    "percent format with too few": "{{ '%s %s' | format(1) }}",
    "replace with numbers": "{{ 'a'.replace(1, 2) }}",
    "sum then an undefined attribute": "{% set t = 't' %}{{ t + 1 + missing.attr }}",
    "first of an empty list, then an attribute": "{{ ([] | first).x }}",
    "reverse of a generator that fails": "{{ 42 | items | reverse }}",
    "reverse of a select that fails": "{{ 'ab' | select('odd') | reverse }}",
}


def outcome(fn, template, **kwargs):
    try:
        out, _ = fn([MSGS], chat_template=template, **kwargs)
        return "ok", out[0]
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return "error", e


@pytest.mark.parametrize("name", sorted(CASES))
def test_failures_raise_what_transformers_raises(name):
    ctu = need("transformers.utils.chat_template_utils")
    template = CASES[name]
    theirs = outcome(ctu.render_jinja_template, template)
    ours = outcome(chatcodec.render_jinja_template, template)
    if theirs[0] == "ok":
        assert ours == theirs
        return
    assert ours[0] == "error", f"chatcodec renders {name!r}: {ours[1]!r}"
    assert isinstance(ours[1], type(theirs[1])), (
        f"{name}: transformers raises {type(theirs[1]).__module__}.{type(theirs[1]).__name__}"
        f" ({theirs[1]}), chatcodec {type(ours[1]).__name__} ({ours[1]})"
    )
    assert isinstance(ours[1], chatcodec.TemplateError)


def test_exception_classes_subclass_jinja2_and_python():
    jinja2 = need("jinja2")
    from jinja2 import exceptions as j

    pairs = [
        (chatcodec.TemplateSyntaxError, j.TemplateSyntaxError),
        (chatcodec.TemplateAssertionError, j.TemplateAssertionError),
        (chatcodec.TemplateRuntimeError, j.TemplateRuntimeError),
        (chatcodec.TemplateUndefinedError, j.UndefinedError),
        (chatcodec.TemplateSecurityError, j.SecurityError),
        (chatcodec.TemplateFilterArgumentError, j.FilterArgumentError),
        (chatcodec.TemplateTypeError, TypeError),
        (chatcodec.TemplateValueError, ValueError),
        (chatcodec.TemplateAttributeError, AttributeError),
        (chatcodec.TemplateZeroDivisionError, ZeroDivisionError),
        (chatcodec.TemplateIndexError, IndexError),
        (chatcodec.TemplateKeyError, KeyError),
        (chatcodec.TemplateOverflowError, OverflowError),
        (chatcodec.TemplatePyRuntimeError, RuntimeError),
        (chatcodec.TemplateRecursionError, RecursionError),
        (chatcodec.TemplateMemoryError, MemoryError),
        (chatcodec.TemplatePySyntaxError, SyntaxError),
        (chatcodec.TemplateAssertionFailed, AssertionError),
        (chatcodec.TemplateUnicodeEncodeError, UnicodeEncodeError),
        (chatcodec.TemplateUnicodeDecodeError, UnicodeDecodeError),
    ]
    for ours, theirs in pairs:
        assert issubclass(ours, theirs), (ours, theirs)
        assert issubclass(ours, jinja2.TemplateError)
    # Python's Unicode errors print their own fields; ours print the message.
    with pytest.raises(UnicodeEncodeError) as e:
        chatcodec.render_jinja_template([MSGS], chat_template="{{ 'é'.encode('ascii') }}")
    assert "can't encode character" in str(e.value)
    # A syntax error keeps jinja2's attributes; its text is chatcodec's message.
    with pytest.raises(j.TemplateSyntaxError) as e:
        chatcodec.render_jinja_template([MSGS], chat_template="a\n{% if %}")
    assert e.value.lineno == 2
    assert "line 2" in str(e.value)


STRS = ["", "a", "hello world", "naïve café", "日本語", "emoji 😀", "e\u0301", "q\"'", "b\\s",
        "new\nline\ttab", "nul\x00", "<b>&amp;</b>", "x" * 300, "{{ t }}", "True", " pad "]
FLOATS = [0.0, -0.0, 1.5, -2.25, 1e100, 1e-7, 1e16, 123456789.123, 0.1, 1 / 3, math.inf,
          -math.inf, 2.0**53, 5e-324]
INTS = [0, 1, -1, 42, 2**31, 2**63 - 1, 2**63, -(2**63), 2**64 + 5, 10**30, -(10**40)]


def random_value(r, depth):
    if depth <= 0 or r.random() < 0.45:
        pick = r.randrange(6)
        if pick == 0:
            return None
        if pick == 1:
            return r.choice([True, False])
        if pick == 2:
            return r.choice(INTS)
        if pick == 3:
            return r.choice(FLOATS)
        return r.choice(STRS)
    n = r.randrange(4)
    pick = r.randrange(3)
    if pick == 0:
        return [random_value(r, depth - 1) for _ in range(n)]
    if pick == 1:
        return tuple(random_value(r, depth - 1) for _ in range(n))
    d = {}
    for _ in range(n):
        k = r.random()
        key = r.choice(STRS[:10]) if k < 0.8 else r.choice(INTS[:5] + [True, None, 1.5])
        d[key] = random_value(r, depth - 1)
    return d


# Templates that print, test, iterate, compare and filter `x` (also a message's content).
RANDOM_TEMPLATES = [
    "{{ x }}",
    "{{ x | tojson }}",
    "{{ x | tojson(indent=2) }}",
    "{% if x is mapping %}{% for k, v in x.items() %}{{ k }}={{ v }};{% endfor %}"
    "{% elif x is iterable and x is not string %}{% for i in x %}[{{ i }}]{% endfor %}"
    "{% else %}{{ x | string | length }}{% endif %}",
    "{{ x is string }} {{ x is number }} {{ x is mapping }} {{ x is sequence }} {{ x is none }}"
    " {{ x is boolean }} {{ x is integer }} {{ x is float }} {{ x is iterable }}",
    "{% if x %}T{% else %}F{% endif %}{{ x | length if x is sized else '-' }}",
    "{% for m in messages %}{{ m.content }}|{{ m.content | tojson }}{% endfor %}",
    "{{ x | string | upper | truncate(40) }}|{{ x | list | length if x is iterable else 0 }}",
    "{{ x | sort | list }}",
    "{{ x | unique | list }}",
    "{{ x | join(',') }}",
    "{{ x | first }}|{{ x | last }}",
    "{{ x | min }}|{{ x | max }}",
    "{{ x | sum }}",
    "{{ x | dictsort }}",
    "{{ x | items | list }}",
    "{{ x | map('string') | join('/') }}",
    "{{ x | reverse | list }}",
    "{{ x == x }}|{{ x != 1 }}|{{ [x] == [x] }}",
    "{{ x ~ x }}|{{ 'p' ~ x }}",
    "{{ x + x }}",
    "{{ x * 2 }}",
    "{{ x[0] }}",
    "{{ x[1:] }}|{{ x[::-1] }}",
    "{{ x | pprint }}",
    "{{ x | round(2) if x is number else x }}|{{ x | int if x is number else 0 }}",
    "{{ x | abs }}",
    "{{ '%s|%r' % (x, x) }}",
]


def test_random_data_renders_or_fails_as_in_transformers():
    ctu = need("transformers.utils.chat_template_utils")
    differences = []
    for seed in range(120):
        value = random_value(random.Random(seed), 3)
        msgs = [{"role": "user", "content": value}]
        for template in RANDOM_TEMPLATES:
            results = []
            for fn in (ctu.render_jinja_template, chatcodec.render_jinja_template):
                try:
                    out, _ = fn([msgs], chat_template=template, x=value)
                    results.append(("ok", out[0]))
                except Exception as e:  # noqa: BLE001
                    results.append(("error", e))
            theirs, ours = results
            if not same_outcome(theirs, ours):
                differences.append(f"seed {seed} {template!r} x={value!r:.80}: {theirs[1]!r:.120} / {ours[1]!r:.120}")
    assert not differences, "\n".join(differences[:20])


def test_continue_final_message_not_shown_says_what_transformers_says():
    """A template that cuts the final message: transformers' ValueError, same text (the
    message to continue and the rendered chat included)."""
    need("transformers")
    from transformers.utils.chat_template_utils import render_jinja_template as theirs

    src = "{% for m in messages %}{{ m.content[:3] }}{% endfor %}"
    msgs = [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello world"}]
    with pytest.raises(ValueError) as want:
        theirs([msgs], chat_template=src, continue_final_message=True)
    with pytest.raises(ValueError) as got:
        chatcodec.render_jinja_template([msgs], chat_template=src, continue_final_message=True)
    assert str(got.value) == str(want.value)
