"""Clipped policy-gradient loss (PPO / GRPO style) and imitation loss, with aggregation modes registered by name.

Shapes: B sequences, T positions. Only mask-1 tokens (generated action tokens) count; mask-0
positions (prompt, observation, padding) are selected away with `torch.where`, so whatever
they hold, even inf or NaN, changes neither the loss nor any gradient.

A sequence with no mask-1 token is dropped: it adds nothing to any sum and is not counted in
any denominator. A batch with no mask-1 token at all has loss 0 (still differentiable, every
gradient 0) and neutral metrics: mean_ratio 1, clip_fraction 0, kl_k3 0, masked_tokens 0.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .contract import TRAINER_DEFAULTS


def token_mean(per_token: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Sum over every mask-1 token of the batch / their count: long sequences weigh more (DAPO)."""
    return per_token.sum() / mask.sum().clamp(min=1)


def seq_mean_token_mean(per_token: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean over tokens within each sequence, then mean over sequences: every sequence weighs the same (GRPO)."""
    tokens = mask.sum(dim=1)  # (B,)
    per_sequence = per_token.sum(dim=1) / tokens.clamp(min=1)  # (B,)
    return per_sequence.sum() / (tokens > 0).sum().clamp(min=1)


def seq_mean_token_sum(per_token: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Sum over tokens within each sequence, then mean over sequences: no length normalisation (Dr. GRPO)."""
    tokens = mask.sum(dim=1)  # (B,)
    return per_token.sum() / (tokens > 0).sum().clamp(min=1)


AGGREGATIONS: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "token_mean": token_mean,
    "seq_mean_token_mean": seq_mean_token_mean,
    "seq_mean_token_sum": seq_mean_token_sum,
}


# what a training step minimises: "policy_gradient" (clipped_policy_loss) or "imitation" (imitation_loss)
OBJECTIVES = ("policy_gradient", "imitation")

# how the policy-gradient term corrects for tokens sampled by older weights (see clipped_policy_loss)
OFF_POLICY_MODES = ("none", "tis", "decoupled")
# the importance-weight cap when a step names none: the contract's (shared/off-policy.ts defaultIsCap)
DEFAULT_IS_CAP = TRAINER_DEFAULTS["isCap"]


