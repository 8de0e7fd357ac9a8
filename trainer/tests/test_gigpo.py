"""GiGPO's reference against shared/golden/gigpo.json (the TypeScript batch builder's tests read it too)."""

import json
import math

import pytest
from agentrl_reference import gigpo
from agentrl_reference.advantages import compute_group_advantages

GOLDEN = json.loads(gigpo.GOLDEN_PATH.read_text())


def test_golden_file_is_what_the_reference_writes():
    assert GOLDEN == json.loads(json.dumps(gigpo.golden()))


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda case: case["name"])
def test_golden_cases(case):
    options = {**GOLDEN["defaults"], **{k: case[k] for k in ("omega", "gamma", "normalise") if k in case}}
    result = gigpo.gigpo(case["episodes"], **options)
    for field in ("episode", "stepGroups", "groupedActions"):
        assert result[field] == pytest.approx(case["expected"][field], abs=GOLDEN["tolerance"])
    for got, want in zip(result["actions"], case["expected"]["actions"], strict=True):
        assert got == pytest.approx(want, abs=GOLDEN["tolerance"])


def test_no_repeated_state_equals_grpo_on_every_action():
    case = next(c for c in GOLDEN["cases"] if c["name"] == "no repeated state is GRPO")
    grpo = compute_group_advantages("grpo", [e["reward"] for e in case["episodes"]])
    for actions, advantage in zip(case["expected"]["actions"], grpo, strict=True):
        assert all(math.isclose(a, advantage, abs_tol=1e-12) for a in actions)
