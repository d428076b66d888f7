"""How a bring-your-own local model (``GREPLOOM_LOCAL_MODEL_DIR``) turns a text into a vector.

Models differ in it: bge pools its [CLS] token where MiniLM averages every
word piece, e5 wants ``"query: "`` / ``"passage: "`` before its texts, bge a
query instruction, and many take 384 or 512 word pieces. Run with the wrong
ones, such a model still answers, only worse, so the settings are read from
the model's directory and recorded in the index's embedder identity
(:meth:`ModelSettings.tag`): an index built with one set refuses a query or
an update with another, unless re-indexed with ``--force``.

Where each setting comes from, the first that has it winning, key by key:

1. ``greploom.json`` in the directory, greploom's own file: a JSON object
   with ``pooling`` (``"mean"`` or ``"cls"``), ``query_prefix`` and
   ``passage_prefix`` (strings put before each query / each indexed text)
   and ``max_length`` (word pieces a text is cut to, 8 up to what the model
   takes). Why a file in the directory, not environment variables: the
   settings belong to the model, so they travel with it when the directory
   is copied or shared, and an index built in one shell cannot be queried
   from another (an MCP server's, say) with other settings by accident. Why
   JSON: every model directory already holds JSON (``config.json``,
   ``tokenizer.json``), so there is nothing new to parse or to learn. It wins
   because it is the one file written for greploom: the others say how
   sentence-transformers runs the model, which need not be how one wants it
   here (or may be a pooling greploom does not run, which it can override).
2. The files of a sentence-transformers export, where they exist:
   ``1_Pooling/config.json`` (or the folder ``modules.json`` names for the
   Pooling module): ``pooling_mode_cls_token`` / ``pooling_mode_mean_tokens``;
   ``sentence_bert_config.json``: ``max_seq_length``;
   ``config_sentence_transformers.json``: ``prompts.query`` and
   ``prompts.document`` (or ``prompts.passage``).
3. What greploom always did: mean pooling, no prefixes, 256 word pieces. A
   directory with none of these files keeps the identity it always had.

There is no ``normalize`` key: vectors are always L2-normalised, and the
index compares them by cosine distance, which ignores their length, so the
key could change nothing but the identity (forcing a re-index for nothing).

``max_length`` from a file may not pass the model's own bound: the smaller
of ``max_position_embeddings`` in ``config.json`` and ``model_max_length`` in
``tokenizer_config.json``. Where neither says, the embedder runs one text of
that length when it loads the model, and refuses the setting if the model
cannot take it (``greploom.shell.embed_local``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from greploom.core.errors import UsageError

SETTINGS_FILE = "greploom.json"
POOLINGS = ("mean", "cls")
KEYS = ("pooling", "query_prefix", "passage_prefix", "max_length")
DEFAULT_MAX_LENGTH = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
MIN_MAX_LENGTH = 8
# tokenizer_config.json says "no limit" with a huge number (int(1e30)); above this it says nothing.
_NO_LIMIT = 1_000_000


@attrs.frozen
class ModelSettings:
    """Pooling, prefixes and maximum length of a local model; the defaults are the bundled model's."""

    pooling: str = "mean"
    query_prefix: str = ""
    passage_prefix: str = ""
    max_length: int = DEFAULT_MAX_LENGTH
    # Where max_length was set ('/models/e5/greploom.json: "max_length"'; "" for the default), and
    # whether a bound the model states was checked; the embedder tries the length where not.
    max_length_from: str = attrs.field(default="", eq=False)
    bound_checked: bool = attrs.field(default=False, eq=False)

    def tag(self) -> str:
        """The settings that differ from the defaults, for the model name: ``[pooling=cls,max_length=512]``.

        "" for the defaults, so that an index built before there were
        settings keeps its identity. Prefixes are written as JSON strings.
        """
        parts = []
        if self.pooling != "mean":
            parts.append(f"pooling={self.pooling}")
        if self.max_length != DEFAULT_MAX_LENGTH:
            parts.append(f"max_length={self.max_length}")
        if self.query_prefix:
            parts.append(f"query_prefix={json.dumps(self.query_prefix)}")
        if self.passage_prefix:
            parts.append(f"passage_prefix={json.dumps(self.passage_prefix)}")
        return f"[{','.join(parts)}]" if parts else ""


