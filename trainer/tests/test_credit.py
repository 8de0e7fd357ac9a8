"""GAE, the turn-level GAE and the bootstrap (agentrl_trainer.credit) against shared/golden/gae.json, and the
value head and value loss."""

import json

import pytest
import torch
from agentrl_reference import golden_credit
from agentrl_trainer.credit import (
    CRITIC_ESTIMATORS,
    ValueHead,
    gae,
    spread_over_turns,
    step_mask,
    step_rewards,
    token_values,
    value_loss,
)

GOLDEN = json.loads(golden_credit.GOLDEN_PATH.read_text())


def test_golden_file_is_what_the_reference_writes():
    assert GOLDEN == json.loads(json.dumps(golden_credit.golden()))
    assert sorted(GOLDEN["estimators"]) == sorted(CRITIC_ESTIMATORS)


def run_case(case, dtype=torch.float64):
    mask = torch.tensor(case["loss_mask"])
    turn_ids = torch.tensor(case["turn_ids"]) if "turn_ids" in case else None
    steps = step_mask(mask, turn_ids, case["estimator"])
    rewards = step_rewards(torch.tensor(case["rewards"], dtype=dtype), steps)
    last = torch.tensor(case["last_values"], dtype=dtype) if "last_values" in case else None
    values = torch.tensor(case["values"], dtype=dtype)
    advantages, returns = gae(rewards, values, steps, gamma=case["gamma"], lam=case["lambda"], last_values=last)
    return spread_over_turns(advantages, steps, mask), returns


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda case: case["name"])
def test_golden_cases(case):
    advantages, returns = run_case(case)
    tolerance = GOLDEN["tolerance"]
    for got, want in zip(advantages.tolist(), case["expected"]["advantages"], strict=True):
        assert got == pytest.approx(want, abs=tolerance)
    for got, want in zip(returns.tolist(), case["expected"]["returns"], strict=True):
        assert got == pytest.approx(want, abs=tolerance)


def test_bootstrap_zero_is_truncation_zero():
    case = next(c for c in GOLDEN["cases"] if c["name"] == "bootstrap with value 0 is truncation zero")
    without = {key: value for key, value in case.items() if key != "last_values"}
    assert run_case(case)[0].tolist() == run_case(without)[0].tolist()


def test_monte_carlo_when_lambda_and_gamma_are_one():
    """gamma = lambda = 1: every step's advantage is the episode's return minus its own value."""
    case = GOLDEN["cases"][0]
    advantages, _ = run_case(case)
    for t, m in enumerate(case["loss_mask"][0]):
        if m:
            assert advantages[0, t] == pytest.approx(case["rewards"][0] - case["values"][0][t], abs=1e-12)


def test_values_are_read_one_position_back_and_start_at_zero():
    head = ValueHead(4)
    assert torch.equal(token_values(head, torch.randn(2, 5, 4)).detach(), torch.zeros(2, 5))  # a fresh head says 0
    with torch.no_grad():
        head.linear.bias.fill_(0.5)
        head.linear.weight.fill_(1.0)
    hidden = torch.arange(2 * 3 * 4, dtype=torch.float32).reshape(2, 3, 4)
    values = token_values(head, hidden).detach()
    assert values[:, 0].tolist() == [0.0, 0.0]
    assert values[0, 1] == pytest.approx(float(hidden[0, 0].sum()) + 0.5)  # token 1's state: hidden[0]


def test_clipped_value_loss():
    predicted = torch.tensor([[0.0, 1.0, 0.2]])
    old = torch.tensor([[0.0, 0.5, 0.2]])
    returns = torch.tensor([[0.0, 0.0, 1.0]])
    mask = torch.tensor([[0, 1, 1]])
    loss, bound = value_loss(predicted, old, returns, mask, clip=0.2)
    # position 1: unclipped (1 - 0)^2 = 1, clipped (0.7 - 0)^2 = 0.49 -> 1; position 2: 0.64 both
    assert float(loss) == pytest.approx(0.5 * (1.0 + 0.64) / 2)
    assert bound == 0.0
    loss, _ = value_loss(predicted, old, returns, mask, clip=None)
    assert float(loss) == pytest.approx(0.5 * (1.0 + 0.64) / 2)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="unknown critic estimator 'td'"):
        step_mask(torch.ones(1, 2), None, "td")
    with pytest.raises(ValueError, match="gae_turn needs batch.turn_ids"):
        step_mask(torch.ones(1, 2), None, "gae_turn")
    with pytest.raises(ValueError, match="gamma and lambda must lie in"):
        gae(torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2), gamma=1.5, lam=1.0)


def test_a_privileged_head_reads_the_features_the_policy_never_sees():
    from agentrl_trainer.credit import PRIVILEGED_FEATURES, CriticOptions, restore_critic
    from agentrl_trainer.model import PolicyModel, PolicyModelConfig

    model = PolicyModel(PolicyModelConfig(vocab_size=32, context=16, d_model=8, n_layers=1, n_heads=2))
    critic = restore_critic(model, CriticOptions(privileged=True), None, 1e-3, torch.device("cpu"))
    assert critic.head.linear.in_features == 8 + PRIVILEGED_FEATURES
    with torch.no_grad():
        critic.head.linear.weight[0, -1] = 2.0  # the grade feature
    hidden = torch.zeros(1, 4, 8)
    features = torch.tensor([[[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]])
    values = token_values(critic.head, hidden, features).detach()
    assert values.tolist() == [[0.0, 0.0, 2.0, 2.0]], "token t's state reads the features at t"
    with pytest.raises(ValueError, match="privileged features: batch.privileged is missing"):
        token_values(critic.head, hidden)
    # a run keeps its critic's inputs: a plain head cannot load a privileged one's weights
    with pytest.raises(ValueError, match="critic.privileged is false, but the checkpoint's value head reads 2"):
        restore_critic(model, CriticOptions(), critic.state(), 1e-3, torch.device("cpu"))
