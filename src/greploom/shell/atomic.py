"""Small JSON files written whole: a reader sees the old file or the new one, never half of one.

For the files greploom keeps beside an index for other processes to read
(the resident server's sidecar, the watcher's state). Written to a file of
its own first (``mkstemp``: created new, no link followed, mode 0600 from
the start, so readable by this user only), then renamed over the old one.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_json(path: str | Path, value: Any) -> None:
    """``path`` holds ``value`` as JSON, replaced in one step; OSError when it cannot be written."""
    folder, name = os.path.split(str(path))
    fd, partial = tempfile.mkstemp(prefix=name + ".", dir=folder or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(value, handle)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
