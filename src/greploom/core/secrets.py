"""Secrets are never indexed: files that hold them are skipped, values that look like them masked.

An index is a file on disk that people copy, attach and serve; what it holds
must be safe to hold. Two rules, both applied before anything is parsed,
stored or embedded (the full-text index keeps its terms even without the
text, so masking the shown text alone would not do):

- **Secret files are skipped whole** (:func:`secret_file`): ``.env`` and
  ``.env.*`` (but ``.env.example``, ``.sample``, ``.template``, ``.dist``,
  which document the variables), private keys and keystores (``*.pem``,
  ``*.key``, ``*.p12``, ``*.pfx``, ``*.jks``, ``*.keystore``, ``id_rsa*``,
  ``id_ed25519*``...), credential files (``credentials*``, ``.netrc``,
  ``.pgpass``, ``.htpasswd``) and config files named as secrets
  (``secrets.yaml``, ``vault.yml``).
- **Secret-shaped values are masked** (:func:`mask_secrets`) in every doc
  and config text indexed: a PEM private-key block; tokens with a known
  shape (AWS access key ids, GitHub, GitLab, Slack, Stripe, OpenAI,
  Anthropic and Google API keys, JWTs); and the value given to a key whose
  name says secret (``password``, ``token``, ``api_key``, ``secret``,
  ``private_key``, ``credentials``...), unless it is an obvious placeholder
  (``changeme``, ``<your-token>``, ``${TOKEN}``, ``xxx``, empty). Each is
  replaced by ``MASK`` on its line, so line numbers stay true.

Laws (tests/properties/test_secrets.py): masking keeps the number of lines;
it is idempotent; a generated token of any known shape, or any value given
to a secret-named key, never survives; text with nothing secret-shaped
comes back unchanged; the count says how many values were masked.
"""

from __future__ import annotations

import re

MASK = "[masked]"

_SECRET_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk", ".asc", ".gpg")
_SECRET_NAMES = frozenset(
    (".netrc", "_netrc", ".pgpass", ".htpasswd", ".npmrc", ".pypirc", ".git-credentials", ".dockercfg")
)
_KEY_FILE = re.compile(r"^id_(rsa|dsa|ecdsa|ed25519)(\.|$)")
_DOCUMENTED_ENV = frozenset(("example", "sample", "template", "dist", "defaults"))
_CREDENTIAL_FILE = re.compile(
    r"^(credentials?|secrets?|vault)([._-][\w.-]*)?\.(json|ya?ml|toml|ini|cfg|conf)$"
)


def secret_file(path: str) -> bool:
    """Whether a file, by its name, holds secrets and is never read (``.env``, ``*.pem``, ``id_rsa``...)."""
    name = path.rsplit("/", 1)[-1].lower()
    if name == ".env" or (name.startswith(".env.") and name[5:] not in _DOCUMENTED_ENV):
        return True
    if name.endswith(".env") and name != ".env":  # prod.env, local.env
        return True
    if name in _SECRET_NAMES or _KEY_FILE.match(name):
        return True
    if name.startswith("credentials") and "." not in name:  # ~/.aws/credentials
        return True
    return name.endswith(_SECRET_SUFFIXES) or bool(_CREDENTIAL_FILE.match(name))


# Whole blocks: everything from the BEGIN line to the END line is replaced, line by line.
_PEM = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(-----END [A-Z0-9 ]*-----|\Z)", re.S)
# Tokens whose shape says what they are, anywhere on a line.
_TOKENS = re.compile(
    r"(?<![A-Za-z0-9])("
    r"(AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}"  # AWS access key id
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}"  # GitHub
    r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|(sk|rk)_(live|test)_[A-Za-z0-9]{16,}"  # Stripe
    r"|sk-(ant-|proj-)?[A-Za-z0-9_-]{20,}"  # OpenAI, Anthropic
    r"|AIza[0-9A-Za-z_-]{35}"  # Google API key
    r"|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"  # JWT
    r")"
)
# `password: x`, `API_KEY=x`, `"token": "x"`, `secret = 'x'`: the value after a secret-named key.
_SECRET_KEY = (
    r"(?<![\w.-])(?:[\w.-]*[_.-])?(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|apikey"
    r"|private[_-]?key|access[_-]?key|auth[_-]?key|client[_-]?secret|credentials?|pwd)s?\d*"
)
_ASSIGNED = re.compile(
    r"(?i)(?P<key>[\"']?" + _SECRET_KEY + r"[\"']?)(?P<sep>[ \t]*[:=][ \t]*|[ \t]+)"
    r"(?P<value>\[masked\]|\"[^\"\n]*\"|'[^'\n]*'|[^\s,;#}\]]+)"
)
_PLACEHOLDER = re.compile(
    r"(?i)^(|changeme|change[_-]?me|secret|password|token|none|null|true|false|xxx+|\*+|\.\.\.|"
    r"<[^>]*>|\$\{?[\w:-]*\}?|\{\{.*\}\}|%\(?\w*\)?s?|your[_-].*|example.*|dummy.*|redacted|\[masked\])$"
)


def _placeholder(value: str) -> bool:
    inner = value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" else value
    return bool(_PLACEHOLDER.match(inner.strip()))


def mask_secrets(text: str) -> tuple[str, int]:
    """``text`` with every secret-shaped value replaced by ``MASK`` (same lines), and how many."""
    count = 0

    def pem(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return "\n".join(MASK for _ in match.group(0).split("\n"))

    def token(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return MASK

    def assigned(match: re.Match[str]) -> str:
        nonlocal count
        value = match.group("value")
        spaced = match.group("sep").isspace()  # `password hunter2`: a word after a word, unless random
        if _placeholder(value) or value == MASK or (spaced and not _looks_random(value)):
            return match.group(0)
        count += 1
        quote = value[0] if value[0] in "\"'" and value[-1] == value[0] and len(value) >= 2 else ""
        return f"{match.group('key')}{match.group('sep')}{quote}{MASK}{quote}"

    masked = _PEM.sub(pem, text)
    masked = _TOKENS.sub(token, masked)
    masked = _ASSIGNED.sub(assigned, masked)
    return masked, count


def _looks_random(value: str) -> bool:
    """A value after a key and only spaces (``password hunter2``, prose's ``token is``) counts when
    it looks generated: long, with letters and digits."""
    bare = value.strip("\"'")
    return len(bare) >= 16 and any(c.isdigit() for c in bare) and any(c.isalpha() for c in bare)
