"""The trainer's contract (shared/contracts/trainer.schema.json, generated from shared/contracts/trainer-contract.ts):
the golden inputs are judged as the TypeScript side judges them (tests/unit/contracts.test.ts), and the
error types and queue the worker uses are the contract's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentrl_trainer import contract
from agentrl_trainer.contract import CONTRACT, ErrorTypes, validate_input, validate_result
from temporalio.exceptions import ApplicationError

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "shared" / "golden" / "trainer-inputs.json").read_text())[
    "trainOnBatch"
]


def test_error_types_and_queue_are_the_contracts():
    assert {getattr(ErrorTypes, name) for name in dir(ErrorTypes) if name.isupper()} == {
        error["type"] for error in CONTRACT["errorTypes"].values()
    }
    assert contract.TASK_QUEUE == "agentrl-episodes" + contract.TASK_QUEUE_SUFFIX


@pytest.mark.parametrize("fields", GOLDEN["valid"], ids=lambda fields: json.dumps(fields)[:60])
def test_golden_valid_inputs_pass(fields):
    validate_input("trainOnBatch", {**GOLDEN["base"], **fields})


@pytest.mark.parametrize("case", GOLDEN["invalid"], ids=lambda case: json.dumps(case["input"])[:60])
def test_golden_invalid_inputs_fail_naming_the_field(case):
    with pytest.raises(ApplicationError) as caught:
        validate_input("trainOnBatch", {**GOLDEN["base"], **case["input"]})
    assert caught.value.type == ErrorTypes.INVALID_INPUT and caught.value.non_retryable
    named = (
        case["field"]
        if "unknown" not in case
        else ("" if case["field"] == "(root)" else case["field"] + ".") + case["unknown"]
    )
    assert caught.value.message.startswith(named), caught.value.message


@pytest.mark.parametrize("field", GOLDEN["missing"])
def test_required_fields_are_named(field):
    raw = {key: value for key, value in GOLDEN["base"].items() if key != field}
    with pytest.raises(ApplicationError) as caught:
        validate_input("trainOnBatch", raw)
    assert caught.value.message == f"{field} is required"


def test_non_finite_numbers_are_refused():
    with pytest.raises(ApplicationError) as caught:
        validate_input("trainOnBatch", {**GOLDEN["base"], "clipEps": float("nan")})
    assert caught.value.message == "clipEps must be a finite number > 0.0 and < 1.0, got nan"


def test_a_result_that_breaks_the_contract_is_a_defect():
    with pytest.raises(RuntimeError, match="initPolicy result breaks the contract: policyVersion is required"):
        validate_result("initPolicy", {"step": 0, "policyRef": "file:///p"})
    validate_result("initPolicy", {"step": 0, "policyVersion": "v0", "policyRef": "file:///p"})


BATCH_HEADERS = json.loads(
    (Path(__file__).resolve().parents[2] / "shared" / "golden" / "batch-headers.json").read_text()
)


@pytest.mark.parametrize("header", BATCH_HEADERS["valid"])
def test_golden_batch_headers_pass(header):
    contract.validate_batch_header(header)


@pytest.mark.parametrize("case", BATCH_HEADERS["invalid"], ids=lambda case: case["field"])
def test_golden_batch_headers_refused_naming_the_field(case):
    with pytest.raises(ValueError, match=r"^batch file: " + case["field"].replace(".", r"\.")):
        contract.validate_batch_header(case["header"])


def test_a_batch_file_that_breaks_the_contract_is_refused_when_loaded(tmp_path):
    import torch
    from agentrl_trainer.train_step import load_batch, save_batch

    tensors = {
        "input_ids": torch.zeros(2, 5),  # float: the contract says I64
        "loss_mask": torch.zeros(2, 5),
        "advantages": torch.zeros(2),
        "behaviour_logprobs": torch.zeros(2, 5),
    }
    save_batch(tmp_path / "b.safetensors", tensors)
    with pytest.raises(ValueError, match=r"^batch file: tensors\.input_ids\.dtype: unknown 'F32'; known: I64"):
        load_batch(tmp_path / "b.safetensors")
    save_batch(tmp_path / "b.safetensors", {**tensors, "input_ids": torch.zeros(2, 5, dtype=torch.int64)})
    loaded, _ = load_batch(tmp_path / "b.safetensors")
    assert set(loaded) == set(tensors)


def test_the_trainer_defaults_are_the_contracts_on_every_path():
    import inspect

    from agentrl_trainer.step_config import DEFAULT_STEP, OptimizerConfig
    from agentrl_trainer.train_step import train_on_batch
    from agentrl_trainer.training_input import parse_input

    defaults = contract.TRAINER_DEFAULTS
    assert defaults["epochs"] == 1 and defaults["minibatches"] == 1 and defaults["isCap"] == 2
    parsed = parse_input(GOLDEN["base"])
    # an input that leaves every setting out, and the settings built without arguments, are the contract's
    assert parsed.config == DEFAULT_STEP and parsed.optimizer == OptimizerConfig()
    step, loss = parsed.config, parsed.config.loss
    settings = {
        "lr": parsed.optimizer.lr,
        "weightDecay": parsed.optimizer.weight_decay,
        "objective": step.objective,
        "temperature": step.temperature,
        "minibatches": step.minibatches,
        "epochs": step.epochs,
        "maxGradNorm": step.max_grad_norm,
        "clipEps": loss.clip_eps,
        "aggregation": loss.aggregation,
        "klCoef": loss.kl_coef,
        "clipRatioC": loss.guards.clip_ratio_c,
        "logRatioClamp": loss.guards.log_ratio_clamp,
        "ratioLevel": loss.guards.ratio_level,
        "klEstimator": loss.guards.kl_estimator,
        "offPolicy": step.off_policy.mode,
        "isCap": step.off_policy.is_cap,
    }
    assert set(settings) == set(defaults), "every default the contract states is a setting of the step"
    for field, value in settings.items():
        assert value == defaults[field], field
    assert inspect.signature(train_on_batch).parameters["config"].default == DEFAULT_STEP
