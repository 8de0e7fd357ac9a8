"""One policy update on a batch of episodes, and the safetensors batch file format.

Alignment: input_ids (B, T) holds prompt, actions and observations; position t of
behaviour_logprobs and loss_mask describes token t, and its log-prob is taken from the
logits at position t - 1 (the model's prediction given tokens < t). Position 0 has no
log-prob, so loss_mask[:, 0] must be 0 (whatever behaviour_logprobs[:, 0] holds is ignored).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from .contract import BATCH_REQUIRED_TENSORS, validate_batch_header
from .credit import Critic, critic_advantages, last_state_values, token_values, value_loss
from .losses import (
    KL_ESTIMATORS,
    OBJECTIVES,
    OFF_POLICY_MODES,
    clipped_policy_loss,
    get_aggregation,
    imitation_loss,
    importance_metrics,
    kl_estimate,
    mismatch_metrics,
)
from .model import PolicyModel, apply_constraint_mask, token_logprobs
from .step_config import DEFAULT_STEP, StepConfig

REQUIRED_KEYS = BATCH_REQUIRED_TENSORS

# safetensors' dtype names (the batch file's contract speaks them)
_DTYPE_NAMES = {
    torch.int64: "I64",
    torch.int32: "I32",
    torch.float32: "F32",
    torch.float64: "F64",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.bool: "BOOL",
    torch.uint8: "U8",
}


def sequence_logprobs(
    model: PolicyModel, input_ids: torch.Tensor, temperature: float, allowed_mask: torch.Tensor | None = None
) -> torch.Tensor:
    """Aligned log-probs (B, T): position t = log p(token t | tokens < t) at `temperature`; position 0 is 0.

    allowed_mask (B, T, V) bool, optional: the constraint the sampler applied when it drew token t.
    """
    logits = model(input_ids)[:, :-1]  # (B, T-1, V), row t-1 predicts token t
    if allowed_mask is not None:
        logits = apply_constraint_mask(logits, allowed_mask[:, 1:])  # (B, T-1, V)
    shifted = token_logprobs(logits, input_ids[:, 1:], temperature)  # (B, T-1)
    return torch.cat([torch.zeros_like(shifted[:, :1]), shifted], dim=1)  # (B, T)


def action_logprobs(
    model: PolicyModel,
    input_ids: torch.Tensor,
    loss_mask: torch.Tensor,
    temperature: float,
    allowed_mask: torch.Tensor | None = None,
    hidden: torch.Tensor | None = None,
) -> torch.Tensor:
    """`sequence_logprobs` at the loss_mask=1 positions, 0 elsewhere: (B, T).

    The output head, constraint mask and log-softmax run on those N positions only, not on all B x T.
    hidden: the model's hidden states of input_ids (B, T, C) when the caller has them (the critic reads them too).
    """
    hidden = (model.hidden_states(input_ids) if hidden is None else hidden)[:, :-1]  # (B, T-1, C)
    predicts_action = loss_mask[:, 1:].bool()  # (B, T-1)
    logits = model.head(hidden[predicts_action])  # (N, V)
    if allowed_mask is not None:
        logits = apply_constraint_mask(logits, allowed_mask[:, 1:][predicts_action])  # (N, V)
    selected = token_logprobs(logits, input_ids[:, 1:][predicts_action], temperature)  # (N,)
    shifted = selected.new_zeros(predicts_action.shape).index_put((predicts_action,), selected)  # (B, T-1)
    return torch.cat([torch.zeros_like(shifted[:, :1]), shifted], dim=1)  # (B, T)


def validate_batch(batch: Mapping[str, torch.Tensor], context: int, vocab_size: int) -> None:
    """Raises ValueError naming the field when a batch is malformed for a model of this context and vocabulary."""
    for key in REQUIRED_KEYS:
        if key not in batch:
            raise ValueError(f"batch.{key} is missing; required: {', '.join(REQUIRED_KEYS)}")
    input_ids = batch["input_ids"]
    if input_ids.dtype != torch.int64 or input_ids.dim() != 2:
        raise ValueError(f"batch.input_ids must be int64 (B, T), got {input_ids.dtype} {tuple(input_ids.shape)}")
    B, T = input_ids.shape
    if T < 2 or T > context:
        raise ValueError(f"batch.input_ids: sequence length must be in [2, {context}], got {T}")
    if bool(((input_ids < 0) | (input_ids >= vocab_size)).any()):
        raise ValueError(f"batch.input_ids holds ids outside the vocabulary [0, {vocab_size})")
    for key in ("loss_mask", "behaviour_logprobs"):
        if tuple(batch[key].shape) != (B, T):
            raise ValueError(f"batch.{key} must be (B, T) = {(B, T)}, got {tuple(batch[key].shape)}")
    if tuple(batch["advantages"].shape) not in ((B,), (B, T)):
        raise ValueError(f"batch.advantages must be (B,) = {(B,)} or (B, T), got {tuple(batch['advantages'].shape)}")
    loss_mask = batch["loss_mask"]
    if not bool(((loss_mask == 0) | (loss_mask == 1)).all()):
        raise ValueError("batch.loss_mask must hold only 0 and 1")
    if bool(loss_mask[:, 0].any()):
        raise ValueError("batch.loss_mask[:, 0] must be 0: the first token has no log-prob")
    if not bool(batch["behaviour_logprobs"][loss_mask.bool()].isfinite().all()):
        raise ValueError("batch.behaviour_logprobs must be finite at every loss_mask=1 position")
    allowed = batch.get("allowed_mask")
    if allowed is None:
        return
    if allowed.dtype != torch.bool or tuple(allowed.shape) != (B, T, vocab_size):
        raise ValueError(
            f"batch.allowed_mask must be bool (B, T, V) = {(B, T, vocab_size)}, got {allowed.dtype} "
            f"{tuple(allowed.shape)}"
        )
    # the sampler cannot draw a disallowed token, and the trainer would give it log-prob -inf
    drawn_allowed = allowed.gather(-1, input_ids.unsqueeze(-1)).squeeze(-1)  # (B, T)
    if not bool(drawn_allowed[loss_mask.bool()].all()):
        raise ValueError("batch.allowed_mask must allow input_ids[b, t] at every loss_mask=1 position")


def token_staleness(policy_versions: torch.Tensor, loss_mask: torch.Tensor, base_version: int) -> torch.Tensor:
    """base_version - version of every mask-1 token whose version is known (>= 0): a 1-D tensor."""
    known = loss_mask.bool() & (policy_versions >= 0)
    return base_version - policy_versions[known]


def check_staleness(batch: Mapping[str, torch.Tensor], base_version: int, max_staleness: int | None) -> None:
    """Raises ValueError when a trained token comes from a version newer than the step's base or staler than
    max_staleness.
    """
    versions = batch.get("policy_versions")
    if versions is None:
        return
    staleness = token_staleness(versions, batch["loss_mask"], base_version)
    if staleness.numel():
        from .metrics import BATCH_STALENESS

        BATCH_STALENESS.labels("max").set(int(staleness.max()))
        BATCH_STALENESS.labels("mean").set(float(staleness.float().mean()))
    if staleness.numel() and int(staleness.min()) < 0:
        raise ValueError(
            f"batch.policy_versions holds a trained token of version {base_version - int(staleness.min())}, "
            f"newer than version {base_version} the step starts from"
        )
    if max_staleness is not None and staleness.numel() and int(staleness.max()) > max_staleness:
        raise ValueError(
            f"batch.policy_versions holds a trained token {int(staleness.max())} versions older than "
            f"version {base_version}, beyond maxStaleness {max_staleness}"
        )


def proximal_logprobs(
    model: PolicyModel,
    batch: Mapping[str, torch.Tensor],
    temperature: float,
    base_version: int | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The proximal policy's log-probs (the weights the step starts from, no gradient): (used, recomputed), both (B, T).

    `recomputed` is this model's; `used` takes the recorded behaviour log-prob instead wherever the
    token's version is the step's base version, since there the proximal policy is the behaviour
    policy by definition: recomputing it would only add the engines' numerical difference.
    """
    was_training = model.training
    model.eval()
    with torch.no_grad():
        recomputed = action_logprobs(
            model, batch["input_ids"], batch["loss_mask"], temperature, batch.get("allowed_mask")
        )
    model.train(was_training)
    versions = batch.get("policy_versions")
    if versions is None or base_version is None:
        return recomputed, recomputed
    behaviour = batch["behaviour_logprobs"].to(recomputed.dtype)
    return torch.where(versions == base_version, behaviour, recomputed), recomputed


