"""Clipped loss against shared/golden/loss.json (written by agentrl_reference.golden_loss), and its masking rules."""

import json
import math

import pytest
import torch
from agentrl_reference import golden_loss
from agentrl_trainer.contract import TRAINER_DEFAULTS
from agentrl_trainer.losses import (
    AGGREGATIONS,
    KL_ESTIMATORS,
    RATIO_LEVELS,
    LossGuards,
    clipped_policy_loss,
    kl_estimate,
)

torch.set_num_threads(2)
GOLDEN = json.loads(golden_loss.GOLDEN_PATH.read_text())


def tensors(case, dtype=torch.float64):
    return (
        torch.tensor(case["logprobs"], dtype=dtype),
        torch.tensor(case["behaviour_logprobs"], dtype=dtype),
        torch.tensor(case["advantages"], dtype=dtype),
        torch.tensor(case["loss_mask"]),
    )


def guards_of(case) -> LossGuards:
    """The case's guards; those it leaves out take the trainer's defaults."""
    options = {key: case[key] for key in ("clip_ratio_c", "log_ratio_clamp", "ratio_level") if key in case}
    return LossGuards(**options, loss_scale_factor=golden_loss.scale_of(case))


def close(actual: float, expected: float) -> bool:
    # relative too: the clamp's case holds values near e^20
    return math.isclose(actual, expected, rel_tol=1e-12, abs_tol=GOLDEN["tolerance"])


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda case: case["name"])
@pytest.mark.parametrize("aggregation", GOLDEN["aggregations"])
def test_golden_cases(case, aggregation):
    options = {key: case[key] for key in ("clip_eps", "clip_eps_high") if key in case}
    loss, metrics = clipped_policy_loss(*tensors(case), aggregation=aggregation, guards=guards_of(case), **options)
    assert close(float(loss), case["expected"]["loss"][aggregation])
    for name, expected in case["expected"]["metrics"].items():
        if isinstance(expected, dict):
            for estimator, value in expected.items():
                assert close(metrics[name][estimator], value), (name, estimator)
        else:
            assert close(metrics[name], expected), name


@pytest.mark.parametrize("case", GOLDEN["kl_estimators"], ids=lambda case: case["name"])
def test_golden_kl_estimators(case):
    log_r = torch.tensor([case["reference_logprob"] - case["logprob"]], dtype=torch.float64)
    for name, expected in case["expected"].items():
        assert close(float(kl_estimate(log_r, name, GOLDEN["defaults"]["log_ratio_clamp"])[0]), expected), name


def test_golden_file_is_what_the_reference_writes():
    assert GOLDEN == json.loads(json.dumps(golden_loss.golden()))
    assert sorted(GOLDEN["aggregations"]) == sorted(AGGREGATIONS)
    assert sorted(GOLDEN["kl_estimator_names"]) == sorted(KL_ESTIMATORS)
    assert sorted(GOLDEN["ratio_levels"]) == sorted(RATIO_LEVELS)
    # the golden defaults are the trainer's, which are the contract's
    assert GOLDEN["defaults"] == {
        "clip_ratio_c": TRAINER_DEFAULTS["clipRatioC"],
        "log_ratio_clamp": TRAINER_DEFAULTS["logRatioClamp"],
    }
    assert LossGuards().clip_ratio_c == TRAINER_DEFAULTS["clipRatioC"]


def test_clamp_keeps_float32_finite_with_gradients():
    """A log-ratio of 100 overflows float32's exp without the clamp; with it loss and gradients stay finite."""
    logprobs = torch.tensor([[0.0, -1.0, -1.0]], dtype=torch.float32, requires_grad=True)
    behaviour = torch.tensor([[0.0, -101.0, -1.5]], dtype=torch.float32)
    mask = torch.tensor([[0, 1, 1]])
    for advantage in (-1.0, 1.0):
        for guards in (LossGuards(), LossGuards(clip_ratio_c=None)):
            loss, metrics = clipped_policy_loss(logprobs, behaviour, torch.tensor([advantage]), mask, guards=guards)
            loss.backward()
            assert torch.isfinite(loss) and torch.isfinite(logprobs.grad).all(), (advantage, guards)
            assert all(math.isfinite(value) for value in metrics["kl_sampling"].values())
            logprobs.grad = None
    unguarded = torch.exp(torch.tensor(100.0, dtype=torch.float32))
    assert torch.isinf(unguarded)  # what the clamp prevents


