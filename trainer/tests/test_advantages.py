"""Advantage estimators against shared/golden/advantages.json (shared with the TypeScript side)."""

import json
import math
from pathlib import Path

import pytest
from agentrl_reference.advantages import ESTIMATORS, compute_group_advantages

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "shared" / "golden" / "advantages.json").read_text())


def test_registry_names():
    assert sorted(ESTIMATORS) == ["dr_grpo", "grpo", "grpo_sample_std", "rloo"]


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda case: case["name"])
def test_golden_cases(case):
    for name, expected in case["expected"].items():
        actual = compute_group_advantages(name, case["rewards"])
        assert len(actual) == len(expected), name
        for a, e in zip(actual, expected):
            assert math.isclose(a, e, rel_tol=0.0, abs_tol=GOLDEN["tolerance"]), (name, actual, expected)


def test_brief_rounded_values():
    brief = GOLDEN["briefRounded"]
    for name in ("grpo", "grpo_sample_std", "rloo"):
        rounded = [round(value, brief["decimals"]) for value in compute_group_advantages(name, brief["rewards"])]
        assert rounded == brief[name], name


def test_epsilon_rule_applies_to_std_estimators_only():
    nearly_equal = [1.0, 1.0 + 1e-8, 1.0]  # std ~5e-9 < epsilon
    assert GOLDEN["epsilon"] == 1e-6
    assert compute_group_advantages("grpo", nearly_equal) == [0.0, 0.0, 0.0]
    assert compute_group_advantages("grpo_sample_std", nearly_equal) == [0.0, 0.0, 0.0]
    assert compute_group_advantages("dr_grpo", nearly_equal)[1] > 0.0  # no std, no epsilon rule


def test_unknown_estimator_lists_known_names():
    with pytest.raises(
        ValueError, match=r"unknown advantage estimator 'ppo'; known: dr_grpo, grpo, grpo_sample_std, rloo"
    ):
        compute_group_advantages("ppo", [1.0, 0.0])


def test_empty_group_and_non_finite_reward():
    assert compute_group_advantages("grpo", []) == []
    with pytest.raises(ValueError, match=r"rewards\[1\] is not finite"):
        compute_group_advantages("rloo", [1.0, float("nan")])
