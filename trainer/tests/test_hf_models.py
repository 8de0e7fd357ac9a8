"""SmolLM2-135M-Instruct in the model cache: the explicit-cache forward pass (hf_step.LlamaStep) and
its ONNX export agree with transformers' own forward pass, with a cache and batched with padding;
new weights written in the graph's layout are what onnxruntime then computes with."""

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from agentrl_trainer import hf_models
from agentrl_trainer.hf_step import LlamaStep

NAME = "smollm2-135m-instruct"
IDS = [1, 9690, 198, 2683, 359, 253, 5356, 5646, 30, 2, 198, 1, 4093, 198]


@pytest.fixture(scope="module")
def model():
    return hf_models.load_model(hf_models.prepare_weights(NAME))


@pytest.fixture(scope="module")
def graph_dir():
    return hf_models.export_onnx(NAME)


def reference_logits(model, ids):
    with torch.no_grad():
        return model(torch.tensor([ids])).logits[0]  # (T, V)


def feed(step_inputs, layers):
    input_ids, position_ids, past_mask, past = step_inputs
    named = {"input_ids": input_ids.numpy(), "position_ids": position_ids.numpy(), "past_mask": past_mask.numpy()}
    for index in range(layers):
        named[f"past_key_{index}"] = past[2 * index].numpy()
        named[f"past_value_{index}"] = past[2 * index + 1].numpy()
    return named


def test_the_starting_model_is_the_dequantized_gguf(model):
    assert sum(parameter.numel() for parameter in model.parameters()) == 134_515_008
    assert model.config.vocab_size == 49152 and model.config.max_position_embeddings == 8192


def test_explicit_cache_matches_transformers_with_a_cache_and_batched_with_padding(model):
    step = LlamaStep(model).eval()
    full = reference_logits(model, IDS)
    with torch.no_grad():
        out = step(
            torch.tensor([IDS[:10]]), torch.arange(10)[None], torch.ones(1, 0, dtype=torch.long), *step.empty_past()
        )
        assert (out[0][0] - full[9]).abs().max() < 1e-4
        past = list(out[1:])
        for position in range(10, len(IDS)):
            out = step(
                torch.tensor([[IDS[position]]]),
                torch.tensor([[position]]),
                torch.ones(1, position, dtype=torch.long),
                *past,
            )
            past = list(out[1:])
            assert (out[0][0] - full[position]).abs().max() < 1e-4, position
        # two requests in one pass: the shorter past padded on the left, its padding masked out
        long = step(
            torch.tensor([IDS[:8]]), torch.arange(8)[None], torch.ones(1, 0, dtype=torch.long), *step.empty_past()
        )
        short = step(
            torch.tensor([IDS[:5]]), torch.arange(5)[None], torch.ones(1, 0, dtype=torch.long), *step.empty_past()
        )
        padded = [
            torch.cat([a, torch.cat([torch.zeros_like(a[:, :, :3]), b], 2)], 0) for a, b in zip(long[1:], short[1:])
        ]
        both = step(
            torch.tensor([[IDS[8]], [IDS[5]]]),
            torch.tensor([[8], [5]]),
            torch.tensor([[1] * 8, [0] * 3 + [1] * 5]),
            *padded,
        )
    assert (both[0][0] - full[8]).abs().max() < 1e-4 and (both[0][1] - full[5]).abs().max() < 1e-4


def test_onnx_graph_matches_transformers(model, graph_dir):
    step = LlamaStep(model)
    session = ort.InferenceSession(str(graph_dir / "model.onnx"))
    full = reference_logits(model, IDS).numpy()
    out = session.run(
        None,
        feed(
            (torch.tensor([IDS[:12]]), torch.arange(12)[None], torch.ones(1, 0, dtype=torch.long), step.empty_past()),
            step.layers,
        ),
    )
    assert np.abs(out[0][0] - full[11]).max() < 1e-4
    past = [torch.from_numpy(value) for value in out[1:]]
    out = session.run(
        None,
        feed((torch.tensor([[IDS[12]]]), torch.tensor([[12]]), torch.ones(1, 12, dtype=torch.long), past), step.layers),
    )
    assert np.abs(out[0][0] - full[12]).max() < 1e-4


