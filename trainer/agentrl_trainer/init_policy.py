"""The `initPolicy` activity: the weights a training run samples with before its first step.

Step 1 of `trainOnBatch` initialises the model from the same `seed` and `modelConfig`, so the
policy exported here (`<runRef>/policies/v0/`) is exactly the one step 1 starts from.
Idempotent: a v0 that is already exported is returned as it is.

A Hugging Face causal LM (`model`, shared/models.json) starts from its prepared weights: v0 is the
model cache's ONNX folder (`model://<model>`, each host's own), named `<model>-base` as its embedded server names it before any publish.
"""

from __future__ import annotations

import json
from typing import Any

import torch
from temporalio import activity

from .checkpoints import export_policy, policy_path
from .contract import validate_input, validate_result
from .export import sidecar_path
from .model import PolicyModel
from .store import RunStore
from .training_input import invalid_input, model_config

ACTIVITY_NAME = "initPolicy"


def init_policy(raw: Any) -> dict[str, Any]:
    """Exports the seeded initial model as policy v0; returns {step: 0, policyVersion, policyPath}."""
    raw = validate_input(ACTIVITY_NAME, raw)
    if raw.get("model") is not None:
        from . import hf_models

        name = raw["model"]
        graph = hf_models.onnx_dir(name)
        if not (graph / "model.onnx").is_file() or not (hf_models.weights_dir(name) / "model.safetensors").is_file():
            raise invalid_input(
                f"model: {name} is not prepared in the model cache ({graph}); run python -m "
                f"agentrl_trainer.hf_models prepare {name} (scripts/setup.sh does)"
            )
        return dict(
            validate_result(
                ACTIVITY_NAME,
                {"step": 0, "policyVersion": hf_models.base_version(name), "policyRef": f"model://{name}"},
            )
        )
    store = RunStore(raw["runRef"])
    seed = int(raw["seed"])
    config = model_config(raw["modelConfig"])
    assert config is not None  # the contract requires modelConfig
    fetched = store.fetch("policies/v0")
    path = policy_path(store.local, 0)
    if fetched is None or not (path.is_file() and sidecar_path(path).is_file()):
        torch.manual_seed(seed)  # as trainOnBatch's step 1 does
        model = PolicyModel(config)
        path = export_policy(model, store.local, 0)
        store.publish("policies/v0")
    version = json.loads(sidecar_path(path).read_text())["policyVersion"]
    return dict(
        validate_result(ACTIVITY_NAME, {"step": 0, "policyVersion": version, "policyRef": store.ref_of("policies/v0")})
    )


@activity.defn(name=ACTIVITY_NAME)
def init_policy_activity(input: dict) -> dict:
    """Temporal entry point of init_policy."""
    return init_policy(input)
