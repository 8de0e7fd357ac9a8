"""Off-policy corrections (tis, decoupled) against shared/golden/off-policy.json, their exact reduction to
today's loss when every token comes from the step's starting weights, and the staleness bound."""

import json
import math

import pytest
import torch
from agentrl_reference import golden_loss, golden_off_policy
from agentrl_trainer.losses import (
    AGGREGATIONS,
    DEFAULT_IS_CAP,
    OFF_POLICY_MODES,
    LossGuards,
    clipped_policy_loss,
    importance_metrics,
    off_policy_weights,
)
from agentrl_trainer.model import PolicyModel, PolicyModelConfig
from agentrl_trainer.step_config import OffPolicyConfig, StepConfig
from agentrl_trainer.train_step import check_staleness, sequence_logprobs, token_staleness, train_on_batch

torch.set_num_threads(2)
GOLDEN = json.loads(golden_off_policy.GOLDEN_PATH.read_text())
TEMPERATURE = 0.8
CONFIG = PolicyModelConfig(vocab_size=48, context=24, d_model=32, n_layers=1, n_heads=4)


def tensors(case, dtype=torch.float64):
    return {
        "logprobs": torch.tensor(case["logprobs"], dtype=dtype),
        "behaviour": torch.tensor(case["behaviour_logprobs"], dtype=dtype),
        "proximal": torch.tensor(case["proximal_logprobs"], dtype=dtype),
        "advantages": torch.tensor(case["advantages"], dtype=dtype),
        "mask": torch.tensor(case["loss_mask"]),
    }


def test_golden_file_is_what_the_reference_writes():
    assert GOLDEN == json.loads(json.dumps(golden_off_policy.golden()))
    assert tuple(GOLDEN["modes"]) == OFF_POLICY_MODES
    assert sorted(GOLDEN["aggregations"]) == sorted(AGGREGATIONS)


@pytest.mark.parametrize("case", GOLDEN["loss"], ids=lambda case: case["name"])
@pytest.mark.parametrize("aggregation", GOLDEN["aggregations"])
def test_golden_loss_cases(case, aggregation):
    t = tensors(case)
    loss, metrics = clipped_policy_loss(
        t["logprobs"],
        t["behaviour"],
        t["advantages"],
        t["mask"],
        aggregation=aggregation,
        off_policy=case["off_policy"],
        proximal_logprobs=t["proximal"],
        is_cap=case.get("is_cap", 2.0),
        guards=LossGuards(loss_scale_factor=golden_loss.scale_of(case)),
    )
    tolerance = GOLDEN["tolerance"]
    assert math.isclose(float(loss), case["expected"]["loss"][aggregation], rel_tol=0.0, abs_tol=tolerance)
    for name, expected in case["expected"]["metrics"].items():
        values = expected.items() if isinstance(expected, dict) else [(None, expected)]
        for key, value in values:
            actual = metrics[name] if key is None else metrics[name][key]
            assert math.isclose(actual, value, rel_tol=0.0, abs_tol=tolerance), (name, key)
    importance = importance_metrics(t["proximal"], t["behaviour"], t["mask"], is_cap=case.get("is_cap", 2.0))
    for name, expected in case["expected"]["importance"].items():
        assert math.isclose(importance[name], expected, rel_tol=0.0, abs_tol=tolerance), name


@pytest.mark.parametrize(
    "case",
    [case for case in GOLDEN["loss"] if case["name"].endswith("all versions equal")],
    ids=lambda case: case["name"],
)
@pytest.mark.parametrize("aggregation", GOLDEN["aggregations"])
def test_with_every_token_fresh_both_corrections_equal_todays_loss_exactly(case, aggregation):
    t = tensors(case, torch.float32)
    today, today_metrics = clipped_policy_loss(
        t["logprobs"], t["behaviour"], t["advantages"], t["mask"], aggregation=aggregation
    )
    loss, metrics = clipped_policy_loss(
        t["logprobs"],
        t["behaviour"],
        t["advantages"],
        t["mask"],
        aggregation=aggregation,
        off_policy=case["off_policy"],
        proximal_logprobs=t["behaviour"].clone(),
    )
    assert torch.equal(loss, today)
    assert metrics == today_metrics