def off_policy_weights(
    proximal_logprobs: torch.Tensor,
    behaviour_logprobs: torch.Tensor,
    loss_mask: torch.Tensor,
    *,
    mode: str,
    is_cap: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token weight of the policy-gradient term and which tokens crossed the cap, both (B, T).

    w = pi_prox / mu at mask-1 tokens. `none`: 1 everywhere (the ratio is taken against mu).
    `tis`: min(w, is_cap), verl's truncated rollout correction. `decoupled`: w, with tokens whose
    w exceeds is_cap dropped (weight 0), AReaL's behaviour-weight cap. Mask-0 positions get 1.
    """
    if mode not in OFF_POLICY_MODES:
        raise ValueError(f"unknown off-policy mode {mode!r}; known: {', '.join(OFF_POLICY_MODES)}")
    if not is_cap > 0:
        raise ValueError(f"is_cap must be > 0, got {is_cap}")
    mask = loss_mask.bool()
    zero = torch.zeros((), dtype=proximal_logprobs.dtype, device=proximal_logprobs.device)
    weight = torch.exp(
        torch.where(mask, proximal_logprobs - behaviour_logprobs.to(proximal_logprobs.dtype), zero)
    )  # (B, T)
    over = mask & (weight > is_cap)  # (B, T)
    if mode == "none":
        return torch.ones_like(weight), over
    if mode == "tis":
        return torch.clamp(weight, max=is_cap), over
    return torch.where(over, zero, weight), over


def importance_metrics(
    proximal_logprobs: torch.Tensor, behaviour_logprobs: torch.Tensor, loss_mask: torch.Tensor, *, is_cap: float
) -> dict[str, float]:
    """Of w = pi_prox / mu over mask-1 tokens: mean, max, the share above is_cap, and mismatch_kl, the k3
    estimate mean(w - 1 - log w) of KL(mu || pi_prox). Neutral (1, 1, 0, 0) without mask-1 tokens."""
    mask = loss_mask.bool()
    count = int(mask.sum())
    if count == 0:
        return {"mean": 1.0, "max": 1.0, "truncated_share": 0.0, "mismatch_kl": 0.0}
    log_w = (proximal_logprobs - behaviour_logprobs.to(proximal_logprobs.dtype))[mask]  # (N,)
    w = torch.exp(log_w)
    return {
        "mean": float(w.mean()),
        "max": float(w.max()),
        "truncated_share": float((w > is_cap).sum()) / count,
        "mismatch_kl": float((w - 1.0 - log_w).mean()),
    }


def mismatch_metrics(
    recomputed_logprobs: torch.Tensor,
    behaviour_logprobs: torch.Tensor,
    loss_mask: torch.Tensor,
    versions: torch.Tensor | None = None,
    base_version: int | None = None,
) -> dict[str, float]:
    """The training-inference mismatch: of r = pi_train / mu, the trainer's recomputed probability of
    each generated token over the one the server recorded, mean |r - 1|, max |r - 1| and the k3
    estimate mean(r - 1 - log r) of KL(mu || pi_train). Measured on the tokens the step's starting
    weights generated (version == base_version), where the two engines ran the same weights; on every
    mask-1 token when versions are unknown or none is of that version. Zeros without mask-1 tokens."""
    mask = loss_mask.bool()
    if versions is not None and base_version is not None:
        same = mask & (versions == base_version)
        if bool(same.any()):
            mask = same
    if not bool(mask.any()):
        return {"mean_abs_ratio_dev": 0.0, "max_abs_ratio_dev": 0.0, "kl": 0.0}
    log_r = (recomputed_logprobs.to(torch.float64) - behaviour_logprobs.to(torch.float64))[mask]
    r = torch.exp(log_r)
    deviation = (r - 1.0).abs()
    return {
        "mean_abs_ratio_dev": float(deviation.mean()),
        "max_abs_ratio_dev": float(deviation.max()),
        "kl": float((r - 1.0 - log_r).mean()),
    }


def get_aggregation(name: str) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """The aggregation registered as `name`; unknown names raise ValueError with the known ones."""
    aggregation = AGGREGATIONS.get(name)
    if aggregation is None:
        raise ValueError(f"unknown aggregation {name!r}; known: {', '.join(sorted(AGGREGATIONS))}")
    return aggregation


def clipped_policy_loss(
    logprobs: torch.Tensor,
    behaviour_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    loss_mask: torch.Tensor,
    *,
    clip_eps: float = 0.2,
    clip_eps_high: float | None = None,
    aggregation: str = "token_mean",
    off_policy: str = "none",
    proximal_logprobs: torch.Tensor | None = None,
    is_cap: float = DEFAULT_IS_CAP,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Loss and metrics of -w * min(ratio * A, clip(ratio, 1 - eps, 1 + eps_high) * A) over mask-1 tokens.

    logprobs (B, T): current policy at the generated tokens (carries the gradient).
    behaviour_logprobs (B, T): mu, recorded at sampling time.
    off_policy: "none" (default): ratio = exp(logprobs - behaviour_logprobs), w = 1.
    "tis" and "decoupled": ratio = exp(logprobs - proximal_logprobs), the proximal policy being the
    weights at the start of the step (no gradient), and w from `off_policy_weights` (truncated
    pi_prox / mu for tis, pi_prox / mu with tokens over is_cap dropped for decoupled). Where
    proximal_logprobs equals behaviour_logprobs both reduce to "none" exactly (w = exp(0) = 1).
    advantages (B,) or (B, T): a (B,) advantage is carried by every mask-1 token of its sequence.
    loss_mask (B, T): 1 = generated action token, 0 = prompt / observation / padding.
    clip_eps_high defaults to clip_eps (symmetric clipping).

    Metrics, over mask-1 tokens: mean_ratio; clip_fraction, the share of tokens where the clipped
    term is the binding one (its gradient is cut); kl_k3, the mean of (ratio - 1) - log(ratio),
    Schulman's k3 estimate of KL(anchor || current) from behaviour samples; masked_tokens.
    """
    aggregate = get_aggregation(aggregation)
    eps_high = clip_eps if clip_eps_high is None else clip_eps_high
    if not 0.0 < clip_eps < 1.0:
        raise ValueError(f"clip_eps must be in (0, 1), got {clip_eps}")
    if not eps_high > 0.0:
        raise ValueError(f"clip_eps_high must be > 0, got {eps_high}")
    if behaviour_logprobs.shape != logprobs.shape or loss_mask.shape != logprobs.shape or logprobs.dim() != 2:
        raise ValueError(
            f"logprobs, behaviour_logprobs and loss_mask must share one (B, T) shape, got "
            f"{tuple(logprobs.shape)}, {tuple(behaviour_logprobs.shape)}, {tuple(loss_mask.shape)}"
        )
    if advantages.dim() == 1 and advantages.shape[0] == logprobs.shape[0]:
        advantages = advantages.unsqueeze(1)  # (B, 1), broadcast over T
    elif advantages.shape != logprobs.shape:
        raise ValueError(
            f"advantages must be (B,) or (B, T) with (B, T) = {tuple(logprobs.shape)}, got {tuple(advantages.shape)}"
        )

    if off_policy != "none" and (proximal_logprobs is None or proximal_logprobs.shape != logprobs.shape):
        raise ValueError(f"off_policy {off_policy!r} needs proximal_logprobs of shape {tuple(logprobs.shape)}")
    mask = loss_mask.bool()  # (B, T)
    zero = torch.zeros((), dtype=logprobs.dtype, device=logprobs.device)
    advantages = torch.where(mask, advantages.to(logprobs.dtype), zero)  # (B, T)
    anchor = behaviour_logprobs if off_policy == "none" else proximal_logprobs
    assert anchor is not None
    weight, _ = off_policy_weights(
        anchor.detach().to(logprobs.dtype), behaviour_logprobs, loss_mask, mode=off_policy, is_cap=is_cap
    )
    log_ratio = torch.where(mask, logprobs - anchor.detach().to(logprobs.dtype), zero)  # (B, T)
    ratio = torch.exp(log_ratio)  # (B, T), 1 at mask-0 positions
    clipped_ratio = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + eps_high)  # (B, T)
    unclipped_loss = -ratio * advantages  # (B, T)
    clipped_loss = -clipped_ratio * advantages  # (B, T)
    per_token = torch.where(mask, weight * torch.maximum(unclipped_loss, clipped_loss), zero)  # (B, T)
    loss = aggregate(per_token, mask)

    with torch.no_grad():
        count = int(mask.sum())
        denominator = max(count, 1)
        ratio_sum = torch.where(mask, ratio, zero).sum()
        metrics = {
            "mean_ratio": float(ratio_sum / denominator) if count else 1.0,
            "clip_fraction": float((mask & (clipped_loss > unclipped_loss)).sum()) / denominator,
            "kl_k3": float(torch.where(mask, ratio - 1.0 - log_ratio, zero).sum() / denominator),
            "masked_tokens": count,
        }
    return loss, metrics


