"""Secrets are never indexed (greploom.core.secrets).

Laws:

1. Masking keeps the number of lines (line numbers stay true).
2. Masking is idempotent.
3. A token of any known shape never survives, wherever it is on a line.
4. A value given to a secret-named key (``password: x``, ``API_KEY=x``,
   ``"token": "x"``, ``dbPassword: x``, a YAML block scalar, a TOML
   multi-line string, ``${X:-x}``, a URL's password, a bearer token) never
   survives.
5. Text with nothing secret-shaped comes back unchanged, count 0; in prose,
   a plain word after a secret-named word is a word.
6. Secret files are recognised by name, documented examples are not.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.secrets import MASK, mask_secrets, secret_file

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _chars(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=size, max_size=size + 10)


TOKENS = st.one_of(
    _chars(UPPER, 16).map(lambda s: "AKIA" + s[:16]),
    _chars(ALNUM, 36).map(lambda s: "ghp_" + s),
    _chars(ALNUM, 24).map(lambda s: "sk_live_" + s),
    _chars(ALNUM, 32).map(lambda s: "sk-proj-" + s),
    _chars(ALNUM, 20).map(lambda s: "xoxb-" + s),
    _chars(ALNUM + "_-", 35).map(lambda s: "AIza" + s[:35]),
    st.tuples(_chars(ALNUM, 12), _chars(ALNUM, 12), _chars(ALNUM, 12)).map(
        lambda p: f"eyJ{p[0]}.eyJ{p[1]}.{p[2]}"
    ),
)
# A secret value: starts with a digit so it is never a placeholder word.
VALUES = st.tuples(st.sampled_from("0123456789"), st.text(ALNUM + "!@%^&*", min_size=5, max_size=30)).map(
    "".join
)
KEYS = st.sampled_from(
    (
        "password", "DB_PASSWORD", "api_key", "API-KEY", "token", "client_secret", "secret", "SECRET_KEY",
        "SECRET_KEY_BASE", "dbPassword", "authToken", "private_key_id", "signing_key", "client-key-data",
    )
)  # fmt: skip
# Lines with nothing secret in them, some with secret-looking words: numbers, lists, docstring
# fields, placeholders and variables are not secrets.
PROSE = st.lists(
    st.sampled_from(
        (
            "Install the wheel.", "[tool.ruff]", "line-length = 110", "services:", "  image: web", "",
            "# Usage", "max_tokens: 4096", "passwords: []", ":param token: the token", "on: [push]",
            "password: ${DB_PASSWORD}", "api_key: <your-api-key>", "token: changeme", "the token is valid",
            "compass: north", "url: https://example.com/a:b",
        )
    ),
    max_size=20,
).map("\n".join)  # fmt: skip


@st.composite
def texts_with_a_token(draw: st.DrawFn) -> tuple[str, str]:
    token = draw(TOKENS)
    before = draw(st.sampled_from(("", "key: ", "export X=", "the token is ", "'", "(")))
    after = draw(st.sampled_from(("", "'", " and more", ")", ",")))
    return draw(PROSE) + "\n" + before + token + after + "\n" + draw(PROSE), token


FORMS = (
    "{k}: {v}", "{k}={v}", '"{k}": "{v}"', "{k} = '{v}'", "  {k}:   {v}  # x", "{k} => '{v}'", "{k} := {v}",
    "{k}: |\n  {v}\n  {v}", "{k}:\n  {v}", '{k} = """\n{v}\n"""', "{k}: ${{X:-{v}}}", "<{k}>{v}</{k}>",
    "- name: {k}\n  value: {v}", "db: postgres://user:{v}@host/db", "Authorization: Bearer {v}{v}",
)  # fmt: skip


@st.composite
def assignments(draw: st.DrawFn) -> tuple[str, str]:
    key, value = draw(KEYS), draw(VALUES)
    form = draw(st.sampled_from(FORMS))
    return draw(PROSE) + "\n" + form.format(k=key, v=value) + "\n" + draw(PROSE), value


@given(st.one_of(texts_with_a_token(), assignments(), PROSE.map(lambda t: (t, ""))))
def test_masking_keeps_lines_and_is_idempotent(case: tuple[str, str]) -> None:
    """Laws 1 and 2."""
    text, _ = case
    masked, _count = mask_secrets(text)
    assert masked.count("\n") == text.count("\n")
    assert mask_secrets(masked) == (masked, 0)


@given(texts_with_a_token())
def test_known_tokens_never_survive(case: tuple[str, str]) -> None:
    """Law 3."""
    text, token = case
    masked, count = mask_secrets(text)
    assert token not in masked
    assert count >= 1
    assert MASK in masked


@given(assignments(), st.booleans())
def test_values_of_secret_keys_never_survive(case: tuple[str, str], prose: bool) -> None:
    """Law 4, in config and in prose (the values start with a digit: they look generated)."""
    text, value = case
    masked, count = mask_secrets(text, prose=prose)
    assert value not in masked
    assert count >= 1


@given(PROSE, st.booleans())
def test_plain_text_is_unchanged(text: str, prose: bool) -> None:
    """Law 5."""
    assert mask_secrets(text, prose=prose) == (text, 0)


SENTENCES = ("Password: required, at least 8 characters", "The secret: keep it short", "token: one")


@given(st.sampled_from(SENTENCES))
def test_prose_words_after_a_secret_word_are_words(line: str) -> None:
    """In prose, a value counts only when it looks generated."""
    assert mask_secrets(line, prose=True) == (line, 0)


@given(st.sampled_from(("", "deploy/", "a/b/")))
def test_secret_files_by_name(folder: str) -> None:
    """Law 6."""
    for name in (".env", ".env.local", "prod.env", "id_rsa", "id_ed25519.pub", "server.pem", "tls.key",
                 "credentials", "credentials.json", "secrets.yaml", ".netrc", "store.p12"):  # fmt: skip
        assert secret_file(folder + name), name
    for name in (".env.example", ".env.sample", "README.md", "config.yaml", "keys.py", "pyproject.toml"):
        assert not secret_file(folder + name), name