def test_tis_truncates_and_decoupled_drops_tokens_over_the_cap():
    behaviour = torch.zeros(1, 4)
    proximal = torch.log(torch.tensor([[1.0, 0.5, 2.0, 3.0]]))
    mask = torch.tensor([[0, 1, 1, 1]])
    tis, over = off_policy_weights(proximal, behaviour, mask, mode="tis", is_cap=2.0)
    assert torch.allclose(tis, torch.tensor([[1.0, 0.5, 2.0, 2.0]]))
    assert over.tolist() == [[False, False, False, True]]
    decoupled, _ = off_policy_weights(proximal, behaviour, mask, mode="decoupled", is_cap=2.0)
    assert torch.allclose(decoupled, torch.tensor([[1.0, 0.5, 2.0, 0.0]]))
    none, _ = off_policy_weights(proximal, behaviour, mask, mode="none", is_cap=2.0)
    assert torch.equal(none, torch.ones(1, 4))
    with pytest.raises(ValueError, match="unknown off-policy mode 'ppo'; known: none, tis, decoupled"):
        off_policy_weights(proximal, behaviour, mask, mode="ppo", is_cap=2.0)
    with pytest.raises(ValueError, match="needs proximal_logprobs"):
        clipped_policy_loss(proximal, behaviour, torch.ones(1), mask, off_policy="tis")


def test_the_proximal_policy_carries_no_gradient():
    logprobs = torch.log(torch.tensor([[0.5, 0.4, 0.3]])).requires_grad_()
    proximal = torch.log(torch.tensor([[0.5, 0.2, 0.45]])).requires_grad_()
    loss, _ = clipped_policy_loss(
        logprobs,
        torch.log(torch.tensor([[0.5, 0.3, 0.3]])),
        torch.tensor([1.0]),
        torch.tensor([[0, 1, 1]]),
        off_policy="decoupled",
        proximal_logprobs=proximal,
    )
    loss.backward()
    assert proximal.grad is None and logprobs.grad is not None and bool(logprobs.grad.abs().sum() > 0)


@pytest.mark.parametrize("case", GOLDEN["staleness"], ids=lambda case: case["name"])
def test_golden_staleness_cases(case):
    versions, mask = torch.tensor(case["policy_versions"]), torch.tensor(case["loss_mask"])
    values = token_staleness(versions, mask, case["base"]).tolist()
    expected = case["expected"]
    assert len(values) == expected["tokens"]
    assert (max(values) if values else 0) == expected["max"]
    batch = {"policy_versions": versions, "loss_mask": mask}
    if expected["newer"]:
        with pytest.raises(ValueError, match="newer than version"):
            check_staleness(batch, case["base"], None)
    elif expected["staleRows"]:
        with pytest.raises(ValueError, match=f"beyond maxStaleness {case['maxStaleness']}"):
            check_staleness(batch, case["base"], case["maxStaleness"])
    else:
        check_staleness(batch, case["base"], case["maxStaleness"])


def make_batch(model, versions):
    """Three rows whose tokens carry `versions` (B, T); behaviour log-probs from `model`, so fresh tokens have ratio 1."""
    generator = torch.Generator().manual_seed(5)
    B, T = versions.shape
    input_ids = torch.randint(0, CONFIG.vocab_size, (B, T), generator=generator)
    loss_mask = (versions >= 0).float()
    with torch.no_grad():
        behaviour = sequence_logprobs(model, input_ids, TEMPERATURE)
    # an older policy's tokens: the behaviour log-probs it recorded differ from the current weights'
    behaviour = torch.where(versions < 3, behaviour - 0.3 * torch.rand(B, T, generator=generator), behaviour)
    return {
        "input_ids": input_ids,
        "loss_mask": loss_mask,
        "advantages": torch.tensor([1.0, -0.5, 0.7]),
        "behaviour_logprobs": behaviour,
        "policy_versions": versions,
    }


def versions_table(fresh_only):
    versions = torch.full((3, 12), -1, dtype=torch.int64)
    versions[:, 2:10] = 3
    if not fresh_only:
        versions[0, 2:6] = 1  # early turns from version 1
        versions[2, 2:4] = 2
    return versions


