"""The command line's collections: ``greploom index`` without PATH, and ``greploom query -c NAME``.

Called by :func:`greploom.shell.cli.index` and :func:`greploom.shell.cli_query.query`
(whose exit codes and error lines apply). The config file is found and read by
greploom.shell.collections; an index run per collection is greploom.shell.indexing's;
a query over several is greploom.shell.federated's.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from greploom.core.errors import UsageError
from greploom.core.render import SourceMode
from greploom.shell.answer import QueryAnswer
from greploom.shell.cli import err, invocation, out, run_config
from greploom.shell.collections import Target, load_config
from greploom.shell.config import GrepLoomConfig

__all__ = ["collections_answer", "index_collections"]


def index_collections(flags: Mapping[str, Any]) -> int:
    """``greploom index [-c NAME]...``: each collection (all of them for no ``-c``) into its own
    index file, one report line per collection; exit 1 when a run left a definition out."""
    if flags.get("db") is not None:
        raise UsageError(
            "--db names one index, and each collection has its own (.greploom/NAME.db beside the "
            "config file, or its `db` key): drop --db, or pass a PATH"
        )
    config_file = flags.get("config_file")
    targets = load_config(config_file).targets(tuple(flags.get("collection") or ()))
    from greploom.shell.indexing import run_index
    from greploom.shell.progress import progress_for

    failed = 0
    for target in targets:
        config = _index_config(target, flags)
        print(f"greploom: collection {target.name}: {target.root} -> {target.db}", file=err())
        progress = progress_for(sys.stderr)
        try:
            result = run_index(target.root, config, progress, force=bool(flags.get("force")))
        finally:
            progress.close()
        for note in result.notes:
            print(f"greploom: {target.name}: {note}", file=err())
        for warning in result.warnings:
            print(f"greploom: warning: {target.name}: {warning}", file=err())
        print(f"{target.name}: {result.summary_line()}", file=out())
        failed += result.failed
    return 0 if failed == 0 else 1


def _index_config(target: Target, flags: Mapping[str, Any]) -> GrepLoomConfig:
    """An index run's configuration for one collection: the command's flags on its index file
    (the tier the index records kept unless a flag, GREPLOOM_TIER or the file names one)."""
    environ = invocation().environ
    named_tier = flags.get("tier") or (os.environ if environ is None else environ).get("GREPLOOM_TIER")
    config = target.configure(run_config(dict(flags, db=target.db)))
    if not named_tier and target.collection.tier:
        config = config.with_overrides(tier=target.collection.tier)
    return config


def collections_answer(
    config: GrepLoomConfig,
    config_file: Path | None,
    names: Sequence[str],
    text: str | None,
    node_ids: Sequence[str],
    *,
    mode: SourceMode,
) -> QueryAnswer:
    """``greploom query -c NAME...``: the collections named (all of the file's for none),
    searched as one, in this process (their indexes are the config file's, not a server's)."""
    from greploom.shell.federated import federated_query

    targets = load_config(config_file).targets(tuple(names))
    configs = [(t.name, t.configure(config)) for t in targets]
    return federated_query(configs, config, text, node_ids, include_source=mode)