def test_new_weights_in_the_graph_layout_are_what_onnxruntime_computes_with(model, graph_dir, tmp_path):
    state = {key: value.clone() for key, value in model.state_dict().items()}
    state["model.norm.weight"] *= 1.5
    state["model.layers.3.mlp.down_proj.weight"] += 0.01
    published = hf_models.write_onnx_weights(graph_dir, state, tmp_path / "v1")
    assert (published / "model.onnx").read_bytes() == (graph_dir / "model.onnx").read_bytes(), (
        "the graph is not exported again"
    )
    changed = hf_models.load_model(hf_models.weights_dir(NAME))
    changed.load_state_dict(state)
    expected = reference_logits(changed, IDS[:6])[-1].numpy()
    step = LlamaStep(model)
    out = ort.InferenceSession(str(published / "model.onnx")).run(
        None,
        feed(
            (torch.tensor([IDS[:6]]), torch.arange(6)[None], torch.ones(1, 0, dtype=torch.long), step.empty_past()),
            step.layers,
        ),
    )
    assert np.abs(out[0][0] - expected).max() < 1e-4
    assert np.abs(out[0][0] - reference_logits(model, IDS[:6])[-1].numpy()).max() > 1e-2, (
        "the new weights changed the logits"
    )
    with pytest.raises(ValueError, match="shape"):
        hf_models.write_onnx_weights(graph_dir, {**state, "model.norm.weight": torch.ones(3)}, tmp_path / "bad")


def test_unknown_model_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown model 'gpt-9'; known: toy, smollm2-135m-instruct"):
        hf_models.weights_dir("gpt-9")


def test_golden_logprobs_are_what_the_writer_writes():
    import json

    recorded, written = json.loads(hf_models.GOLDEN_PATH.read_text()), hf_models.golden_logprobs()
    # the ids exactly; the log-probs to float32 matmul precision, which differs between CPUs' kernels
    # (AVX2 and AVX-512 sum in other orders: about 2e-5 apart on this model)
    assert {key: value for key, value in recorded.items() if key != "logprobs"} == {
        key: value for key, value in written.items() if key != "logprobs"
    }
    assert recorded["logprobs"] == pytest.approx(written["logprobs"], abs=1e-4)


def golden_batch(golden, rows=2):
    prompt, continuation = golden["prompt"], golden["continuation"]
    ids = torch.tensor([prompt + continuation] * rows)
    mask = torch.zeros_like(ids)
    mask[:, len(prompt) :] = 1
    behaviour = torch.zeros(ids.shape, dtype=torch.float32)
    behaviour[:, len(prompt) :] = torch.tensor(golden["logprobs"], dtype=torch.float32)
    return {
        "input_ids": ids,
        "loss_mask": mask,
        "behaviour_logprobs": behaviour,
        "advantages": torch.tensor([1.0, -1.0][:rows]),
    }


def test_the_trainer_recomputes_the_served_logprobs_and_a_step_trains_the_real_model(model):
    """The golden log-probs are what the embedded server records (tests/unit/causal-lm.test.ts): the
    trainer's recomputation under the same temperature matches them, the step reports a mismatch
    near zero, and a policy-gradient step changes the weights."""
    import json

    from agentrl_trainer.step_config import StepConfig
    from agentrl_trainer.train_step import action_logprobs, train_on_batch

    golden = json.loads(hf_models.GOLDEN_PATH.read_text())
    trained = hf_models.load_model(hf_models.weights_dir(NAME))
    policy = hf_models.CausalLmPolicy(trained)
    batch = golden_batch(golden)
    with torch.no_grad():
        recomputed = action_logprobs(policy, batch["input_ids"], batch["loss_mask"], golden["temperature"])
    mask = batch["loss_mask"].bool()
    ratio = torch.exp(recomputed[mask].double() - batch["behaviour_logprobs"][mask].double())
    assert float((ratio - 1).abs().mean()) < 1e-4
    before = trained.model.layers[0].mlp.down_proj.weight.detach().clone()
    optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-5)
    batch["advantages"] = torch.tensor([1.0, 0.5])
    metrics = train_on_batch(policy, optimizer, batch, StepConfig(temperature=golden["temperature"]))
    assert metrics["skipped"] is False and metrics["importance"]["mismatch"]["mean_abs_ratio_dev"] < 1e-4
    assert not torch.equal(before, trained.model.layers[0].mlp.down_proj.weight)