def test_dual_clip_stops_the_gradient_where_it_binds():
    """Where dual-clip binds, the loss is the constant c*|A|: that token pushes no gradient."""
    logprobs = torch.tensor([[0.0, math.log(30.0), math.log(2.0)]], dtype=torch.float64, requires_grad=True)
    behaviour = torch.zeros(1, 3, dtype=torch.float64)
    loss, metrics = clipped_policy_loss(logprobs, behaviour, torch.tensor([-1.0]), torch.tensor([[0, 1, 1]]))
    loss.backward()
    assert logprobs.grad[0, 1] == 0.0 and logprobs.grad[0, 2] != 0.0
    assert metrics["clip_fraction_lower"] == 0.5


def test_gspo_gradient_is_each_tokens_own():
    """GSPO: the value is the sequence ratio, the gradient of token t is s * A * dlogpi_t / |y| ... as the
    paper's s_i,t = sg[s_i] * pi_t / sg[pi_t]: d(loss)/d(logprob_t) = -A * s for an unclipped token."""
    logprobs = torch.tensor([[0.0, math.log(1.05), math.log(1.1)]], dtype=torch.float64, requires_grad=True)
    behaviour = torch.zeros(1, 3, dtype=torch.float64)
    guards = LossGuards(ratio_level="sequence")
    loss, _ = clipped_policy_loss(
        logprobs,
        behaviour,
        torch.tensor([2.0]),
        torch.tensor([[0, 1, 1]]),
        guards=guards,
        aggregation="seq_mean_token_sum",
    )
    loss.backward()
    s = math.sqrt(1.05 * 1.1)
    assert math.isclose(float(logprobs.grad[0, 1]), -2.0 * s, rel_tol=1e-12)
    assert math.isclose(float(logprobs.grad[0, 2]), -2.0 * s, rel_tol=1e-12)


def test_bad_guards_are_refused_by_name():
    with pytest.raises(ValueError, match="clip_ratio_c must be > 1"):
        LossGuards(clip_ratio_c=1.0)
    with pytest.raises(ValueError, match="unknown KL estimator 'k4'; known: k1, k2, k3, low_var_kl"):
        LossGuards(kl_estimator="k4")
    with pytest.raises(ValueError, match="unknown ratio level 'turn'"):
        LossGuards(ratio_level="turn")


def test_torch_matches_reference_loop_on_random_inputs():
    generator = torch.Generator().manual_seed(3)
    B, T = 5, 9
    behaviour = -torch.rand(B, T, generator=generator, dtype=torch.float64) * 3  # (B, T)
    logprobs = behaviour + (torch.rand(B, T, generator=generator, dtype=torch.float64) - 0.5)  # ratios in [0.61, 1.65]
    advantages = torch.randn(B, generator=generator, dtype=torch.float64)  # (B,)
    loss_mask = (torch.rand(B, T, generator=generator) < 0.6).long()
    loss_mask[:, 0] = 0
    loss_mask[2] = 0  # one empty sequence
    case = {
        "logprobs": logprobs.tolist(),
        "behaviour_logprobs": behaviour.tolist(),
        "advantages": advantages.tolist(),
        "loss_mask": loss_mask.tolist(),
        "clip_eps": 0.2,
        "clip_eps_high": 0.3,
    }
    expected = golden_loss.reference_loss(case)
    for aggregation in AGGREGATIONS:
        for dtype, tolerance in ((torch.float64, 1e-12), (torch.float32, 1e-5)):
            guards = LossGuards(loss_scale_factor=golden_loss.scale_of(case))
            loss, metrics = clipped_policy_loss(
                logprobs.to(dtype),
                behaviour.to(dtype),
                advantages.to(dtype),
                loss_mask,
                clip_eps=0.2,
                clip_eps_high=0.3,
                aggregation=aggregation,
                guards=guards,
            )
            assert abs(float(loss) - expected["loss"][aggregation]) < tolerance, (aggregation, dtype)
            for name in ("mean_ratio", "clip_fraction", "kl_k3", "masked_tokens"):
                assert abs(metrics[name] - expected["metrics"][name]) < tolerance, (name, dtype)


