"""train_on_batch: skipping, ratio 1 on a fresh batch, exact zero gradient at masked positions, batch files."""

import json
import math
import struct

import pytest
import torch
from agentrl_trainer.losses import AGGREGATIONS
from agentrl_trainer.model import PolicyModel, PolicyModelConfig
from agentrl_trainer.step_config import LossConfig, StepConfig
from agentrl_trainer.train_step import action_logprobs, load_batch, save_batch, sequence_logprobs, train_on_batch

torch.set_num_threads(2)
TEMPERATURE = 0.8
CONFIG = PolicyModelConfig(vocab_size=64, context=32, d_model=32, n_layers=2, n_heads=4)


def make_model(seed=0):
    torch.manual_seed(seed)
    return PolicyModel(CONFIG)


def make_batch(model, seed=0, advantages=(1.0, -1.0, 0.5, -0.5), allowed_mask=None):
    """Four sequences of unequal action lengths; behaviour log-probs from `model` itself (fresh batch)."""
    generator = torch.Generator().manual_seed(seed)
    B, T = len(advantages), 20
    input_ids = torch.randint(0, CONFIG.vocab_size, (B, T), generator=generator)
    loss_mask = torch.zeros(B, T)
    for row, (start, end) in enumerate([(3, 9), (5, 18), (2, 4), (8, 15)][:B]):
        loss_mask[row, start:end] = 1  # prompt before, observation/padding after
    with torch.no_grad():
        behaviour = sequence_logprobs(model, input_ids, TEMPERATURE, allowed_mask)
    batch = {
        "input_ids": input_ids,
        "loss_mask": loss_mask,
        "advantages": torch.tensor(advantages),
        "behaviour_logprobs": behaviour,
    }
    if allowed_mask is not None:
        batch["allowed_mask"] = allowed_mask
    return batch


def parameters(model):
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def test_all_zero_advantages_skip_the_step_and_keep_every_weight():
    model = make_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    train_on_batch(
        model, optimizer, make_batch(model, seed=1), StepConfig(temperature=TEMPERATURE)
    )  # momentum now nonzero
    before, state_before = (
        parameters(model),
        {k: {n: v.clone() for n, v in s.items()} for k, s in optimizer.state.items()},
    )
    metrics = train_on_batch(
        model,
        optimizer,
        make_batch(model, seed=2, advantages=(0.0,) * 4),
        StepConfig(temperature=TEMPERATURE, minibatches=2, epochs=2),
    )
    assert metrics["skipped"] is True and metrics["steps"] == 0 and metrics["loss"] == 0.0
    assert metrics["grad_norm"] == 0.0 and abs(metrics["mean_ratio"] - 1.0) < 1e-3
    after = parameters(model)
    assert all(torch.equal(before[name], after[name]) for name in before)
    for key, state in optimizer.state.items():
        assert all(torch.equal(state_before[key][name], value) for name, value in state.items())


def test_fresh_batch_first_minibatch_has_ratio_one_and_no_clipping():
    model = make_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    metrics = train_on_batch(
        model, optimizer, make_batch(model), StepConfig(temperature=TEMPERATURE, minibatches=2, epochs=2)
    )
    first = metrics["per_step"][0]
    assert abs(first["mean_ratio"] - 1.0) < 1e-3 and first["clip_fraction"] == 0.0 and abs(first["kl_k3"]) < 1e-6
    assert metrics["steps"] == 4 and metrics["skipped"] is False
    assert set(metrics) >= {"loss", "mean_ratio", "clip_fraction", "kl_k3", "grad_norm", "skipped"}
    assert metrics["per_step"][-1]["mean_ratio"] != first["mean_ratio"]  # the policy moved


def test_hidden_state_gradient_is_exactly_zero_where_the_next_token_is_mask_zero():
    model = make_model()
    captured = []

    def keep_hidden(module, inputs, output):
        if output.requires_grad:  # the proximal policy's forward pass before the first update carries no gradient
            output.retain_grad()
            captured.append(output)

    batch = make_batch(model)
    model.ln_final.register_forward_hook(keep_hidden)  # its output is the head's only input
    train_on_batch(model, torch.optim.SGD(model.parameters(), lr=0.0), batch, StepConfig(temperature=TEMPERATURE))
    (hidden,) = captured  # (B, T, C)
    # the hidden state at position p scores token p + 1; the last position scores nothing
    predicts_action = torch.zeros_like(batch["loss_mask"], dtype=torch.bool)
    predicts_action[:, :-1] = batch["loss_mask"][:, 1:].bool()
    assert torch.count_nonzero(hidden.grad[~predicts_action]) == 0
    assert (hidden.grad[predicts_action].abs().sum(-1) > 0).all()


