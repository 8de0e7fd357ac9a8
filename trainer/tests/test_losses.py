"""Clipped loss against shared/golden/loss.json (written by agentrl_reference.golden_loss), and its masking rules."""

import json
import math

import pytest
import torch
from agentrl_reference import golden_loss
from agentrl_trainer.losses import AGGREGATIONS, clipped_policy_loss

torch.set_num_threads(2)
GOLDEN = json.loads(golden_loss.GOLDEN_PATH.read_text())


def tensors(case, dtype=torch.float64):
    return (
        torch.tensor(case["logprobs"], dtype=dtype),
        torch.tensor(case["behaviour_logprobs"], dtype=dtype),
        torch.tensor(case["advantages"], dtype=dtype),
        torch.tensor(case["loss_mask"]),
    )


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda case: case["name"])
@pytest.mark.parametrize("aggregation", GOLDEN["aggregations"])
def test_golden_cases(case, aggregation):
    options = {key: case[key] for key in ("clip_eps", "clip_eps_high") if key in case}
    loss, metrics = clipped_policy_loss(*tensors(case), aggregation=aggregation, **options)
    tolerance = GOLDEN["tolerance"]
    assert math.isclose(float(loss), case["expected"]["loss"][aggregation], rel_tol=0.0, abs_tol=tolerance)
    for name, expected in case["expected"]["metrics"].items():
        assert math.isclose(metrics[name], expected, rel_tol=0.0, abs_tol=tolerance), name


def test_golden_file_is_what_the_reference_writes():
    assert GOLDEN == json.loads(json.dumps(golden_loss.golden()))
    assert sorted(GOLDEN["aggregations"]) == sorted(AGGREGATIONS)


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
            loss, metrics = clipped_policy_loss(
                logprobs.to(dtype),
                behaviour.to(dtype),
                advantages.to(dtype),
                loss_mask,
                clip_eps=0.2,
                clip_eps_high=0.3,
                aggregation=aggregation,
            )
            assert abs(float(loss) - expected["loss"][aggregation]) < tolerance, (aggregation, dtype)
            for name in ("mean_ratio", "clip_fraction", "kl_k3", "masked_tokens"):
                assert abs(metrics[name] - expected["metrics"][name]) < tolerance, (name, dtype)


def test_unknown_aggregation_lists_known_names():
    case = GOLDEN["cases"][0]
    with pytest.raises(
        ValueError, match="unknown aggregation 'sum'; known: seq_mean_token_mean, seq_mean_token_sum, token_mean"
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