def _critic_targets(
    model: PolicyModel, critic: Critic, batch: Mapping[str, torch.Tensor]
) -> tuple[dict[str, torch.Tensor], dict[str, float]]:
    """The batch with the critic's advantages, its starting values and the returns they aim at, and a summary."""
    if "rewards" not in batch:
        raise ValueError("a critic estimator needs batch.rewards (B,): each row's reward")
    was_training = model.training
    model.eval()
    critic.head.eval()
    with torch.no_grad():
        hidden = model.hidden_states(batch["input_ids"])
        values = token_values(critic.head, hidden, batch.get("privileged"))  # (B, T)
        last = last_state_values(critic.head, hidden, batch["loss_mask"], batch.get("privileged"))  # (B,)
    model.train(was_training)
    advantages, returns, steps = critic_advantages(
        critic.options,
        values,
        last,
        batch["rewards"],
        batch["loss_mask"],
        batch.get("turn_ids"),
        batch.get("bootstrap"),
    )
    selected_values, selected_returns = values[steps], returns[steps]
    variance = float(selected_returns.var(unbiased=False)) if selected_returns.numel() > 1 else 0.0
    summary = {
        "mean_value": float(selected_values.mean()) if selected_values.numel() else 0.0,
        "mean_return": float(selected_returns.mean()) if selected_returns.numel() else 0.0,
        "explained_variance": (
            1.0 - float((selected_returns - selected_values).var(unbiased=False)) / variance if variance > 0 else 0.0
        ),
        "steps": int(steps.sum()),
    }
    targets = {
        **batch,
        "advantages": advantages.to(torch.float32),
        "old_values": values,
        "returns": returns,
        "value_mask": steps.to(values.dtype),
    }
    return targets, summary


