"""trainOnBatch through temporalio's ActivityEnvironment: real torch, real ONNX export, no server."""

import json
import math
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

import onnxruntime
import pytest
import torch
from agentrl_trainer.checkpoints import checkpoint_path, latest_checkpoint, load_checkpoint, step_record_path
from agentrl_trainer.model import PolicyModel, PolicyModelConfig
from agentrl_trainer.train_step import load_batch, save_batch, sequence_logprobs
from agentrl_trainer.training_activity import TEST_HOOK_STEP_DELAY_ENV, train_on_batch_activity
from temporalio.exceptions import ApplicationError, CancelledError
from temporalio.testing import ActivityEnvironment

torch.set_num_threads(2)
MODEL_CONFIG = {"vocabSize": 32, "context": 16, "dModel": 16, "nLayers": 1, "nHeads": 2}
CONFIG = PolicyModelConfig(vocab_size=32, context=16, d_model=16, n_layers=1, n_heads=2)
TEMPERATURE = 0.9


def write_batch(
    path,
    *,
    seed=0,
    advantages=(1.0, -1.0, 0.5, -0.5),
    model=None,
    allowed_mask=None,
    token_advantages=None,
    policy_versions=None,
):
    """Four sequences of 12 tokens, actions at positions 4..9; behaviour log-probs from `model` (fresh) or noise."""
    generator = torch.Generator().manual_seed(seed)
    B, T = len(advantages), 12
    input_ids = torch.randint(0, CONFIG.vocab_size, (B, T), generator=generator)
    loss_mask = torch.zeros(B, T, dtype=torch.uint8)
    loss_mask[:, 4:10] = 1
    if model is None:
        behaviour = -3.5 + 0.1 * torch.randn(B, T, generator=generator)  # about log(1 / 32)
    else:
        with torch.no_grad():
            behaviour = sequence_logprobs(model, input_ids, TEMPERATURE)
    tensors = {
        "input_ids": input_ids,
        "loss_mask": loss_mask,
        "advantages": torch.tensor(advantages),
        "behaviour_logprobs": behaviour.float(),
    }
    if allowed_mask is not None:
        tensors["allowed_mask"] = allowed_mask(input_ids)
    if token_advantages is not None:
        tensors["token_advantages"] = token_advantages(loss_mask)
    if policy_versions is not None:
        tensors["policy_versions"] = policy_versions(loss_mask)
    save_batch(path, tensors, {"note": "test batch"})
    return str(path)


def local(ref):
    """The path of a file:// reference (a folder store's object)."""
    assert ref.startswith("file://"), ref
    return Path(ref.removeprefix("file://"))


def request(run_dir, number, step_id, batch_path, **overrides):
    return {
        "runRef": f"file://{run_dir}",
        "stepId": step_id,
        "step": number,
        "batchRef": f"file://{batch_path}",
        "seed": 7,
        "modelConfig": MODEL_CONFIG,
        "optimizer": {"lr": 1e-2},
        "temperature": TEMPERATURE,
        **overrides,
    }


def run(payload, environment=None):
    return (environment or ActivityEnvironment()).run(train_on_batch_activity, payload)


@contextmanager
def raises(error_type, message, *, non_retryable=True):
    """Expects an ApplicationError of `error_type` whose message matches `message` (re.search)."""
    with pytest.raises(ApplicationError) as caught:
        yield caught
    error = caught.value
    assert (error.type, error.non_retryable) == (error_type, non_retryable), error
    assert re.search(message, error.message), f"{error.message!r} does not match {message!r}"


def model_from(path):
    checkpoint = load_checkpoint(path)
    model = PolicyModel(PolicyModelConfig(**checkpoint["modelConfig"]))
    model.load_state_dict(checkpoint["model"])
    return model


def snapshot(folder):
    """Every file under `folder` (hidden ones too): relative path -> (mtime_ns, bytes)."""
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(Path(folder).rglob("*"))
        if p.is_file()
    }


def run_with_step_one(tmp_path, step_one):
    """A fresh run folder holding only checkpoint 1 of the shared run."""
    run_dir = tmp_path / "run"
    checkpoint_path(run_dir, 1).parent.mkdir(parents=True)
    shutil.copy2(checkpoint_path(step_one["runDir"], 1), checkpoint_path(run_dir, 1))
    return run_dir


