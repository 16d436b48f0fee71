"""The import guard the reference scripts share.

A reference script that cannot import what it needs (transformers, jinja2, gguf, ...) exits
with status 3 and says why on stderr; the Rust tests read status 3 as "reference unavailable"
(and fail on it when `CI=true`).
"""

import sys


def need(module):
    """Imports `module`, or exits with status 3 naming it."""
    try:
        return __import__(module)
    except Exception as e:  # noqa: BLE001
        sys.stderr.write(f"unavailable: cannot import {module}: {e}\n")
        sys.exit(3)
