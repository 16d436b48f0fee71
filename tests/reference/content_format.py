#!/usr/bin/env python3
"""The content-format rule of inference servers, on jinja2's own syntax tree.

    content_format.py TEMPLATE... > formats.json

vLLM's `--chat-template-content-format auto` decides whether a template reads a message's
content as a list of parts ("openai") or as a string ("string") from the template's jinja2 AST:
names assigned from `messages` (`{% set x = messages[1:] %}`, under filters, tests and slices),
the loop variables of loops over those names, and a loop over `m.content` / `m['content']` of
such a loop variable (again under filters, tests and slices), or over a plain variable named
`content` (the macro idiom). Any construct the rule cannot follow (a non-name target where a
match is found) gives "string"; so does a template jinja2 cannot parse.

This is the rule written down from its description, applied with jinja2 3.1.6's parser in
transformers' environment, so that chatcodec's detection (on its own tree) can be compared
with it on every template. Prints a JSON list of "openai"/"string", one per template.
"""

import json
import sys


class GaveUp(Exception):
    pass


def main():
    import jinja2.nodes as n
    from transformers.utils.chat_template_utils import _compile_jinja_template

    def is_access(node, name, key=None):
        if isinstance(node, n.Filter):
            return node.node is not None and is_access(node.node, name, key)
        if isinstance(node, n.Test):
            return is_access(node.node, name, key)
        if isinstance(node, n.Getitem) and isinstance(node.arg, n.Slice):
            return is_access(node.node, name, key)
        if key is None:
            return isinstance(node, n.Name) and node.ctx == "load" and node.name == name
        if isinstance(node, n.Getitem):
            return (isinstance(node.node, n.Name) and node.node.name == name
                    and isinstance(node.arg, n.Const) and node.arg.value == key)
        if isinstance(node, n.Getattr):
            return isinstance(node.node, n.Name) and node.node.name == name and node.attr == key
        return False

    def detect(ast):
        sources = ["messages"]
        i = 0
        while i < len(sources):
            src = sources[i]
            i += 1
            for assign in ast.find_all(n.Assign):
                if is_access(assign.node, src):
                    if not isinstance(assign.target, n.Name):
                        raise GaveUp()
                    if assign.target.name not in sources:
                        sources.append(assign.target.name)
        loops = list(ast.find_all(n.For))
        message_vars = []
        for loop in loops:
            if any(is_access(loop.iter, s) for s in sources):
                if not isinstance(loop.target, n.Name):
                    raise GaveUp()
                message_vars.append(loop.target.name)
        for loop in loops:
            if any(is_access(loop.iter, m, "content") for m in message_vars):
                return isinstance(loop.target, n.Name)
        return any(isinstance(loop.iter, n.Name) and loop.iter.name == "content"
                   and isinstance(loop.target, n.Name) for loop in loops)

    out = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8", newline="") as f:
            source = f.read()
        try:
            env = _compile_jinja_template(source).environment
            ast = env.parse(source)
            fmt = "openai" if detect(ast) else "string"
        except Exception:  # noqa: BLE001 - unparsable or unfollowable: the rule says string
            fmt = "string"
        out.append(fmt)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    try:
        import transformers  # noqa: F401
    except Exception as e:  # noqa: BLE001
        sys.stderr.write(f"unavailable: {e}\n")
        sys.exit(3)
    main()