@pytest.fixture(scope="module")
def step_one(tmp_path_factory):
    """Step 1 of a run, from seed 7, with the heartbeats it sent."""
    base = tmp_path_factory.mktemp("step-one")
    batch = write_batch(base / "batch-1.safetensors", seed=1)
    heartbeats = []
    environment = ActivityEnvironment()
    environment.on_heartbeat = lambda *details: heartbeats.append(details[0])
    payload = request(base / "run", 1, "iteration-0001", batch, minibatches=2)
    result = run(payload, environment)
    return {"runDir": base / "run", "payload": payload, "result": result, "heartbeats": heartbeats}


def test_step_one_from_seed_writes_checkpoint_policy_and_record(step_one):
    run_dir, result = step_one["runDir"], step_one["result"]
    assert set(result) == {
        "stepId",
        "step",
        "policyVersion",
        "policyRef",
        "checkpointRef",
        "metrics",
        "device",
        "durationMs",
    }
    assert result["stepId"] == "iteration-0001" and result["step"] == 1 and result["device"] == "cpu"
    assert result["checkpointRef"] == f"file://{run_dir / 'checkpoints' / 'step-1.pt'}"
    assert result["policyRef"] == f"file://{run_dir / 'policies' / 'v1'}"
    metrics = result["metrics"]
    assert set(metrics) == {
        "loss",
        "meanRatio",
        "clipFraction",
        "clipFractionLower",
        "klK3",
        "klSampling",
        "gradNorm",
        "skipped",
        "maskedTokens",
        "updates",
        "offPolicy",
        "importanceWeight",
        "mismatchKl",
        "mismatch",
    }
    assert set(metrics["mismatch"]) == {"meanAbsRatioDev", "maxAbsRatioDev", "kl"}
    assert (
        0 <= metrics["mismatch"]["meanAbsRatioDev"] <= metrics["mismatch"]["maxAbsRatioDev"]
        and metrics["mismatch"]["kl"] >= -1e-9
    )
    assert metrics["offPolicy"] == "none" and set(metrics["importanceWeight"]) == {"mean", "max", "truncatedShare"}
    assert metrics["skipped"] is False and metrics["updates"] == 2 and metrics["maskedTokens"] == 24
    sidecar = json.loads((local(result["policyRef"]) / "policy.onnx.json").read_text())
    assert result["policyVersion"] == sidecar["policyVersion"]

    checkpoint = load_checkpoint(result["checkpointRef"].removeprefix("file://"))
    assert checkpoint["step"] == 1 and checkpoint["stepId"] == "iteration-0001"
    assert checkpoint["policyVersion"] == result["policyVersion"] and checkpoint["modelConfig"]["d_model"] == 16
    assert {int(state["step"]) for state in checkpoint["optimizer"]["state"].values()} == {2}  # two minibatch updates
    assert checkpoint["rng"]["torch"].dtype == torch.uint8 and checkpoint["rng"]["cuda"] is None
    assert latest_checkpoint(run_dir) == (1, run_dir / "checkpoints" / "step-1.pt")

    record = json.loads(step_record_path(run_dir, "iteration-0001").read_text())
    assert record["result"] == result and record["step"] == 1
    # the exported policy computes what the checkpoint's model computes
    ids = torch.randint(0, CONFIG.vocab_size, (3, 9), generator=torch.Generator().manual_seed(3))
    session = onnxruntime.InferenceSession(
        str(local(result["policyRef"]) / "policy.onnx"), providers=["CPUExecutionProvider"]
    )
    (logits,) = session.run(["logits"], {"input_ids": ids.numpy()})
    with torch.no_grad():
        expected = model_from(result["checkpointRef"].removeprefix("file://")).eval()(ids)
    assert torch.allclose(torch.from_numpy(logits), expected, atol=1e-4)