def test_two_idempotent_training_steps_checkpoint_in_the_hugging_face_layout_and_publish_servable_weights(
    model, graph_dir, tmp_path
):
    import json
    from dataclasses import replace

    from agentrl_trainer.hf_training import train_hf_step
    from agentrl_trainer.train_step import save_batch
    from agentrl_trainer.training_input import parse_input

    golden = json.loads(hf_models.GOLDEN_PATH.read_text())
    batch = golden_batch(golden)
    batch["advantages"] = torch.tensor([1.0, 0.5])
    batch_path = tmp_path / "batch.safetensors"
    save_batch(batch_path, batch)
    run_dir = tmp_path / "run"
    paths = dict(run_dir=str(run_dir), batch_path=str(batch_path))
    # step 1 through the trainOnBatch activity, as a run's workflow calls it
    from agentrl_trainer.training_activity import train_on_batch_activity
    from temporalio.testing import ActivityEnvironment

    payload = {
        "runRef": f"file://{run_dir}",
        "stepId": "iteration-0001",
        "step": 1,
        "batchRef": f"file://{batch_path}",
        "seed": 0,
        "model": NAME,
        "optimizer": {"lr": 1e-4},
        "temperature": golden["temperature"],
    }
    first = ActivityEnvironment().run(train_on_batch_activity, payload)
    assert first["policyVersion"] == "run-step-1" and first["device"] == "cpu"
    assert first["metrics"]["skipped"] is False and first["metrics"]["mismatch"]["meanAbsRatioDev"] < 1e-4
    assert ActivityEnvironment().run(train_on_batch_activity, payload) == first, "a retried step returns its record"
    with pytest.raises(Exception, match="model"):
        ActivityEnvironment().run(train_on_batch_activity, {**payload, "stepId": "x", "model": "gpt-9"})
    # the second step's own learning rate wins over the one its optimizer state was saved with, and
    # its KL term pulls toward the first step's checkpoint
    second_request = parse_input(
        {
            **payload,
            "stepId": "iteration-0002",
            "step": 2,
            "optimizer": {"lr": 3e-5},
            "klCoef": 0.1,
            "referenceStep": 1,
        }
    )
    second = train_hf_step(second_request, policy_version="run-step-2", **paths)
    saved = torch.load(Path(second["checkpointRef"].removeprefix("file://")) / "optimizer.pt", weights_only=False)
    assert [group["lr"] for group in saved["optimizer"]["param_groups"]] == [3e-5]
    assert second["metrics"]["klRef"] == pytest.approx(0.0, abs=1e-6), "the policy starts at its reference"
    with pytest.raises(ValueError, match="referenceStep: 5 has no checkpoint"):
        # past what the contract lets through (a reference after the step), as a direct caller could
        third = replace(second_request, step=3, step_id="iteration-0003", reference_step=5)
        train_hf_step(third, policy_version="run-step-3", **paths)
    # the second step starts from the first's weights: its recomputed log-probs moved away from the recorded ones
    assert second["metrics"]["mismatch"]["meanAbsRatioDev"] > first["metrics"]["mismatch"]["meanAbsRatioDev"]
    trained = hf_models.load_model(second["checkpointRef"].removeprefix("file://"))
    assert any(not torch.equal(a, b) for a, b in zip(trained.state_dict().values(), model.state_dict().values()))
    step = LlamaStep(trained)
    ids = golden["prompt"][:10]
    out = ort.InferenceSession(str(Path(second["policyRef"].removeprefix("file://")) / "model.onnx")).run(
        None,
        feed(
            (torch.tensor([ids]), torch.arange(10)[None], torch.ones(1, 0, dtype=torch.long), step.empty_past()),
            step.layers,
        ),
    )
    assert np.abs(out[0][0] - reference_logits(trained, ids)[-1].numpy()).max() < 1e-4, (
        "the published weights are the checkpoint's"
    )


