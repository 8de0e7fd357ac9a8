"""The `trainOnBatch` activity: one training step of a run, applied exactly once per stepId.

The run is named by its store reference (`runRef`; store.py): a folder store's run folder, or an
S3 prefix worked on through the store cache. Step N fetches checkpoint N-1 and the batch (`batchRef`),
loads N-1 (or initialises the model from `seed` when N == 1), trains, exports `policies/v<N>/`,
saves checkpoint N, uploads both, and finally writes `steps/<stepId>.json` (on S3 a conditional
put: one record stands). A call whose record exists returns the recorded result without training,
so a retry after a crash at any point never applies a step twice (see checkpoints.py and store.py).
"""

from __future__ import annotations

import contextvars
import json
import math
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from temporalio import activity
from temporalio.exceptions import ApplicationError, CancelledError

from . import devices
from .checkpoints import (
    RunBusyError,
    checkpoint_path,
    export_policy,
    load_checkpoint,
    save_checkpoint,
)
from .contract import TASK_QUEUE, ErrorTypes, invalid_input, validate_result
from .credit import VALUE_HEAD_FILE, restore_critic
from .export import sidecar_path
from .hf_training import train_hf_step
from .metrics import record_step
from .model import PolicyModel, PolicyModelConfig
from .store import RunStore, StoreRefError, fetch_ref
from .train_step import (
    REQUIRED_KEYS,
    all_advantages_zero,
    check_staleness,
    load_batch,
    result_metrics,
    train_on_batch,
    validate_batch,
)
from .training_input import TrainOnBatchInput, parse_input

ACTIVITY_NAME = "trainOnBatch"
__all__ = ["ACTIVITY_NAME", "TASK_QUEUE", "train_on_batch_activity"]
# how often the background thread heartbeats; the SDK throttles sends to 0.8 x the heartbeat timeout
HEARTBEAT_INTERVAL_S = 2.0
# TEST HOOK ONLY: seconds to sleep after every optimizer update (heartbeating), so a test can kill
# the worker mid-step. Never set it in production.
TEST_HOOK_STEP_DELAY_ENV = "AGENTRL_TRAIN_STEP_DELAY_S"


@activity.defn(name=ACTIVITY_NAME, no_thread_cancel_exception=True)
def train_on_batch_activity(input: dict) -> dict:
    """Runs training step `step` once per `stepId` and returns its result (see README: trainOnBatch)."""
    started = time.monotonic()
    outcome: list[str] = ["failed"]
    try:
        result = _train_on_batch(input, started, outcome)
    except BaseException:
        record_step("failed", time.monotonic() - started)
        raise
    record_step(outcome[0], time.monotonic() - started, result)
    return result


def _train_on_batch(input: dict, started: float, outcome: list[str]) -> dict:
    """The activity's body; sets outcome[0] to `trained` or `recorded` (the metrics' label)."""
    outcome[0] = "recorded"
    request = parse_input(input)
    store = RunStore(request.run_ref)
    record = store.read_record(request.step_id)
    if record is not None:
        return _recorded_result(request, record)
    with _Keepalive() as keepalive:
        keepalive.beat(phase="fetching")
        # checkpoint N-1 never changes once step N-1's record exists, so it is fetched before the lock
        _fetch_checkpoints(request, store)
        batch_path = _fetch_batch(request)
        try:
            with store.lock():
                # an attempt that held the lock may have completed the step meanwhile
                record = store.read_record(request.step_id)
                if record is not None:
                    return _recorded_result(request, record)
                outcome[0] = "trained"
                if request.model is not None:
                    return _run_hf_step(request, store, batch_path, keepalive)
                _check_no_conflict(request, store)
                return _run_step(request, store, batch_path, keepalive, started)
        except RunBusyError as error:
            raise ApplicationError(str(error), type=ErrorTypes.RUN_BUSY) from error


def _fetch_batch(request: TrainOnBatchInput) -> Path:
    try:
        return fetch_ref(request.batch_ref)
    except (FileNotFoundError, StoreRefError) as error:
        raise invalid_input(f"batchRef: {request.batch_ref} does not exist") from error