def imitation_loss(
    logprobs: torch.Tensor,
    loss_mask: torch.Tensor,
    *,
    aggregation: str = "token_mean",
) -> tuple[torch.Tensor, dict[str, float]]:
    """Negative log-likelihood of the mask-1 tokens, aggregated like the policy loss (warm start on demonstrations).

    logprobs (B, T): current policy at the demonstrated tokens (carries the gradient).
    loss_mask (B, T): 1 = token to imitate. Advantages and behaviour log-probs play no part, so the
    metrics are those of a policy loss on its own samples: mean_ratio 1, clip_fraction 0, kl_k3 0.
    """
    aggregate = get_aggregation(aggregation)
    if loss_mask.shape != logprobs.shape or logprobs.dim() != 2:
        raise ValueError(
            f"logprobs and loss_mask must share one (B, T) shape, got {tuple(logprobs.shape)}, {tuple(loss_mask.shape)}"
        )
    mask = loss_mask.bool()  # (B, T)
    zero = torch.zeros((), dtype=logprobs.dtype, device=logprobs.device)
    per_token = torch.where(mask, -logprobs, zero)  # (B, T)
    metrics = {"mean_ratio": 1.0, "clip_fraction": 0.0, "kl_k3": 0.0, "masked_tokens": int(mask.sum())}
    return aggregate(per_token, mask), metrics
