"""For every pair, the document of another definition in its package that the bundled model ranks highest.

    python tools/finetune/hard_negatives.py WORKDIR     # reads pairs.json, writes negatives.json

The bundled model (greploom's local embedder) embeds every query and
document; a pair's hard negative is the most similar document of its own
package that is neither its document nor the document of a pair asking the
same thing. train.py adds it to the batch (NEGATIVES=1), so the model trains
on the definitions it confuses, not only on the ones that happen to share a
batch.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from greploom.shell.embed_local import LocalEmbedder  # noqa: E402


def main() -> int:
    work = Path(sys.argv[1])
    pairs = json.loads((work / "pairs.json").read_text())
    embedder = LocalEmbedder()
    negatives: dict[str, str] = {}
    by_package: dict[str, list[dict[str, str]]] = {}
    for pair in pairs:
        by_package.setdefault(pair["package"], []).append(pair)
    for name, items in sorted(by_package.items()):
        docs = sorted({p["doc"] for p in items})
        doc_vectors = np.array(embedder.embed_documents(docs))
        query_vectors = np.array([embedder.embed_query(p["query"]) for p in items])
        same_query: dict[str, set[str]] = {}
        for p in items:
            same_query.setdefault(p["query"], set()).add(p["doc"])
        scores = query_vectors @ doc_vectors.T
        for pair, row in zip(items, scores, strict=True):
            for j in np.argsort(-row):
                if docs[j] not in same_query[pair["query"]]:
                    negatives[pair["key"] + "\x00" + pair["query"]] = docs[j]
                    break
        print(name, len(items), file=sys.stderr, flush=True)
    (work / "negatives.json").write_text(json.dumps(negatives))
    print(f"{len(negatives)} negatives -> {work / 'negatives.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
