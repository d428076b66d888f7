"""Token counting with tiktoken's cl100k_base, built from the bundled ranks.

tiktoken's own loader would fetch the ranks file from the network on first
use; this adapter reads the copy that ships with greploom (checked by
sha256) and builds the same encoding, so counting works offline from the
first call.

Every CLI query builds the table once, so it ships prepared: the ranks of
``cl100k_base.tiktoken`` as a pickled dict (``cl100k_base.ranks.pickle``,
written by tools/prepare_token_table.py), which loads in about 20 ms where
reading the 100,256 base64 lines took 90 to 130 (the line-by-line loop this module
used, and tiktoken's own loader uses) or 55 (:func:`mergeable_ranks`). Both
files' sha256 are pinned (greploom.shell.assets); tests check that the
prepared ranks are exactly those tiktoken reads from the ranks file.
benchmarks/bench_cold_start.py measures the load.
"""

from __future__ import annotations

import binascii
import functools
import pickle

import tiktoken

from greploom.core.errors import GreploomError
from greploom.shell.assets import CL100K_RANKS_FILE, asset_bytes

# cl100k_base's pre-tokenizer pattern and special tokens, as tiktoken defines them.
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
PICKLE_PROTOCOL = 4  # readable by every Python greploom supports


def mergeable_ranks(data: bytes) -> dict[bytes, int]:
    """The ranks a ``.tiktoken`` file holds: one ``base64-token rank`` pair a line.

    The same dict, in the same order, as ``tiktoken.load.load_tiktoken_bpe``
    reads from the file, without its loop over lines: the fields of the
    whole file, decoded and converted by ``map``.
    """
    fields = data.split()
    # base64.b64decode(token) is binascii.a2b_base64(token) for bytes; strict: a pair a line.
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))


def prepared_form(ranks: dict[bytes, int]) -> bytes:
    """The ranks as the prepared file holds them."""
    return pickle.dumps(ranks, protocol=PICKLE_PROTOCOL)


def prepared_ranks(data: bytes) -> dict[bytes, int]:
    """The ranks back from the prepared file's bytes.

    Only ever given the bundled file's bytes after their sha256 matched the
    one pinned in greploom.shell.assets, so unpickling them trusts nothing
    the code itself does not.
    """
    ranks = pickle.loads(data)
    if not isinstance(ranks, dict):
        raise GreploomError(f"bundled file {CL100K_RANKS_FILE} holds no ranks; reinstall greploom")
    return ranks


@functools.cache
def cl100k() -> tiktoken.Encoding:
    """The cl100k_base encoding, built once per process from the bundled ranks."""
    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=CL100K_PATTERN,
        mergeable_ranks=prepared_ranks(asset_bytes(CL100K_RANKS_FILE)),
        special_tokens=CL100K_SPECIAL,
    )


def count_tokens(text: str) -> int:
    """Tokens in ``text`` under cl100k_base; special-token text counts as plain text."""
    return len(cl100k().encode_ordinary(text))