def trained_weights(mode, versions, is_cap=DEFAULT_IS_CAP):
    torch.manual_seed(0)
    model = PolicyModel(CONFIG)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    metrics = train_on_batch(
        model,
        optimizer,
        make_batch(model, versions),
        StepConfig(
            temperature=TEMPERATURE, minibatches=2, epochs=2, off_policy=OffPolicyConfig(mode=mode, is_cap=is_cap)
        ),
        base_version=3,
    )
    return {name: value.detach().clone() for name, value in model.state_dict().items()}, metrics


def test_a_step_whose_tokens_all_come_from_its_base_version_trains_exactly_as_without_correction():
    base, base_metrics = trained_weights("none", versions_table(fresh_only=True))
    for mode in ("tis", "decoupled"):
        weights, metrics = trained_weights(mode, versions_table(fresh_only=True))
        assert all(torch.equal(weights[name], base[name]) for name in base), mode
        assert metrics["per_step"] == base_metrics["per_step"], mode
        assert metrics["importance"]["mean"] == 1.0 and metrics["importance"]["truncated_share"] == 0.0


def test_stale_tokens_change_the_step_and_are_measured():
    none, none_metrics = trained_weights("none", versions_table(fresh_only=False), is_cap=1.1)
    tis, tis_metrics = trained_weights("tis", versions_table(fresh_only=False), is_cap=1.1)
    assert any(not torch.equal(tis[name], none[name]) for name in none)
    # the stale tokens' behaviour log-probs are lower than the current weights': pi_prox / mu > 1 there
    assert tis_metrics["importance"]["max"] > 1.1 and tis_metrics["importance"]["truncated_share"] > 0
    assert tis_metrics["importance"]["mismatch_kl"] > 0
    assert (
        none_metrics["importance"] == tis_metrics["importance"]
    )  # measured before the first update, whatever the mode


def test_a_token_beyond_the_staleness_bound_is_refused_before_any_update():
    torch.manual_seed(0)
    model = PolicyModel(CONFIG)
    before = {name: value.clone() for name, value in model.state_dict().items()}
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    with pytest.raises(ValueError, match="2 versions older than version 3, beyond maxStaleness 1"):
        train_on_batch(
            model,
            optimizer,
            make_batch(model, versions_table(fresh_only=False)),
            StepConfig(temperature=TEMPERATURE, off_policy=OffPolicyConfig(mode="decoupled", max_staleness=1)),
            base_version=3,
        )
    assert all(torch.equal(before[name], value) for name, value in model.state_dict().items())


def test_mismatch_is_measured_on_the_base_versions_tokens_before_the_first_update():
    from agentrl_trainer.losses import mismatch_metrics

    mask = torch.tensor([[0, 1, 1, 1, 1]])
    behaviour = torch.log(torch.tensor([[1.0, 0.5, 0.5, 0.25, 0.1]]))
    recomputed = torch.log(torch.tensor([[1.0, 0.5, 0.55, 0.2, 0.9]]))
    versions = torch.tensor([[-1, 3, 3, 3, 2]])  # the last token came from an older version: staleness, not mismatch
    measured = mismatch_metrics(recomputed, behaviour, mask, versions, base_version=3)
    ratios = torch.tensor([1.0, 1.1, 0.8], dtype=torch.float64)
    assert abs(measured["mean_abs_ratio_dev"] - float((ratios - 1).abs().mean())) < 1e-6
    assert abs(measured["max_abs_ratio_dev"] - 0.2) < 1e-6
    assert abs(measured["kl"] - float((ratios - 1 - ratios.log()).mean())) < 1e-6
    # without versions every mask-1 token counts, the stale one included
    assert mismatch_metrics(recomputed, behaviour, mask)["max_abs_ratio_dev"] > 7
    assert mismatch_metrics(recomputed, recomputed, mask) == {
        "mean_abs_ratio_dev": 0.0,
        "max_abs_ratio_dev": 0.0,
        "kl": 0.0,
    }
    assert mismatch_metrics(recomputed, behaviour, torch.zeros_like(mask)) == {
        "mean_abs_ratio_dev": 0.0,
        "max_abs_ratio_dev": 0.0,
        "kl": 0.0,
    }


def test_mismatch_is_reported_by_skipped_steps_too():
    _, metrics = trained_weights("none", versions_table(fresh_only=False), is_cap=1.1)
    assert set(metrics["importance"]["mismatch"]) == {"mean_abs_ratio_dev", "max_abs_ratio_dev", "kl"}