def _fetch_checkpoints(request: TrainOnBatchInput, store: RunStore) -> None:
    """Checkpoint N-1 (and the KL reference's) into the step's folder; a missing N-1 is an InvalidInput."""
    previous = _checkpoint_key(request, request.step - 1)
    if request.step > 1 and store.fetch(previous) is None:
        steps = store.checkpoint_steps()
        raise invalid_input(
            f"step: step {request.step} needs the checkpoint of step {request.step - 1}, but "
            f"{store.ref_of(previous)} does not exist "
            f"(latest checkpoint: {steps[-1] if steps else 'none'})"
        )
    if request.config.loss.kl_coef > 0 and request.reference_step:
        store.fetch(_checkpoint_key(request, request.reference_step))  # checked where it is loaded


def _publish_and_record(
    request: TrainOnBatchInput, store: RunStore, result: dict[str, Any], checkpoint: str
) -> dict[str, Any]:
    """Uploads policy N and checkpoint N, then the step record (last: from then on the step counts as done)."""
    store.check_lock()
    store.publish(f"policies/v{request.step}")
    store.publish(checkpoint)
    result = {
        **result,
        "policyRef": store.ref_of(f"policies/v{request.step}"),
        "checkpointRef": store.ref_of(checkpoint),
    }
    validate_result(ACTIVITY_NAME, result)  # before it is recorded: a retry returns the record as it stands
    store.check_lock()
    standing = store.write_record(
        request.step_id,
        {
            "stepId": request.step_id,
            "step": request.step,
            "batchRef": request.batch_ref,
            "completedAt": datetime.now(UTC).isoformat(),
            "result": result,
        },
    )
    if standing.get("result") != result:  # another attempt recorded the step first: its result stands
        return _recorded_result(request, standing)
    _remove_old_checkpoints(request, store)
    return result


def _remove_old_checkpoints(request: TrainOnBatchInput, store: RunStore) -> None:
    """With `keepCheckpoints`, removes the checkpoints of steps up to step - keepCheckpoints but the KL anchor's.
    Only after the step's record: a retry of this step is answered from it, and the next step needs only this one."""
    if request.keep_checkpoints is None:
        return
    for step in store.checkpoint_steps():
        if step <= request.step - request.keep_checkpoints and step != request.reference_step:
            store.remove(_checkpoint_key(request, step))


def _checkpoint_key(request: TrainOnBatchInput, step: int) -> str:
    """Checkpoint `step`'s path in the run: a Hugging Face model's is a folder, the toy model's a .pt file."""
    return f"checkpoints/step-{step}" + ("" if request.model is not None else ".pt")


def _run_hf_step(
    request: TrainOnBatchInput, store: RunStore, batch_path: Path, keepalive: _Keepalive
) -> dict[str, Any]:
    """A Hugging Face causal LM's step (hf_training.py), under the run lock this activity holds."""
    keepalive.beat(phase="training", model=request.model)
    try:
        result = train_hf_step(
            request,
            run_dir=str(store.local),
            batch_path=str(batch_path),
            policy_version=f"{store.name}-step-{request.step}",
            locked=True,
        )
    except ValueError as error:
        raise invalid_input(str(error)) from error
    keepalive.beat(phase="recording")
    return _publish_and_record(request, store, result, f"checkpoints/step-{request.step}")


