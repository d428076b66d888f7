"""Write the tuned weights into a copy of the base ONNX graph.

    python tools/finetune/export.py WORKDIR/tuned.pt OUT.onnx

Encoder matrices go in as float16 through the graph's existing Cast -> Mul
path with a scale of 1 (int8 would round the fine-tuning away); biases and
layer norms as float32; the frozen embeddings are left as they were.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model import BASE_ONNX, BIASES, MATRICES, load_weights


def main() -> int:
    state = torch.load(sys.argv[1])
    out = Path(sys.argv[2])
    model = onnx.load(str(BASE_ONNX))
    _, matrices = load_weights()

    def tensor(key: str) -> np.ndarray:
        return state["p_" + key.replace(".", "_")].numpy().astype(np.float32)

    replace: dict[str, np.ndarray] = {}
    for layer in range(6):
        for j, short in enumerate(MATRICES):
            weight = tensor(f"{layer}.{short}.w")
            name = matrices[layer * 6 + j]
            replace[name + "_q"] = weight.astype(np.float16)
            replace[name + "_scale"] = np.ones((1, weight.shape[1]), dtype=np.float32)
        for short, onnx_name in BIASES:
            replace[f"inner.encoder.layer.{layer}.{onnx_name}"] = tensor(f"{layer}.{short}")
    replace["inner.embeddings.LayerNorm.weight"] = tensor("eln_w")
    replace["inner.embeddings.LayerNorm.bias"] = tensor("eln_b")
    done = 0
    for i, init in enumerate(model.graph.initializer):
        if init.name in replace:
            new = numpy_helper.from_array(replace[init.name], init.name)
            assert list(new.dims) == list(init.dims), init.name
            model.graph.initializer[i].CopyFrom(new)
            done += 1
    assert done == len(replace), (done, len(replace))
    onnx.save(model, str(out))
    print(f"wrote {out}: {done} tensors replaced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
