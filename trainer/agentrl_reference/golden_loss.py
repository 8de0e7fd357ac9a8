"""Plain-Python reference of the clipped loss, and the writer of shared/golden/loss.json.

Independent of losses.py (no torch): a per-token loop in float64. Regenerate with
`.venv/bin/python -m agentrl_reference.golden_loss` from trainer/ (or with trainer/ on sys.path).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

GOLDEN_PATH = Path(__file__).resolve().parents[2] / "shared" / "golden" / "loss.json"
TOLERANCE = 1e-9
AGGREGATION_NAMES = ("token_mean", "seq_mean_token_mean", "seq_mean_token_sum", "seq_mean_token_sum_norm")
KL_ESTIMATOR_NAMES = ("k1", "k2", "k3", "low_var_kl")
# the guards' defaults (shared/contracts/trainer-contract.ts trainerDefaults): dual-clip c and the log-ratio bound
DEFAULT_CLIP_RATIO_C = 3.0
DEFAULT_LOG_RATIO_CLAMP = 20.0
LOW_VAR_KL_BOUND = 10.0


def kl_estimates(log_r: float, bound: float = DEFAULT_LOG_RATIO_CLAMP) -> dict:
    """KL(p || q) estimates of one sample of p, log r = log q - log p clamped to +-bound (Schulman 2020)."""
    log_r = min(max(log_r, -bound), bound)
    k3 = math.exp(log_r) - 1 - log_r
    return {
        "k1": -log_r,
        "k2": 0.5 * log_r * log_r,
        "k3": k3,
        "low_var_kl": min(max(k3, -LOW_VAR_KL_BOUND), LOW_VAR_KL_BOUND),
    }


def reference_loss(case: dict) -> dict:
    """Expected loss per aggregation mode and metrics for one case (lists of floats in, floats out)."""
    return aggregated(*token_losses(case, case["behaviour_logprobs"]), scale=scale_of(case))


def scale_of(case: dict) -> float:
    """seq_mean_token_sum_norm's constant: the case's loss_scale_factor, else its padded length T."""
    return float(case.get("loss_scale_factor") or len(case["loss_mask"][0]))


def token_losses(
    case: dict, anchors: list[list[float]], weight=lambda b, t: 1.0
) -> tuple[list[list[float]], list[float], list[dict], int, int]:
    """Per-sequence lists of per-token losses (each times weight(b, t)) at mask-1 positions, with
    ratio = exp(logprobs - anchors), or GSPO's sequence ratio (ratio_level "sequence"), the log-ratio
    clamped to +-log_ratio_clamp and dual-clip at clip_ratio_c for A < 0 (None: off); and the ratios,
    the KL estimates of each token, the binding clips and the binding dual-clips."""
    eps_low = case.get("clip_eps", 0.2)
    eps_high = case.get("clip_eps_high") or eps_low
    c = case.get("clip_ratio_c", DEFAULT_CLIP_RATIO_C)
    bound = case.get("log_ratio_clamp", DEFAULT_LOG_RATIO_CLAMP)
    sequence_level = case.get("ratio_level", "token") == "sequence"
    sequences = []  # per sequence: list of per-token losses at mask-1 positions
    ratios, kls, clipped, lower = [], [], 0, 0
    for b, mask_row in enumerate(case["loss_mask"]):
        token_logs = [case["logprobs"][b][t] - anchors[b][t] for t, m in enumerate(mask_row) if m]
        sequence_log = sum(token_logs) / len(token_logs) if token_logs else 0.0
        losses = []
        for t, m in enumerate(mask_row):
            if m == 0:
                continue
            a = case["advantages"][b]
            a = a[t] if isinstance(a, list) else a
            token_log = case["logprobs"][b][t] - anchors[b][t]
            log_ratio = min(max(sequence_log if sequence_level else token_log, -bound), bound)
            ratio = math.exp(log_ratio)
            clipped_ratio = min(max(ratio, 1 - eps_low), 1 + eps_high)
            unclipped_loss, clipped_loss = -ratio * a, -clipped_ratio * a
            loss = max(unclipped_loss, clipped_loss)
            if c is not None and a < 0 and loss > -a * c:
                loss = -a * c
                lower += 1
            losses.append(weight(b, t) * loss)
            clipped += clipped_loss > unclipped_loss
            ratios.append(ratio)
            kls.append(kl_estimates(token_log, bound))
        sequences.append(losses)
    return sequences, ratios, kls, clipped, lower


def aggregated(
    sequences: list[list[float]], ratios: list[float], kls: list[dict], clipped: int, lower: int, *, scale: float
) -> dict:
    """The loss in every aggregation mode from per-sequence lists of per-token losses, and the ratio metrics."""
    nonempty = [s for s in sequences if s]
    tokens = sum(len(s) for s in sequences)
    seq_mean_token_sum = sum(sum(s) for s in nonempty) / len(nonempty) if nonempty else 0.0
    return {
        "loss": {
            "token_mean": sum(sum(s) for s in sequences) / tokens if tokens else 0.0,
            "seq_mean_token_mean": sum(sum(s) / len(s) for s in nonempty) / len(nonempty) if nonempty else 0.0,
            "seq_mean_token_sum": seq_mean_token_sum,
            "seq_mean_token_sum_norm": seq_mean_token_sum / scale,
        },
        "metrics": {
            "mean_ratio": sum(ratios) / tokens if tokens else 1.0,
            "clip_fraction": clipped / tokens if tokens else 0.0,
            "clip_fraction_lower": lower / tokens if tokens else 0.0,
            "kl_k3": sum(k["k3"] for k in kls) / tokens if tokens else 0.0,
            "kl_sampling": {name: sum(k[name] for k in kls) / tokens if tokens else 0.0 for name in KL_ESTIMATOR_NAMES},
            "masked_tokens": tokens,
        },
    }


def _case(name, note, ratios, behaviour, advantages, loss_mask, **options):
    """logprobs = behaviour + log(ratio), so each token's ratio is the number written in `ratios`."""
    logprobs = [[bt + math.log(r) for bt, r in zip(brow, rrow)] for brow, rrow in zip(behaviour, ratios)]
    case = {
        "name": name,
        "note": note,
        "ratios": ratios,
        "logprobs": logprobs,
        "behaviour_logprobs": behaviour,
        "advantages": advantages,
        "loss_mask": loss_mask,
        **options,
    }
    case["expected"] = reference_loss(case)
    return case