def test_action_logprobs_equal_sequence_logprobs_at_mask_one_positions():
    model = make_model()
    allowed = torch.rand(4, 20, CONFIG.vocab_size, generator=torch.Generator().manual_seed(5)) < 0.4
    batch = make_batch(model)
    allowed.scatter_(-1, batch["input_ids"].unsqueeze(-1), True)  # the drawn token is allowed
    mask = batch["loss_mask"].bool()
    with torch.no_grad():
        for constraint in (None, allowed):
            full = sequence_logprobs(model, batch["input_ids"], TEMPERATURE, constraint)  # (B, T), every position
            selected = action_logprobs(model, batch["input_ids"], batch["loss_mask"], TEMPERATURE, constraint)  # (B, T)
            assert torch.allclose(selected[mask], full[mask], rtol=0.0, atol=1e-6)
            assert torch.count_nonzero(selected[~mask]) == 0


def gradients_after_one_step(batch, aggregation):
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    metrics = train_on_batch(
        model, optimizer, batch, StepConfig(temperature=TEMPERATURE, loss=LossConfig(aggregation=aggregation))
    )
    return metrics, {name: p.grad.clone() for name, p in model.named_parameters()}


@pytest.mark.parametrize("aggregation", sorted(AGGREGATIONS))
def test_masked_positions_provably_change_nothing(aggregation):
    batch = make_batch(make_model())
    perturbed = {key: value.clone() for key, value in batch.items()}
    mask = batch["loss_mask"].bool()
    last_action = [int(row.nonzero().max()) for row in mask]
    for row, last in enumerate(last_action):
        perturbed["input_ids"][row, last + 1 :] = (perturbed["input_ids"][row, last + 1 :] + 7) % CONFIG.vocab_size
    assert not torch.equal(perturbed["input_ids"], batch["input_ids"])
    perturbed["behaviour_logprobs"] = torch.where(mask, batch["behaviour_logprobs"], torch.tensor(123.0))
    metrics, grads = gradients_after_one_step(batch, aggregation=aggregation)
    metrics_perturbed, grads_perturbed = gradients_after_one_step(perturbed, aggregation=aggregation)
    assert metrics["loss"] == metrics_perturbed["loss"] and metrics["kl_k3"] == metrics_perturbed["kl_k3"]
    for name in grads:
        assert torch.equal(grads[name], grads_perturbed[name]), name


