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

SHA256 = {
    MODEL_FILE: "bc888d9dfdd0c4b39fdbf4331e8c7b81d53e635d9d292da4598b17e8414616d1",
    TOKENIZER_FILE: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    CL100K_FILE: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
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


def verified(path: Path, expected: str) -> Path:
    """``path`` after checking its sha256 once per process; a mismatch is an error."""
    with _lock:
        if path in _verified:
            return path
        if not path.is_file():
            raise GreploomError(f"bundled file missing: {path}; reinstall greploom")
        actual = sha256_of(path)
        if actual != expected:
            raise GreploomError(
                f"bundled file {path.name} is corrupt (sha256 {actual[:12]}..., "
                f"expected {expected[:12]}...); reinstall greploom"
            )
        _verified.add(path)
        return path


def asset(name: str) -> Path:
    """A bundled file by name, verified."""
    return verified(DATA_DIR / name, SHA256[name])
