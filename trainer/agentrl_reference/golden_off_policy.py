"""Plain-Python reference of the off-policy corrections and of token staleness; writes shared/golden/off-policy.json.

Independent of losses.py (no torch): per-token loops in float64. The TypeScript tests read the
staleness cases (the batch builder's histogram and stale-group rule), the Python tests read both.
Regenerate with `.venv/bin/python -m agentrl_reference.golden_off_policy` from trainer/.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from .golden_loss import AGGREGATION_NAMES, TOLERANCE, aggregated, scale_of, token_losses, write_golden

GOLDEN_PATH = Path(__file__).resolve().parents[2] / "shared" / "golden" / "off-policy.json"
MODES = ("none", "tis", "decoupled")


def token_weight(mode: str, proximal: float, behaviour: float, cap: float) -> float:
    """The weight of one token's policy-gradient term: 1, min(pi_prox/mu, cap), or pi_prox/mu dropped above cap."""
    if mode == "none":
        return 1.0
    w = math.exp(proximal - behaviour)
    if mode == "tis":
        return min(w, cap)
    return w if w <= cap else 0.0


def reference_loss(case: dict) -> dict:
    """Expected loss per aggregation, loss metrics and importance-weight metrics for one case."""
    mode, cap = case["off_policy"], case.get("is_cap", 2.0)
    behaviour, proximal = case["behaviour_logprobs"], case["proximal_logprobs"]
    weight = lambda b, t: token_weight(mode, proximal[b][t], behaviour[b][t], cap)
    sequences, ratios, kls, clipped, lower = token_losses(case, behaviour if mode == "none" else proximal, weight)
    weights = [
        math.exp(proximal[b][t] - behaviour[b][t])
        for b, row in enumerate(case["loss_mask"])
        for t, m in enumerate(row)
        if m == 1
    ]
    tokens = len(weights)
    return {
        **aggregated(sequences, ratios, kls, clipped, lower, scale=scale_of(case)),
        "importance": {
            "mean": sum(weights) / tokens if tokens else 1.0,
            "max": max(weights) if weights else 1.0,
            "truncated_share": sum(w > cap for w in weights) / tokens if tokens else 0.0,
            "mismatch_kl": sum(w - 1 - math.log(w) for w in weights) / tokens if tokens else 0.0,
        },
    }


def _case(name, note, mode, ratios, behaviour, proximal_ratios, advantages, loss_mask, **options):
    """proximal = behaviour + log(proximal_ratios), logprobs = anchor + log(ratios): the numbers written are pi_prox/mu and pi/anchor."""
    proximal = [[bt + math.log(q) for bt, q in zip(brow, qrow)] for brow, qrow in zip(behaviour, proximal_ratios)]
    anchors = behaviour if mode == "none" else proximal
    logprobs = [[at + math.log(r) for at, r in zip(arow, rrow)] for arow, rrow in zip(anchors, ratios)]
    case = {
        "name": name,
        "note": note,
        "off_policy": mode,
        "ratios": ratios,
        "proximal_ratios": proximal_ratios,
        "logprobs": logprobs,
        "behaviour_logprobs": behaviour,
        "proximal_logprobs": proximal,
        "advantages": advantages,
        "loss_mask": loss_mask,
        **options,
    }
    case["expected"] = reference_loss(case)
    return case


def build_loss_cases() -> list[dict]:
    lp = math.log
    behaviour = [[0.0, lp(0.5), lp(0.25), lp(0.4)], [0.0, lp(0.3), lp(0.6), lp(0.2)]]
    # pi_prox / mu per token: fresh (1), older weights that liked it less (0.5) or more (1.5, 3)
    staleness = [[1.0, 1.0, 0.5, 3.0], [1.0, 1.5, 1.0, 0.8]]
    ratios = [[1.0, 1.1, 0.9, 1.3], [1.0, 0.7, 1.05, 1.0]]
    advantages = [1.0, -0.5]
    mask = [[0, 1, 1, 1], [0, 1, 1, 1]]
    cases = []
    for mode in MODES:
        cases.append(
            _case(
                f"{mode}: stale tokens, cap 2",
                "tokens with pi_prox/mu 0.5, 1.5, 3 and 0.8 next to fresh ones; tis truncates 3 to 2, decoupled drops the token "
                "whose weight 3 exceeds the cap; the ratio is pi/mu for none and pi/pi_prox otherwise",
                mode,
                ratios,
                behaviour,
                staleness,
                advantages,
                mask,
                is_cap=2.0,
            )
        )
    cases.append(
        _case(
            "tis: per-token advantages and a tighter cap",
            "cap 1.2: the weights 1.5 and 3 are truncated to 1.2; clipping binds on ratio 1.3 with A=1",
            "tis",
            ratios,
            behaviour,
            staleness,
            [[0.0, 1.0, 2.0, 1.0], [0.0, -1.0, 0.5, 0.25]],
            mask,
            is_cap=1.2,
        )
    )
    cases.append(
        _case(
            "decoupled: garbage at mask-0 and an empty sequence",
            "mask-0 positions hold weights e^30 that must be ignored; seq1 has no mask-1 token",
            "decoupled",
            [[1.0, 1.2, 1.0], [1.0, 1.0, 1.0]],
            [[0.0, lp(0.5), -3.0], [0.0, -1.0, -2.0]],
            [[math.exp(30.0), 1.5, math.exp(30.0)], [1.0, 2.5, 1.0]],
            [1.0, 4.0],
            [[0, 1, 0], [0, 0, 0]],
        )
    )
    for mode in ("tis", "decoupled"):
        cases.append(
            _case(
                f"{mode}: all versions equal",
                "pi_prox = mu on every token (every token from the weights the step starts from): the loss and metrics equal "
                "those of none on the same logprobs and behaviour log-probs",
                mode,
                ratios,
                behaviour,
                [[1.0] * 4, [1.0] * 4],
                advantages,
                mask,
            )
        )
    return cases


