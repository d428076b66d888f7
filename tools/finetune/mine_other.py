"""Mine (doc comment sentence, undocumented embedded text) pairs from JavaScript, TypeScript, Go and Rust.

    python tools/finetune/mine_other.py WORKDIR        # appends nothing: writes WORKDIR/pairs_other.json

The same supervision as mine_pairs.py, for the languages whose source and
doc comments greploom reads from the files (greploom.core.spans): npm
tarballs (``npm pack``), and Go and Rust library sources from Debian's
``golang-*-dev`` and ``librust-*-dev`` packages (``apt-get download``), the
two places this machine can fetch code from. For every documented,
non-test definition: the first sentence of its doc comment (the query) and
the text greploom embeds for it once every doc comment is removed (the
document). A package published twice over (CommonJS and ES module copies)
gives each sentence once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from mine_pairs import pairs_from, query_of  # noqa: E402

from greploom.core.cpg import CpgGraph  # noqa: E402
from greploom.core.keys import node_identities  # noqa: E402
from greploom.shell.serde import load_cpg  # noqa: E402
from greploom.shell.sources import read_sources  # noqa: E402
from greploom.shell.treeloom import build_cpg_with_treeloom  # noqa: E402

# None of these is a code base of the quality harness (commander is its JavaScript one).
NPM = [
    "express@4.21.1", "koa@2.15.3", "axios@1.7.7", "moment@2.30.1", "ramda@0.30.1", "luxon@3.5.0",
    "knex@3.1.0", "markdown-it@14.1.0", "js-yaml@4.1.0", "semver@7.6.3", "fastify@5.1.0", "pino@9.5.0",
    "handlebars@4.7.8", "ws@8.18.0", "yargs@17.7.2", "validator@13.12.0", "async@3.2.6",
    "bluebird@3.7.2", "immer@10.1.1", "date-fns@4.1.0", "underscore@1.13.7", "marked@15.0.2",
    "ejs@3.1.10", "cheerio@1.0.0", "jsonwebtoken@9.0.2", "mongoose@8.8.2", "sequelize@6.37.5",
    "socket.io@4.8.1", "chokidar@4.0.1", "superagent@10.1.1",
]  # fmt: skip
DEBIAN = [
    "golang-github-spf13-pflag-dev", "golang-github-sirupsen-logrus-dev",
    "golang-github-stretchr-testify-dev", "golang-github-gorilla-mux-dev", "golang-github-pkg-errors-dev",
    "golang-github-google-uuid-dev", "golang-gopkg-yaml.v3-dev", "golang-github-burntsushi-toml-dev",
    "golang-github-urfave-cli-dev", "golang-github-fsnotify-fsnotify-dev", "golang-github-gin-gonic-gin-dev",
    "golang-github-go-chi-chi-dev", "golang-github-spf13-cobra-dev", "golang-github-spf13-viper-dev",
    "golang-github-hashicorp-golang-lru-dev", "golang-github-cespare-xxhash-dev",
    "golang-github-gorilla-websocket-dev", "golang-github-mattn-go-isatty-dev",
    "golang-github-klauspost-compress-dev", "golang-github-prometheus-client-golang-dev",
    "librust-regex-syntax-dev", "librust-memchr-dev", "librust-serde-dev", "librust-itertools-dev",
    "librust-anyhow-dev", "librust-log-dev", "librust-rand-dev", "librust-bytes-dev", "librust-indexmap-dev",
    "librust-hashbrown-dev", "librust-toml-dev", "librust-semver-dev", "librust-url-dev",
    "librust-chrono-dev", "librust-nom-dev", "librust-walkdir-dev", "librust-glob-dev",
    "librust-smallvec-dev", "librust-clap-dev", "librust-serde-json-dev",
]  # fmt: skip


def sources(work: Path) -> list[tuple[str, Path]]:
    """(package name, source folder) for every package, fetched and unpacked once."""
    dl = work / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    if not any(dl.glob("*.tgz")):
        for spec in NPM:
            subprocess.run(["npm", "pack", spec, "--silent"], cwd=dl, check=True, capture_output=True)
    if not any(dl.glob("*.deb")):
        subprocess.run(["apt-get", "download", *DEBIAN], cwd=dl, check=True, capture_output=True)
    out: list[tuple[str, Path]] = []
    for tgz in sorted(dl.glob("*.tgz")):
        name = tgz.name.rsplit("-", 1)[0]
        target = work / "src" / name
        if not target.exists():
            with tarfile.open(tgz) as tar:
                tar.extractall(target, filter="data")
        out.append((name, next(p for p in target.iterdir() if p.is_dir())))  # "package" in most
    for deb in sorted(dl.glob("*.deb")):
        name = deb.name.split("_")[0]
        target = work / "src" / name
        if not target.exists():
            subprocess.run(["dpkg-deb", "-x", str(deb), str(target)], check=True)
        roots = [p.parent for p in target.glob("usr/share/gocode/src/**/*.go")]
        roots += list(target.glob("usr/share/cargo/registry/*/src"))
        if roots:
            out.append((name, min(roots, key=lambda p: len(p.parts))))
    return out


def pairs_of(name: str, folder: Path, work: Path) -> list[dict[str, Any]]:
    cpg = work / "cpg" / f"{name}.json"
    cpg.parent.mkdir(parents=True, exist_ok=True)
    if not cpg.exists():
        build_cpg_with_treeloom(folder, cpg)
    data, _ = read_sources(load_cpg(cpg), folder)
    sentences: dict[str, str] = {}
    graph = CpgGraph(data)
    for ident in node_identities(graph):
        node = graph.node(ident.node_id)
        doc = node.attr("doc_comment") if node is not None else None
        if not isinstance(doc, str) or ident.name.startswith("_"):
            continue
        sentence = query_of(doc, ident.file)
        if sentence and not sentence.startswith("@"):  # "@param ...": a JSDoc tag, not a description
            sentences[ident.node_id] = sentence
    bare = attrs.evolve(
        data,
        nodes=tuple(
            attrs.evolve(n, attrs=tuple((k, v) for k, v in n.attrs if k != "doc_comment")) for n in data.nodes
        ),
    )
    # CommonJS and ES module copies of one package would give each sentence twice.
    return pairs_from(name, CpgGraph(bare), sentences, unique=True)


def main() -> int:
    work = Path(sys.argv[1])
    pairs: list[dict[str, Any]] = []
    for name, folder in sources(work):
        got = pairs_of(name, folder, work)
        print(name, len(got), file=sys.stderr)
        pairs.extend(got)
    (work / "pairs_other.json").write_text(json.dumps(pairs))
    print(f"{len(pairs)} pairs -> {work / 'pairs_other.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