def all_advantages_zero(batch: Mapping[str, torch.Tensor]) -> bool:
    """True when no mask-1 token carries a nonzero advantage: a policy-gradient step would change nothing."""
    advantages, mask = batch["advantages"], batch["loss_mask"].bool()
    if advantages.dim() == 2:
        advantages = advantages[mask]  # only mask-1 tokens carry an advantage
    return bool((advantages == 0).all())


def _minibatch(batch: Mapping[str, torch.Tensor], rows: torch.Tensor) -> dict[str, torch.Tensor]:
    return {key: value[rows] for key, value in batch.items()}


def _loss_on(
    model: PolicyModel,
    batch: Mapping[str, torch.Tensor],
    config: StepConfig,
    anchored: bool = False,
    critic: Critic | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The step's loss on a minibatch and its metrics; `anchored`: with the KL penalty toward the reference
    log-probs the batch carries."""
    loss_config, temperature = config.loss, config.temperature
    guards = loss_config.guards
    # mask-0 positions are never scored, so whatever allowed_mask holds there (even all-False) is unused
    hidden = model.hidden_states(batch["input_ids"]) if critic is not None else None
    logprobs = action_logprobs(
        model, batch["input_ids"], batch["loss_mask"], temperature, batch.get("allowed_mask"), hidden
    )  # (B, T)
    if config.objective == "imitation":
        return imitation_loss(
            logprobs,
            batch["loss_mask"],
            aggregation=loss_config.aggregation,
            loss_scale_factor=guards.loss_scale_factor,
        )
    loss, metrics = clipped_policy_loss(
        logprobs,
        batch["behaviour_logprobs"],
        batch["advantages"],
        batch["loss_mask"],
        clip_eps=loss_config.clip_eps,
        clip_eps_high=loss_config.clip_eps_high,
        aggregation=loss_config.aggregation,
        off_policy=config.off_policy.mode,
        proximal_logprobs=batch.get("proximal_logprobs"),
        is_cap=config.off_policy.is_cap,
        guards=guards,
    )
    if anchored and loss_config.kl_coef > 0:
        mask = batch["loss_mask"].to(logprobs.dtype)
        delta = (batch["reference_logprobs"] - logprobs) * mask  # log(reference / policy) at mask-1 tokens
        per_token = kl_estimate(delta, guards.kl_estimator, guards.log_ratio_clamp) * mask  # KL(policy || reference)
        kl = get_aggregation(loss_config.aggregation)(per_token, mask, guards.loss_scale_factor)
        loss = loss + loss_config.kl_coef * kl
        metrics = {**metrics, "kl_ref": float(kl.detach())}
    if critic is not None:
        assert hidden is not None
        predicted = token_values(critic.head, hidden, batch.get("privileged"))  # (B, T)
        critic_loss, clipped = value_loss(
            predicted, batch["old_values"], batch["returns"], batch["value_mask"], clip=critic.options.value_clip
        )
        loss = loss + critic.options.value_coef * critic_loss
        metrics = {**metrics, "value_loss": float(critic_loss.detach()), "value_clip_fraction": clipped}
    return loss, metrics


def train_on_batch(
    model: PolicyModel,
    optimizer: torch.optim.Optimizer,
    batch: Mapping[str, torch.Tensor],
    config: StepConfig = DEFAULT_STEP,
    *,
    reference: PolicyModel | None = None,
    base_version: int | None = None,
    critic: Critic | None = None,
) -> dict[str, Any]:
    """`config.epochs` passes over `config.minibatches` contiguous slices of the batch, one optimizer step each.

    objective: "policy_gradient" minimises `clipped_policy_loss`; "imitation" minimises
    `imitation_loss`, the NLL of the mask-1 tokens under the same temperature and allowed_mask,
    ignoring advantages and behaviour log-probs (clip_eps does not apply).
    Returns loss, mean_ratio, clip_fraction, kl_k3, grad_norm (pre-clipping), each the mean over
    steps, plus steps, skipped and per_step (the metrics of each step, measured before it).
    Policy gradient only: if every advantage is exactly 0 the optimizer is not touched (an AdamW
    step with zero gradients would still move weights through decay and momentum): skipped is
    True and the metrics come from one no-grad forward pass. Dropout, if configured, is active
    (model.train()); with dropout > 0 the first ratio is no longer 1.
    reference, config.loss.kl_coef (policy gradient only): adds kl_coef times the estimate of KL(policy ||
    reference) over the mask-1 tokens, aggregated like the loss, which pulls the policy back toward
    `reference` (e.g. the warm-started policy); its log-probs are computed once, before the first
    update, under the same temperature and constraint. kl_ref (the mean over steps) is returned.
    config.off_policy, base_version (policy gradient only): the correction of tokens sampled by older
    weights (losses.clipped_policy_loss). The proximal log-probs are computed once, before the first
    update, from the weights the step starts from (`proximal_logprobs`); tokens whose
    batch["policy_versions"] equals base_version (the step's starting version) use their behaviour
    log-prob there. `importance` (mean, max, truncated_share of pi_prox / mu, mismatch_kl of the
    recomputed log-probs against mu) is returned for every policy-gradient step, skipped ones included.
    config.off_policy.max_staleness: a trained token older than base_version - max_staleness, or newer than
    base_version, is refused (ValueError) before any work.
    batch["environment_mask"] (optional, the loss-mask ablation): trained tokens the policy did not sample;
    their behaviour and proximal log-probs are the starting weights' own (recomputed).
    config.loss.guards (losses.LossGuards): dual-clip, the log-ratio clamp, GSPO's sequence-level ratio, the KL
    penalty's estimator, and the constant of `seq_mean_token_sum_norm` (None: the model's window).
    Also returned: clip_fraction_lower (dual-clip binding) and kl_sampling (KL to the anchor by every
    estimator), means over steps.
    critic (policy gradient only; credit.Critic): before the first update the critic's values at every token
    and at each row's last state give the advantages (GAE per action token or per turn, credit.py) in place of
    the batch's, from batch["rewards"] (B,), batch["bootstrap"] (B,, optional: truncated rows whose last state's
    value stands for the rest) and batch["turn_ids"] (gae_turn); each update adds value_coef times the clipped
    value loss and steps the critic's optimizer too. Returned: value_loss, value_clip_fraction (means over
    updates) and `critic` (mean value, mean return, explained variance, before the first update).
    """
    config = _checked(config, model, batch)
    policy_gradient = config.objective == "policy_gradient"
    importance: dict[str, float] | None = None
    critic_summary: dict[str, float] | None = None
    if policy_gradient:
        batch, importance = _with_proximal_logprobs(model, batch, config, base_version)
        if critic is not None:
            batch, critic_summary = _critic_targets(model, critic, batch)
    else:
        critic = None

    if policy_gradient and all_advantages_zero(batch):
        with torch.no_grad():
            loss, metrics = _loss_on(model, batch, config, critic=critic)
        summary = {"loss": float(loss), **metrics, "grad_norm": 0.0}
        _move_critic_metrics(summary, critic_summary)
        return {**summary, "steps": 0, "skipped": True, "per_step": [], "importance": importance}

    if config.loss.kl_coef < 0:
        raise ValueError(f"kl_coef must be >= 0, got {config.loss.kl_coef}")
    anchored = policy_gradient and reference is not None and config.loss.kl_coef > 0
    if anchored:
        assert reference is not None
        reference.eval()
        with torch.no_grad():
            batch = {
                **batch,
                "reference_logprobs": action_logprobs(
                    reference, batch["input_ids"], batch["loss_mask"], config.temperature, batch.get("allowed_mask")
                ),
            }
    per_step = _updates(model, optimizer, batch, config, anchored, critic)
    keys = ("loss", "mean_ratio", "clip_fraction", "clip_fraction_lower", "kl_k3", "grad_norm")
    if anchored:
        keys = (*keys, "kl_ref")
    if critic is not None:
        keys = (*keys, "value_loss", "value_clip_fraction")
    summary: dict[str, Any] = {key: sum(step[key] for step in per_step) / len(per_step) for key in keys}
    summary["kl_sampling"] = {
        name: sum(step["kl_sampling"][name] for step in per_step) / len(per_step) for name in KL_ESTIMATORS
    }
    summary["masked_tokens"] = int(batch["loss_mask"].bool().sum())
    _move_critic_metrics(summary, critic_summary)
    return {**summary, "steps": len(per_step), "skipped": False, "per_step": per_step, "importance": importance}


def _checked(config: StepConfig, model: PolicyModel, batch: Mapping[str, torch.Tensor]) -> StepConfig:
    """The step's settings checked against its model and batch before any work; `seq_mean_token_sum_norm`'s
    constant defaults to the model's window."""
    if config.objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {config.objective!r}; known: {', '.join(sorted(OBJECTIVES))}")
    if config.off_policy.mode not in OFF_POLICY_MODES:
        raise ValueError(f"unknown off-policy mode {config.off_policy.mode!r}; known: {', '.join(OFF_POLICY_MODES)}")
    get_aggregation(config.loss.aggregation)  # unknown names fail before any work
    guards = config.loss.guards
    if guards.loss_scale_factor is None:
        guards = replace(guards, loss_scale_factor=float(model.config.context))
        config = replace(config, loss=replace(config.loss, guards=guards))
    validate_batch(batch, model.config.context, model.config.vocab_size)
    batch_size = batch["input_ids"].shape[0]
    if not 1 <= config.minibatches <= batch_size:
        raise ValueError(f"minibatches must be in [1, {batch_size}], got {config.minibatches}")
    if config.epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {config.epochs}")
    return config


