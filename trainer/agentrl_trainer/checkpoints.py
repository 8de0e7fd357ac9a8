"""The run folder: checkpoints, exported policies and step records, every file written atomically.

    <runDir>/checkpoints/step-<N>.pt        model, optimizer, config, step, policy version, RNG states
    <runDir>/policies/v<N>/policy.onnx      the policy after step N, plus policy.onnx.json (export.py's sidecar)
    <runDir>/steps/<stepId>.json            completion record of one step, written last
    <runDir>/.train.lock                    held (flock) while a step runs, so two attempts never interleave

A step is complete exactly when its record exists. A worker killed at any point before that
leaves checkpoint N-1 untouched (nothing renames over it), so a retry starts again from N-1.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch

from .export import export_onnx
from .model import PolicyModel

CHECKPOINT_FORMAT_VERSION = 1
STEP_RECORD_FORMAT_VERSION = 1
POLICY_FILE = "policy.onnx"
_CHECKPOINT_NAME = re.compile(r"^step-(\d+)\.pt$")


class RunBusyError(Exception):
    """Another process holds the run's lock: a step of this run is in progress elsewhere."""


def checkpoint_path(run_dir: str | os.PathLike[str], step: int) -> Path:
    """`<runDir>/checkpoints/step-<N>.pt`."""
    return Path(run_dir) / "checkpoints" / f"step-{step}.pt"


def policy_path(run_dir: str | os.PathLike[str], step: int) -> Path:
    """`<runDir>/policies/v<N>/policy.onnx`."""
    return Path(run_dir) / "policies" / f"v{step}" / POLICY_FILE


def step_record_path(run_dir: str | os.PathLike[str], step_id: str) -> Path:
    """`<runDir>/steps/<stepId>.json`."""
    return Path(run_dir) / "steps" / f"{step_id}.json"


def latest_checkpoint(run_dir: str | os.PathLike[str]) -> tuple[int, Path] | None:
    """(N, path) of the highest-numbered `step-<N>.pt`, or None when the run has no checkpoint."""
    folder = Path(run_dir) / "checkpoints"
    if not folder.is_dir():
        return None
    steps = [int(match.group(1)) for name in os.listdir(folder) if (match := _CHECKPOINT_NAME.match(name))]
    if not steps:
        return None
    step = max(steps)
    return step, checkpoint_path(run_dir, step)


def save_checkpoint(run_dir: str | os.PathLike[str], step: int, payload: dict[str, Any]) -> Path:
    """Writes checkpoint N atomically: a reader sees the old file, no file, or the whole new one."""
    path = checkpoint_path(run_dir, step)
    _write_atomically(
        path, lambda temporary: torch.save({"formatVersion": CHECKPOINT_FORMAT_VERSION, **payload}, temporary)
    )
    return path


def load_checkpoint(
    path: str | os.PathLike[str], map_location: str | torch.device = "cpu", *, mmap: bool = False
) -> dict[str, Any]:
    """Reads a checkpoint with the safe unpickler; `mmap=True` reads tensors lazily (cheap metadata look-ups)."""
    return torch.load(os.fspath(path), map_location=map_location, weights_only=True, mmap=mmap)


def export_policy(model: PolicyModel, run_dir: str | os.PathLike[str], step: int) -> Path:
    """Exports `model` to `policies/v<N>/` through a temporary folder renamed into place; returns the ONNX path.

    Its version is `<run folder name>-step-<N>`: unique per run and step, also when an update was
    skipped and the weights equal the previous step's.

    A folder left by an attempt that died is replaced: no one has seen it, since a policy is
    announced only by the step record written after it.
    """
    final = policy_path(run_dir, step).parent
    final.parent.mkdir(parents=True, exist_ok=True)
    temporary = final.with_name(f".{final.name}.tmp-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir()
    try:
        export_onnx(model, temporary / POLICY_FILE, policy_version=f"{Path(run_dir).name}-step-{step}")
        for name in os.listdir(temporary):
            _fsync_file(temporary / name)
        if final.exists():
            shutil.rmtree(final)
        os.replace(temporary, final)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)  # gone already unless something failed
    _fsync_directory(final.parent)
    return final / POLICY_FILE


def read_step_record(run_dir: str | os.PathLike[str], step_id: str) -> dict[str, Any] | None:
    """The record of `stepId`, or None when that step has not completed."""
    path = step_record_path(run_dir, step_id)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None


def write_step_record(run_dir: str | os.PathLike[str], step_id: str, record: dict[str, Any]) -> Path:
    """Writes the record atomically; from this moment the step counts as done."""
    path = step_record_path(run_dir, step_id)
    text = json.dumps({"formatVersion": STEP_RECORD_FORMAT_VERSION, **record}, indent=1) + "\n"
    _write_atomically(path, lambda temporary: Path(temporary).write_text(text))
    return path


@contextmanager
def run_lock(run_dir: str | os.PathLike[str]) -> Iterator[None]:
    """Holds `<runDir>/.train.lock` exclusively or raises RunBusyError at once.

    flock is released by the kernel when its holder dies, so a kill -9 never leaves it stuck. It
    matters when an attempt the server has given up on (heartbeat timeout) is still running.
    """
    path = Path(run_dir) / ".train.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise RunBusyError(f"{path} is held by another process: a step of this run is in progress") from error
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _write_atomically(path: Path, write: Callable[[str], Any]) -> None:
    # temp file in the same folder, fsync, rename: never a half-written file under the final name
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write(os.fspath(temporary))
        _fsync_file(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    _fsync_directory(path.parent)


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _fsync_directory(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