def test_heartbeats_report_each_update_and_the_export(step_one):
    training = [beat for beat in step_one["heartbeats"] if beat["phase"] == "training"]
    # the keepalive thread may repeat a beat, so compare the distinct values
    assert sorted({beat["update"] for beat in training}) == [0, 1, 2] and all(beat["updates"] == 2 for beat in training)
    assert {"loading", "exporting", "checkpointing", "recording"} <= {beat["phase"] for beat in step_one["heartbeats"]}


def test_same_step_id_returns_the_recorded_result_and_touches_no_file(step_one):
    before = snapshot(step_one["runDir"])
    again = run(step_one["payload"])
    assert again == step_one["result"]
    assert snapshot(step_one["runDir"]) == before


def test_all_zero_advantages_give_checkpoint_n_with_the_weights_of_n_minus_1(tmp_path, step_one):
    run_dir = run_with_step_one(tmp_path, step_one)
    batch = write_batch(tmp_path / "zero.safetensors", seed=2, advantages=(0.0,) * 4)
    result = run(request(run_dir, 2, "iteration-0002", batch))
    assert result["metrics"]["skipped"] is True and result["metrics"]["updates"] == 0
    previous, current = (
        load_checkpoint(checkpoint_path(run_dir, 1)),
        load_checkpoint(result["checkpointRef"].removeprefix("file://")),
    )
    assert current["step"] == 2
    assert all(torch.equal(previous["model"][name], current["model"][name]) for name in previous["model"])
    for key, state in previous["optimizer"]["state"].items():
        assert all(torch.equal(value, current["optimizer"]["state"][key][name]) for name, value in state.items())


def test_per_token_advantages_take_precedence_over_the_episode_advantages(tmp_path, step_one):
    # a stop decision's credit on one token of an otherwise zero-advantage batch is a step
    def one_decision(mask):
        values = torch.zeros(mask.shape)
        values[1, 6] = -1.0
        return values

    run_dir = run_with_step_one(tmp_path, step_one)
    batch = write_batch(tmp_path / "decision.safetensors", seed=2, advantages=(0.0,) * 4, token_advantages=one_decision)
    result = run(request(run_dir, 2, "iteration-0002", batch))
    assert result["metrics"]["skipped"] is False and result["metrics"]["updates"] == 1
    previous, current = (
        load_checkpoint(checkpoint_path(run_dir, 1)),
        load_checkpoint(result["checkpointRef"].removeprefix("file://")),
    )
    assert not torch.equal(previous["model"]["token_embedding.weight"], current["model"]["token_embedding.weight"])
    # and all-zero per-token advantages skip the step whatever the episode advantages say
    other = tmp_path / "other"
    other_dir = run_with_step_one(other, step_one) if other.mkdir() is None else None
    zero = write_batch(
        tmp_path / "zero-tokens.safetensors", seed=2, token_advantages=lambda mask: torch.zeros(mask.shape)
    )
    assert run(request(other_dir, 2, "iteration-0002", zero))["metrics"]["skipped"] is True


def test_imitation_trains_on_a_batch_with_zero_advantages(tmp_path, step_one):
    run_dir = run_with_step_one(tmp_path, step_one)
    batch = write_batch(tmp_path / "demonstrations.safetensors", seed=2, advantages=(0.0,) * 4)
    heartbeats = []
    environment = ActivityEnvironment()
    environment.on_heartbeat = lambda *details: heartbeats.append(details[0])
    result = run(request(run_dir, 2, "warm-start-0002", batch, objective="imitation", minibatches=2), environment)
    metrics = result["metrics"]
    assert metrics["skipped"] is False and metrics["updates"] == 2 and metrics["maskedTokens"] == 24
    assert metrics["loss"] > 0 and metrics["gradNorm"] > 0
    assert (metrics["meanRatio"], metrics["clipFraction"], metrics["klK3"]) == (1.0, 0.0, 0.0)
    assert {beat["updates"] for beat in heartbeats if beat["phase"] == "training"} == {2}
    previous, current = (
        load_checkpoint(checkpoint_path(run_dir, 1)),
        load_checkpoint(result["checkpointRef"].removeprefix("file://")),
    )
    assert not torch.equal(previous["model"]["token_embedding.weight"], current["model"]["token_embedding.weight"])