def read_model_settings(model_dir: Path) -> ModelSettings:
    """The settings of the model in ``model_dir``; a bad file or value is a one-line :class:`UsageError`."""
    own_path = model_dir / SETTINGS_FILE
    own = _read_object(own_path) or {}
    unknown = sorted(set(own) - set(KEYS))
    if unknown:
        raise UsageError(f"{own_path}: unknown key {json.dumps(unknown[0])}; the keys are {', '.join(KEYS)}")
    pooling = _own_pooling(own, own_path)
    if pooling is None:
        pooling = _st_pooling(model_dir) or "mean"
    query_prefix = _string(own, "query_prefix", own_path)
    passage_prefix = _string(own, "passage_prefix", own_path)
    if query_prefix is None or passage_prefix is None:
        prompts = _st_prompts(model_dir)
        query_prefix = prompts[0] if query_prefix is None else query_prefix
        passage_prefix = prompts[1] if passage_prefix is None else passage_prefix
    max_length, where = _max_length(model_dir, own, own_path)
    bound = _model_bound(model_dir) if where else None
    if bound is not None and max_length > bound[0]:
        raise UsageError(
            f"{where} is {max_length}, more than the model takes ({bound[1]} is {bound[0]}); "
            f"use {MIN_MAX_LENGTH} to {bound[0]}"
        )
    return ModelSettings(
        pooling=pooling,
        query_prefix=query_prefix,
        passage_prefix=passage_prefix,
        max_length=max_length,
        max_length_from=where,
        bound_checked=bound is not None,
    )


def _read_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; None when there is no such file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"cannot read {path}: {reason}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} must hold a JSON object, not {_json_type(data)}")
    return data


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{json.dumps(value)} (a boolean)"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        return f"{json.dumps(value)} (a string)"
    return "an array" if isinstance(value, list) else "an object"


def _string(data: dict[str, Any], key: str, path: Path) -> str | None:
    if key not in data:
        return None
    value = data[key]
    if not isinstance(value, str):
        raise UsageError(f"{path}: {json.dumps(key)} must be a string, not {_json_type(value)}")
    return value


def _own_pooling(own: dict[str, Any], path: Path) -> str | None:
    if "pooling" not in own:
        return None
    value = own["pooling"]
    if not isinstance(value, str) or value not in POOLINGS:
        raise UsageError(f'{path}: "pooling" must be "mean" or "cls", not {_json_type(value)}')
    return value


def _pooling_folder(model_dir: Path) -> str:
    """The Pooling module's folder: as ``modules.json`` names it, else sentence-transformers' usual one."""
    path = model_dir / "modules.json"
    try:
        modules = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return "1_Pooling"  # unreadable or absent: the usual name, whose config then says
    for module in modules if isinstance(modules, list) else ():
        if (
            isinstance(module, dict)
            and str(module.get("type", "")).endswith(".Pooling")
            and isinstance(module.get("path"), str)
        ):
            return str(module["path"])
    return "1_Pooling"


def _st_pooling(model_dir: Path) -> str | None:
    """The pooling a sentence-transformers export names, if it names one."""
    path = model_dir / _pooling_folder(model_dir) / "config.json"
    config = _read_object(path)
    if config is None:
        return None
    modes = sorted(k for k, v in config.items() if k.startswith("pooling_mode_") and v is True)
    if modes == ["pooling_mode_cls_token"]:
        return "cls"
    if modes == ["pooling_mode_mean_tokens"]:
        return "mean"
    named = " + ".join(modes) or "no pooling_mode_ key set to true"
    raise UsageError(
        f"{path}: {named} is not a pooling greploom runs (pooling_mode_cls_token or "
        f'pooling_mode_mean_tokens); set "pooling" in {model_dir / SETTINGS_FILE}'
    )


def _st_prompts(model_dir: Path) -> tuple[str, str]:
    """(query prefix, passage prefix) from a sentence-transformers export's prompts, "" where none."""
    path = model_dir / "config_sentence_transformers.json"
    config = _read_object(path)
    prompts = (config or {}).get("prompts") or {}
    if not isinstance(prompts, dict):
        raise UsageError(f'{path}: "prompts" must be an object, not {_json_type(prompts)}')
    found = []
    for keys in (("query",), ("document", "passage")):
        value = next((prompts[k] for k in keys if k in prompts), "")
        if not isinstance(value, str):
            raise UsageError(f'{path}: "prompts" values must be strings, not {_json_type(value)}')
        found.append(value)
    return found[0], found[1]


def _max_length(model_dir: Path, own: dict[str, Any], own_path: Path) -> tuple[int, str]:
    """The maximum length and where it was set (``"PATH: KEY"``; "" for the default)."""
    if "max_length" in own:
        value, where = own["max_length"], f'{own_path}: "max_length"'
    else:
        path = model_dir / "sentence_bert_config.json"
        config = _read_object(path) or {}
        if "max_seq_length" not in config:
            return DEFAULT_MAX_LENGTH, ""
        value, where = config["max_seq_length"], f'{path}: "max_seq_length"'
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_MAX_LENGTH:
        raise UsageError(
            f"{where} must be a whole number of word pieces, at least {MIN_MAX_LENGTH}, "
            f"not {_json_type(value)}"
        )
    return value, where


def _model_bound(model_dir: Path) -> tuple[int, str] | None:
    """The most word pieces the model says it takes, and which file and key say so; None if none says."""
    bounds = []
    for name, key in (
        ("config.json", "max_position_embeddings"),
        ("tokenizer_config.json", "model_max_length"),
    ):
        path = model_dir / name
        value = (_read_object(path) or {}).get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value < _NO_LIMIT:
            bounds.append((value, f"{key} in {path}"))
    return min(bounds) if bounds else None