def build_cases() -> list[dict]:
    """Small cases whose answers can be checked by hand from `ratios` and `advantages`."""
    lp = math.log
    return [
        _case(
            "unclipped, positive advantage",
            "A=2, ratios 1.1 and 0.9 inside [0.8, 1.2]: per-token -2.2, -1.8; token_mean -2.0, token_sum -4.0",
            [[1.0, 1.1, 0.9]],
            [[0.0, lp(0.5), lp(0.25)]],
            [2.0],
            [[0, 1, 1]],
        ),
        _case(
            "clipped on both sides",
            "seq0 A=+1: ratio 1.5 clipped to 1.2 (binding, -1.2), ratio 0.5 not binding (-0.5); "
            "seq1 A=-1: ratio 1.5 not binding (+1.5), ratio 0.5 clipped to 0.8 (binding, +0.8); clip_fraction 0.5",
            [[1.0, 1.5, 0.5], [1.0, 1.5, 0.5]],
            [[0.0, lp(0.2), lp(0.4)], [0.0, lp(0.3), lp(0.6)]],
            [1.0, -1.0],
            [[0, 1, 1], [0, 1, 1]],
        ),
        _case(
            "unequal lengths",
            "ratios 1: seq0 one token A=1 (-1), seq1 three tokens A=-0.5 (+0.5 each); "
            "token_mean 0.125, seq_mean_token_mean -0.25, seq_mean_token_sum 0.25",
            [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]],
            [[0.0, lp(0.5), 0.0, 0.0], [0.0, lp(0.5), lp(0.5), lp(0.5)]],
            [1.0, -0.5],
            [[0, 1, 0, 0], [0, 1, 1, 1]],
        ),
        _case(
            "empty sequence and garbage at mask-0",
            "seq1 has no mask-1 token and is dropped from every denominator; mask-0 positions hold ratios "
            "e^40 and e^-40 that must be ignored; seq0: ratio 1.1, A=1 -> -1.1",
            [[math.exp(40.0), 1.1, math.exp(-40.0)], [math.exp(40.0), 1.0, 1.0]],
            [[0.0, lp(0.5), -3.0], [0.0, -1.0, -2.0]],
            [1.0, 5.0],
            [[0, 1, 0], [0, 0, 0]],
        ),
        _case(
            "asymmetric clip",
            "clip_eps 0.2, clip_eps_high 0.28: ratio 1.25 with A=1 is not clipped (-1.25), ratio 1.3 is (-1.28)",
            [[1.0, 1.25, 1.3]],
            [[0.0, lp(0.5), lp(0.5)]],
            [1.0],
            [[0, 1, 1]],
            clip_eps=0.2,
            clip_eps_high=0.28,
        ),
        _case(
            "per-token advantages",
            "advantages (B, T): ratio 1; tokens carry A=1, 3 and (masked) 100; per-token -1, -3",
            [[1.0, 1.0, 1.0, 1.0]],
            [[0.0, lp(0.5), lp(0.5), lp(0.5)]],
            [[100.0, 1.0, 3.0, 100.0]],
            [[0, 1, 1, 0]],
        ),
        _case(
            "dual-clip caps a negative advantage",
            "A=-1: ratio 30 gives -min(30*A, 1.2*A) = 30, capped at clip_ratio_c*|A| = 3 (dual-clip binds); "
            "ratio 2 gives 2, under the cap; clip_fraction_lower 0.5",
            [[1.0, 30.0, 2.0]],
            [[0.0, lp(0.01), lp(0.2)]],
            [-1.0],
            [[0, 1, 1]],
        ),
        _case(
            "dual-clip off",
            "the same tokens with clip_ratio_c null: 30 and 2, nothing caps them",
            [[1.0, 30.0, 2.0]],
            [[0.0, lp(0.01), lp(0.2)]],
            [-1.0],
            [[0, 1, 1]],
            clip_ratio_c=None,
        ),
        _case(
            "dual-clip inactive for a positive advantage",
            "A=+2: ratio 30 is clipped to 1.2 (-2.4) and ratio 0.1 is not binding (-0.2); dual-clip never applies",
            [[1.0, 30.0, 0.1]],
            [[0.0, lp(0.01), lp(0.5)]],
            [2.0],
            [[0, 1, 1]],
        ),
        _case(
            "log-ratio clamp",
            "log-ratios +100 and -100 (float32 exp overflows past 88.7) are clamped to +-20 before exp: with "
            "A=-1 and no dual-clip the first token's loss is e^20, finite; the second's 0.8 (clipped); the KL "
            "estimates use the clamped log-ratios",
            [[1.0, math.exp(100.0), math.exp(-100.0)]],
            [[0.0, -101.0, -1.0]],
            [-1.0],
            [[0, 1, 1]],
            clip_ratio_c=None,
        ),
        _case(
            "GSPO sequence ratio",
            "ratio_level sequence: seq0's tokens 2 and 0.5 have geometric mean 1 (loss -A = -1 each, nothing "
            "clipped); seq1's 1.1 and 1.3 have geometric mean sqrt(1.43) = 1.196 (A=1, inside the 0.2 clip)",
            [[1.0, 2.0, 0.5], [1.0, 1.1, 1.3]],
            [[0.0, lp(0.2), lp(0.4)], [0.0, lp(0.3), lp(0.6)]],
            [1.0, 1.0],
            [[0, 1, 1], [0, 1, 1]],
            ratio_level="sequence",
        ),
        _case(
            "Dr. GRPO constant",
            "ratios 1: seq0 one token A=1 (-1), seq1 three tokens A=-0.5 (+0.5 each); token sums -1 and 1.5; "
            "seq_mean_token_sum_norm with loss_scale_factor 5: mean of -1/5 and 1.5/5 = 0.05",
            [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]],
            [[0.0, lp(0.5), 0.0, 0.0], [0.0, lp(0.5), lp(0.5), lp(0.5)]],
            [1.0, -0.5],
            [[0, 1, 0, 0], [0, 1, 1, 1]],
            loss_scale_factor=5.0,
        ),
        _case(
            "no mask-1 token",
            "nothing to learn from: loss 0 in every mode, mean_ratio 1, clip_fraction 0, kl_k3 0",
            [[1.0, 2.0], [1.0, 0.5]],
            [[0.0, lp(0.5)], [0.0, lp(0.5)]],
            [1.0, -1.0],
            [[0, 0], [0, 0]],
        ),
    ]