def test_kl_anchor_loads_the_reference_checkpoint_and_reports_kl_ref(tmp_path, step_one):
    run_dir = run_with_step_one(tmp_path, step_one)
    batch = write_batch(tmp_path / "fresh.safetensors", seed=3, model=model_from(checkpoint_path(run_dir, 1)))
    metrics = run(request(run_dir, 2, "iteration-0002", batch, klCoef=0.1, referenceStep=1, minibatches=2))["metrics"]
    # the first update starts at the reference itself; the second one has moved away from it
    assert 0.0 < metrics["klRef"] < 0.1 and metrics["updates"] == 2
    assert "klRef" not in run(request(run_dir, 3, "iteration-0003", batch))["metrics"]
    checkpoint_path(run_dir, 1).unlink()  # the reference is gone; step 3 itself still has checkpoint 2
    with raises("InvalidInput", r"^referenceStep: 1 has no checkpoint at "):
        run(request(run_dir, 4, "iteration-0004", batch, klCoef=0.1, referenceStep=1))


def test_keep_checkpoints_removes_older_ones_after_each_record_but_the_kl_anchor_s(tmp_path, step_one):
    run_dir = run_with_step_one(tmp_path, step_one)
    batch = write_batch(tmp_path / "fresh.safetensors", seed=3, model=model_from(checkpoint_path(run_dir, 1)))
    anchored = {"klCoef": 0.1, "referenceStep": 1, "keepCheckpoints": 2}

    def steps():
        return sorted(path.name for path in (run_dir / "checkpoints").iterdir())

    run(request(run_dir, 2, "iteration-0002", batch, **anchored))
    assert steps() == ["step-1.pt", "step-2.pt"]
    run(request(run_dir, 3, "iteration-0003", batch, **anchored))
    fourth = run(request(run_dir, 4, "iteration-0004", batch, **anchored))
    # the last two steps' and the anchor's; the exported policies all stay
    assert steps() == ["step-1.pt", "step-3.pt", "step-4.pt"]
    assert sorted(path.name for path in (run_dir / "policies").iterdir()) == ["v2", "v3", "v4"]
    # a retry of step 4 is answered from its record; step 5 trains from checkpoint 4
    assert run(request(run_dir, 4, "iteration-0004", batch, **anchored)) == fourth
    run(request(run_dir, 5, "iteration-0005", batch, **anchored))
    assert steps() == ["step-1.pt", "step-4.pt", "step-5.pt"]
    # without the anchor's KL term, its checkpoint goes too; without keepCheckpoints, nothing goes
    run(request(run_dir, 6, "iteration-0006", batch, keepCheckpoints=1))
    assert steps() == ["step-6.pt"]
    run(request(run_dir, 7, "iteration-0007", batch))
    assert steps() == ["step-6.pt", "step-7.pt"]


def test_off_policy_correction_and_the_staleness_bound_on_the_batch_versions(tmp_path, step_one):
    run_dir = run_with_step_one(tmp_path, step_one)
    model = model_from(checkpoint_path(run_dir, 1))

    def versions(loss_mask):
        table = torch.where(loss_mask.bool(), 1, -1).long()  # step 2 starts from version 1
        table[0, 4:7] = 0  # the first row's early tokens came from version 0
        return table

    batch = write_batch(tmp_path / "mixed.safetensors", seed=3, model=model, policy_versions=versions)
    metrics = run(request(run_dir, 2, "iteration-0002", batch, offPolicy="decoupled", isCap=1.5, maxStaleness=1))[
        "metrics"
    ]
    assert metrics["offPolicy"] == "decoupled" and metrics["updates"] == 1
    assert metrics["importanceWeight"]["max"] >= 1.0 and metrics["mismatchKl"] >= 0
    with raises(
        "InvalidInput",
        r"^batchRef: batch.policy_versions holds a trained token 2 versions older than version 2, beyond maxStaleness 0",
    ):
        run(request(run_dir, 3, "iteration-0003", batch, maxStaleness=0))
    with raises("InvalidInput", r"offPolicy"):
        run(request(run_dir, 3, "iteration-0003", batch, offPolicy="ppo"))