def _run_step(
    request: TrainOnBatchInput, store: RunStore, batch_path: Path, keepalive: _Keepalive, started: float
) -> dict[str, Any]:
    device = devices.training_device()
    activity.logger.info("trainOnBatch %s: step %d on %s", request.step_id, request.step, device.type)
    keepalive.beat(phase="loading")
    cuda_devices = [torch.cuda.current_device()] if device.type == "cuda" else []
    # the step's RNG lives in the checkpoint; fork_rng keeps it from leaking into the worker process
    with torch.random.fork_rng(devices=cuda_devices):
        model, optimizer = _restore(request, store, device)
        reference = (
            _reference(request, store, device)
            if request.config.loss.kl_coef > 0 and request.config.objective == "policy_gradient"
            else None
        )
        batch = {key: value.to(device) for key, value in _load_batch(request, batch_path, model.config).items()}
        try:
            critic = (
                restore_critic(model, request.critic, _saved_critic(request, store), request.optimizer.lr, device)
                if request.critic is not None
                else None
            )
        except ValueError as error:
            raise invalid_input(str(error)) from error
        _raise_if_stopping()
        skips = request.config.objective == "policy_gradient" and all_advantages_zero(
            batch
        )  # as train_on_batch decides
        updates = 0 if skips else request.config.epochs * request.config.minibatches
        progress = {"update": 0}

        def between_updates(*_: Any) -> None:
            progress["update"] += 1
            keepalive.beat(phase="training", update=progress["update"], updates=updates)
            _test_hook_delay()
            _raise_if_stopping()

        keepalive.beat(phase="training", update=0, updates=updates)
        hook = optimizer.register_step_post_hook(between_updates)
        try:
            metrics = train_on_batch(
                model,
                optimizer,
                batch,
                request.config,
                reference=reference,
                base_version=request.step - 1,
                critic=critic,
            )
        finally:
            hook.remove()
        rng = {"torch": torch.get_rng_state(), "cuda": torch.cuda.get_rng_state_all() if cuda_devices else None}
    _raise_if_stopping()
    finite_metrics = all(math.isfinite(metrics[key]) for key in ("loss", "mean_ratio", "kl_k3", "grad_norm"))
    if not finite_metrics or not all(bool(parameter.isfinite().all()) for parameter in model.parameters()):
        # a poisoned checkpoint would break every later step, and NaN is not JSON for the caller
        raise ApplicationError(
            f"step {request.step}: non-finite update (loss {metrics['loss']}, grad norm "
            f"{metrics['grad_norm']}); nothing was written",
            type=ErrorTypes.NON_FINITE_UPDATE,
            non_retryable=True,
        )

    keepalive.beat(phase="exporting")
    model_state = {key: value.detach().cpu() for key, value in model.state_dict().items()}
    cpu_model = PolicyModel(model.config)  # export.py traces with CPU example inputs
    cpu_model.load_state_dict(model_state)
    onnx_path = export_policy(cpu_model, store.local, request.step)
    policy_version = json.loads(sidecar_path(onnx_path).read_text())["policyVersion"]

    keepalive.beat(phase="checkpointing")
    save_checkpoint(
        store.local,
        request.step,
        {
            "step": request.step,
            "stepId": request.step_id,
            "policyVersion": policy_version,
            "seed": request.seed,
            "modelConfig": asdict(model.config),
            "model": model_state,
            "optimizer": optimizer.state_dict(),
            "optimizerSettings": {"lr": request.optimizer.lr, "weightDecay": request.optimizer.weight_decay},
            "rng": rng,
            "torchVersion": str(torch.__version__),
            **({"critic": critic.state()} if critic is not None else {}),
        },
    )
    if critic is not None:
        # published beside the policy (the policy server does not serve it)
        torch.save(critic.state()["head"], onnx_path.parent / VALUE_HEAD_FILE)
    result = {
        "stepId": request.step_id,
        "step": request.step,
        "policyVersion": policy_version,
        "metrics": result_metrics(metrics, request.config.off_policy.mode),
        "device": device.type,
        "durationMs": round((time.monotonic() - started) * 1000),
    }
    keepalive.beat(phase="recording")
    result = _publish_and_record(request, store, result, f"checkpoints/step-{request.step}.pt")
    activity.logger.info("trainOnBatch %s: step %d done, policy %s", request.step_id, request.step, policy_version)
    return result


def _restore(
    request: TrainOnBatchInput, store: RunStore, device: torch.device
) -> tuple[PolicyModel, torch.optim.Optimizer]:
    """Model and optimizer as checkpoint N-1 left them (RNG included), or freshly seeded at step 1."""
    if request.step == 1:
        assert request.model_config is not None  # parse_input guarantees it
        torch.manual_seed(request.seed)  # seeds CUDA too; dropout then draws from this stream
        model = PolicyModel(request.model_config).to(device)
        return model, _optimizer(model, request)
    path = checkpoint_path(store.local, request.step - 1)
    checkpoint, model = _load_model(path)
    model.to(device)
    optimizer = _optimizer(model, request)
    try:
        optimizer.load_state_dict(checkpoint["optimizer"])  # moves its state to the parameters' device
    except (KeyError, ValueError) as error:
        raise _unreadable(path, error) from error
    for group in optimizer.param_groups:  # this step's settings win over the saved ones (schedules)
        group["lr"], group["weight_decay"] = request.optimizer.lr, request.optimizer.weight_decay
    torch.set_rng_state(checkpoint["rng"]["torch"])
    if device.type == "cuda":
        if checkpoint["rng"]["cuda"] is not None:
            torch.cuda.set_rng_state_all(checkpoint["rng"]["cuda"])
        else:  # the previous step ran on a CPU: derive a CUDA stream that a retry reproduces
            torch.cuda.manual_seed_all(request.seed + request.step)
    return model, optimizer