def kl_cases() -> list[dict]:
    """The KL penalty toward a reference, KL(policy || reference) per token by every estimator, from
    log r = reference_logprob - logprob (samples taken as the policy's)."""
    pairs = [
        ("equal", -1.0, -1.0),
        ("reference more likely", -2.0, -1.0),
        ("reference less likely", -0.5, -2.5),
        ("clamped (log r = +100)", -101.0, -1.0),
        ("clamped (log r = -100)", -1.0, -101.0),
    ]
    return [
        {
            "name": name,
            "logprob": logprob,
            "reference_logprob": reference,
            "expected": kl_estimates(reference - logprob),
        }
        for name, logprob, reference in pairs
    ]


def golden() -> dict:
    return {
        "description": "Clipped policy-gradient loss: per token -min(ratio*A, clip(ratio, 1-clip_eps, 1+clip_eps_high)*A), "
        "ratio = exp(logprobs - behaviour_logprobs), over loss_mask=1 tokens only. token_mean: sum / mask-1 tokens; "
        "seq_mean_token_mean: per-sequence token mean, then mean over sequences; seq_mean_token_sum: per-sequence "
        "token sum, then mean over sequences. Sequences with no mask-1 token are dropped from every denominator; "
        "no mask-1 token at all gives loss 0, mean_ratio 1, clip_fraction 0, kl_k3 0. clip_fraction: share of "
        "mask-1 tokens where the clipped term is strictly larger (binding). kl_k3: mean of ratio - 1 - log(ratio). "
        "clip_eps defaults to 0.2 and clip_eps_high to clip_eps. Written by trainer/agentrl_reference/golden_loss.py "
        "(plain Python, float64). Tolerance for float64 implementations.",
        "guards": "Dual-clip: a token with A < 0 contributes at most clip_ratio_c*|A| (default 3, null: off); "
        "clip_fraction_lower is the share where it binds. Every log-ratio is clamped to +-log_ratio_clamp "
        "(default 20) before exp. ratio_level 'sequence' (GSPO): each token's ratio is exp(mean log-ratio of its "
        "sequence's mask-1 tokens). seq_mean_token_sum_norm (Dr. GRPO): seq_mean_token_sum / loss_scale_factor "
        "(a case without one: its padded length T). kl_sampling: mean over mask-1 tokens of each estimator with "
        "log r = logprobs - anchor, estimating KL(anchor || current). kl_estimators: k1 = -log r, k2 = (log r)^2/2, "
        "k3 = e^log r - 1 - log r, low_var_kl = k3 clamped to [-10, 10], log r clamped to +-20 first.",
        "defaults": {"clip_ratio_c": DEFAULT_CLIP_RATIO_C, "log_ratio_clamp": DEFAULT_LOG_RATIO_CLAMP},
        "tolerance": TOLERANCE,
        "aggregations": list(AGGREGATION_NAMES),
        "kl_estimator_names": list(KL_ESTIMATOR_NAMES),
        "ratio_levels": ["token", "sequence"],
        "cases": build_cases(),
        "kl_estimators": kl_cases(),
    }


def write_golden(data: dict, default_path: Path, argv: list[str]) -> int:
    """Writes a golden file to argv[0], else to its place in shared/golden/."""
    path = Path(argv[0]) if argv else default_path
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


def main(argv: list[str]) -> int:
    return write_golden(golden(), GOLDEN_PATH, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
