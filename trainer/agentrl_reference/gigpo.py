"""GiGPO's advantages (arXiv:2505.10978), plain Python, and the writer of shared/golden/gigpo.json.

The reference of shared/math/gigpo.ts, which the batch builder uses: within one group, the actions taken
from the same environment state (in any episode, at any turn) form a step group compared by their
discounted returns gamma^(T - 1 - k) * R; an action's advantage is its episode's advantage plus
omega times its step advantage. normalise "std": both levels (x - mean) / population std (zeros
below EPSILON), "none": x - mean. No repeated state gives the episode-level advantage exactly.
Regenerate with `.venv/bin/python -m agentrl_reference.gigpo` from trainer/.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from .advantages import EPSILON
from .golden_loss import write_golden

GOLDEN_PATH = Path(__file__).resolve().parents[2] / "shared" / "golden" / "gigpo.json"
TOLERANCE = 1e-9
DEFAULTS = {"omega": 1.0, "gamma": 0.95, "normalise": "std"}


def _centre(values: list[float], normalise: str) -> list[float]:
    if len(values) < 2:
        return [0.0] * len(values)
    mean = math.fsum(values) / len(values)
    if normalise == "none":
        return [v - mean for v in values]
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
    return [0.0] * len(values) if std < EPSILON else [(v - mean) / std for v in values]


def gigpo(episodes: list[dict], omega: float, gamma: float, normalise: str) -> dict:
    """episodes: [{"reward", "states": [key of the state turn k's action was taken from]}]."""
    episode_level = _centre([float(e["reward"]) for e in episodes], normalise)
    step = [[0.0] * len(e["states"]) for e in episodes]
    by_state: dict[str, list[tuple[int, int, float]]] = {}
    for i, episode in enumerate(episodes):
        last = len(episode["states"]) - 1
        for k, state in enumerate(episode["states"]):
            by_state.setdefault(state, []).append((i, k, gamma ** (last - k) * episode["reward"]))
    groups = grouped = 0
    for members in by_state.values():
        if len(members) < 2:
            continue
        groups += 1
        grouped += len(members)
        for (i, k, _), value in zip(members, _centre([m[2] for m in members], normalise)):
            step[i][k] = value
    return {
        "episode": episode_level,
        "step": step,
        "actions": [[episode_level[i] + omega * v for v in row] for i, row in enumerate(step)],
        "stepGroups": groups,
        "groupedActions": grouped,
    }


def _case(name: str, note: str, episodes: list[dict], **options) -> dict:
    merged = {**DEFAULTS, **options}
    return {"name": name, "note": note, "episodes": episodes, **options, "expected": gigpo(episodes, **merged)}


def build_cases() -> list[dict]:
    return [
        _case(
            "no repeated state is GRPO",
            "every state distinct (even the first): step advantages 0, each action carries its episode's GRPO advantage",
            [
                {"reward": 1.0, "states": ["a0", "a1", "a2"]},
                {"reward": 0.0, "states": ["b0", "b1"]},
                {"reward": 0.0, "states": ["c0"]},
                {"reward": 1.0, "states": ["d0", "d1"]},
            ],
        ),
        _case(
            "shared start",
            "all four start from the task's state: the first actions form one step group of returns "
            "gamma^(T-1) R = 0.9025, 0, 0, 0.95",
            [
                {"reward": 1.0, "states": ["start", "a1", "a2"]},
                {"reward": 0.0, "states": ["start", "b1"]},
                {"reward": 0.0, "states": ["start"]},
                {"reward": 1.0, "states": ["start", "d1"]},
            ],
        ),
        _case(
            "a state reached twice",
            "episodes 0 and 1 reach state x (after different first actions: e.g. an edit made and undone); "
            "from x one went on to succeed, one failed: the step group separates them; y is not shared",
            [
                {"reward": 1.0, "states": ["start", "x", "y"]},
                {"reward": 0.0, "states": ["start", "x"]},
                {"reward": 0.0, "states": ["start", "z"]},
            ],
            gamma=1.0,
        ),
        _case(
            "a state revisited within one episode",
            "episode 0 returns to state x at turns 1 and 3 (a loop): both of its actions from x and episode 1's are one group",
            [
                {"reward": 1.0, "states": ["start", "x", "w", "x"]},
                {"reward": 0.0, "states": ["start", "x", "v"]},
            ],
        ),
        _case(
            "mean-norm and omega",
            "normalise none (no std), omega 0.5: A = (R - mean) + 0.5 * (G - mean of the step group)",
            [
                {"reward": 1.0, "states": ["start", "x"]},
                {"reward": 0.0, "states": ["start", "x"]},
                {"reward": 0.5, "states": ["start", "q"]},
            ],
            omega=0.5,
            normalise="none",
        ),
        _case(
            "equal rewards",
            "every episode failed: episode and step advantages all 0 (std below epsilon)",
            [
                {"reward": 0.0, "states": ["start", "x"]},
                {"reward": 0.0, "states": ["start", "x"]},
            ],
        ),
        _case(
            "one episode",
            "a group of one: episode advantage 0; its two actions from x still form a step group, and the "
            "discount favours the later one (the first led into a loop back to x)",
            [{"reward": 1.0, "states": ["start", "x", "x"]}],
        ),
    ]


def golden() -> dict:
    return {
        "description": "GiGPO advantages of one group. A(i,k) = A_E(i) + omega * A_S(i,k); A_E over the episodes' "
        "rewards, A_S over the returns gamma^(T_i - 1 - k) * R_i of the actions taken from the same state key "
        "(any episode, any turn); normalise std: (x - mean) / population std, zeros below epsilon; none: x - mean; "
        "a set of one gets 0. A case's options override `defaults`. Written by "
        "trainer/agentrl_reference/gigpo.py; shared/math/gigpo.ts computes it for the batch.",
        "defaults": DEFAULTS,
        "epsilon": EPSILON,
        "tolerance": TOLERANCE,
        "cases": build_cases(),
    }


def main(argv: list[str]) -> int:
    return write_golden(golden(), GOLDEN_PATH, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
