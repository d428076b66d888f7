"""Content hashes: has a node changed in a way that needs a new embedding?

    content_hash = sha256(version, tier, embed_text, source_text)

Each part is length-prefixed, so no two different inputs share a byte stream.
The hash reads only what is embedded (which names the file but holds no
line numbers) and the node's source text, so CPG ids and line shifts never
change it, while any edit to the body or the summary does.

Laws (tests/properties/test_hashing.py): deterministic; changes when the
embedded text, the source or the tier changes; independent of ids and lines.
"""

from __future__ import annotations

import hashlib

from greploom.core.summary import Tier

# Bump when the hashed parts or the summary rules change (2: notes in embed text;
# 3: honest call links, owners in names, module text, definitions added from the parse;
# 4: module text without its definitions' first lines, undocumented code's `uses:` words;
# 5: `uses:` outside Python only, none from module text, own-module callees unprefixed;
# 6: a module's successive elided definitions as one marker).
HASH_VERSION = "6"


def content_hash(embed_text: str, source_text: str | None, tier: Tier) -> str:
    """A hex sha256 of what decides a node's embedding and stored text."""
    digest = hashlib.sha256()
    parts = (HASH_VERSION, tier.value, embed_text, "\x00" if source_text is None else source_text)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    # None and "" must differ: a None marker is a lone NUL, and a flag says which.
    digest.update(b"\x01" if source_text is None else b"\x00")
    return digest.hexdigest()
