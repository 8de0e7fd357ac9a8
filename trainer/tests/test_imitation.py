"""The imitation objective: NLL of the mask-1 tokens under the sampler's temperature and constraint mask."""

import math

import pytest
import torch
from agentrl_trainer.losses import imitation_loss
from agentrl_trainer.model import PolicyModel, PolicyModelConfig
from agentrl_trainer.step_config import StepConfig
from agentrl_trainer.train_step import train_on_batch

torch.set_num_threads(2)
TEMPERATURE = 0.7
CONFIG = PolicyModelConfig(vocab_size=16, context=16, d_model=16, n_layers=1, n_heads=2)
NEVER_USED = 15  # a token that no demonstration holds and every constraint forbids


def make_model(seed=0):
    torch.manual_seed(seed)
    return PolicyModel(CONFIG)


def demonstrations(constrained=False):
    """Three demonstrations of 10 tokens with zero advantages and behaviour log-probs, as a warm-start batch has."""
    generator = torch.Generator().manual_seed(0)
    B, T = 3, 10
    input_ids = torch.randint(0, NEVER_USED, (B, T), generator=generator)  # (B, T)
    loss_mask = torch.zeros(B, T)
    for row, (start, end) in enumerate([(2, 8), (4, 10), (1, 3)]):
        loss_mask[row, start:end] = 1
    batch = {
        "input_ids": input_ids,
        "loss_mask": loss_mask,
        "advantages": torch.zeros(B),
        "behaviour_logprobs": torch.zeros(B, T),
    }
    if constrained:
        allowed = torch.rand(B, T, CONFIG.vocab_size, generator=generator) < 0.5  # (B, T, V)
        allowed.scatter_(-1, input_ids.unsqueeze(-1), True)  # every demonstrated token is allowed
        allowed[..., NEVER_USED] = False
        batch["allowed_mask"] = allowed
    return batch


def hand_nll(model, batch):
    """Mean over mask-1 tokens of -log softmax(allowed logits[t - 1] / T)[token t], in plain float64 Python."""
    with torch.no_grad():
        logits = model(batch["input_ids"]).tolist()  # (B, T, V)
    total, count = 0.0, 0
    for b, row in enumerate(batch["loss_mask"].tolist()):
        for t, mask in enumerate(row):
            if not mask:
                continue
            allowed = batch["allowed_mask"][b, t].tolist() if "allowed_mask" in batch else [True] * CONFIG.vocab_size
            scaled = [value / TEMPERATURE for value, ok in zip(logits[b][t - 1], allowed) if ok]
            top = max(scaled)
            log_normaliser = top + math.log(sum(math.exp(value - top) for value in scaled))
            total += log_normaliser - logits[b][t - 1][int(batch["input_ids"][b, t])] / TEMPERATURE
            count += 1
    return total / count


def gradients(model, batch):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    metrics = train_on_batch(model, optimizer, batch, StepConfig(temperature=TEMPERATURE, objective="imitation"))
    return metrics, {name: p.grad.clone() for name, p in model.named_parameters()}


def test_imitation_loss_on_a_hand_example():
    logprobs = torch.tensor([[0.0, -1.0, -2.0, float("nan")], [5.0, -0.5, -3.0, -4.0]], requires_grad=True)
    loss_mask = torch.tensor([[0, 1, 1, 0], [0, 1, 0, 0]])
    expected = {"token_mean": 3.5 / 3, "seq_mean_token_mean": (1.5 + 0.5) / 2, "seq_mean_token_sum": (3.0 + 0.5) / 2}
    for aggregation, value in expected.items():
        loss, metrics = imitation_loss(logprobs, loss_mask, aggregation=aggregation)
        assert math.isclose(float(loss.detach()), value, abs_tol=1e-6), aggregation
        assert metrics == {
            "mean_ratio": 1.0,
            "clip_fraction": 0.0,
            "clip_fraction_lower": 0.0,
            "kl_k3": 0.0,
            "kl_sampling": {"k1": 0.0, "k2": 0.0, "k3": 0.0, "low_var_kl": 0.0},
            "masked_tokens": 3,
        }
    loss, _ = imitation_loss(logprobs, loss_mask)
    loss.backward()
    expected_grad = -loss_mask / 3.0  # the NaN at a mask-0 position gets gradient 0, not NaN
    assert torch.equal(logprobs.grad, expected_grad.float())