def test_fresh_batch_from_the_current_model_has_ratio_one(tmp_path, step_one):
    run_dir = run_with_step_one(tmp_path, step_one)
    batch = write_batch(tmp_path / "fresh.safetensors", seed=3, model=model_from(checkpoint_path(run_dir, 1)))
    metrics = run(request(run_dir, 2, "iteration-0002", batch))["metrics"]
    assert abs(metrics["meanRatio"] - 1.0) < 1e-3 and metrics["clipFraction"] == 0.0 and abs(metrics["klK3"]) < 1e-5


def test_checkpoint_left_by_a_crash_before_the_record_is_recomputed_from_n_minus_1(tmp_path, step_one):
    batch = write_batch(tmp_path / "batch-2.safetensors", seed=2)
    clean = run_with_step_one(tmp_path / "clean", step_one)
    expected = load_checkpoint(run(request(clean, 2, "iteration-0002", batch))["checkpointRef"].removeprefix("file://"))
    crashed = run_with_step_one(tmp_path / "crashed", step_one)
    # what a worker killed after saving checkpoint 2 but before its record leaves: a stale step-2.pt
    shutil.copy2(checkpoint_path(crashed, 1), checkpoint_path(crashed, 2))
    checkpoint = load_checkpoint(
        run(request(crashed, 2, "iteration-0002", batch))["checkpointRef"].removeprefix("file://")
    )
    assert all(torch.equal(expected["model"][name], checkpoint["model"][name]) for name in expected["model"])
    assert {int(state["step"]) for state in checkpoint["optimizer"]["state"].values()} == {3}  # 2 at step 1, 1 now


def test_a_second_step_id_for_a_completed_step_is_a_conflict(tmp_path, step_one):
    run_dir = run_with_step_one(tmp_path, step_one)
    batch = write_batch(tmp_path / "batch-2.safetensors", seed=2)
    run(request(run_dir, 2, "iteration-0002", batch))
    with raises("StepConflict", r"step 2 was already completed by stepId 'iteration-0002'"):
        run(request(run_dir, 2, "iteration-0002-again", batch))
    with raises("StepConflict", r"^stepId: 'iteration-0002' was recorded for step 2"):
        run(request(run_dir, 3, "iteration-0002", batch))


def test_missing_previous_checkpoint_is_a_non_retryable_error_naming_step(tmp_path):
    batch = write_batch(tmp_path / "batch.safetensors")
    with raises("InvalidInput", r"^step: step 3 needs the checkpoint of step 2, but .*step-2\.pt does not exist"):
        run(request(tmp_path / "run", 3, "iteration-0003", batch))
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"stepId": "../escape"}, r"^stepId: '\.\./escape' must match"),
        ({"step": 0}, r"^step must be an integer >= 1, got 0"),
        ({"step": True}, r"^step must be an integer >= 1, got True"),
        ({"runRef": "relative/run"}, r"^runRef must be a store reference"),
        ({"runRef": "/abs/run"}, r"^runRef must be a store reference .* not a local path"),
        ({"seed": "7"}, r"^seed must be an integer >= 0, got '7'"),
        ({"optimizer": {"lr": -1}}, r"^optimizer\.lr must be a finite number > 0\.0, got -1"),
        ({"optimizer": {"learningRate": 1}}, r"^optimizer\.learningRate: unknown field; known: lr, weightDecay"),
        ({"clipEps": 1.5}, r"^clipEps must be a finite number > 0\.0 and < 1\.0, got 1\.5"),
        ({"objective": "sft"}, r"^objective: unknown 'sft'; known: imitation, policy_gradient"),
        (
            {"aggregation": "mean"},
            r"^aggregation: unknown 'mean'; known: seq_mean_token_mean, seq_mean_token_sum, seq_mean_token_sum_norm, token_mean",
        ),
        ({"clipEpsilon": 0.2}, r"^clipEpsilon: unknown field; known: runRef, stepId"),
        ({"modelConfig": None}, r"^modelConfig is required at step 1"),
        (
            {"modelConfig": {**MODEL_CONFIG, "nHeads": 3}},
            r"^modelConfig: PolicyModelConfig\.d_model \(16\) must be divisible by n_heads \(3\)",
        ),
        ({"modelConfig": {"vocabSize": 0}}, r"^modelConfig\.vocabSize must be an integer >= 1, got 0"),
        ({"minibatches": 5}, r"^minibatches: must be in \[1, 4\] \(the batch has 4 sequences\), got 5"),
        (
            {"batchRef": "file:///nonexistent/batch.safetensors"},
            r"^batchRef: file:///nonexistent/batch\.safetensors does not exist",
        ),
        ({"klCoef": 0.1}, r"^referenceStep is required when klCoef > 0"),
        ({"klCoef": -0.1, "referenceStep": 1}, r"^klCoef must be a finite number >= 0\.0, got -0\.1"),
        ({"klCoef": 0.1, "referenceStep": 1}, r"^referenceStep: 1 must be an earlier step than step 1"),
    ],
)
def test_bad_fields_are_non_retryable_invalid_input_naming_the_field(tmp_path, overrides, message):
    batch = write_batch(tmp_path / "batch.safetensors")
    with raises("InvalidInput", message):
        run(request(tmp_path / "run", 1, "iteration-0001", batch, **overrides))
    assert not checkpoint_path(tmp_path / "run", 1).exists()


