"""Secrets are never indexed: files that hold them are skipped, values that look like them masked.

An index is a file on disk that people copy, attach and serve; what it holds
must be safe to hold. Two rules, both applied before anything is parsed,
stored or embedded (the full-text index keeps its terms even without the
text, so masking the shown text alone would not do):

- **Secret files are skipped whole** (:func:`secret_file`): ``.env`` and
  ``.env.*`` (but ``.env.example``, ``.env.production.sample``... which
  document the variables), private keys and keystores (``*.pem``, ``*.key``,
  ``*.p12``, ``*.pfx``, ``*.jks``, ``*.keystore``, ``id_rsa*``...),
  credential files (``credentials*``, ``.netrc``, ``.pgpass``,
  ``.htpasswd``) and config files named as secrets (``secrets.yaml``,
  ``.secrets.toml``, ``app-secrets.yml``, ``vault.yml``).
- **Secret-shaped values are masked** (:func:`mask_secrets`) in every doc
  and config text indexed, each replaced by ``MASK`` on its own line, so
  line numbers stay true and each line keeps its indentation:

  - PEM private-key blocks (without an END line: the BEGIN line and the
    base64 lines after it);
  - tokens with a known shape: AWS access key ids, GitHub, GitLab, Slack
    (tokens and webhook URLs), Stripe, OpenAI, Anthropic, npm and Google
    API keys, JWTs;
  - the password of a URL (``postgres://user:PASSWORD@host``) and the
    credential of an ``Authorization: Bearer ...`` header;
  - the value given to a key whose name says secret (``password``,
    ``SECRET_KEY``, ``TLS_KEY``, ``dbPassword``, ``api_key``, ``authToken``,
    ``client-key-data``, ``AccountKey``...) by ``:``, ``=``, ``=>`` or
    ``:=``, quoted (escapes honoured) or to the end of its line, a YAML
    block scalar or a TOML multi-line string with the lines it spans; a
    Kubernetes ``value:`` after ``name: DB_PASSWORD``; ``<password>x</password>``.

  Not masked: obvious placeholders (``changeme``, ``<your-token>``,
  ``${TOKEN}``, ``xxx``, empty; but the default of ``${X:-default}`` is a
  value), booleans and numbers of under four digits, lists and tables
  (``passwords: []``), and docstring fields (``:param token:``). In prose
  (Markdown, reStructuredText: ``prose=True``) a value counts only when it
  looks generated (letters with digits or symbols), so "Password: required"
  is a sentence, not a secret.

Laws (tests/properties/test_secrets.py): masking keeps the number of lines;
it is idempotent; a generated token of any known shape, or any value given
to a secret-named key, never survives; text with nothing secret-shaped
comes back unchanged; the count says how many values were masked.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MASK = "[masked]"

_SECRET_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk", ".asc", ".gpg")
_SECRET_NAMES = frozenset(
    (".netrc", "_netrc", ".pgpass", ".htpasswd", ".npmrc", ".pypirc", ".git-credentials", ".dockercfg")
)
_KEY_FILE = re.compile(r"^id_(rsa|dsa|ecdsa|ed25519)(\.|$)")
_DOCUMENTED = frozenset(("example", "sample", "template", "dist", "defaults", "tmpl", "tpl"))
_SECRET_PARTS = frozenset(("secret", "secrets", "credential", "credentials", "vault"))
_CONFIG_SUFFIXES = frozenset(("json", "yaml", "yml", "toml", "ini", "cfg", "conf", "properties"))


def secret_file(path: str) -> bool:
    """Whether a file, by its name, holds secrets and is never read (``.env``, ``*.pem``, ``id_rsa``...)."""
    name = path.rsplit("/", 1)[-1].lower()
    parts = [p for p in re.split(r"[._-]", name) if p]
    documented = bool(parts) and any(p in _DOCUMENTED for p in parts)
    if name == ".env" or name.startswith(".env.") or (name.endswith(".env") and name != ".env"):
        return not documented  # .env.local, prod.env; not .env.example, .env.production.sample
    if name in _SECRET_NAMES or _KEY_FILE.match(name):
        return True
    if name.startswith("credentials") and "." not in name:  # ~/.aws/credentials
        return True
    if name.endswith(_SECRET_SUFFIXES):
        return True
    return (
        len(parts) > 1
        and parts[-1] in _CONFIG_SUFFIXES
        and any(p in _SECRET_PARTS for p in parts[:-1])
        and not documented
    )


# A private key: its block, or with no END line the BEGIN line and the base64 lines after it.
_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]*-----")
_BASE64_LINE = re.compile(r"^\s*[A-Za-z0-9+/=]{16,}\s*$|^\s*[\w-]+:\s.*$|^\s*$")  # body, headers, blanks
# Tokens whose shape says what they are, anywhere on a line.
_TOKENS = re.compile(
    r"(?<![A-Za-z0-9])("
    r"(AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}"  # AWS access key id
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}"  # GitHub
    r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"  # Slack
    r"|(sk|rk)_(live|test)_[A-Za-z0-9]{16,}"  # Stripe
    r"|sk-(ant-|proj-)?[A-Za-z0-9_-]{20,}"  # OpenAI, Anthropic
    r"|npm_[A-Za-z0-9]{30,}"  # npm
    r"|AIza[0-9A-Za-z_-]{35}"  # Google API key
    r"|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"  # JWT
    r")"
)
_URL_PASSWORD = re.compile(r"(?i)(?P<head>\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)(?P<value>[^\s@/]+)(?=@)")
_BEARER = re.compile(r"(?i)(?P<head>\b(?:bearer|basic|token)[ \t]+)(?P<value>[^\s\"',;]{12,})")
_KEYWORDS = (
    r"pass(?:word|wd|phrase)?|secret|token|api[_-]?key|apikey|private[_-]?key|access[_-]?key"
    r"|auth(?:[_-]?(?:key|token))?|client[_-]?secret|credentials?|pwd|signing[_-]?key"
    r"|encryption[_-]?key|account[_-]?key|key[_-]?data|session[_-]?key"
)
# A key naming a secret: the keyword, after nothing, a separator or a camelCase word
# (`dbPassword`), before a suffix that keeps it a secret (`SECRET_KEY`, `private_key_id`).
_SECRET_KEY = (
    r"(?<![\w.-])(?:(?:[\w.-]*[_.-]|[a-z0-9]+(?=[A-Z]))?(?i:" + _KEYWORDS + r")"
    r"|[\w.-]*[_.-](?i:key)|[a-z0-9]+Key)"  # TLS_KEY, stripe.key, sshKey: a key named as one
    r"(?:[_.-]?(?i:key|base|id|value|data|file|hash))*\d*"
)
_SEP = r"[ \t]*(?:=>|:=|[:=])[ \t]*|[ \t]+"
_ASSIGNED = re.compile(r"(?P<key>[\"']?" + _SECRET_KEY + r"[\"']?)(?P<sep>" + _SEP + r")(?P<rest>.*)$")
_QUOTED = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")
_K8S_NAME = re.compile(r"^\s*-?\s*name:\s*[\"']?" + _SECRET_KEY + r"[\"']?\s*$")
_K8S_VALUE = re.compile(r"^(?P<key>\s*value)(?P<sep>:[ \t]*)(?P<rest>.*)$")
_XML = re.compile(r"(?P<head><(?P<tag>" + _SECRET_KEY + r")>)(?P<value>[^<\n]+)(?=</(?P=tag)>)")
_ENTRY = re.compile(r"^\s*(-\s|[\w\"'.-]+\s*:(\s|$))")  # a YAML mapping entry or list item
_DOC_FIELD = re.compile(r"(?i)(:param|:type|:raises|@param|@return)\b")
_PLACEHOLDER = re.compile(
    r"(?i)^(|changeme|change[_-]?me|secret|password|token|none|null|nil|true|false|yes|no|on|off|"
    r"xxx+|\*+|\.\.\.|…|<[^>]*>|\$\{?[\w]*\}?|\{\{.*\}\}|%\(?\w*\)?s?|\$\w+|your[_-][\w-]*|example|"
    r"dummy|redacted|required|optional|string|str|int|bytes|\[masked\]|\"\[masked\]\")$"
)
_CODE = re.compile(r"[()\[\]]|^[A-Za-z_]\w*\.[A-Za-z_]")  # a call, an index, an attribute: code
_NUMBER = re.compile(r"^[+-]?(\d[\d_]*)(\.\d+)?([eE][+-]?\d+)?$")
_DEFAULT = re.compile(r"^(?P<head>\$\{\w+:?-)(?P<value>[^}]+)(?P<tail>\})$")


def _placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.match(value.strip()))


def _random(value: str) -> bool:
    """A value no one writes as a word or an expression: eight characters or more, letters
    and digits, not code (``script_info``) and not a URL (its password has its own rule)."""
    bare = value.strip("\"'")
    if len(bare) < 8 or bare.startswith("`") or "://" in bare or " " in bare:
        return False
    return any(c.isdigit() for c in bare) and any(c.isalpha() for c in bare)


def _generated(value: str) -> bool:
    """A value that looks made by a machine or a person choosing a password: six characters
    or more, of two kinds of letters, digits and symbols, or digits alone (prose's "Password:
    required" is not)."""
    bare = value.strip("\"'` ")
    if len(bare) < 6 or " " in bare:
        return False
    classes = (str.isalpha, str.isdigit, lambda c: not c.isalnum())
    return bare.isdigit() or sum(any(kind(c) for c in bare) for kind in classes) >= 2


class _Masker:
    def __init__(self, prose: bool) -> None:
        self.prose = prose
        self.count = 0

    def value(self, raw: str, *, spaced: bool = False, flow: bool = False) -> str | None:
        """``raw`` (the rest of a line after a secret key) masked, or None to leave the line alone."""
        text = raw.rstrip()
        trail = raw[len(text) :]
        if not text:
            return None
        if len(text) > 1 and text[0] in "bBrRuU" and text[1] in "\"'":  # b'...', r"...": a literal
            prefix, rest = text[0], self.value(text[1:], spaced=spaced, flow=flow)
            return None if rest is None else prefix + rest
        if text[0] in "\"'":
            quoted = _QUOTED.match(text)
            if quoted is None:  # an unclosed quote: all of the rest
                return self._masked(text, "", trail, quote=text[0])
            inner = quoted.group(0)[1:-1]
            if inner.startswith(('"""', "'''")) or not self._counts(inner, spaced, quoted=True):
                return None
            return self._masked(quoted.group(0), text[quoted.end() :], trail, quote=text[0])
        if text.startswith(("[", "{", "|", ">", "&", "*", "!")):
            return None  # a list, a table, a block scalar (its lines: _block), an anchor, a tag
        body, comment = text, ""
        if " #" in text:
            body, comment = text.split(" #", 1)
            comment = " #" + comment
        if flow:  # {user: a, password: b}: the value ends where the flow's entry does
            body = re.split(r"[,}\]]", body, maxsplit=1)[0]
        body = body.rstrip().rstrip(",;")
        if (d := _DEFAULT.match(body)) is not None:  # ${PASSWORD:-s3cret}: the default is a value
            if _placeholder(d.group("value")):
                return None
            self.count += 1
            return d.group("head") + MASK + d.group("tail") + text[len(body) :] + trail
        if spaced:
            body = body.split()[0] if body.split() else body  # after spaces: one word, as prose goes
        if not self._counts(body, spaced, quoted=False):
            return None
        return self._masked(body, text[len(body) :], trail)

    def _counts(self, value: str, spaced: bool, *, quoted: bool) -> bool:
        """Whether a value after a secret key is one: after spaces alone (`password hunter2`,
        `proxy_pass http://...`), only when it looks random; in prose, when it looks generated
        and, unquoted, is no expression (`password = request.form[...]`); in config, always."""
        if _placeholder(value) or value.strip() == MASK:
            return False
        if _NUMBER.match(value.strip()) and len(value.strip()) < 4:
            return False  # `auth: 1`, `token_min: 8`; a PIN of four digits or more is a secret
        if spaced:
            return _random(value)
        if self.prose and not quoted:
            return _generated(value) and not _CODE.search(value)
        return _generated(value) if self.prose else True

    def _masked(self, value: str, after: str, trail: str, quote: str = "") -> str:
        self.count += 1
        return f"{quote}{MASK}{quote}{after}{trail}" if quote else f"{MASK}{after}{trail}"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _mask_line_content(line: str) -> str:
    return line[: _indent(line)] + MASK if line.strip() else line


def _masked_line(line: str) -> bool:
    return line.strip() in (MASK, f'"{MASK}"', f"'{MASK}'")


def _pem(lines: list[str], masker: _Masker) -> None:
    i = 0
    while i < len(lines):
        if _PEM_BEGIN.search(lines[i]) is None:
            i += 1
            continue
        masker.count += 1
        end = next((j for j in range(i, len(lines)) if _PEM_END.search(lines[j])), None)
        stop = end if end is not None else i
        if end is None:  # no END line: the base64 body after the BEGIN line, not the rest of the file
            while stop + 1 < len(lines) and _BASE64_LINE.match(lines[stop + 1]) and lines[stop + 1].strip():
                stop += 1
        for j in range(i, stop + 1):
            lines[j] = _mask_line_content(lines[j])
        i = stop + 1


def _sub(pattern: re.Pattern[str], text: str, masker: _Masker, keep: Callable[[re.Match[str]], bool]) -> str:
    def one(m: re.Match[str]) -> str:
        if keep(m):
            return m.group(0)
        masker.count += 1
        head = m.groupdict().get("head") or ""
        return head + MASK if "value" in m.groupdict() else MASK

    out = pattern.sub(one, text)
    while (again := pattern.sub(one, out)) != out:  # adjacent tokens: AKIA...AKIA...
        out = again
    return out


def _assigned(lines: list[str], masker: _Masker) -> None:
    """Values of secret-named keys, a YAML block scalar's or a multi-line string's lines with them."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if _masked_line(line) or _DOC_FIELD.search(line):
            i += 1
            continue
        if i > 0 and _K8S_NAME.match(lines[i - 1]) and (kv := _K8S_VALUE.match(line)):
            masked = masker.value(kv.group("rest"))
            if masked is not None:
                lines[i] = kv.group("key") + kv.group("sep") + masked
        for m in _ASSIGNED.finditer(line):
            rest = m.group("rest")
            spaced = m.group("sep").isspace()
            head = line[: m.start("rest")]
            stripped = rest.strip()
            opens = stripped in ("|", ">", "|-", ">-", "|+", ">+") or stripped.startswith(('"""', "'''"))
            if not spaced and opens:
                i = _block(lines, i, stripped, masker)
                break
            # `password:` alone on its line, as a YAML key: its value is on the lines below.
            alone = line[: m.start()].strip() in ("", "-") and not spaced and not stripped
            if alone and i + 1 < len(lines) and _continues(lines, i, masker):
                i = _block(lines, i, "", masker)  # `password:` then its value on the lines below
                break
            masked = masker.value(rest, spaced=spaced, flow="{" in head)
            if masked is not None:
                lines[i] = head + masked
                break
        i += 1


def _continues(lines: list[str], i: int, masker: _Masker) -> bool:
    """Whether the lines after a key with no value on its line hold that value as a plain
    scalar (deeper, not mapping entries or list items: those have their own keys; in prose,
    only a value that looks generated, not the body of an `if password:`)."""
    nxt = lines[i + 1]
    if not nxt.strip() or _indent(nxt) <= _indent(lines[i]) or _ENTRY.match(nxt):
        return False
    return not masker.prose or (_generated(nxt.strip()) and not _CODE.search(nxt))


def _block(lines: list[str], i: int, opener: str, masker: _Masker) -> int:
    """Mask the lines of a YAML block scalar or a TOML multi-line string opened on line ``i``
    (``opener`` ``""``: a plain scalar on the lines below the key); the index of its last line.
    Counted once, and only when a line changed (masked lines stay as they are)."""
    changed = False

    def put(j: int, line: str) -> None:
        nonlocal changed
        changed = changed or line != lines[j]
        lines[j] = line

    last = len(lines) - 1
    if opener.startswith(('"""', "'''")):
        quote = opener[:3]
        if opener.count(quote) >= 2:  # opened and closed on one line
            put(i, lines[i].replace(opener, quote + MASK + quote))
            last = i
        else:
            j = i + 1
            while j < len(lines) and quote not in lines[j]:
                put(j, _mask_line_content(lines[j]))
                j += 1
            if j < len(lines):
                put(j, lines[j][: _indent(lines[j])] + MASK + lines[j][lines[j].index(quote) :])
            last = min(j, last)
    else:
        base = _indent(lines[i])
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > base):
            put(j, _mask_line_content(lines[j]))
            j += 1
        last = j - 1
    masker.count += changed
    return last


def mask_secrets(text: str, *, prose: bool = False) -> tuple[str, int]:
    """``text`` with every secret-shaped value replaced by ``MASK`` (same lines), and how many.

    ``prose``: the text is Markdown or reStructuredText, where a value after a
    secret-named word counts only when it looks generated.
    """
    masker = _Masker(prose)
    lines = text.split("\n")
    _pem(lines, masker)
    masked = "\n".join(lines)
    masked = _sub(_TOKENS, masked, masker, lambda m: False)
    masked = _sub(_URL_PASSWORD, masked, masker, lambda m: _placeholder(m.group("value")))
    masked = _sub(_BEARER, masked, masker, lambda m: not _random(m.group("value")))
    masked = _sub(_XML, masked, masker, lambda m: _placeholder(m.group("value")))
    lines = masked.split("\n")
    _assigned(lines, masker)
    return "\n".join(lines), masker.count
