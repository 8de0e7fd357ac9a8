"""Group-relative advantage estimators, registered by name (pure Python, no torch).

A group is the G episodes sampled for one task; every estimator maps its G rewards to G advantages.
Edge cases (the same as shared/golden/advantages.json):
  - a one-sample group gets advantage 0 from every estimator;
  - grpo and grpo_sample_std give all zeros when the group's std is below EPSILON (all rewards equal);
  - an empty group gives an empty list; a non-finite reward raises ValueError.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

EPSILON = 1e-6


def _mean(rewards: Sequence[float]) -> float:
    return math.fsum(rewards) / len(rewards)


def _std(rewards: Sequence[float], ddof: int) -> float:
    mean = _mean(rewards)
    return math.sqrt(math.fsum((r - mean) ** 2 for r in rewards) / (len(rewards) - ddof))


def grpo(rewards: Sequence[float]) -> list[float]:
    """(r - mean) / population std (GRPO, https://arxiv.org/abs/2402.03300)."""
    mean, std = _mean(rewards), _std(rewards, ddof=0)
    if std < EPSILON:
        return [0.0] * len(rewards)
    return [(r - mean) / std for r in rewards]


def grpo_sample_std(rewards: Sequence[float]) -> list[float]:
    """(r - mean) / sample std (G - 1 in the denominator)."""
    mean, std = _mean(rewards), _std(rewards, ddof=1)
    if std < EPSILON:
        return [0.0] * len(rewards)
    return [(r - mean) / std for r in rewards]


def rloo(rewards: Sequence[float]) -> list[float]:
    """r minus the mean of the other G - 1 rewards, no std (RLOO, as in DeepSWE)."""
    total, others = math.fsum(rewards), len(rewards) - 1
    return [r - (total - r) / others for r in rewards]


def dr_grpo(rewards: Sequence[float]) -> list[float]:
    """r - mean, no std (Dr. GRPO, https://arxiv.org/abs/2503.20783)."""
    mean = _mean(rewards)
    return [r - mean for r in rewards]


ESTIMATORS: dict[str, Callable[[Sequence[float]], list[float]]] = {
    "grpo": grpo,
    "grpo_sample_std": grpo_sample_std,
    "rloo": rloo,
    "dr_grpo": dr_grpo,
}


def compute_group_advantages(name: str, rewards: Sequence[float]) -> list[float]:
    """Advantages of one group under the estimator `name`; unknown names raise ValueError."""
    estimator = ESTIMATORS.get(name)
    if estimator is None:
        raise ValueError(f"unknown advantage estimator {name!r}; known: {', '.join(sorted(ESTIMATORS))}")
    values = [float(r) for r in rewards]
    for index, value in enumerate(values):
        if not math.isfinite(value):
            raise ValueError(f"rewards[{index}] is not finite: {value}")
    if len(values) == 0:
        return []
    if len(values) == 1:
        return [0.0]
    return estimator(values)
