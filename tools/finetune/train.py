"""Fine-tune the encoder on WORKDIR/pairs.json with an in-batch-negatives contrastive loss.

    python tools/finetune/train.py WORKDIR          # writes WORKDIR/tuned.pt
    HOLD=1 python tools/finetune/train.py WORKDIR   # hold out 20% of the packages and report MRR
    HOLD=a,b python tools/finetune/train.py WORKDIR # hold out these packages
    PAIRS=pairs.json,pairs_other.json ...           # train on several pair files of WORKDIR
    NEGATIVES=1 ...                                 # add hard_negatives.py's negative to each pair

Each batch comes from one package, the pairs of a file together, so the
other pairs in a batch are hard negatives (siblings of the right definition)
instead of code from unrelated packages; ``BATCHES=mixed`` draws batches
from the whole shuffled set, as minilm-l6-code-v1 was trained.
``PER_PACKAGE`` caps the pairs kept per package (v1: 400 of 36 packages).

Word and position embeddings stay frozen (they are int8 in the shipped file).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model import TOKENIZER, MiniLM, load_weights

LR, EPOCHS, BATCH, SCALE = 2e-5, 1.0, 32, 20.0
PER_PACKAGE = int(os.environ.get("PER_PACKAGE", "250"))  # pairs kept per package


def main() -> int:  # noqa: PLR0915 (one straight script)
    work = Path(sys.argv[1])
    torch.manual_seed(0)
    random.seed(0)
    tokenizer = Tokenizer.from_file(str(TOKENIZER))
    tokenizer.enable_truncation(256)
    tokenizer.no_padding()
    by_package: dict[str, list[dict[str, Any]]] = {}
    for name in os.environ.get("PAIRS", "pairs.json").split(","):
        for pair in json.loads((work / name).read_text()):
            by_package.setdefault(pair["package"], []).append(pair)
    packages = sorted(by_package)
    rng = np.random.default_rng(0)
    hold = os.environ.get("HOLD", "")
    if hold == "1":
        held = set(rng.choice(packages, size=len(packages) // 5, replace=False))
    else:
        held = set(hold.split(",")) - {""}
        assert held <= set(packages), held - set(packages)
    train: list[dict[str, Any]] = []
    val: list[dict[str, Any]] = []
    for name in packages:
        pairs = by_package[name]
        random.shuffle(pairs)
        (val if name in held else train).extend(pairs[:PER_PACKAGE])
    print(f"train {len(train)} pairs, held out {len(val)} from {sorted(held)}", flush=True)
    weights, _ = load_weights()
    model = MiniLM(weights)
    for name, param in model.p.items():
        param.requires_grad = name not in ("p_word", "p_pos", "p_type")

    def encode(texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        encodings = tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = torch.tensor([e.ids + [0] * (width - len(e.ids)) for e in encodings])
        mask = torch.tensor([[1] * len(e.ids) + [0] * (width - len(e.ids)) for e in encodings])
        return ids, mask

    def embed(texts: list[str]) -> torch.Tensor:
        with torch.no_grad():
            return torch.cat([model(*encode(texts[i : i + 64])) for i in range(0, len(texts), 64)])

    def mrr(items: list[dict[str, Any]]) -> tuple[float, float] | None:
        """MRR and recall@10 of each query's definition among its package's definitions."""
        if not items:
            return None
        queries, docs = embed([p["query"] for p in items]), embed([p["doc"] for p in items])
        owner = np.array([p["package"] for p in items])
        reciprocal: list[float] = []
        top10: list[float] = []
        for name in sorted(set(owner)):
            rows = torch.tensor(owner == name)
            scores = queries[rows] @ docs[rows].T
            ranks = (scores > scores.diag()[:, None]).sum(1) + 1
            reciprocal.extend((1.0 / ranks).tolist())
            top10.extend((ranks <= 10).float().tolist())
        return round(float(np.mean(reciprocal)), 4), round(float(np.mean(top10)), 4)

    print("before", mrr(val), flush=True)
    optimiser = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=LR, weight_decay=0.01
    )
    steps = int(EPOCHS * len(train) / BATCH)
    warm = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / warm) * max(0.0, 1 - s / steps)
    )

    def batches() -> list[list[dict[str, Any]]]:
        random.shuffle(train)
        if os.environ.get("BATCHES") == "mixed":
            return [train[i : i + BATCH] for i in range(0, len(train) - BATCH + 1, BATCH)]
        out = []
        for name in sorted({p["package"] for p in train}):
            # Files in random order, pairs of a file together; a repeated query
            # or document in one batch would be its own false negative.
            ours = [p for p in train if p["package"] == name]
            order = {f: random.random() for f in sorted({p["key"].split(":")[1] for p in ours})}
            mine = sorted(ours, key=lambda p: order[p["key"].split(":")[1]])
            batch: list[dict[str, Any]] = []
            seen: set[str] = set()
            for pair in mine:
                if pair["query"] in seen or pair["doc"] in seen:
                    continue
                batch.append(pair)
                seen |= {pair["query"], pair["doc"]}
                if len(batch) == BATCH:
                    out.append(batch)
                    batch, seen = [], set()
            if len(batch) >= BATCH // 2:
                out.append(batch)
        random.shuffle(out)
        return out

    negatives: dict[str, str] = {}
    if os.environ.get("NEGATIVES") == "1":  # hard_negatives.py's choice for each pair
        negatives = json.loads((work / "negatives.json").read_text())

    def documents(batch: list[dict[str, Any]]) -> list[str]:
        """The batch's documents, then one hard negative per pair (none repeating a document)."""
        docs = [p["doc"] for p in batch]
        seen = set(docs)
        for pair in batch:
            negative = negatives.get(pair["key"] + "\x00" + pair["query"])
            if negative is not None and negative not in seen:
                docs.append(negative)
                seen.add(negative)
        return docs

    started, step = time.time(), 0
    while step < steps:
        for batch in batches():
            if step >= steps:
                break
            queries = model(*encode([p["query"] for p in batch]))
            docs = model(*encode(documents(batch)))
            loss = torch.nn.functional.cross_entropy(queries @ docs.T * SCALE, torch.arange(len(batch)))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            if step % 20 == 0:
                print(f"step {step}/{steps} loss {loss.item():.3f} {time.time() - started:.0f} s", flush=True)
    print("after", mrr(val), flush=True)
    torch.save({k: v.detach() for k, v in model.p.items()}, work / "tuned.pt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
