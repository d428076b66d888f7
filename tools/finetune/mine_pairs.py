"""Mine (docstring sentence, undocumented embedded text) pairs from packages outside the harness.

    python tools/finetune/mine_pairs.py WORKDIR

Downloads pinned wheels, builds each package's CPG with treeloom, and for
every documented, non-test definition writes the first sentence of its
docstring (the query) and the text greploom embeds for it once every
docstring is removed from the CPG (the document) to WORKDIR/pairs.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from benchmarks.quality.make_queries import first_sentence  # noqa: E402
from benchmarks.quality.withhold import without_docstrings  # noqa: E402

from greploom.core.code_categories import path_category  # noqa: E402
from greploom.core.cpg import CpgGraph  # noqa: E402
from greploom.core.keys import node_identities  # noqa: E402
from greploom.core.summary import Tier, docstring, docstring_node, summarize_node  # noqa: E402
from greploom.shell.serde import load_cpg  # noqa: E402
from greploom.shell.treeloom import build_cpg_with_treeloom  # noqa: E402

# None of these is a code base of the quality harness (requests, click, flask, attrs, httpx, commander).
PACKAGES = [
    "jinja2==3.1.4",
    "werkzeug==3.0.6",
    "itsdangerous==2.2.0",
    "urllib3==2.2.3",
    "idna==3.10",
    "rich==13.9.4",
    "packaging==24.2",
    "pluggy==1.5.0",
    "marshmallow==3.23.1",
    "h11==0.14.0",
    "anyio==4.6.2",
    "starlette==0.41.3",
    "typer==0.13.1",
    "tqdm==4.67.1",
    "more-itertools==10.5.0",
    "pyparsing==3.2.0",
    "python-dateutil==2.9.0",
    "tenacity==9.0.0",
    "structlog==24.4.0",
    "cachetools==5.5.0",
    "tabulate==0.9.0",
    "humanize==4.11.0",
    "arrow==1.3.0",
    "beautifulsoup4==4.12.3",
    "jsonschema==4.23.0",
    "invoke==2.2.0",
    "markdown==3.7",
    "mistune==3.0.2",
    "bleach==6.2.0",
    "wrapt==1.17.0",
    "decorator==5.1.1",
    "toolz==1.0.0",
    "boltons==24.1.0",
    "sortedcontainers==2.4.0",
    "cattrs==24.1.2",
    "pyflakes==3.2.0",
    "pycodestyle==2.12.1",
    "networkx==3.4.2",
    # Added for minilm-l6-code-v2 (66 packages with pairs; decorator and
    # pycodestyle give none).
    "apscheduler==3.11.0",
    "cerberus==1.3.5",
    "mako==1.3.6",
    "pyjwt==2.10.1",
    "alembic==1.14.0",
    "astroid==3.3.5",
    "babel==2.16.0",
    "croniter==5.0.1",
    "docutils==0.21.2",
    "fastapi==0.115.5",
    "filelock==3.16.1",
    "isort==5.13.2",
    "jedi==0.19.2",
    "kombu==5.4.2",
    "oauthlib==3.2.2",
    "parso==0.8.4",
    "platformdirs==4.3.6",
    "plumbum==1.9.0",
    "prompt-toolkit==3.0.48",
    "pyasn1==0.6.1",
    "pydantic==2.10.3",
    "pygments==2.18.0",
    "pytest==8.3.4",
    "redis==5.2.0",
    "rsa==4.9",
    "schedule==1.2.2",
    "sqlparse==0.5.2",
    "tomlkit==0.13.2",
    "uvicorn==0.32.1",
    "voluptuous==0.15.2",
]


def query_of(doc: str, file: str) -> str | None:
    """A documentation's first sentence as a query: product code only, at least four words."""
    if path_category(file) is not None:
        return None
    sentence = first_sentence(doc)
    return sentence if len(sentence.split()) >= 4 else None


def pairs_from(
    package: str, graph: CpgGraph, queries: dict[str, str], *, unique: bool = False
) -> list[dict[str, Any]]:
    """A pair for every definition with a query (by node id): the query and what greploom embeds
    for the definition in ``graph``, which holds no documentation. ``unique``: each query once."""
    idents = node_identities(graph)
    qualnames = {i.node_id: i.qualname for i in idents}
    pairs, seen = [], set()
    for ident in idents:
        node = graph.node(ident.node_id)
        query = queries.get(ident.node_id)
        if node is None or query is None or (unique and query in seen):
            continue
        seen.add(query)
        text = summarize_node(graph, node, qualnames, Tier.ENHANCED).embed_text
        pairs.append({"package": package, "key": ident.key, "query": query, "doc": text})
    return pairs


def withheld(raw: dict[str, Any], graph: CpgGraph) -> tuple[dict[str, Any], dict[str, str]]:
    """The CPG with every docstring removed, and each documented definition's first sentence."""
    sentences: dict[str, str] = {}
    for ident in node_identities(graph):
        node = graph.node(ident.node_id)
        doc = docstring(graph, node) if node is not None and docstring_node(graph, node) else None
        if doc and not ident.name.startswith("__") and (sentence := query_of(doc, ident.file)):
            sentences[ident.node_id] = sentence
    return without_docstrings(raw, graph, lambda _key: True), sentences


def main() -> int:
    work = Path(sys.argv[1])
    (work / "dl").mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:"]
    subprocess.run([*pip, "-d", str(work / "dl"), *PACKAGES], check=True)
    pairs = []
    for wheel in sorted((work / "dl").glob("*.whl")):
        name = wheel.name.split("-")[0].lower()
        src = work / "src" / name
        if not src.exists():
            zipfile.ZipFile(wheel).extractall(src)
        for package in sorted(
            p for p in src.iterdir() if p.is_dir() and not p.name.endswith((".dist-info", ".data"))
        ):
            cpg = work / "cpg" / f"{name}__{package.name}.json"
            if not cpg.exists():
                build_cpg_with_treeloom(package, cpg)
            raw = json.loads(cpg.read_text())
            stripped, sentences = withheld(raw, CpgGraph(load_cpg(cpg)))
            tmp = work / "withheld.json"
            tmp.write_text(json.dumps(stripped))
            pairs.extend(pairs_from(name, CpgGraph(load_cpg(tmp)), sentences))
            print(name, package.name, len(sentences), file=sys.stderr)
    (work / "pairs.json").write_text(json.dumps(pairs))
    print(f"{len(pairs)} pairs -> {work / 'pairs.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
