"""Input of the `trainOnBatch` activity: parsing and validation, errors that name the field."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.exceptions import ApplicationError

from .losses import AGGREGATIONS, OBJECTIVES
from .model import PolicyModelConfig


class ErrorTypes:
    """ApplicationError types this activity raises; the first three are non-retryable."""

    INVALID_INPUT = "InvalidInput"  # a field is malformed, a file it names is missing, or checkpoint N-1 is absent
    STEP_CONFLICT = "StepConflict"  # stepId or step disagrees with what the run folder already holds
    CHECKPOINT_UNREADABLE = "CheckpointUnreadable"  # checkpoint N-1 exists but cannot be loaded
    NON_FINITE_UPDATE = "NonFiniteUpdate"  # the loss, gradient norm or weights became inf/NaN; nothing was written
    RUN_BUSY = "RunBusy"  # retryable: another attempt of this run still holds the run lock
    WORKER_SHUTDOWN = "WorkerShutdown"  # retryable: the worker is stopping; the retry starts from N-1


_STEP_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_MODEL_CONFIG_KEYS = {"vocabSize": "vocab_size", "context": "context", "dModel": "d_model",
                      "nLayers": "n_layers", "nHeads": "n_heads", "dropout": "dropout", "alibi": "alibi"}
_OPTIMIZER_KEYS = ("lr", "weightDecay")
_INPUT_KEYS = ("runDir", "stepId", "step", "batchPath", "seed", "modelConfig", "optimizer", "objective", "temperature",
               "clipEps", "clipEpsHigh", "aggregation", "minibatches", "epochs", "maxGradNorm", "klCoef", "referenceStep")


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


def parse_input(raw: Any) -> TrainOnBatchInput:
    """Validates the JSON input; a bad field raises a non-retryable InvalidInput naming it."""
    if not isinstance(raw, Mapping):
        raise invalid_input(f"input must be a JSON object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(_INPUT_KEYS))
    if unknown:
        raise invalid_input(f"{unknown[0]}: unknown field; known: {', '.join(_INPUT_KEYS)}")
    step_id = _string(raw, "stepId")
    if not _STEP_ID.match(step_id):
        raise invalid_input(f"stepId: {step_id!r} must match {_STEP_ID.pattern} (it names a file)")
    step = _integer(raw, "step", minimum=1)
    optimizer = raw.get("optimizer", {})
    if not isinstance(optimizer, Mapping):
        raise invalid_input(f"optimizer must be an object {{lr, weightDecay}}, got {type(optimizer).__name__}")
    unknown = sorted(set(optimizer) - set(_OPTIMIZER_KEYS))
    if unknown:
        raise invalid_input(f"optimizer.{unknown[0]}: unknown field; known: {', '.join(_OPTIMIZER_KEYS)}")
    objective = _string(raw, "objective", default="policy_gradient")
    if objective not in OBJECTIVES:
        raise invalid_input(f"objective: unknown {objective!r}; known: {', '.join(sorted(OBJECTIVES))}")
    aggregation = _string(raw, "aggregation", default="token_mean")
    if aggregation not in AGGREGATIONS:
        raise invalid_input(f"aggregation: unknown {aggregation!r}; known: {', '.join(sorted(AGGREGATIONS))}")
    clip_eps_high = raw.get("clipEpsHigh")
    model_config = _model_config(raw.get("modelConfig"))
    if step == 1 and model_config is None:
        raise invalid_input("modelConfig is required at step 1 (the model is initialised from it and seed)")
    kl_coef = _number(raw, "klCoef", default=0.0, at_least=0.0)
    reference_step = None if raw.get("referenceStep") is None else _integer(raw, "referenceStep", minimum=1)
    if kl_coef > 0 and reference_step is None:
        raise invalid_input("referenceStep is required when klCoef > 0 (the checkpoint the policy is pulled toward)")
    if reference_step is not None and reference_step >= step:
        raise invalid_input(f"referenceStep: {reference_step} must be an earlier step than step {step}")
    return TrainOnBatchInput(
        run_dir=_absolute_path(raw, "runDir"),
        step_id=step_id,
        step=step,
        batch_path=_absolute_path(raw, "batchPath"),
        seed=_integer(raw, "seed", minimum=0, maximum=2**63 - 1),
        model_config=model_config,
        lr=_number(optimizer, "lr", default=1e-3, above=0.0, prefix="optimizer."),
        weight_decay=_number(optimizer, "weightDecay", default=0.0, at_least=0.0, prefix="optimizer."),
        objective=objective,
        temperature=_number(raw, "temperature", default=1.0, above=0.0),
        clip_eps=_number(raw, "clipEps", default=0.2, above=0.0, below=1.0),
        clip_eps_high=None if clip_eps_high is None else _number(raw, "clipEpsHigh", above=0.0),
        aggregation=aggregation,
        minibatches=_integer(raw, "minibatches", default=1, minimum=1),
        epochs=_integer(raw, "epochs", default=1, minimum=1),
        max_grad_norm=_number(raw, "maxGradNorm", default=1.0, above=0.0),
        kl_coef=kl_coef,
        reference_step=reference_step,
    )


def invalid_input(message: str) -> ApplicationError:
    return ApplicationError(message, type=ErrorTypes.INVALID_INPUT, non_retryable=True)


def _string(raw: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or not value:
        raise invalid_input(f"{key} must be a non-empty string, got {value!r}")
    return value


def _absolute_path(raw: Mapping[str, Any], key: str) -> Path:
    path = Path(_string(raw, key))
    if not path.is_absolute():
        raise invalid_input(f"{key} must be an absolute path (the worker's working directory is not the caller's), got {str(path)!r}")
    return path


def _integer(raw: Mapping[str, Any], key: str, *, default: int | None = None, minimum: int,
             maximum: int | None = None, prefix: str = "") -> int:
    value = raw.get(key, default)
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON has one number type: 3.0 is 3
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or (maximum is not None and value > maximum):
        bound = f"in [{minimum}, {maximum}]" if maximum is not None else f">= {minimum}"
        raise invalid_input(f"{prefix}{key} must be an integer {bound}, got {value!r}")
    return value


def _number(raw: Mapping[str, Any], key: str, *, default: float | None = None, above: float | None = None,
            at_least: float | None = None, below: float | None = None, prefix: str = "") -> float:
    value = raw.get(key, default)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ok = ok and (above is None or value > above) and (at_least is None or value >= at_least) and (below is None or value < below)
    if not ok:
        bounds = [f"> {above}" if above is not None else "", f">= {at_least}" if at_least is not None else "",
                  f"< {below}" if below is not None else ""]
        raise invalid_input(f"{prefix}{key} must be a finite number {' and '.join(b for b in bounds if b)}, got {value!r}")
    return float(value)


def _model_config(raw: Any) -> PolicyModelConfig | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise invalid_input(f"modelConfig must be an object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(_MODEL_CONFIG_KEYS))
    if unknown:
        raise invalid_input(f"modelConfig.{unknown[0]}: unknown field; known: {', '.join(_MODEL_CONFIG_KEYS)}")
    fields: dict[str, Any] = {}
    for key, field in _MODEL_CONFIG_KEYS.items():
        if key not in raw:
            continue
        if field == "alibi":
            if not isinstance(raw[key], bool):
                raise invalid_input(f"modelConfig.alibi must be true or false, got {raw[key]!r}")
            fields[field] = raw[key]
        else:
            fields[field] = _number(raw, key, at_least=0.0, prefix="modelConfig.") if field == "dropout" \
                else _integer(raw, key, minimum=1, prefix="modelConfig.")
    try:
        return PolicyModelConfig(**fields)
    except ValueError as error:  # e.g. dModel not divisible by nHeads
        raise invalid_input(f"modelConfig: {error}") from error
