"""Input of the `trainOnBatch` activity: validated against the contract, then checks across fields.

The fields, their types and bounds are those of shared/contracts/trainer.schema.json (contract.py);
what a schema cannot say (modelConfig is required at step 1, klCoef needs an earlier referenceStep,
dModel must divide by nHeads) is checked here. Every error names the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .contract import TRAINER_DEFAULTS, ErrorTypes, invalid_input, validate_input
from .credit import CriticOptions
from .losses import LossGuards
from .model import PolicyModelConfig
from .step_config import DEFAULT_STEP, LossConfig, OffPolicyConfig, OptimizerConfig, StepConfig

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
    """The validated input; JSON names are the camelCase forms of these fields. The step's settings travel as
    named objects (step_config.py), built here and nowhere else."""

    run_ref: str  # the run's prefix in the store (store.py)
    step_id: str
    step: int
    batch_ref: str
    seed: int
    model_config: PolicyModelConfig | None  # required at step 1, ignored after
    # a Hugging Face causal LM of shared/models.json (hf_training.py); modelConfig is then unused
    model: str | None = None
    optimizer: OptimizerConfig = OptimizerConfig()
    config: StepConfig = DEFAULT_STEP
    # the checkpoint config.loss.kl_coef pulls toward (policy gradient)
    reference_step: int | None = None
    # a critic (value head) trained with the policy, whose GAE gives the advantages (credit.py); None: the batch's
    critic: CriticOptions | None = None
    # once the step is recorded, the checkpoints of steps up to step - keep_checkpoints go (reference_step's stays);
    # None: every checkpoint stays
    keep_checkpoints: int | None = None


def parse_input(raw: Any) -> TrainOnBatchInput:
    """Validates the JSON input; a bad field raises a non-retryable InvalidInput naming it."""
    raw = validate_input("trainOnBatch", raw)
    step = int(raw["step"])  # JSON has one number type: 3.0 is 3
    config = model_config(raw.get("modelConfig"))
    if step == 1 and config is None and raw.get("model") is None:
        raise invalid_input("modelConfig is required at step 1 (the model is initialised from it and seed)")
    defaults = TRAINER_DEFAULTS
    kl_coef = float(raw.get("klCoef", defaults["klCoef"]))
    reference_step = None if raw.get("referenceStep") is None else int(raw["referenceStep"])
    if kl_coef > 0 and reference_step is None:
        raise invalid_input("referenceStep is required when klCoef > 0 (the checkpoint the policy is pulled toward)")
    if reference_step is not None and reference_step >= step:
        raise invalid_input(f"referenceStep: {reference_step} must be an earlier step than step {step}")
    optimizer = raw.get("optimizer", {})
    return TrainOnBatchInput(
        run_ref=raw["runRef"],
        step_id=raw["stepId"],
        step=step,
        batch_ref=raw["batchRef"],
        seed=int(raw["seed"]),
        model_config=config,
        model=raw.get("model"),
        optimizer=OptimizerConfig(
            lr=float(optimizer.get("lr", defaults["lr"])),
            weight_decay=float(optimizer.get("weightDecay", defaults["weightDecay"])),
        ),
        config=StepConfig(
            objective=raw.get("objective", defaults["objective"]),
            temperature=float(raw.get("temperature", defaults["temperature"])),
            epochs=int(raw.get("epochs", defaults["epochs"])),
            minibatches=int(raw.get("minibatches", defaults["minibatches"])),
            max_grad_norm=float(raw.get("maxGradNorm", defaults["maxGradNorm"])),
            loss=LossConfig(
                clip_eps=float(raw.get("clipEps", defaults["clipEps"])),
                clip_eps_high=None if raw.get("clipEpsHigh") is None else float(raw["clipEpsHigh"]),
                aggregation=raw.get("aggregation", defaults["aggregation"]),
                kl_coef=kl_coef,
                guards=loss_guards(raw),
            ),
            off_policy=OffPolicyConfig(
                mode=raw.get("offPolicy", defaults["offPolicy"]),
                is_cap=float(raw.get("isCap", defaults["isCap"])),
                max_staleness=None if raw.get("maxStaleness") is None else int(raw["maxStaleness"]),
            ),
        ),
        reference_step=reference_step,
        critic=critic_options(raw.get("critic")),
        keep_checkpoints=None if raw.get("keepCheckpoints") is None else int(raw["keepCheckpoints"]),
    )


def critic_options(raw: Mapping[str, Any] | None) -> CriticOptions | None:
    """The critic of a contract-valid input (`critic`), its fields left out taking CriticOptions' defaults."""
    if raw is None:
        return None
    fields: dict[str, Any] = {}
    for key, field in (("estimator", "estimator"), ("gamma", "gamma"), ("lambda", "lam"), ("valueCoef", "value_coef")):
        if key in raw:
            fields[field] = raw[key] if field == "estimator" else float(raw[key])
    if "valueClip" in raw:
        fields["value_clip"] = None if raw["valueClip"] is None else float(raw["valueClip"])
    for key in ("whiten", "privileged"):
        if key in raw:
            fields[key] = bool(raw[key])
    try:
        return CriticOptions(**fields)
    except ValueError as error:
        raise invalid_input(f"critic: {error}") from error


def loss_guards(raw: Mapping[str, Any]) -> LossGuards:
    """The loss guards of a contract-valid input; a field left out takes the contract's default
    (clipRatioC: null turns dual-clip off)."""
    defaults = TRAINER_DEFAULTS
    clip_ratio_c = raw["clipRatioC"] if "clipRatioC" in raw else defaults["clipRatioC"]
    try:
        return LossGuards(
            clip_ratio_c=None if clip_ratio_c is None else float(clip_ratio_c),
            log_ratio_clamp=float(raw.get("logRatioClamp", defaults["logRatioClamp"])),
            ratio_level=raw.get("ratioLevel", defaults["ratioLevel"]),
            kl_estimator=raw.get("klEstimator", defaults["klEstimator"]),
            loss_scale_factor=None if raw.get("lossScaleFactor") is None else float(raw["lossScaleFactor"]),
        )
    except ValueError as error:
        raise invalid_input(str(error)) from error


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
