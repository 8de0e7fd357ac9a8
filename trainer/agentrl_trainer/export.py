"""ONNX export of the policy for the TypeScript sampler (onnxruntime-node), with a JSON sidecar."""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import asdict
from pathlib import Path

import torch

from .model import PolicyModel

SIDECAR_FORMAT_VERSION = 1
INPUT_NAME = "input_ids"
OUTPUT_NAME = "logits"


def export_onnx(model: PolicyModel, path: str | os.PathLike[str], *, policy_version: str | None = None) -> Path:
    """Writes `path` (one self-contained ONNX file) and `<path>.json`; returns the ONNX path.

    Graph: input `input_ids` int64 (batch, sequence) -> output `logits` float32 (batch, sequence, V),
    both dims dynamic, sequence <= config.context. Uses the dynamo exporter (torch.export), which
    in torch 2.13 handles dynamic batch and sequence, including size 1. `policy_version` defaults
    to `onnx-` plus the first 12 hex digits of the file's sha256.

    The graph is traced once per process for each model class and config (a trace takes seconds,
    most of a toy training step); later exports write the model's weights into that graph's
    initializers, which the unoptimized export names after the parameters and buffers, and give
    the same bytes as a fresh trace would.
    """
    path = Path(path)
    config = model.config
    was_training = model.training
    model.eval()
    try:
        _export(model, path)
    finally:
        model.train(was_training)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    sidecar = {
        "formatVersion": SIDECAR_FORMAT_VERSION,
        "policyVersion": policy_version or f"onnx-{digest[:12]}",
        "sha256": digest,
        "torchVersion": torch.__version__,
        "config": asdict(config),
        "input": {"name": INPUT_NAME, "dtype": "int64", "shape": ["batch", "sequence"]},
        "output": {"name": OUTPUT_NAME, "dtype": "float32", "shape": ["batch", "sequence", config.vocab_size]},
        # the sampler and the trainer must agree on this transform (see model.token_logprobs)
        "logprobs": "log_softmax(mask_disallowed(logits[:, t - 1]) / temperature)[token t]",
    }
    sidecar_path(path).write_text(json.dumps(sidecar, indent=1) + "\n")
    return path


def sidecar_path(path: str | os.PathLike[str]) -> Path:
    """`<path>.json`, e.g. policy.onnx -> policy.onnx.json."""
    return Path(f"{os.fspath(path)}.json")


# (model class, config, torch version) -> the traced graph, weights included, as serialized ONNX
_traced: dict[tuple, bytes] = {}
_TRACED_KEEP = 4


def _export(model: PolicyModel, path: Path) -> None:
    key = (type(model).__qualname__, json.dumps(asdict(model.config), sort_keys=True), torch.__version__)
    traced = _traced.get(key)
    if traced is None:
        _traced[key] = _trace(model, path)
        while len(_traced) > _TRACED_KEEP:
            _traced.pop(next(iter(_traced)))
        return
    path.write_bytes(_with_weights(traced, model))


def _trace(model: PolicyModel, path: Path) -> bytes:
    """Traces the model into `path`; returns the file's bytes."""
    example = torch.zeros((2, 8), dtype=torch.int64)  # sizes > 1 so neither dim is specialised
    batch = torch.export.Dim("batch")
    sequence = torch.export.Dim("sequence", max=model.config.context)
    with warnings.catch_warnings():
        # torch's own pytree code warns about its deprecated LeafSpec during export: not ours to fix
        warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
        torch.onnx.export(
            model,
            (example,),
            str(path),
            dynamo=True,
            input_names=[INPUT_NAME],
            output_names=[OUTPUT_NAME],
            dynamic_shapes={INPUT_NAME: {0: batch, 1: sequence}},
            external_data=False,  # one file: the artifact store and onnxruntime-node take a single blob
            # unoptimized: every weight stays an initializer named after its parameter (the optimizer
            # folds e.g. transposed weights into new constants); onnxruntime optimizes the graph itself
            optimize=False,
            verbose=False,
        )
    import onnx

    # the unoptimized graph keeps each node's trace metadata (source paths, stack traces, FX nodes):
    # a third of the file, and it would differ between checkouts
    proto = onnx.load(str(path))
    for node in proto.graph.node:
        node.ClearField("metadata_props")
        node.ClearField("doc_string")
    traced = proto.SerializeToString()
    path.write_bytes(traced)
    return traced


def _with_weights(traced: bytes, model: PolicyModel) -> bytes:
    """The traced graph with every initializer that names a parameter or buffer set to the model's value."""
    import onnx

    proto = onnx.load_from_string(traced)
    tensors = {**dict(model.named_buffers()), **dict(model.named_parameters())}
    written = set()
    for initializer in proto.graph.initializer:
        tensor = tensors.get(initializer.name)
        if tensor is None:
            continue
        value = tensor.detach().to("cpu").contiguous().numpy()
        if list(value.shape) != list(initializer.dims) or initializer.data_type != onnx.helper.np_dtype_to_tensor_dtype(
            value.dtype
        ):
            raise RuntimeError(
                f"{initializer.name}: {value.dtype} {list(value.shape)}, the traced graph holds type "
                f"{initializer.data_type} {list(initializer.dims)}"
            )
        for field in ("float_data", "double_data", "int32_data", "int64_data"):
            initializer.ClearField(field)
        initializer.raw_data = value.tobytes()
        written.add(initializer.name)
    missing = [name for name in dict(model.named_parameters()) if name not in written]
    if missing:
        raise RuntimeError(f"the traced graph has no initializer for {', '.join(missing[:5])}")
    return proto.SerializeToString()