def test_malformed_batch_is_invalid_input_naming_batch_path(tmp_path):
    path = tmp_path / "batch.safetensors"
    save_batch(
        path,
        {
            "input_ids": torch.full((2, 8), 40),
            "loss_mask": torch.zeros(2, 8),
            "advantages": torch.ones(2),
            "behaviour_logprobs": torch.zeros(2, 8),
        },
    )
    with raises("InvalidInput", r"^batchRef: batch\.input_ids holds ids outside the vocabulary \[0, 32\)"):
        run(request(tmp_path / "run", 1, "iteration-0001", path))


def every_token_allowed(input_ids):
    return torch.ones(*input_ids.shape, CONFIG.vocab_size, dtype=torch.bool)  # (B, T, V)


@pytest.mark.parametrize(
    ("allowed_mask", "message"),
    [
        (
            lambda ids: every_token_allowed(ids)[..., 1:],
            r"^batchRef: batch\.allowed_mask must be bool \(B, T, V\) = \(4, 12, 32\), got torch\.bool \(4, 12, 31\)",
        ),
        (
            lambda ids: every_token_allowed(ids).to(torch.uint8),
            r"^batchRef: batch\.allowed_mask must be bool \(B, T, V\)",
        ),
        (
            lambda ids: every_token_allowed(ids).scatter(-1, ids.unsqueeze(-1), False),
            r"^batchRef: batch\.allowed_mask must allow input_ids\[b, t\] at every loss_mask=1 position",
        ),
    ],
)
def test_malformed_allowed_mask_is_invalid_input_naming_batch_path(tmp_path, allowed_mask, message):
    batch = write_batch(tmp_path / "batch.safetensors", allowed_mask=allowed_mask)
    with raises("InvalidInput", message):
        run(request(tmp_path / "run", 1, "iteration-0001", batch))


def test_a_non_finite_update_is_non_retryable_and_writes_nothing(tmp_path):
    path = tmp_path / "batch.safetensors"
    loss_mask = torch.zeros(2, 8)
    loss_mask[:, 3:] = 1
    # finite but absurd advantages: float32's largest, whose sum over the tokens overflows
    save_batch(
        path,
        {
            "input_ids": torch.ones((2, 8), dtype=torch.int64),
            "loss_mask": loss_mask,
            "advantages": torch.tensor([-3e38, 3e38]),
            "behaviour_logprobs": torch.full((2, 8), -6.0),
        },
    )
    with raises("NonFiniteUpdate", r"^step 1: non-finite update \(loss (inf|nan)"):
        run(request(tmp_path / "run", 1, "iteration-0001", path))
    assert latest_checkpoint(tmp_path / "run") is None and not (tmp_path / "run" / "policies").exists()


