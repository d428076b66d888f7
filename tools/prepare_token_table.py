#!/usr/bin/env python3
"""Write greploom's prepared cl100k_base table from the bundled ranks file, and print its sha256.

    python tools/prepare_token_table.py

Reading ``cl100k_base.tiktoken`` (100,256 base64 lines) costs a CLI query
about 55 ms on every start; unpickling the same dict about 20 ms. The
prepared file, ``src/greploom/data/cl100k_base.ranks.pickle``, is that dict
pickled (protocol 4); ``greploom.shell.assets`` pins its sha256 (paste the
printed one there after a change), and tests/shell/test_local_models.py
checks that it holds exactly the ranks tiktoken reads from the ranks file.
"""

from __future__ import annotations

import hashlib

from greploom.shell.assets import CL100K_FILE, CL100K_RANKS_FILE, DATA_DIR, asset_bytes
from greploom.shell.tokens import mergeable_ranks, prepared_form


def main() -> None:
    data = prepared_form(mergeable_ranks(asset_bytes(CL100K_FILE)))
    out = DATA_DIR / CL100K_RANKS_FILE
    out.write_bytes(data)
    print(f"{out}: {len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
