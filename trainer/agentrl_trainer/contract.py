"""The contract of the trainer's activities, shared with the TypeScript side.

`shared/contracts/trainer.schema.json` is generated from `shared/contracts/trainer-contract.ts` (the zod source,
`npm run contracts`): the task queue, the error types, and a JSON Schema for the input and the result of
each activity. Every input is validated against it here before anything runs, with a message that
names the field; every result is checked against it before it is returned.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from temporalio.exceptions import ApplicationError

CONTRACT_PATH = Path(__file__).resolve().parents[2] / "shared" / "contracts" / "trainer.schema.json"
CONTRACT: dict[str, Any] = json.loads(CONTRACT_PATH.read_text())


def _trainer_defaults() -> dict[str, Any]:
    """trainOnBatch's defaults, as the contract states them (shared/contracts/trainer-contract.ts trainerDefaults)."""
    properties = CONTRACT["activities"]["trainOnBatch"]["input"]["properties"]
    optimizer = properties["optimizer"]
    optimizer = next((branch for branch in optimizer.get("anyOf", [optimizer]) if "properties" in branch), optimizer)
    fields = {**optimizer["properties"], **properties}
    return {name: spec["default"] for name, spec in fields.items() if isinstance(spec, dict) and "default" in spec}


# what the trainer does with a field a step leaves out: the contract's defaults, never this side's own
TRAINER_DEFAULTS: dict[str, Any] = _trainer_defaults()
# the same for the fields of `critic`
CRITIC_DEFAULTS: dict[str, Any] = {
    name: spec["default"]
    for name, spec in CONTRACT["activities"]["trainOnBatch"]["input"]["properties"]["critic"]["properties"].items()
}

# the batch file's header: its tensors (dtype, shape) and metadata, generated from shared/contracts/batch-file.ts
BATCH_SCHEMA_PATH = CONTRACT_PATH.with_name("batch.schema.json")
BATCH_SCHEMA: dict[str, Any] = json.loads(BATCH_SCHEMA_PATH.read_text())
# the tensors every batch file holds (the trainer's inputs)
BATCH_REQUIRED_TENSORS: tuple[str, ...] = tuple(BATCH_SCHEMA["properties"]["tensors"]["required"])

# the queue of the default deployment; a run on base queue Q uses Q + TASK_QUEUE_SUFFIX
TASK_QUEUE: str = CONTRACT["taskQueue"]["default"]
TASK_QUEUE_SUFFIX: str = CONTRACT["taskQueue"]["suffix"]


class ErrorTypes:
    """ApplicationError types the trainer raises (the contract's errorTypes); the first four are non-retryable."""

    INVALID_INPUT: str = CONTRACT["errorTypes"]["invalidInput"][
        "type"
    ]  # a field is malformed, a file it names is missing, or checkpoint N-1 is absent
    STEP_CONFLICT: str = CONTRACT["errorTypes"]["stepConflict"][
        "type"
    ]  # stepId or step disagrees with what the run folder already holds
    CHECKPOINT_UNREADABLE: str = CONTRACT["errorTypes"]["checkpointUnreadable"][
        "type"
    ]  # checkpoint N-1 exists but cannot be loaded
    NON_FINITE_UPDATE: str = CONTRACT["errorTypes"]["nonFiniteUpdate"][
        "type"
    ]  # the loss, gradient norm or weights became inf/NaN
    RUN_BUSY: str = CONTRACT["errorTypes"]["runBusy"][
        "type"
    ]  # retryable: another attempt of this run still holds the run lock
    WORKER_SHUTDOWN: str = CONTRACT["errorTypes"]["workerShutdown"]["type"]  # retryable: the worker is stopping


def invalid_input(message: str) -> ApplicationError:
    return ApplicationError(message, type=ErrorTypes.INVALID_INPUT, non_retryable=True)


_VALIDATORS = {
    name: (Draft202012Validator(spec["input"]), Draft202012Validator(spec["result"]))
    for name, spec in CONTRACT["activities"].items()
}


def validate_input(activity: str, raw: Any) -> Mapping[str, Any]:
    """The input of `activity` if it follows the contract; else a non-retryable InvalidInput naming the field."""
    if not isinstance(raw, Mapping):
        raise invalid_input(f"input must be a JSON object, got {type(raw).__name__}")
    validator = _VALIDATORS[activity][0]
    error = best_match(validator.iter_errors(raw))
    if error is not None:
        raise invalid_input(describe(error))
    nonfinite = _first_nonfinite(raw, validator.schema, "")
    if nonfinite is not None:
        raise invalid_input(nonfinite)
    return raw


