"""Input of the `trainOnBatch` activity: validated against the contract, then checks across fields.

The fields, their types and bounds are those of shared/contracts/trainer.schema.json (contract.py);
what a schema cannot say (modelConfig is required at step 1, klCoef needs an earlier referenceStep,
dModel must divide by nHeads) is checked here. Every error names the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .contract import ErrorTypes, invalid_input, validate_input
from .model import PolicyModelConfig

__all__ = ["ErrorTypes", "TrainOnBatchInput", "invalid_input", "model_config", "parse_input"]

_MODEL_CONFIG_KEYS = {
    "vocabSize": "vocab_size",
    "context": "context",
    "dModel": "d_model",
    "nLayers": "n_layers",
    "nHeads": "n_heads",
    "dropout": "dropout",
    "alibi": "alibi",
}


@dataclass(frozen=True)
class TrainOnBatchInput:
    """The validated input; JSON names are the camelCase forms of these fields."""

    run_dir: Path
    step_id: str
    step: int
    batch_path: Path
    seed: int
    model_config: PolicyModelConfig | None  # required at step 1, ignored after
    lr: float = 1e-3
    weight_decay: float = 0.0
    objective: str = "policy_gradient"  # or "imitation": NLL of the mask-1 tokens (see train_step.train_on_batch)
    temperature: float = 1.0
    clip_eps: float = 0.2
    clip_eps_high: float | None = None
    aggregation: str = "token_mean"
    minibatches: int = 1
    epochs: int = 1
    max_grad_norm: float = 1.0
    kl_coef: float = 0.0  # policy gradient: weight of KL(policy || the checkpoint of reference_step)
    reference_step: int | None = None
    off_policy: str = "none"  # or "tis", "decoupled": the correction of tokens from older versions (losses.py)
    is_cap: float = 2.0
    max_staleness: int | None = None  # a trained token older than step - 1 - max_staleness is refused
    model: str | None = (
        None  # a Hugging Face causal LM of shared/models.json (hf_training.py); modelConfig is then unused
    )


def parse_input(raw: Any) -> TrainOnBatchInput:
    """Validates the JSON input; a bad field raises a non-retryable InvalidInput naming it."""
    raw = validate_input("trainOnBatch", raw)
    step = int(raw["step"])  # JSON has one number type: 3.0 is 3
    config = model_config(raw.get("modelConfig"))
    if step == 1 and config is None and raw.get("model") is None:
        raise invalid_input("modelConfig is required at step 1 (the model is initialised from it and seed)")
    kl_coef = float(raw.get("klCoef", 0.0))
    reference_step = None if raw.get("referenceStep") is None else int(raw["referenceStep"])
    if kl_coef > 0 and reference_step is None:
        raise invalid_input("referenceStep is required when klCoef > 0 (the checkpoint the policy is pulled toward)")
    if reference_step is not None and reference_step >= step:
        raise invalid_input(f"referenceStep: {reference_step} must be an earlier step than step {step}")
    optimizer = raw.get("optimizer", {})
    return TrainOnBatchInput(
        run_dir=Path(raw["runDir"]),
        step_id=raw["stepId"],
        step=step,
        batch_path=Path(raw["batchPath"]),
        seed=int(raw["seed"]),
        model_config=config,
        lr=float(optimizer.get("lr", 1e-3)),
        weight_decay=float(optimizer.get("weightDecay", 0.0)),
        objective=raw.get("objective", "policy_gradient"),
        temperature=float(raw.get("temperature", 1.0)),
        clip_eps=float(raw.get("clipEps", 0.2)),
        clip_eps_high=None if raw.get("clipEpsHigh") is None else float(raw["clipEpsHigh"]),
        aggregation=raw.get("aggregation", "token_mean"),
        minibatches=int(raw.get("minibatches", 1)),
        epochs=int(raw.get("epochs", 1)),
        max_grad_norm=float(raw.get("maxGradNorm", 1.0)),
        kl_coef=kl_coef,
        reference_step=reference_step,
        off_policy=raw.get("offPolicy", "none"),
        is_cap=float(raw.get("isCap", 2.0)),
        max_staleness=None if raw.get("maxStaleness") is None else int(raw["maxStaleness"]),
        model=raw.get("model"),
    )


def model_config(raw: Mapping[str, Any] | None) -> PolicyModelConfig | None:
    """The model's size from a contract-valid `modelConfig` (camelCase); None when absent."""
    if raw is None:
        return None
    fields: dict[str, Any] = {}
    for key, field in _MODEL_CONFIG_KEYS.items():
        if key in raw:
            fields[field] = raw[key] if field == "alibi" else float(raw[key]) if field == "dropout" else int(raw[key])
    try:
        return PolicyModelConfig(**fields)
    except ValueError as error:  # e.g. dModel not divisible by nHeads
        raise invalid_input(f"modelConfig: {error}") from error