def _saved_critic(request: TrainOnBatchInput, store: RunStore) -> dict[str, Any] | None:
    """The critic checkpoint N-1 saved, or None (step 1, or a run that turns the critic on later)."""
    if request.step == 1:
        return None
    return load_checkpoint(checkpoint_path(store.local, request.step - 1)).get("critic")


def _load_model(path: Path) -> tuple[dict[str, Any], PolicyModel]:
    """A checkpoint (loaded on the CPU: RNG states must stay CPU tensors) and its model."""
    try:
        checkpoint = load_checkpoint(path)
        model = PolicyModel(PolicyModelConfig(**checkpoint["modelConfig"]))
        model.load_state_dict(checkpoint["model"])
    except Exception as error:  # a foreign or incompatible file (torch.load has no one error type)
        raise _unreadable(path, error) from error
    return checkpoint, model


def _reference(request: TrainOnBatchInput, store: RunStore, device: torch.device) -> PolicyModel:
    """The frozen model of checkpoint `reference_step`, which the KL term pulls the policy toward."""
    assert request.reference_step is not None  # parse_input guarantees it when kl_coef > 0
    path = checkpoint_path(store.local, request.reference_step)
    if not path.exists():
        raise invalid_input(
            f"referenceStep: {request.reference_step} has no checkpoint at "
            f"{store.ref_of(f'checkpoints/step-{request.reference_step}.pt')}"
        )
    _, reference = _load_model(path)
    reference.requires_grad_(False)
    return reference.to(device).eval()


def _optimizer(model: PolicyModel, request: TrainOnBatchInput) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=request.optimizer.lr, weight_decay=request.optimizer.weight_decay)


def _load_batch(request: TrainOnBatchInput, path: Path, config: PolicyModelConfig) -> dict[str, torch.Tensor]:
    """The batch's training tensors, validated; any fault is an InvalidInput naming batchRef."""
    try:
        tensors, _ = load_batch(path)
    except FileNotFoundError as error:
        raise invalid_input(f"batchRef: {request.batch_ref} does not exist") from error
    except (SafetensorError, OSError, ValueError) as error:
        raise invalid_input(f"batchRef: {request.batch_ref} is not a readable safetensors batch: {error}") from error
    # other tensors (e.g. per-token policy versions) are bookkeeping for the sampler side
    batch = {
        key: tensors[key]
        for key in (
            *REQUIRED_KEYS,
            "allowed_mask",
            "policy_versions",
            "environment_mask",
            "rewards",
            "bootstrap",
            "turn_ids",
            "privileged",
        )
        if key in tensors
    }
    if "token_advantages" in tensors:
        # per-token advantages: the episode's advantage on every mask-1 token plus the stop decisions' credit
        batch["advantages"] = tensors["token_advantages"]
    if request.critic is not None and request.config.objective == "policy_gradient":
        # the critic's targets: each row's reward, and for gae_turn the turn of each action token
        needed = ("rewards", "turn_ids") if request.critic.estimator == "gae_turn" else ("rewards",)
        needed = (*needed, "privileged") if request.critic.privileged else needed
        missing = [key for key in needed if key not in batch]
        if missing:
            raise invalid_input(
                f"batchRef: critic {request.critic.estimator} needs batch.{', batch.'.join(missing)}, which "
                f"{request.batch_ref} lacks (a batch written before the critic existed?)"
            )
    try:
        validate_batch(batch, config.context, config.vocab_size)
        if request.config.objective == "policy_gradient":
            # the per-token versions name the weights each token came from; a token beyond the bound is never trained on
            check_staleness(batch, request.step - 1, request.config.off_policy.max_staleness)
    except ValueError as error:
        raise invalid_input(f"batchRef: {error}") from error
    batch_size = batch["input_ids"].shape[0]
    if not bool(batch["advantages"].isfinite().all()):
        raise invalid_input("batchRef: batch.advantages must be finite")
    if request.config.minibatches > batch_size:
        raise invalid_input(
            f"minibatches: must be in [1, {batch_size}] (the batch has {batch_size} sequences), got "
            f"{request.config.minibatches}"
        )
    return batch