def test_constraint_mask_in_batch_is_applied_like_the_sampler():
    model = make_model()
    allowed = torch.zeros(4, 20, CONFIG.vocab_size, dtype=torch.bool)
    allowed[..., : CONFIG.vocab_size // 2] = True
    batch = make_batch(model, allowed_mask=allowed)
    batch["input_ids"] = batch["input_ids"] % (CONFIG.vocab_size // 2)  # every token is allowed
    with torch.no_grad():
        batch["behaviour_logprobs"] = sequence_logprobs(model, batch["input_ids"], TEMPERATURE, allowed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    constrained = train_on_batch(model, optimizer, batch, StepConfig(temperature=TEMPERATURE))
    assert abs(constrained["mean_ratio"] - 1.0) < 1e-6
    unconstrained = train_on_batch(
        model, optimizer, {k: v for k, v in batch.items() if k != "allowed_mask"}, StepConfig(temperature=TEMPERATURE)
    )
    assert unconstrained["mean_ratio"] < 0.9  # forgetting the mask the sampler used biases every ratio


def test_training_raises_logprobs_of_positive_advantage_actions():
    model = make_model()
    batch = make_batch(model, advantages=(1.0, 1.0, -1.0, -1.0))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for _ in range(5):
        train_on_batch(model, optimizer, batch, StepConfig(temperature=TEMPERATURE))
    with torch.no_grad():
        change = (sequence_logprobs(model, batch["input_ids"], TEMPERATURE) - batch["behaviour_logprobs"]) * batch[
            "loss_mask"
        ]
    per_sequence = change.sum(1) / batch["loss_mask"].sum(1)
    assert per_sequence[0] > 0 and per_sequence[1] > 0 and per_sequence[2] < 0 and per_sequence[3] < 0


def test_malformed_batches_name_the_field():
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    batch = make_batch(model)
    with pytest.raises(ValueError, match=r"batch.loss_mask\[:, 0\] must be 0"):
        train_on_batch(model, optimizer, {**batch, "loss_mask": torch.ones(4, 20)}, StepConfig(temperature=TEMPERATURE))
    with pytest.raises(ValueError, match="batch.loss_mask must hold only 0 and 1"):
        train_on_batch(
            model, optimizer, {**batch, "loss_mask": batch["loss_mask"] * 0.5}, StepConfig(temperature=TEMPERATURE)
        )
    bad_behaviour = batch["behaviour_logprobs"].clone()
    bad_behaviour[1, 6] = float("-inf")  # a mask-1 position
    with pytest.raises(ValueError, match="batch.behaviour_logprobs must be finite"):
        train_on_batch(
            model, optimizer, {**batch, "behaviour_logprobs": bad_behaviour}, StepConfig(temperature=TEMPERATURE)
        )
    with pytest.raises(ValueError, match="batch.advantages is missing"):
        train_on_batch(
            model, optimizer, {k: v for k, v in batch.items() if k != "advantages"}, StepConfig(temperature=TEMPERATURE)
        )
    with pytest.raises(ValueError, match="unknown aggregation"):
        train_on_batch(
            model, optimizer, batch, StepConfig(temperature=TEMPERATURE, loss=LossConfig(aggregation="mean"))
        )
    with pytest.raises(ValueError, match="minibatches must be in"):
        train_on_batch(model, optimizer, batch, StepConfig(temperature=TEMPERATURE, minibatches=5))


def test_batch_file_round_trip(tmp_path):
    batch = make_batch(make_model())
    metadata = {"policyVersion": "onnx-abc", "temperature": TEMPERATURE, "episodes": ["e1", "e2"]}
    save_batch(tmp_path / "batch.safetensors", batch, metadata)
    loaded, loaded_metadata = load_batch(tmp_path / "batch.safetensors")
    assert loaded_metadata == metadata
    assert sorted(loaded) == sorted(batch) and all(torch.equal(loaded[k], batch[k]) for k in batch)
    assert [p.name for p in tmp_path.iterdir()] == ["batch.safetensors"]  # no temporary file left


def ts_safetensors(tensors, metadata):
    """Bytes laid out as activities/safetensors.ts writes them: sorted names, no alignment between tensors, BOOL as 1 byte."""
    formats = {"F32": "<f", "I64": "<q", "BOOL": "<B"}
    header, chunks, offset = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        dtype, shape, values = tensors[name]
        data = b"".join(struct.pack(formats[dtype], int(v) if dtype != "F32" else v) for v in values)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - (8 + len(text)) % 8) % 8)
    return struct.pack("<Q", len(text)) + text.encode() + b"".join(chunks)


@pytest.mark.parametrize("layout", ["full", "patterns"])
def test_batch_written_like_the_typescript_writer_loads_with_its_bool_allowed_mask(tmp_path, layout):
    B, T, V = 2, 5, CONFIG.vocab_size
    ids = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
    loss_mask = [0, 1, 1, 0, 0, 0, 0, 1, 1, 1]
    allowed = [
        int(v == ids[i] or v % 3 == 0) for i in range(B * T) for v in range(V)
    ]  # row t: the mask token t was drawn under
    if layout == "full":
        mask_tensors = {"allowed_mask": ("BOOL", [B, T, V], allowed)}
    else:  # the writer's layout: distinct rows (row 0 allows everything) and each position's row
        rows = [tuple([1] * V)]
        index = []
        for i in range(B * T):
            row = tuple(allowed[i * V : (i + 1) * V])
            if row not in rows:
                rows.append(row)
            index.append(rows.index(row))
        assert len(rows) < B * T  # repeated masks are stored once
        mask_tensors = {
            "allowed_patterns": ("BOOL", [len(rows), V], [v for row in rows for v in row]),
            "allowed_index": ("I64", [B, T], index),
        }
    path = tmp_path / "batch.safetensors"
    path.write_bytes(
        ts_safetensors(
            {
                "input_ids": ("I64", [B, T], ids),
                "loss_mask": ("F32", [B, T], loss_mask),
                "advantages": ("F32", [B], [0.5, -0.5]),
                "token_advantages": ("F32", [B, T], [0.0] * (B * T)),
                "behaviour_logprobs": ("F32", [B, T], [-1.0] * (B * T)),
                "policy_versions": ("I64", [B, T], [1 if m else -1 for m in loss_mask]),
                **mask_tensors,
            },
            {"estimator": json.dumps("grpo")},
        )
    )
    tensors, metadata = load_batch(path)
    assert metadata == {"estimator": "grpo"}
    assert tensors["allowed_mask"].dtype == torch.bool and tensors["allowed_mask"].shape == (B, T, V)
    assert tensors["allowed_mask"].flatten().tolist() == [bool(a) for a in allowed]
    assert tensors["input_ids"].dtype == torch.int64 and tensors["input_ids"].flatten().tolist() == ids
    batch = {
        key: tensors[key] for key in ("input_ids", "loss_mask", "advantages", "behaviour_logprobs", "allowed_mask")
    }
    model = make_model()
    metrics = train_on_batch(
        model, torch.optim.SGD(model.parameters(), lr=0.0), batch, StepConfig(temperature=TEMPERATURE)
    )
    with torch.no_grad():
        logits = model(batch["input_ids"])  # (B, T, V)
    ratios = []
    for b, t in batch["loss_mask"].nonzero().tolist():  # token t is drawn from logits[t - 1] under allowed_mask[:, t]
        row = logits[b, t - 1].masked_fill(~batch["allowed_mask"][b, t], float("-inf")) / TEMPERATURE
        ratios.append(math.exp(float(row.log_softmax(-1)[ids[b * T + t]]) + 1.0))  # behaviour log-prob -1
    assert abs(metrics["mean_ratio"] - sum(ratios) / len(ratios)) < 1e-5


def test_kl_anchor_to_an_identical_reference_adds_nothing_on_the_first_update():
    model, reference = make_model(), make_model()
    batch = make_batch(model, seed=3)
    plain = train_on_batch(
        make_model(), torch.optim.SGD(make_model().parameters(), lr=0.0), batch, StepConfig(temperature=TEMPERATURE)
    )
    anchored = train_on_batch(
        model,
        torch.optim.SGD(model.parameters(), lr=0.0),
        batch,
        StepConfig(temperature=TEMPERATURE, loss=LossConfig(kl_coef=0.5)),
        reference=reference,
    )
    assert anchored["kl_ref"] == pytest.approx(0.0, abs=1e-7)
    assert anchored["loss"] == pytest.approx(plain["loss"], abs=1e-7)
    assert "kl_ref" not in plain


def test_kl_anchor_adds_coef_times_k3_and_pulls_toward_the_reference():
    reference = make_model(seed=1)
    batch = make_batch(make_model(), seed=4, advantages=(1e-6, -1e-6, 1e-6, -1e-6))  # next to no policy signal
    frozen = train_on_batch(
        make_model(),
        torch.optim.SGD(make_model().parameters(), lr=0.0),
        batch,
        StepConfig(temperature=TEMPERATURE, loss=LossConfig(kl_coef=0.5)),
        reference=reference,
    )
    plain = train_on_batch(
        make_model(), torch.optim.SGD(make_model().parameters(), lr=0.0), batch, StepConfig(temperature=TEMPERATURE)
    )
    assert frozen["kl_ref"] > 0.01
    assert frozen["loss"] == pytest.approx(plain["loss"] + 0.5 * frozen["kl_ref"], rel=1e-5)
    model = make_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    first = train_on_batch(
        model, optimizer, batch, StepConfig(temperature=TEMPERATURE, loss=LossConfig(kl_coef=0.5)), reference=reference
    )
    later = train_on_batch(
        model,
        optimizer,
        batch,
        StepConfig(temperature=TEMPERATURE, epochs=5, loss=LossConfig(kl_coef=0.5)),
        reference=reference,
    )
    assert later["per_step"][-1]["kl_ref"] < 0.5 * first["per_step"][0]["kl_ref"]
    with pytest.raises(ValueError, match="kl_coef must be >= 0"):
        train_on_batch(
            model,
            optimizer,
            batch,
            StepConfig(temperature=TEMPERATURE, loss=LossConfig(kl_coef=-1.0)),
            reference=reference,
        )


def test_compact_allowed_mask_out_of_range_is_refused(tmp_path):
    path = tmp_path / "batch.safetensors"
    path.write_bytes(
        ts_safetensors(
            {
                "input_ids": ("I64", [1, 2], [1, 2]),
                "allowed_patterns": ("BOOL", [1, CONFIG.vocab_size], [1] * CONFIG.vocab_size),
                "allowed_index": ("I64", [1, 2], [0, 1]),
            },
            {},
        )
    )
    with pytest.raises(ValueError, match=r"allowed_index must lie in \[0, 1\)"):
        load_batch(path)


def test_the_mask_ablation_trains_observations_against_the_starting_weights():
    """environment_mask: trained tokens the policy never sampled (behaviour log-prob 0 in the file) take the
    starting weights' own log-prob, so the first update sees ratio 1 there and the importance weights stay 1;
    their gradients reach the model, which the same batch without them leaves alone."""
    model = make_model()
    batch = make_batch(model, seed=4, advantages=(1.0, -1.0))
    environment = torch.zeros_like(batch["loss_mask"])
    environment[0, 9:14] = 1  # the observation after row 0's action
    ablated = {
        **batch,
        "loss_mask": batch["loss_mask"] + environment,
        "behaviour_logprobs": torch.where(environment.bool(), torch.zeros(()), batch["behaviour_logprobs"]),
        "environment_mask": environment,
    }
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # measure only
    metrics = train_on_batch(model, optimizer, ablated, StepConfig(temperature=TEMPERATURE, minibatches=1, epochs=1))
    assert metrics["per_step"][0]["mean_ratio"] == pytest.approx(1.0, abs=1e-5)
    assert metrics["importance"]["max"] == pytest.approx(1.0, abs=1e-5)
    assert metrics["masked_tokens"] == int(batch["loss_mask"].sum()) + 5
    # the observation tokens carry gradient: the loss of the ablated batch differs from the actions-only one
    fresh = make_model()
    plain = train_on_batch(
        fresh, torch.optim.SGD(fresh.parameters(), lr=0.0), batch, StepConfig(temperature=TEMPERATURE)
    )
    assert metrics["loss"] != pytest.approx(plain["loss"], abs=1e-6)


@pytest.mark.parametrize("aggregation", sorted(AGGREGATIONS))
@pytest.mark.parametrize("objective", ["policy_gradient", "imitation"])
def test_micro_batches_give_the_whole_minibatchs_step(monkeypatch, aggregation, objective):
    """A minibatch split into micro-batches (to bound a real model's memory) takes the same step as one pass."""
    import agentrl_trainer.train_step as train_step

    config = StepConfig(
        temperature=TEMPERATURE, objective=objective, loss=LossConfig(aggregation=aggregation), epochs=2
    )
    results = {}
    for micro_tokens in (10_000, 20, 40):  # one pass; one row (T = 20) per micro-batch; two rows
        monkeypatch.setattr(train_step, "MICRO_BATCH_TOKENS", micro_tokens)
        model = make_model()
        # plain SGD: the step is the gradient itself (Adam's normalisation would magnify float rounding)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
        metrics = train_on_batch(model, optimizer, make_batch(model, seed=3), config)
        results[micro_tokens] = (parameters(model), metrics)
    whole, whole_metrics = results[10_000]
    for micro_tokens in (20, 40):
        split, metrics = results[micro_tokens]
        for name, value in whole.items():
            assert torch.allclose(split[name], value, atol=1e-5), (micro_tokens, name)
        assert metrics["loss"] == pytest.approx(whole_metrics["loss"], abs=1e-5)
        assert metrics["grad_norm"] == pytest.approx(whole_metrics["grad_norm"], rel=1e-4)