def test_the_guards_keep_absurd_behaviour_logprobs_finite(tmp_path):
    """Behaviour log-probs of -1e30 make every ratio exp(1e30): the log-ratio clamp (e^20 at most) and
    dual-clip (3 |A| for A < 0) keep the step finite; it completes and reports where dual-clip bound."""
    path = tmp_path / "batch.safetensors"
    loss_mask = torch.zeros(2, 8)
    loss_mask[:, 3:] = 1
    save_batch(
        path,
        {
            "input_ids": torch.ones((2, 8), dtype=torch.int64),
            "loss_mask": loss_mask,
            "advantages": torch.tensor([-1.0, 1.0]),
            "behaviour_logprobs": torch.full((2, 8), -1e30),
        },
    )
    metrics = run(request(tmp_path / "run", 1, "iteration-0001", path, minibatches=1, epochs=1))["metrics"]
    assert math.isfinite(metrics["loss"]) and math.isfinite(metrics["gradNorm"])
    assert metrics["clipFractionLower"] == 0.5  # the negative-advantage sequence's five tokens of ten
    assert metrics["klSampling"]["lowVarKl"] <= 10.0


@pytest.mark.parametrize("stop", ["cancel", "worker_shutdown"])
def test_cancellation_and_shutdown_take_effect_between_minibatches_and_write_nothing(tmp_path, monkeypatch, stop):
    monkeypatch.setenv(TEST_HOOK_STEP_DELAY_ENV, "0.2")  # each update then waits (for cancellation) 0.2 s
    batch = write_batch(tmp_path / "batch.safetensors")
    environment = ActivityEnvironment()
    updates = []

    def on_heartbeat(details):
        updates.append(details.get("update"))
        if details.get("update") == 1:  # the first of four updates is done: stop now
            getattr(environment, stop)()

    environment.on_heartbeat = on_heartbeat
    with pytest.raises((CancelledError, ApplicationError)) as caught:
        run(request(tmp_path / "run", 1, "iteration-0001", batch, minibatches=4), environment)
    if stop == "cancel":
        assert isinstance(caught.value, CancelledError)
    else:
        assert caught.value.type == "WorkerShutdown" and not caught.value.non_retryable
    assert max(update for update in updates if update is not None) == 1  # updates 2..4 never ran
    assert not any(path.is_file() and path.name != ".train.lock" for path in (tmp_path / "run").rglob("*"))


def test_a_critic_step_checkpoints_and_publishes_its_value_head_and_the_next_step_starts_from_it(tmp_path):
    path = write_batch(tmp_path / "batch.safetensors")
    tensors, metadata = load_batch(path)
    tensors["rewards"] = torch.tensor([1.0, 0.0, 1.0, 0.0])
    tensors["bootstrap"] = torch.tensor([0.0, 1.0, 0.0, 0.0])  # row 1 was cut: its last state's value counts
    save_batch(path, tensors, metadata)
    turn_path = tmp_path / "turns.safetensors"
    turns = torch.full((4, 12), -1, dtype=torch.int64)
    turns[:, 4:7], turns[:, 7:10] = 0, 1
    save_batch(turn_path, {**tensors, "turn_ids": turns}, metadata)
    run_dir = tmp_path / "run"
    critic = {"estimator": "gae", "gamma": 0.99, "valueClip": None}
    first = run(request(run_dir, 1, "iteration-0001", path, critic=critic))["metrics"]["critic"]
    assert first["meanValue"] == 0.0 and first["valueLoss"] > 0
    saved = load_checkpoint(checkpoint_path(run_dir, 1))["critic"]
    assert set(saved) == {"head", "optimizer"} and saved["head"]["linear.weight"].abs().sum() > 0
    published = torch.load(run_dir / "policies" / "v1" / "value-head.pt", weights_only=False)
    assert torch.equal(published["linear.weight"], saved["head"]["linear.weight"])
    with raises("InvalidInput", r"^batchRef: critic gae_turn needs batch.turn_ids"):
        run(request(run_dir, 2, "iteration-0002", path, critic={**critic, "estimator": "gae_turn"}))
    second = run(request(run_dir, 2, "iteration-0002", str(turn_path), critic={**critic, "estimator": "gae_turn"}))
    assert second["metrics"]["critic"]["meanValue"] != 0.0, "step 2's values come from step 1's head"
    # the contract refuses an unknown critic estimator
    with raises("InvalidInput", r"^critic"):
        run(request(run_dir, 3, "iteration-0003", path, critic={"estimator": "td"}))
