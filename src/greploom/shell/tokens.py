"""Token counting with tiktoken's cl100k_base, built from the bundled ranks file.

tiktoken's own loader would fetch the file from the network on first use;
this adapter reads the copy that ships with greploom (checked by sha256) and
builds the same encoding, so counting works offline from the first call.
"""

from __future__ import annotations

import base64
import functools

import tiktoken

from greploom.shell.assets import CL100K_FILE, asset

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


@functools.cache
def cl100k() -> tiktoken.Encoding:
    """The cl100k_base encoding, built once per process from the bundled file."""
    ranks: dict[bytes, int] = {}
    for line in asset(CL100K_FILE).read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=CL100K_PATTERN,
        mergeable_ranks=ranks,
        special_tokens=CL100K_SPECIAL,
    )


def count_tokens(text: str) -> int:
    """Tokens in ``text`` under cl100k_base; special-token text counts as plain text."""
    return len(cl100k().encode_ordinary(text))