def _with_proximal_logprobs(
    model: PolicyModel, batch: Mapping[str, torch.Tensor], config: StepConfig, base_version: int | None
) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """A policy-gradient batch with the proximal log-probs of the weights the step starts from (and, for the
    loss-mask ablation, their log-probs standing for the behaviour's of environment tokens), and the importance
    and mismatch figures."""
    if base_version is not None:
        check_staleness(batch, base_version, config.off_policy.max_staleness)
    used, recomputed = proximal_logprobs(model, batch, config.temperature, base_version)
    environment = batch.get("environment_mask")
    if environment is not None:
        # the loss-mask ablation: observations the policy never sampled have no behaviour log-prob; the
        # weights the step starts from stand for it (their first ratio is 1, as PPO's old policy)
        environment = environment.bool() & batch["loss_mask"].bool()
        used = torch.where(environment, recomputed, used)
        batch = {
            **batch,
            "behaviour_logprobs": torch.where(
                environment, recomputed.to(batch["behaviour_logprobs"].dtype), batch["behaviour_logprobs"]
            ),
        }
    is_cap = config.off_policy.is_cap
    importance = {
        **importance_metrics(used, batch["behaviour_logprobs"], batch["loss_mask"], is_cap=is_cap),
        "mismatch_kl": importance_metrics(recomputed, batch["behaviour_logprobs"], batch["loss_mask"], is_cap=is_cap)[
            "mismatch_kl"
        ],
        "mismatch": mismatch_metrics(
            recomputed, batch["behaviour_logprobs"], batch["loss_mask"], batch.get("policy_versions"), base_version
        ),
    }
    return {**batch, "proximal_logprobs": used}, importance