_BATCH_VALIDATOR = Draft202012Validator(BATCH_SCHEMA)


def validate_batch_header(header: Mapping[str, Any]) -> None:
    """Raises ValueError naming the field when a batch file's header ({tensors: {name: {dtype, shape}},
    metadata}) breaks shared/contracts/batch.schema.json."""
    error = best_match(_BATCH_VALIDATOR.iter_errors(header))
    if error is not None:
        raise ValueError(f"batch file: {describe(error)}")


def validate_result(activity: str, result: Mapping[str, Any]) -> Mapping[str, Any]:
    """The result of `activity`, checked before it is returned: a mismatch is a defect of this worker."""
    error = best_match(_VALIDATORS[activity][1].iter_errors(result))
    if error is not None:
        raise RuntimeError(f"{activity} result breaks the contract: {describe(error)}")
    return result


def describe(error: ValidationError) -> str:
    """A validation error as `field ...` in the trainer's words (e.g. "step must be an integer >= 1, got 0")."""
    while error.validator in ("anyOf", "oneOf") and error.context:
        # a nullable field: the branch of the value's own type says what is wrong
        matching = [sub for sub in error.context if sub.validator != "type" or sub.schema.get("type") != "null"]
        error = best_match(matching or error.context) or error.context[0]
    path = ".".join(str(part) for part in error.absolute_path)
    field = path or "input"
    schema, value = error.schema, error.instance
    if error.validator == "additionalProperties":
        known = list(schema.get("properties", {}))
        unknown = sorted(set(value) - set(known))
        return f"{path + '.' if path else ''}{unknown[0]}: unknown field; known: {', '.join(known)}"
    if error.validator == "required":
        missing = next(name for name in error.validator_value if name not in value)
        return f"{path + '.' if path else ''}{missing} is required"
    if error.validator == "enum":
        return f"{field}: unknown {value!r}; known: {', '.join(sorted(schema['enum']))}"
    if error.validator == "pattern":
        if "errorMessage" in schema:
            return f"{schema['errorMessage']}, got {value!r}"
        return f"{field}: {value!r} must match {schema['pattern']}"
    if error.validator == "minLength":
        return f"{field} must be a non-empty string, got {value!r}"
    return _must_be(field, schema, value)


def _must_be(field: str, schema: Mapping[str, Any], value: Any) -> str:
    """`field must be <the schema's type and bounds>, got <value>`."""
    kind = schema.get("type")
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        bounds = (
            f" in [{low}, {high}]"
            if low is not None and high is not None
            else f" >= {low}"
            if low is not None
            else f" <= {high}"
            if high is not None
            else ""
        )
        return f"{field} must be an integer{bounds}, got {value!r}"
    if kind == "number":
        parts = [
            f"{sign} {float(schema[key])}"
            for key, sign in (
                ("exclusiveMinimum", ">"),
                ("minimum", ">="),
                ("exclusiveMaximum", "<"),
                ("maximum", "<="),
            )
            if key in schema
        ]
        return f"{field} must be a finite number{' ' + ' and '.join(parts) if parts else ''}, got {value!r}"
    if kind == "string":
        return f"{field} must be a non-empty string, got {value!r}"
    if kind == "boolean":
        return f"{field} must be true or false, got {value!r}"
    if kind == "object":
        return f"{field} must be an object, got {type(value).__name__}"
    if kind == "array":
        return f"{field} must be a list, got {type(value).__name__}"
    return f"{field}: does not follow the contract, got {value!r}"


def _first_nonfinite(value: Any, schema: Mapping[str, Any], path: str) -> str | None:
    """JSON Schema lets NaN and infinities through its bounds; the contract's numbers are finite."""
    if isinstance(value, float) and not math.isfinite(value):
        return _must_be(path or "input", schema if schema.get("type") == "number" else {"type": "number"}, value)
    if isinstance(value, Mapping):
        properties = schema.get("properties", {})
        for key, item in value.items():
            branch = properties.get(key, {})
            branch = next((option for option in branch.get("anyOf", []) if option.get("type") != "null"), branch)
            found = _first_nonfinite(item, branch, f"{path}.{key}" if path else str(key))
            if found:
                return found
    return None
