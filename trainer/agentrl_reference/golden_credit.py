"""Plain-Python reference of GAE (per action token and per turn) and the truncation bootstrap, and the
writer of shared/golden/gae.json. Independent of agentrl_trainer/credit.py (no torch): loops in float64.
Regenerate with `.venv/bin/python -m agentrl_reference.golden_credit` from trainer/.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .golden_loss import write_golden

GOLDEN_PATH = Path(__file__).resolve().parents[2] / "shared" / "golden" / "gae.json"
TOLERANCE = 1e-9


def steps_of(case: dict, b: int) -> list[int]:
    """The positions GAE steps through in row b: every action token, or each turn's first (gae_turn)."""
    mask = case["loss_mask"][b]
    if case["estimator"] == "gae":
        return [t for t, m in enumerate(mask) if m]
    turns = case["turn_ids"][b]
    return [t for t, m in enumerate(mask) if m and turns[t] >= 0 and (t == 0 or turns[t - 1] != turns[t])]


def reference(case: dict) -> dict:
    """advantages (B, T) as the tokens carry them, returns (B, T) at the steps, 0 elsewhere."""
    gamma, lam = case["gamma"], case["lambda"]
    advantages, returns = [], []
    for b, mask in enumerate(case["loss_mask"]):
        T = len(mask)
        steps = steps_of(case, b)
        values = case["values"][b]
        step_advantage = [0.0] * T
        row_returns = [0.0] * T
        running = 0.0
        next_value = (case.get("last_values") or [0.0] * len(case["loss_mask"]))[b]
        for index in reversed(range(len(steps))):
            t = steps[index]
            reward = case["rewards"][b] if index == len(steps) - 1 else 0.0
            delta = reward + gamma * next_value - values[t]
            running = delta + gamma * lam * running
            step_advantage[t] = running
            row_returns[t] = running + values[t]
            next_value = values[t]
        # every action token carries the advantage of the step it belongs to (its own, or its turn's first)
        carried, current = [0.0] * T, 0.0
        for t in range(T):
            if t in steps:
                current = step_advantage[t]
            if mask[t]:
                carried[t] = current
        advantages.append(carried)
        returns.append(row_returns)
    return {"advantages": advantages, "returns": returns}


def _case(name: str, note: str, **fields) -> dict:
    case = {"name": name, "note": note, **fields}
    case["expected"] = reference(case)
    return case


def build_cases() -> list[dict]:
    garbage = 100.0  # values at environment tokens: never read
    return [
        _case(
            "lambda = gamma = 1 is the return minus the value",
            "steps at 1, 2 and 4 (3 is an observation); reward 1 after the last: advantages 1 - V = 0.8, 0.5, 0.3",
            estimator="gae",
            gamma=1.0,
            **{"lambda": 1.0},
            rewards=[1.0],
            values=[[0.0, 0.2, 0.5, garbage, 0.7]],
            loss_mask=[[0, 1, 1, 0, 1]],
        ),
        _case(
            "gamma and lambda below 1",
            "gamma 0.9, lambda 0.8 over three steps, the observation between them skipped",
            estimator="gae",
            gamma=0.9,
            **{"lambda": 0.8},
            rewards=[1.0],
            values=[[0.0, 0.1, garbage, 0.4, 0.6]],
            loss_mask=[[0, 1, 0, 1, 1]],
        ),
        _case(
            "bootstrap with value 0 is truncation zero",
            "a truncated episode (reward 0) bootstrapped by a critic that says 0 gets what truncation zero gives",
            estimator="gae",
            gamma=0.95,
            **{"lambda": 0.9},
            rewards=[0.0],
            values=[[0.0, 0.3, 0.2, garbage]],
            loss_mask=[[0, 1, 1, 0]],
            last_values=[0.0],
        ),
        _case(
            "bootstrap with a value",
            "truncated (reward 0), gamma = lambda = 1, the critic's value at the last state 0.6: advantages 0.6 - V",
            estimator="gae",
            gamma=1.0,
            **{"lambda": 1.0},
            rewards=[0.0],
            values=[[0.0, 0.3, 0.2, garbage]],
            loss_mask=[[0, 1, 1, 0]],
            last_values=[0.6],
        ),
        _case(
            "per turn",
            "gae_turn: turns 0 (positions 1-2) and 1 (positions 4-5); the values at each turn's first token, "
            "gamma = lambda = 1: turn 0 carries 1 - 0.25, turn 1 carries 1 - 0.5",
            estimator="gae_turn",
            gamma=1.0,
            **{"lambda": 1.0},
            rewards=[1.0],
            values=[[0.0, 0.25, garbage, garbage, 0.5, garbage]],
            loss_mask=[[0, 1, 1, 0, 1, 1]],
            turn_ids=[[-1, 0, 0, -1, 1, 1]],
        ),
        _case(
            "per turn with discount and two rows",
            "gamma 0.9, lambda 0.95; row 1 has one turn and a bootstrap of 0.5",
            estimator="gae_turn",
            gamma=0.9,
            **{"lambda": 0.95},
            rewards=[1.0, 0.0],
            values=[[0.0, 0.2, 0.2, garbage, 0.6, 0.6, garbage, 0.7], [0.0, 0.4, 0.1, garbage, 0.0, 0.0, 0.0, 0.0]],
            loss_mask=[[0, 1, 1, 0, 1, 1, 0, 1], [0, 1, 1, 0, 0, 0, 0, 0]],
            turn_ids=[[-1, 0, 0, -1, 1, 1, -1, 2], [-1, 0, 0, -1, -1, -1, -1, -1]],
            last_values=[0.0, 0.5],
        ),
        _case(
            "no action token",
            "a row with nothing to train on: every advantage and return 0",
            estimator="gae",
            gamma=0.9,
            **{"lambda": 0.9},
            rewards=[1.0],
            values=[[0.0, 0.5, 0.5]],
            loss_mask=[[0, 0, 0]],
        ),
    ]


def golden() -> dict:
    return {
        "description": "GAE over the steps of each row: `gae` steps through every action token (loss_mask 1), "
        "`gae_turn` through each turn's first action token (turn_ids change), environment tokens skipped. The row's "
        "reward sits on its last step; last_values (absent: 0) is the value after it (a truncation bootstrapped "
        "by the critic). delta = r + gamma * V_next - V, A = delta + gamma * lambda * A_next; returns = A + V at "
        "the steps. advantages: what each action token carries (its step's, or its turn's first's); 0 elsewhere. "
        "values[b][t] is the value of the state token t is chosen in. Written by "
        "trainer/agentrl_reference/golden_credit.py.",
        "tolerance": TOLERANCE,
        "estimators": ["gae", "gae_turn"],
        "cases": build_cases(),
    }


def main(argv: list[str]) -> int:
    return write_golden(golden(), GOLDEN_PATH, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
