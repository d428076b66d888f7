"""The data files that ship inside the package, checked by sha256 before use.

Nothing is downloaded at run time: the embedding model, its tokenizer and
tiktoken's cl100k_base ranks are all here (see ``greploom/data/NOTICE.md``
for where each came from and under which licence).
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from greploom.core.errors import GreploomError

DATA_DIR = Path(__file__).resolve().parent.parent / "data"

MODEL_FILE = "minilm-l6-code-v2.onnx"
TOKENIZER_FILE = "minilm-l6-v2-tokenizer.json"
CL100K_FILE = "cl100k_base.tiktoken"
# The same ranks as a pickled dict, read 2.5 times faster (tools/prepare_token_table.py writes it).
CL100K_RANKS_FILE = "cl100k_base.ranks.pickle"

SHA256 = {
    MODEL_FILE: "bc888d9dfdd0c4b39fdbf4331e8c7b81d53e635d9d292da4598b17e8414616d1",
    TOKENIZER_FILE: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    CL100K_FILE: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    CL100K_RANKS_FILE: "2bd4731338d2c92d934e6e69d9e0d21ca7a630333174742d3e7c503dfb2c9a7f",
}

_verified: set[Path] = set()
_lock = threading.Lock()


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _missing(path: Path) -> GreploomError:
    return GreploomError(f"bundled file missing: {path}; reinstall greploom")


def _corrupt(path: Path, actual: str, expected: str) -> GreploomError:
    return GreploomError(
        f"bundled file {path.name} is corrupt (sha256 {actual[:12]}..., "
        f"expected {expected[:12]}...); reinstall greploom"
    )


def verified(path: Path, expected: str) -> Path:
    """``path`` after checking its sha256 once per process; a mismatch is an error."""
    with _lock:
        if path in _verified:
            return path
        if not path.is_file():
            raise _missing(path)
        actual = sha256_of(path)
        if actual != expected:
            raise _corrupt(path, actual, expected)
        _verified.add(path)
        return path


def asset(name: str) -> Path:
    """A bundled file by name, verified."""
    return verified(DATA_DIR / name, SHA256[name])


def asset_bytes(name: str) -> bytes:
    """A bundled file's contents by name, checked against its sha256: the bytes checked are the bytes used.

    For a small file read whole (the token table): one read, where
    :func:`asset` and a second read would take two.
    """
    path = DATA_DIR / name
    if not path.is_file():
        raise _missing(path)
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != SHA256[name]:
        raise _corrupt(path, actual, SHA256[name])
    return data