def _updates(
    model: PolicyModel,
    optimizer: torch.optim.Optimizer,
    batch: Mapping[str, torch.Tensor],
    config: StepConfig,
    anchored: bool,
    critic: Critic | None,
) -> list[dict[str, Any]]:
    """The step's updates, each one's metrics measured before it."""
    model.train()
    if critic is not None:
        critic.head.train()
    per_step: list[dict[str, Any]] = []
    for _ in range(config.epochs):
        for rows in torch.arange(batch["input_ids"].shape[0]).tensor_split(config.minibatches):
            optimizer.zero_grad(set_to_none=True)
            if critic is not None:
                critic.optimizer.zero_grad(set_to_none=True)
            loss, metrics = _accumulated_loss(model, _minibatch(batch, rows), config, anchored, critic)
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            if critic is not None:
                torch.nn.utils.clip_grad_norm_(critic.head.parameters(), config.max_grad_norm)
                critic.optimizer.step()
            optimizer.step()
            per_step.append({"loss": float(loss.detach()), **metrics, "grad_norm": float(grad_norm)})
    return per_step


# The most tokens (rows x padded length) one forward and backward pass holds: a minibatch larger than that is
# split into micro-batches whose gradients add up (a real model's activations for backward grow with it: 16 rows of
# 1,200 tokens took 22 GB on the CPU in one pass).
MICRO_BATCH_TOKENS = 2048