@pytest.mark.parametrize("constrained", [False, True])
def test_first_step_loss_is_the_hand_computed_nll(constrained):
    model, batch = make_model(), demonstrations(constrained)
    expected = hand_nll(model, batch)
    metrics = train_on_batch(
        model,
        torch.optim.SGD(model.parameters(), lr=0.0),
        batch,
        StepConfig(temperature=TEMPERATURE, objective="imitation"),
    )
    assert abs(metrics["loss"] - expected) < 1e-5
    assert metrics["masked_tokens"] == 14


def test_loss_decreases_and_zero_advantages_do_not_skip():
    model, batch = make_model(), demonstrations(constrained=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(15):
        metrics = train_on_batch(model, optimizer, batch, StepConfig(temperature=TEMPERATURE, objective="imitation"))
        assert metrics["skipped"] is False and metrics["steps"] == 1
        losses.append(metrics["loss"])
    assert all(later < earlier for earlier, later in zip(losses, losses[1:])), losses
    assert losses[-1] < 0.7 * losses[0]


def test_metrics_of_an_imitation_step():
    model = make_model()
    metrics = train_on_batch(
        model,
        torch.optim.AdamW(model.parameters()),
        demonstrations(),
        StepConfig(temperature=TEMPERATURE, objective="imitation", minibatches=3, epochs=2),
    )
    assert metrics["steps"] == 6 and metrics["skipped"] is False and metrics["masked_tokens"] == 14
    assert metrics["mean_ratio"] == 1.0 and metrics["clip_fraction"] == 0.0 and metrics["kl_k3"] == 0.0
    assert metrics["grad_norm"] > 0 and metrics["loss"] > 0
    assert all(step["grad_norm"] > 0 for step in metrics["per_step"])


def test_disallowed_logits_change_nothing():
    batch = demonstrations(constrained=True)
    plain = make_model()
    perturbed = make_model()
    with torch.no_grad():  # NEVER_USED is no input token, so this moves only its logit, everywhere
        perturbed.token_embedding.weight[NEVER_USED] += 3.0 * torch.randn(
            CONFIG.d_model, generator=torch.Generator().manual_seed(1)
        )
    metrics, grads = gradients(plain, batch)
    metrics_perturbed, grads_perturbed = gradients(perturbed, batch)
    assert abs(metrics["loss"] - metrics_perturbed["loss"]) < 1e-6
    for name in grads:
        assert torch.allclose(grads[name], grads_perturbed[name], rtol=0.0, atol=1e-7), name
    assert torch.count_nonzero(grads_perturbed["token_embedding.weight"][NEVER_USED]) == 0
    # without the constraint the same perturbation does change the loss
    unconstrained = {key: value for key, value in batch.items() if key != "allowed_mask"}
    assert (
        abs(gradients(make_model(), unconstrained)[0]["loss"] - gradients(perturbed, unconstrained)[0]["loss"]) > 1e-3
    )


def test_advantages_and_behaviour_logprobs_play_no_part():
    batch = demonstrations(constrained=True)
    generator = torch.Generator().manual_seed(2)
    noisy = {
        **batch,
        "advantages": torch.randn(3, generator=generator),
        "behaviour_logprobs": -5 * torch.rand(3, 10, generator=generator),
    }
    metrics, grads = gradients(make_model(), batch)
    metrics_noisy, grads_noisy = gradients(make_model(), noisy)
    assert metrics["loss"] == metrics_noisy["loss"]
    assert all(torch.equal(grads[name], grads_noisy[name]) for name in grads)


def test_unknown_objective_lists_known_names():
    model = make_model()
    with pytest.raises(ValueError, match="unknown objective 'sft'; known: imitation, policy_gradient"):
        train_on_batch(
            model,
            torch.optim.SGD(model.parameters(), lr=0.0),
            demonstrations(),
            StepConfig(temperature=TEMPERATURE, objective="sft"),
        )
