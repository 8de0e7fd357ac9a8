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
AGGREGATION_NAMES = ("token_mean", "seq_mean_token_mean", "seq_mean_token_sum")


def reference_loss(case: dict) -> dict:
    """Expected loss per aggregation mode and metrics for one case (lists of floats in, floats out)."""
    return aggregated(*token_losses(case, case["behaviour_logprobs"]))


def token_losses(
    case: dict, anchors: list[list[float]], weight=lambda b, t: 1.0
) -> tuple[list[list[float]], list[float], list[float], int]:
    """Per-sequence lists of per-token clipped losses (each times weight(b, t)) with ratio = exp(logprobs - anchors), at mask-1 positions; and the ratios, k3 terms and binding clips."""
    eps_low = case.get("clip_eps", 0.2)
    eps_high = case.get("clip_eps_high") or eps_low
    sequences = []  # per sequence: list of per-token losses at mask-1 positions
    ratios, kls, clipped = [], [], 0
    for b, mask_row in enumerate(case["loss_mask"]):
        losses = []
        for t, m in enumerate(mask_row):
            if m == 0:
                continue
            a = case["advantages"][b]
            a = a[t] if isinstance(a, list) else a
            log_ratio = case["logprobs"][b][t] - anchors[b][t]
            ratio = math.exp(log_ratio)
            clipped_ratio = min(max(ratio, 1 - eps_low), 1 + eps_high)
            unclipped_loss, clipped_loss = -ratio * a, -clipped_ratio * a
            losses.append(weight(b, t) * max(unclipped_loss, clipped_loss))
            clipped += clipped_loss > unclipped_loss
            ratios.append(ratio)
            kls.append(ratio - 1 - log_ratio)
        sequences.append(losses)
    return sequences, ratios, kls, clipped


def aggregated(sequences: list[list[float]], ratios: list[float], kls: list[float], clipped: int) -> dict:
    """The loss in every aggregation mode from per-sequence lists of per-token losses, and the ratio metrics."""
    nonempty = [s for s in sequences if s]
    tokens = sum(len(s) for s in sequences)
    return {
        "loss": {
            "token_mean": sum(sum(s) for s in sequences) / tokens if tokens else 0.0,
            "seq_mean_token_mean": sum(sum(s) / len(s) for s in nonempty) / len(nonempty) if nonempty else 0.0,
            "seq_mean_token_sum": sum(sum(s) for s in nonempty) / len(nonempty) if nonempty else 0.0,
        },
        "metrics": {
            "mean_ratio": sum(ratios) / tokens if tokens else 1.0,
            "clip_fraction": clipped / tokens if tokens else 0.0,
            "kl_k3": sum(kls) / tokens if tokens else 0.0,
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
            "no mask-1 token",
            "nothing to learn from: loss 0 in every mode, mean_ratio 1, clip_fraction 0, kl_k3 0",
            [[1.0, 2.0], [1.0, 0.5]],
            [[0.0, lp(0.5)], [0.0, lp(0.5)]],
            [1.0, -1.0],
            [[0, 0], [0, 0]],
        ),
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
        "tolerance": TOLERANCE,
        "aggregations": list(AGGREGATION_NAMES),
        "cases": build_cases(),
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
