"""A training step's settings as named objects, grouped by concern.

training_input.parse_input builds them from a trainOnBatch input (the one place that reads the
contract's fields); train_step.train_on_batch and hf_training.train_hf_step take them. Every default
is the contract's (TRAINER_DEFAULTS, from shared/contracts/trainer.schema.json).
"""

from __future__ import annotations

from dataclasses import dataclass

from .contract import TRAINER_DEFAULTS
from .losses import DEFAULT_GUARDS, LossGuards


@dataclass(frozen=True)
class OptimizerConfig:
    """AdamW's settings for the step (a warm start's step carries its own learning rate)."""

    lr: float = TRAINER_DEFAULTS["lr"]
    weight_decay: float = TRAINER_DEFAULTS["weightDecay"]


@dataclass(frozen=True)
class LossConfig:
    """The policy-gradient loss (losses.clipped_policy_loss): PPO's clip, how tokens are summed, the KL anchor's
    weight, and the guards (dual-clip, log-ratio clamp, GSPO's ratio level, the KL estimator, the constant of
    `seq_mean_token_sum_norm`)."""

    clip_eps: float = TRAINER_DEFAULTS["clipEps"]
    clip_eps_high: float | None = None
    aggregation: str = TRAINER_DEFAULTS["aggregation"]
    # weight of KL(policy || reference), the reference being the step's `reference` model; 0: none
    kl_coef: float = TRAINER_DEFAULTS["klCoef"]
    guards: LossGuards = DEFAULT_GUARDS


@dataclass(frozen=True)
class OffPolicyConfig:
    """Tokens sampled by older weights (losses.py): the correction `mode` ("none", "tis" or "decoupled"), the
    importance-weight cap, and the staleness bound (a trained token older than the base version minus it is
    refused; None: no bound)."""

    mode: str = TRAINER_DEFAULTS["offPolicy"]
    is_cap: float = TRAINER_DEFAULTS["isCap"]
    max_staleness: int | None = None


@dataclass(frozen=True)
class StepConfig:
    """What one step does with its batch: the objective ("policy_gradient" or "imitation"), the sampling temperature
    its log-probs are recomputed under, `epochs` passes of `minibatches` updates each with the gradient norm clipped
    to `max_grad_norm`, the loss, and the off-policy correction."""

    objective: str = TRAINER_DEFAULTS["objective"]
    temperature: float = TRAINER_DEFAULTS["temperature"]
    epochs: int = TRAINER_DEFAULTS["epochs"]
    minibatches: int = TRAINER_DEFAULTS["minibatches"]
    max_grad_norm: float = TRAINER_DEFAULTS["maxGradNorm"]
    loss: LossConfig = LossConfig()
    off_policy: OffPolicyConfig = OffPolicyConfig()


# every setting at the contract's default
DEFAULT_STEP = StepConfig()