def _check_no_conflict(request: TrainOnBatchInput, store: RunStore) -> None:
    """Refuses to (re)compute step N when the run has moved past it or another stepId completed it."""
    steps = store.checkpoint_steps()
    if not steps or steps[-1] < request.step:
        return
    if steps[-1] > request.step:
        raise ApplicationError(
            f"step: the run already has checkpoint {steps[-1]}, past step {request.step}, "
            f"and no record of stepId {request.step_id!r}",
            type=ErrorTypes.STEP_CONFLICT,
            non_retryable=True,
        )
    # checkpoint N without our record: our own crashed attempt (redo it), unless another stepId completed it
    latest = store.fetch(f"checkpoints/step-{request.step}.pt")
    owner = load_checkpoint(latest, mmap=True).get("stepId") if latest is not None else None
    if owner is not None and owner != request.step_id and store.read_record(owner) is not None:
        raise ApplicationError(
            f"step: step {request.step} was already completed by stepId {owner!r}, not {request.step_id!r}",
            type=ErrorTypes.STEP_CONFLICT,
            non_retryable=True,
        )


def _same_ref(a: str, b: str) -> bool:
    # records written before references held absolute paths
    return (f"file://{a}" if a.startswith("/") else a) == (f"file://{b}" if b.startswith("/") else b)


def _recorded_result(request: TrainOnBatchInput, record: Mapping[str, Any]) -> dict[str, Any]:
    batch = record.get("batchRef", record.get("batchPath", ""))
    if record["step"] != request.step or not _same_ref(batch, request.batch_ref):
        raise ApplicationError(
            f"stepId: {request.step_id!r} was recorded for step {record['step']} with batch {batch}, "
            f"not step {request.step} with {request.batch_ref}",
            type=ErrorTypes.STEP_CONFLICT,
            non_retryable=True,
        )
    activity.logger.info("trainOnBatch %s: already done, returning the recorded result", request.step_id)
    return dict(validate_result(ACTIVITY_NAME, _with_refs(record["result"])))


def _with_refs(result: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded result under today's names (policyPath / checkpointPath paths read as file:// references)."""
    renamed = dict(result)
    for old, new in (("onnxPath", "policyRef"), ("policyPath", "policyRef"), ("checkpointPath", "checkpointRef")):
        if old in renamed:
            value = renamed.pop(old)
            renamed.setdefault(new, f"file://{value}" if str(value).startswith("/") else value)
    return renamed


def _raise_if_stopping() -> None:
    """Cancellation and worker shutdown take effect here, between minibatches, before anything is written."""
    if activity.is_worker_shutdown():
        raise ApplicationError(
            "the training worker is shutting down; the retry restarts this step from checkpoint N-1",
            type=ErrorTypes.WORKER_SHUTDOWN,
        )
    if activity.is_cancelled():
        raise CancelledError("trainOnBatch cancelled between minibatches; nothing was written")


def _test_hook_delay() -> None:
    # TEST HOOK ONLY (AGENTRL_TRAIN_STEP_DELAY_S): stretches each update so a test can kill the worker mid-step
    delay = float(os.environ.get(TEST_HOOK_STEP_DELAY_ENV) or 0)
    if delay > 0:
        activity.wait_for_cancelled_sync(delay)  # the keepalive thread heartbeats meanwhile


class _Keepalive:
    """Heartbeats the latest progress every HEARTBEAT_INTERVAL_S from a background thread.

    A long forward pass or ONNX export has no natural heartbeat point; this way a live worker
    always heartbeats, and the heartbeat timeout catches a dead worker quickly.
    """

    def __init__(self) -> None:
        self._details: dict[str, Any] = {"phase": "starting"}
        self._stop = threading.Event()
        # the activity context is a context variable: the thread needs a copy to heartbeat
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=context.run, args=(self._run,), name="trainOnBatch-keepalive", daemon=True
        )

    def __enter__(self) -> _Keepalive:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join()

    def beat(self, **details: Any) -> None:
        self._details = details
        activity.heartbeat(details)

    def _run(self) -> None:
        while not self._stop.wait(HEARTBEAT_INTERVAL_S):
            try:
                activity.heartbeat(self._details)
            except Exception as error:  # logged, not raised: the step itself decides the outcome
                activity.logger.warning("trainOnBatch keepalive heartbeat failed: %s", error)


def _unreadable(path: Path, error: Exception) -> ApplicationError:
    # retrying cannot repair a file that was renamed into place whole
    return ApplicationError(
        f"step: checkpoint {path} cannot be loaded: {error}", type=ErrorTypes.CHECKPOINT_UNREADABLE, non_retryable=True
    )
