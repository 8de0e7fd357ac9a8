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
) -> tuple[torch.Tensor, dict[str, float]]:
    """Loss and metrics of -min(ratio * A, clip(ratio, 1 - eps, 1 + eps_high) * A) over mask-1 tokens.

    logprobs (B, T): current policy at the generated tokens (carries the gradient).
    behaviour_logprobs (B, T): recorded at sampling time; ratio = exp(logprobs - behaviour_logprobs).
    advantages (B,) or (B, T): a (B,) advantage is carried by every mask-1 token of its sequence.
    loss_mask (B, T): 1 = generated action token, 0 = prompt / observation / padding.
    clip_eps_high defaults to clip_eps (symmetric clipping).

    Metrics, over mask-1 tokens: mean_ratio; clip_fraction, the share of tokens where the clipped
    term is the binding one (its gradient is cut); kl_k3, the mean of (ratio - 1) - log(ratio),
    Schulman's k3 estimate of KL(behaviour || current) from behaviour samples; masked_tokens.
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
        raise ValueError(f"advantages must be (B,) or (B, T) with (B, T) = {tuple(logprobs.shape)}, got {tuple(advantages.shape)}")

    mask = loss_mask.bool()  # (B, T)
    zero = torch.zeros((), dtype=logprobs.dtype, device=logprobs.device)
    advantages = torch.where(mask, advantages.to(logprobs.dtype), zero)  # (B, T)
    log_ratio = torch.where(mask, logprobs - behaviour_logprobs.to(logprobs.dtype), zero)  # (B, T)
    ratio = torch.exp(log_ratio)  # (B, T), 1 at mask-0 positions
    clipped_ratio = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + eps_high)  # (B, T)
    unclipped_loss = -ratio * advantages  # (B, T)
    clipped_loss = -clipped_ratio * advantages  # (B, T)
    per_token = torch.where(mask, torch.maximum(unclipped_loss, clipped_loss), zero)  # (B, T)
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
    logprobs: torch.Tensor, loss_mask: torch.Tensor, *, aggregation: str = "token_mean",
) -> tuple[torch.Tensor, dict[str, float]]:
    """Negative log-likelihood of the mask-1 tokens, aggregated like the policy loss (warm start on demonstrations).

    logprobs (B, T): current policy at the demonstrated tokens (carries the gradient).
    loss_mask (B, T): 1 = token to imitate. Advantages and behaviour log-probs play no part, so the
    metrics are those of a policy loss on its own samples: mean_ratio 1, clip_fraction 0, kl_k3 0.
    """
    aggregate = get_aggregation(aggregation)
    if loss_mask.shape != logprobs.shape or logprobs.dim() != 2:
        raise ValueError(f"logprobs and loss_mask must share one (B, T) shape, got {tuple(logprobs.shape)}, {tuple(loss_mask.shape)}")
    mask = loss_mask.bool()  # (B, T)
    zero = torch.zeros((), dtype=logprobs.dtype, device=logprobs.device)
    per_token = torch.where(mask, -logprobs, zero)  # (B, T)
    metrics = {"mean_ratio": 1.0, "clip_fraction": 0.0, "kl_k3": 0.0, "masked_tokens": int(mask.sum())}
    return aggregate(per_token, mask), metrics
