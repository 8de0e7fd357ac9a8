"""Clipped policy-gradient loss (PPO / GRPO style) and imitation loss, with aggregation modes registered by name.

Shapes: B sequences, T positions. Only mask-1 tokens (generated action tokens) count; mask-0
positions (prompt, observation, padding) are selected away with `torch.where`, so whatever
they hold, even inf or NaN, changes neither the loss nor any gradient.

A sequence with no mask-1 token is dropped: it adds nothing to any sum and is not counted in
any denominator. A batch with no mask-1 token at all has loss 0 (still differentiable, every
gradient 0) and neutral metrics: mean_ratio 1, clip_fraction 0, kl_k3 0, masked_tokens 0.

Guards (`LossGuards`, as verl's defaults): every log-ratio is clamped to [-log_ratio_clamp,
log_ratio_clamp] (20) before `exp` (float32's exp overflows past about 88.7, so an unclamped log-ratio
of 100 makes the loss inf), and a token with a negative advantage contributes at most
clip_ratio_c * |A| (dual-clip PPO, c = 3), however large its ratio.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from .contract import TRAINER_DEFAULTS


def token_mean(per_token: torch.Tensor, mask: torch.Tensor, scale: float | None = None) -> torch.Tensor:
    """Sum over every mask-1 token of the batch / their count: long sequences weigh more (DAPO)."""
    return per_token.sum() / mask.sum().clamp(min=1)


def seq_mean_token_mean(per_token: torch.Tensor, mask: torch.Tensor, scale: float | None = None) -> torch.Tensor:
    """Mean over tokens within each sequence, then mean over sequences: every sequence weighs the same (GRPO)."""
    tokens = mask.sum(dim=1)  # (B,)
    per_sequence = per_token.sum(dim=1) / tokens.clamp(min=1)  # (B,)
    return per_sequence.sum() / (tokens > 0).sum().clamp(min=1)


def seq_mean_token_sum(per_token: torch.Tensor, mask: torch.Tensor, scale: float | None = None) -> torch.Tensor:
    """Sum over tokens within each sequence, then mean over sequences (verl's `seq-mean-token-sum`)."""
    tokens = mask.sum(dim=1)  # (B,)
    return per_token.sum() / (tokens > 0).sum().clamp(min=1)


def seq_mean_token_sum_norm(per_token: torch.Tensor, mask: torch.Tensor, scale: float | None = None) -> torch.Tensor:
    """Dr. GRPO's fixed-length normalisation: each sequence's token sum over one constant `scale`, then
    the mean over sequences, as the paper's 1/G sum_i 1/L sum_t (arXiv:2503.20783). A training step
    passes the model's window (or its `lossScaleFactor`), the same at every step; without one the
    batch's padded length T. verl's `seq-mean-token-sum-norm` divides the total by the constant only
    (no mean over sequences)."""
    scale = float(mask.shape[1]) if scale is None else scale
    if not scale > 0:
        raise ValueError(f"seq_mean_token_sum_norm needs a constant scale > 0, got {scale}")
    return seq_mean_token_sum(per_token, mask) / scale


AGGREGATIONS: dict[str, Callable[..., torch.Tensor]] = {
    "token_mean": token_mean,
    "seq_mean_token_mean": seq_mean_token_mean,
    "seq_mean_token_sum": seq_mean_token_sum,
    "seq_mean_token_sum_norm": seq_mean_token_sum_norm,
}

# KL estimators of KL(p || q) from samples of p, with log r = log q - log p at each sample (Schulman,
# "Approximating KL divergence", 2020): k1 = -log r (unbiased, can be negative), k2 = (log r)^2 / 2
# (biased, low variance, its gradient is the true KL's), k3 = (r - 1) - log r (unbiased, >= 0),
# low_var_kl = k3 clamped to [-10, 10] (verl's). log r is clamped by LossGuards.log_ratio_clamp first.
KL_ESTIMATORS = ("k1", "k2", "k3", "low_var_kl")
LOW_VAR_KL_BOUND = 10.0
# where GSPO takes its ratio: per token (PPO, GRPO) or one per sequence (GSPO, arXiv:2507.18071)
RATIO_LEVELS = ("token", "sequence")


@dataclass(frozen=True)
class LossGuards:
    """What bounds the policy-gradient loss (trainOnBatch's clipRatioC, logRatioClamp, ratioLevel,
    klEstimator, lossScaleFactor; the defaults are the contract's).

    clip_ratio_c: dual-clip PPO (arXiv:1912.09729): a token with A < 0 contributes at most c * |A|;
    None turns it off; must be > 1. log_ratio_clamp: every log-ratio (ratio, importance weight, KL
    estimate) is clamped to [-bound, bound] before exp. ratio_level: "token", or "sequence" (GSPO:
    every token of a sequence carries exp(mean log-ratio of the sequence), its gradient the token's
    own). kl_estimator: the estimator of the penalty toward the reference policy. loss_scale_factor:
    the constant of `seq_mean_token_sum_norm` (None: the model's window).
    """

    clip_ratio_c: float | None = TRAINER_DEFAULTS["clipRatioC"]
    log_ratio_clamp: float = TRAINER_DEFAULTS["logRatioClamp"]
    ratio_level: str = TRAINER_DEFAULTS["ratioLevel"]
    kl_estimator: str = TRAINER_DEFAULTS["klEstimator"]
    loss_scale_factor: float | None = None

    def __post_init__(self) -> None:
        if self.clip_ratio_c is not None and not self.clip_ratio_c > 1.0:
            raise ValueError(f"clip_ratio_c must be > 1 (or None: no dual-clip), got {self.clip_ratio_c}")
        if not self.log_ratio_clamp > 0:
            raise ValueError(f"log_ratio_clamp must be > 0, got {self.log_ratio_clamp}")
        if self.ratio_level not in RATIO_LEVELS:
            raise ValueError(f"unknown ratio level {self.ratio_level!r}; known: {', '.join(RATIO_LEVELS)}")
        if self.kl_estimator not in KL_ESTIMATORS:
            raise ValueError(f"unknown KL estimator {self.kl_estimator!r}; known: {', '.join(KL_ESTIMATORS)}")
        if self.loss_scale_factor is not None and not self.loss_scale_factor > 0:
            raise ValueError(f"loss_scale_factor must be > 0, got {self.loss_scale_factor}")


# the guards a step has when it names none (the contract's defaults)
DEFAULT_GUARDS = LossGuards()


def kl_estimate(log_r: torch.Tensor, estimator: str, bound: float) -> torch.Tensor:
    """Per-sample KL(p || q) estimate by name from log r = log q - log p (same shape), log r clamped to +-bound."""
    log_r = torch.clamp(log_r, -bound, bound)
    if estimator == "k1":
        return -log_r
    if estimator == "k2":
        return 0.5 * log_r * log_r
    k3 = torch.exp(log_r) - 1.0 - log_r
    if estimator == "k3":
        return k3
    if estimator == "low_var_kl":
        return torch.clamp(k3, -LOW_VAR_KL_BOUND, LOW_VAR_KL_BOUND)
    raise ValueError(f"unknown KL estimator {estimator!r}; known: {', '.join(KL_ESTIMATORS)}")


# what a training step minimises: "policy_gradient" (clipped_policy_loss) or "imitation" (imitation_loss)
OBJECTIVES = ("policy_gradient", "imitation")

# how the policy-gradient term corrects for tokens sampled by older weights (see clipped_policy_loss)
OFF_POLICY_MODES = ("none", "tis", "decoupled")
# the importance-weight cap when a step names none: the contract's (shared/math/off-policy.ts defaultIsCap)
DEFAULT_IS_CAP = TRAINER_DEFAULTS["isCap"]


def off_policy_weights(
    proximal_logprobs: torch.Tensor,
    behaviour_logprobs: torch.Tensor,
    loss_mask: torch.Tensor,
    *,
    mode: str,
    is_cap: float,
    log_ratio_clamp: float = LossGuards.log_ratio_clamp,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token weight of the policy-gradient term and which tokens crossed the cap, both (B, T).

    w = pi_prox / mu at mask-1 tokens. `none`: 1 everywhere (the ratio is taken against mu).
    `tis`: min(w, is_cap), verl's truncated rollout correction. `decoupled`: w, with tokens whose
    w exceeds is_cap dropped (weight 0), AReaL's behaviour-weight cap. Mask-0 positions get 1.
    log w is clamped to +-log_ratio_clamp before exp.
    """
    if mode not in OFF_POLICY_MODES:
        raise ValueError(f"unknown off-policy mode {mode!r}; known: {', '.join(OFF_POLICY_MODES)}")
    if not is_cap > 0:
        raise ValueError(f"is_cap must be > 0, got {is_cap}")
    mask = loss_mask.bool()
    zero = torch.zeros((), dtype=proximal_logprobs.dtype, device=proximal_logprobs.device)
    log_weight = torch.where(mask, proximal_logprobs - behaviour_logprobs.to(proximal_logprobs.dtype), zero)
    weight = torch.exp(torch.clamp(log_weight, -log_ratio_clamp, log_ratio_clamp))  # (B, T)
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


def get_aggregation(name: str) -> Callable[..., torch.Tensor]:
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
    guards: LossGuards = DEFAULT_GUARDS,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Loss and metrics of -w * min(ratio * A, clip(ratio, 1 - eps, 1 + eps_high) * A) over mask-1 tokens,
    with a token of A < 0 capped at guards.clip_ratio_c * |A| (dual-clip).

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
    guards: the log-ratio clamp before exp, dual-clip, and GSPO's sequence-level ratio
    (ratio_level "sequence": s = exp(mean over the sequence's mask-1 tokens of the log-ratio), each
    token's ratio s * pi / sg(pi), so the value is s and the gradient the token's own, as the paper).

    Metrics, over mask-1 tokens: mean_ratio; clip_fraction, the share of tokens where the clipped
    term is the binding one (its gradient is cut); clip_fraction_lower, the share where dual-clip
    binds; kl_k3, the mean of (ratio - 1) - log(ratio), Schulman's k3 estimate of KL(anchor || current)
    from behaviour samples; kl_sampling, that KL by every estimator of KL_ESTIMATORS; masked_tokens.
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
    bound = guards.log_ratio_clamp
    mask = loss_mask.bool()  # (B, T)
    zero = torch.zeros((), dtype=logprobs.dtype, device=logprobs.device)
    advantages = torch.where(mask, advantages.to(logprobs.dtype), zero)  # (B, T)
    anchor = behaviour_logprobs if off_policy == "none" else proximal_logprobs
    assert anchor is not None
    weight, _ = off_policy_weights(
        anchor.detach().to(logprobs.dtype),
        behaviour_logprobs,
        loss_mask,
        mode=off_policy,
        is_cap=is_cap,
        log_ratio_clamp=bound,
    )
    token_log_ratio = torch.where(mask, logprobs - anchor.detach().to(logprobs.dtype), zero)  # (B, T)
    if guards.ratio_level == "sequence":
        tokens = mask.sum(dim=1, keepdim=True).clamp(min=1)  # (B, 1)
        sequence_log_ratio = token_log_ratio.sum(dim=1, keepdim=True) / tokens  # (B, 1)
        log_ratio = torch.where(mask, logprobs - logprobs.detach() + sequence_log_ratio.detach(), zero)  # (B, T)
    else:
        log_ratio = token_log_ratio
    log_ratio = torch.clamp(log_ratio, -bound, bound)
    ratio = torch.exp(log_ratio)  # (B, T), 1 at mask-0 positions
    clipped_ratio = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + eps_high)  # (B, T)
    unclipped_loss = -ratio * advantages  # (B, T)
    clipped_loss = -clipped_ratio * advantages  # (B, T)
    per_token = torch.maximum(unclipped_loss, clipped_loss)  # (B, T)
    dual_bound = None
    if guards.clip_ratio_c is not None:
        dual_bound = -advantages * guards.clip_ratio_c  # c * |A| where A < 0
        per_token = torch.where(advantages < 0, torch.minimum(per_token, dual_bound), per_token)
    per_token = torch.where(mask, weight * per_token, zero)  # (B, T)
    loss = aggregate(per_token, mask, guards.loss_scale_factor)

    with torch.no_grad():
        count = int(mask.sum())
        denominator = max(count, 1)
        ratio_sum = torch.where(mask, ratio, zero).sum()
        lower = (
            mask & (advantages < 0) & (torch.maximum(unclipped_loss, clipped_loss) > dual_bound)
            if dual_bound is not None
            else torch.zeros_like(mask)
        )
        # KL(anchor || current) from anchor samples: log r = log current - log anchor at each token
        kl_sampling = {
            name: float(torch.where(mask, kl_estimate(token_log_ratio, name, bound), zero).sum() / denominator)
            for name in KL_ESTIMATORS
        }
        metrics = {
            "mean_ratio": float(ratio_sum / denominator) if count else 1.0,
            "clip_fraction": float((mask & (clipped_loss > unclipped_loss)).sum()) / denominator,
            "clip_fraction_lower": float(lower.sum()) / denominator,
            "kl_k3": kl_sampling["k3"],
            "kl_sampling": kl_sampling,
            "masked_tokens": count,
        }
    return loss, metrics


def imitation_loss(
    logprobs: torch.Tensor,
    loss_mask: torch.Tensor,
    *,
    aggregation: str = "token_mean",
    loss_scale_factor: float | None = None,
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
    metrics = {
        "mean_ratio": 1.0,
        "clip_fraction": 0.0,
        "clip_fraction_lower": 0.0,
        "kl_k3": 0.0,
        "kl_sampling": dict.fromkeys(KL_ESTIMATORS, 0.0),
        "masked_tokens": int(mask.sum()),
    }
    return aggregate(per_token, mask, loss_scale_factor), metrics
