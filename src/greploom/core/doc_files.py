"""Which files are docs and config, which parser reads each, and how large one may be.

Docs (kind ``doc``): Markdown and reStructuredText, indexed by section
(greploom.core.doc_sections). Config (kind ``config``): YAML, TOML, JSON,
INI-style files (``.ini``, ``.cfg``, ``.conf``, ``tox.ini``, Ansible
inventories), documented environment files (``.env.example``), Dockerfiles
and shell scripts, by top-level section or whole. Secret files are never
either (greploom.core.secrets). A lock file is generated, not written
(``package-lock.json``): left out like a build output.

Bounds: a doc larger than ``MAX_DOC_BYTES`` (a generated API reference, a
changelog of many years) or a config file larger than ``MAX_CONFIG_BYTES``
(JSON of that size is data: fixtures, schemas, translations) is skipped and
counted, never cut to a prefix that would answer as if it were whole.
"""

from __future__ import annotations

import enum

from greploom.core.secrets import secret_file

MAX_DOC_BYTES = 512 * 1024
MAX_CONFIG_BYTES = 128 * 1024


class DocFormat(str, enum.Enum):
    """The parser a doc or config file is read with."""

    MARKDOWN = "markdown"
    RST = "rst"
    YAML = "yaml"
    TOML = "toml"
    JSON = "json"
    INI = "ini"
    DOCKERFILE = "dockerfile"
    SHELL = "shell"
    ENV = "env"  # KEY=value lines, no sections


DOC_KIND = "doc"
CONFIG_KIND = "config"
PROSE_KINDS = frozenset((DOC_KIND, CONFIG_KIND))

_BY_SUFFIX = {
    ".md": DocFormat.MARKDOWN,
    ".markdown": DocFormat.MARKDOWN,
    ".rst": DocFormat.RST,
    ".yaml": DocFormat.YAML,
    ".yml": DocFormat.YAML,
    ".toml": DocFormat.TOML,
    ".json": DocFormat.JSON,
    ".ini": DocFormat.INI,
    ".cfg": DocFormat.INI,
    ".conf": DocFormat.INI,
    ".sh": DocFormat.SHELL,
    ".bash": DocFormat.SHELL,
}
_ENV_EXAMPLES = frozenset((".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults"))
_GENERATED = frozenset(("package-lock.json", "npm-shrinkwrap.json", "composer.lock"))


def doc_format(path: str) -> DocFormat | None:
    """The parser for a doc or config file, or None: not one (or a secret, or generated)."""
    name = path.rsplit("/", 1)[-1]
    lowered = name.lower()
    if secret_file(path) or lowered in _GENERATED:
        return None
    if lowered in _ENV_EXAMPLES:
        return DocFormat.ENV
    if lowered == "dockerfile" or lowered.startswith("dockerfile.") or lowered.endswith(".dockerfile"):
        return DocFormat.DOCKERFILE
    if lowered in {"hosts", "inventory"}:  # Ansible's INI inventories have no extension
        return DocFormat.INI
    dot = lowered.rfind(".")
    return _BY_SUFFIX.get(lowered[dot:]) if dot > 0 else None


def doc_kind(fmt: DocFormat) -> str:
    """``doc`` for prose (Markdown, reStructuredText), ``config`` for the rest."""
    return DOC_KIND if fmt in (DocFormat.MARKDOWN, DocFormat.RST) else CONFIG_KIND


def max_bytes(fmt: DocFormat) -> int:
    """The largest file of this format indexed."""
    return MAX_DOC_BYTES if doc_kind(fmt) == DOC_KIND else MAX_CONFIG_BYTES


def document_name(path: str) -> str:
    """A document's name, first in its sections' names: the file's name less its extension
    (``README`` for ``README.md``), or the whole name when that is all it has (``Dockerfile``)."""
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if name.rfind(".") > 0 else name
    return stem or name