def test_unknown_aggregation_lists_known_names():
    case = GOLDEN["cases"][0]
    with pytest.raises(
        ValueError,
        match="unknown aggregation 'sum'; known: seq_mean_token_mean, seq_mean_token_sum, seq_mean_token_sum_norm, token_mean",
    ):
        clipped_policy_loss(*tensors(case), aggregation="sum")


def test_aggregation_modes_differ_as_documented_on_unequal_lengths():
    generator = torch.Generator().manual_seed(4)
    B, T = 3, 8
    logprobs = -torch.rand(B, T, generator=generator, dtype=torch.float64)
    behaviour = logprobs + (torch.rand(B, T, generator=generator, dtype=torch.float64) - 0.5) * 0.2
    advantages = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    loss_mask = torch.zeros(B, T, dtype=torch.long)
    loss_mask[0, 1:2] = 1  # 1 token
    loss_mask[1, 1:8] = 1  # 7 tokens
    loss_mask[2, 3:6] = 1  # 3 tokens
    ratio = torch.exp(logprobs - behaviour)
    per_token = -torch.minimum(ratio * advantages[:, None], ratio.clamp(0.8, 1.2) * advantages[:, None]) * loss_mask
    sums, counts = per_token.sum(1), loss_mask.sum(1)
    documented = {
        "token_mean": sums.sum() / counts.sum(),  # long sequences weigh more
        "seq_mean_token_mean": (sums / counts).mean(),  # each sequence weighs the same
        "seq_mean_token_sum": sums.mean(),  # no length normalisation
    }
    values = {}
    for name, expected in documented.items():
        values[name] = float(clipped_policy_loss(logprobs, behaviour, advantages, loss_mask, aggregation=name)[0])
        assert abs(values[name] - float(expected)) < 1e-12, name
    assert len({round(v, 9) for v in values.values()}) == 3  # the three modes really differ here


def test_sequence_advantages_equal_broadcast_token_advantages():
    case = GOLDEN["cases"][1]
    logprobs, behaviour, advantages, loss_mask = tensors(case)
    for aggregation in AGGREGATIONS:
        by_sequence = clipped_policy_loss(logprobs, behaviour, advantages, loss_mask, aggregation=aggregation)[0]
        by_token = clipped_policy_loss(
            logprobs, behaviour, advantages[:, None].expand_as(logprobs), loss_mask, aggregation=aggregation
        )[0]
        assert torch.equal(by_sequence, by_token)


def test_non_finite_values_at_mask_zero_change_nothing():
    case = GOLDEN["cases"][3]
    logprobs, behaviour, advantages, loss_mask = tensors(case)
    poisoned_behaviour = torch.where(loss_mask.bool(), behaviour, torch.tensor(float("nan"), dtype=torch.float64))
    poisoned_logprobs = torch.where(loss_mask.bool(), logprobs, torch.tensor(float("-inf"), dtype=torch.float64))
    for aggregation in AGGREGATIONS:
        clean = logprobs.clone().requires_grad_()
        poisoned = poisoned_logprobs.clone().requires_grad_()
        loss_clean, metrics_clean = clipped_policy_loss(
            clean, behaviour, advantages, loss_mask, aggregation=aggregation
        )
        loss_poisoned, metrics_poisoned = clipped_policy_loss(
            poisoned, poisoned_behaviour, advantages, loss_mask, aggregation=aggregation
        )
        loss_clean.backward()
        loss_poisoned.backward()
        assert torch.equal(loss_clean, loss_poisoned) and metrics_clean == metrics_poisoned
        assert torch.equal(clean.grad, poisoned.grad)
        assert torch.equal(
            clean.grad[~loss_mask.bool()], torch.zeros(int((~loss_mask.bool()).sum()), dtype=torch.float64)
        )