def _accumulated_loss(
    model: PolicyModel,
    batch: Mapping[str, torch.Tensor],
    config: StepConfig,
    anchored: bool,
    critic: Critic | None,
) -> tuple[torch.Tensor, dict[str, Any]]:
    """`_loss_on` the minibatch with its gradients accumulated (backward done), in micro-batches of at most
    MICRO_BATCH_TOKENS tokens (at least one row each). Each micro-batch's loss is weighted by its share of what the
    aggregation averages over (mask-1 tokens for token_mean, sequences with one for the others), so the gradient is
    the whole minibatch's; a critic's value loss takes the same weights. Returns the (detached) loss and the metrics,
    each the weighted mean over micro-batches."""
    B, T = batch["input_ids"].shape
    per_micro = max(1, MICRO_BATCH_TOKENS // T)
    if B <= per_micro:
        loss, metrics = _loss_on(model, batch, config, anchored, critic)
        loss.backward()
        return loss.detach(), metrics
    mask = batch["loss_mask"].bool()
    counts = mask.sum(dim=1).float() if config.loss.aggregation == "token_mean" else (mask.sum(dim=1) > 0).float()
    total = float(counts.sum().clamp(min=1))
    loss_sum = torch.zeros(())
    merged: dict[str, Any] = {}
    for rows in torch.arange(B).split(per_micro):
        weight = float(counts[rows].sum()) / total
        if weight == 0:
            continue
        loss, metrics = _loss_on(model, _minibatch(batch, rows), config, anchored, critic)
        (loss * weight).backward()
        loss_sum = loss_sum + loss.detach() * weight
        _add_weighted(merged, metrics, weight)
    return loss_sum, merged


def _add_weighted(into: dict[str, Any], metrics: Mapping[str, Any], weight: float) -> None:
    """Adds weight x each number of `metrics` (nested dicts too) into `into`."""
    for key, value in metrics.items():
        if isinstance(value, Mapping):
            _add_weighted(into.setdefault(key, {}), value, weight)
        elif isinstance(value, int | float):
            into[key] = into.get(key, 0.0) + weight * float(value)


def _move_critic_metrics(summary: dict[str, Any], critic_summary: dict[str, float] | None) -> None:
    """With a critic: its figures under `critic`, the value loss and its clip share among them."""
    if critic_summary is not None:
        summary["critic"] = {
            **critic_summary,
            **{key: summary.pop(key) for key in ("value_loss", "value_clip_fraction") if key in summary},
        }


def save_batch(
    path: str | os.PathLike[str], tensors: Mapping[str, torch.Tensor], metadata: Mapping[str, Any] | None = None
) -> None:
    """Writes a safetensors file atomically; each metadata value is stored as its JSON text."""
    encoded = {key: json.dumps(value) for key, value in (metadata or {}).items()}
    target = Path(path)
    temporary = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    save_file({key: value.detach().contiguous() for key, value in tensors.items()}, str(temporary), metadata=encoded)
    os.replace(temporary, target)


def load_batch(path: str | os.PathLike[str]) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Reads what `save_batch` (or the TypeScript writer) wrote: (tensors, metadata with each value
    parsed from JSON). A mask stored compactly, as `allowed_patterns` (P, V) bool and
    `allowed_index` (B, T) int rows into it, is returned expanded as `allowed_mask` (B, T, V)."""
    with safe_open(str(path), framework="pt") as handle:
        tensors = {key: handle.get_tensor(key) for key in handle.keys()}
        raw = handle.metadata() or {}
    metadata = {key: json.loads(value) for key, value in raw.items()}
    header = {
        "tensors": {
            key: {"dtype": _DTYPE_NAMES.get(value.dtype, str(value.dtype)), "shape": list(value.shape)}
            for key, value in tensors.items()
        },
        "metadata": metadata,
    }
    if "allowed_patterns" in tensors or "allowed_index" in tensors:
        patterns, index = tensors.pop("allowed_patterns", None), tensors.pop("allowed_index", None)
        if patterns is None or index is None:
            raise ValueError("batch.allowed_patterns and batch.allowed_index come together")
        if (
            patterns.dtype != torch.bool
            or patterns.dim() != 2
            or index.dim() != 2
            or index.dtype not in (torch.int32, torch.int64)
        ):
            raise ValueError(
                f"batch.allowed_patterns must be bool (P, V) and allowed_index int (B, T), got {patterns.dtype} "
                f"{tuple(patterns.shape)} and {index.dtype} {tuple(index.shape)}"
            )
        if index.numel() and (int(index.min()) < 0 or int(index.max()) >= patterns.shape[0]):
            raise ValueError(f"batch.allowed_index must lie in [0, {patterns.shape[0]})")
        tensors["allowed_mask"] = patterns[index.long()]  # (B, T, V)
    # the file as a whole follows shared/contracts/batch.schema.json (the writer checked it too)
    validate_batch_header(header)
    return tensors, metadata


def result_metrics(metrics: Mapping[str, Any], off_policy: str) -> dict[str, Any]:
    """The `metrics` of a trainOnBatch result (camelCase, shared/contracts/trainer-contract.ts) from train_on_batch's."""
    importance = metrics.get("importance")
    return {
        "loss": metrics["loss"],
        "meanRatio": metrics["mean_ratio"],
        "clipFraction": metrics["clip_fraction"],
        "klK3": metrics["kl_k3"],
        "klSampling": {
            "k1": metrics["kl_sampling"]["k1"],
            "k2": metrics["kl_sampling"]["k2"],
            "k3": metrics["kl_sampling"]["k3"],
            "lowVarKl": metrics["kl_sampling"]["low_var_kl"],
        },
        "clipFractionLower": metrics["clip_fraction_lower"],
        **(
            {
                "critic": {
                    "meanValue": metrics["critic"]["mean_value"],
                    "meanReturn": metrics["critic"]["mean_return"],
                    "explainedVariance": metrics["critic"]["explained_variance"],
                    "valueLoss": metrics["critic"].get("value_loss", 0.0),
                    "valueClipFraction": metrics["critic"].get("value_clip_fraction", 0.0),
                }
            }
            if "critic" in metrics
            else {}
        ),
        "gradNorm": metrics["grad_norm"],
        "skipped": metrics["skipped"],
        "maskedTokens": metrics["masked_tokens"],
        "updates": metrics["steps"],
        **({"klRef": metrics["kl_ref"]} if "kl_ref" in metrics else {}),
        **(
            {
                "offPolicy": off_policy,
                "importanceWeight": {
                    "mean": importance["mean"],
                    "max": importance["max"],
                    "truncatedShare": importance["truncated_share"],
                },
                "mismatchKl": importance["mismatch_kl"],
                "mismatch": {
                    "meanAbsRatioDev": importance["mismatch"]["mean_abs_ratio_dev"],
                    "maxAbsRatioDev": importance["mismatch"]["max_abs_ratio_dev"],
                    "kl": importance["mismatch"]["kl"],
                },
            }
            if importance
            else {}
        ),
    }