def staleness(case: dict) -> dict:
    """Staleness of each mask-1 token with a known version (>= 0): base - version; histogram[s] counts tokens of staleness s."""
    values = [
        case["base"] - v
        for vrow, mrow in zip(case["policy_versions"], case["loss_mask"])
        for v, m in zip(vrow, mrow)
        if m == 1 and v >= 0
    ]
    top = max(values) if values else 0
    histogram = [sum(1 for s in values if s == k) for k in range(top + 1)] if values else []
    rows = [
        max([case["base"] - v for v, m in zip(vrow, mrow) if m == 1 and v >= 0], default=0)
        for vrow, mrow in zip(case["policy_versions"], case["loss_mask"])
    ]
    return {
        "max": top,
        "mean": sum(values) / len(values) if values else 0.0,
        "histogram": histogram,
        "tokens": len(values),
        "rowMax": rows,
        "staleRows": [index for index, value in enumerate(rows) if value > case["maxStaleness"]],
        "newer": any(s < 0 for s in values),
    }


def build_staleness_cases() -> list[dict]:
    cases = [
        {
            "name": "synchronous: every token from the base",
            "base": 3,
            "maxStaleness": 0,
            "policy_versions": [[-1, 3, 3, -1, 3], [-1, 3, -1, 3, 3]],
            "loss_mask": [[0, 1, 1, 0, 1], [0, 1, 0, 1, 1]],
        },
        {
            "name": "an episode spanning versions 1 to 3, trained from 4, bound 2",
            "base": 4,
            "maxStaleness": 2,
            "policy_versions": [[-1, 1, 1, -1, 2, 3], [-1, 4, 4, -1, 3, 3], [-1, 2, 2, -1, 2, 2]],
            "loss_mask": [[0, 1, 1, 0, 1, 1], [0, 1, 1, 0, 1, 1], [0, 1, 1, 0, 1, 1]],
        },
        {
            "name": "unknown versions and mask-0 versions are not counted",
            "base": 2,
            "maxStaleness": 1,
            "policy_versions": [[-1, -1, 0, 2], [0, 1, 1, -1]],
            "loss_mask": [[0, 1, 0, 1], [0, 1, 1, 1]],
        },
        {
            "name": "a token newer than the base",
            "base": 1,
            "maxStaleness": 4,
            "policy_versions": [[-1, 1, 2]],
            "loss_mask": [[0, 1, 1]],
        },
    ]
    for case in cases:
        case["expected"] = staleness(case)
    return cases


def golden() -> dict:
    return {
        "description": "Off-policy corrections of the clipped policy-gradient loss and the staleness of trained tokens. "
        "Per token: -w * min(r*A, clip(r, 1-clip_eps, 1+clip_eps_high)*A) over loss_mask=1 tokens. none: r = pi/mu, w = 1. "
        "tis: r = pi/pi_prox, w = min(pi_prox/mu, is_cap). decoupled: r = pi/pi_prox, w = pi_prox/mu, 0 where it exceeds is_cap. "
        "Aggregations as in loss.json; metrics: mean_ratio, clip_fraction and kl_k3 of r; importance: mean, max, the share "
        "above is_cap and the k3 estimate mean(w - 1 - log w) of KL(mu || pi_prox), w = pi_prox/mu. Staleness of a mask-1 token "
        "with a known version (>= 0) is base - version; histogram[s] counts tokens of staleness s; a row (an episode) is stale "
        "when any of its tokens exceeds maxStaleness. Written by trainer/agentrl_reference/golden_off_policy.py (plain Python, float64).",
        "tolerance": TOLERANCE,
        "aggregations": list(AGGREGATION_NAMES),
        "modes": list(MODES),
        "defaultIsCap": 2.0,
        "loss": build_loss_cases(),
        "staleness": build_staleness_cases(),
    }


def main(argv: list[str]) -> int:
    return write_golden(golden(), GOLDEN_PATH, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
