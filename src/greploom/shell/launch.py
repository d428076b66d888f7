"""The ``greploom`` executable: a query a resident server answers, else the command line proper.

Imports only the standard library before it knows it needs more: a query that
a running ``greploom serve`` answers (:mod:`greploom.shell.resident_client`)
never imports cyclopts, the store or a model, which is what makes it fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``greploom ARGV``: through a resident server when one answers it, else in this process."""
    tokens = list(sys.argv[1:] if argv is None else argv)
    try:
        answered = _resident(tokens)
    except KeyboardInterrupt:
        print("greploom: interrupted", file=sys.stderr)
        return 130
    except Exception:  # the resident path is only ever a shortcut: the cold one decides
        answered = None
    if answered is not None:
        out, err, code = answered
        try:
            sys.stdout.write(out)
            sys.stdout.flush()
        except BrokenPipeError:
            return 0
        sys.stderr.write(err)
        return code
    from greploom.shell.cli import main as cold

    return cold(tokens)


def _resident(tokens: list[str]) -> tuple[str, str, int] | None:
    from greploom.shell.resident_client import resident_answer, wants_resident

    if not wants_resident(tokens, os.environ):
        return None
    return resident_answer(tokens, os.environ, os.getcwd())


if __name__ == "__main__":
    sys.exit(main())
