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


def _export(model: PolicyModel, path: Path) -> None:
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
            verbose=False,
        )