def test_initial_policy_of_a_real_model_is_its_prepared_weights(graph_dir, tmp_path):
    from agentrl_trainer.init_policy import init_policy

    result = init_policy({"runRef": f"file://{tmp_path}", "seed": 0, "model": NAME})
    assert result == {"step": 0, "policyVersion": f"{NAME}-base", "policyRef": f"model://{NAME}"}
    assert (hf_models.onnx_dir(NAME) / "model.onnx").is_file()
    # one of the two forms: the toy model's size or a real model's name, never both
    with pytest.raises(Exception):
        init_policy({"runRef": f"file://{tmp_path}", "seed": 0, "model": NAME, "modelConfig": {"dModel": 8}})
    with pytest.raises(Exception):
        init_policy({"runRef": f"file://{tmp_path}", "seed": 0, "model": "gpt-9"})


def test_a_critic_step_on_the_real_model_saves_and_loads_its_value_head(model, graph_dir, tmp_path):
    """The critic on SmolLM2's hidden states: step 1 (gae) trains the value head and keeps it with the
    checkpoint and the published weights; step 2 (per turn) starts from it."""
    import json

    from agentrl_trainer.credit import VALUE_HEAD_FILE
    from agentrl_trainer.hf_training import CRITIC_FILE, train_hf_step
    from agentrl_trainer.train_step import save_batch
    from agentrl_trainer.training_input import parse_input

    golden = json.loads(hf_models.GOLDEN_PATH.read_text())
    batch = golden_batch(golden)
    batch["rewards"] = torch.tensor([1.0, 0.0])
    batch_path = tmp_path / "batch.safetensors"
    save_batch(batch_path, batch)
    run_dir = tmp_path / "run"

    def step(number: int, critic: dict) -> dict:
        request = {
            "runRef": f"file://{run_dir}",
            "stepId": f"s{number}",
            "step": number,
            "batchRef": f"file://{batch_path}",
            "seed": 0,
            "model": NAME,
            "optimizer": {"lr": 1e-4},
            "temperature": golden["temperature"],
            "critic": critic,
        }
        return train_hf_step(
            parse_input(request), run_dir=str(run_dir), batch_path=str(batch_path), policy_version=f"run-step-{number}"
        )

    first = step(1, {"estimator": "gae"})
    critic = first["metrics"]["critic"]
    assert critic["meanValue"] == 0.0 and critic["valueLoss"] > 0, "a fresh head says 0 and learns"
    checkpoint = Path(first["checkpointRef"].removeprefix("file://"))
    saved = torch.load(checkpoint / CRITIC_FILE, weights_only=False)
    assert saved["head"]["linear.weight"].shape == (1, hf_models.load_model(checkpoint).config.hidden_size)
    assert saved["head"]["linear.weight"].abs().sum() > 0, "the head moved"
    published = torch.load(Path(first["policyRef"].removeprefix("file://")) / VALUE_HEAD_FILE, weights_only=False)
    assert torch.equal(published["linear.weight"], saved["head"]["linear.weight"])
    second = step(2, {"estimator": "gae", "whiten": False})
    # the second step's values come from the first's head: no longer 0
    assert second["metrics"]["critic"]["meanValue"] != 0.0
