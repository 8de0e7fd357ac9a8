"""The training worker under a real Temporal dev server: a step end to end, and kill -9 in the middle of one.

The worker runs as a subprocess (`python -m agentrl_trainer.worker`); a test workflow, served by an
in-test worker on its own queue, calls `trainOnBatch` by name as the TypeScript workflow will.
"""

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from datetime import timedelta
from pathlib import Path

import onnxruntime
import pytest
import torch
from agentrl_trainer.checkpoints import checkpoint_path, load_checkpoint
from agentrl_trainer.contract import TASK_QUEUE
from agentrl_trainer.train_step import save_batch
from agentrl_trainer.training_activity import TEST_HOOK_STEP_DELAY_ENV, train_on_batch_activity
from temporalio import workflow
from temporalio.api.enums.v1 import EventType, TimeoutType
from temporalio.common import RetryPolicy
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

torch.set_num_threads(2)
TRAINER = Path(__file__).resolve().parents[1]
TEMPORAL = TRAINER.parent / ".venv" / "bin" / "temporal"
MODEL_CONFIG = {"vocabSize": 32, "context": 16, "dModel": 16, "nLayers": 1, "nHeads": 2}


@workflow.defn(name="trainOneStepForTest")
class TrainOneStepForTest:
    """Calls trainOnBatch once with the options the TypeScript workflow should use, scaled down."""

    @workflow.run
    async def run(self, args: dict) -> dict:
        return await workflow.execute_activity(
            "trainOnBatch",
            args["input"],
            task_queue=args["taskQueue"],
            start_to_close_timeout=timedelta(minutes=2),  # bounds one attempt, export included
            heartbeat_timeout=timedelta(seconds=5),  # the worker heartbeats every 2 s: a dead one is noticed in 5
            retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_attempts=3),
        )


class TrainingWorker:
    """`python -m agentrl_trainer.worker` as a subprocess, its output collected by a thread."""

    def __init__(self, address, task_queue=None, extra_env=None):
        command = [sys.executable, "-m", "agentrl_trainer.worker", "--address", address]
        if task_queue:
            command += ["--task-queue", task_queue]
        self.process = subprocess.Popen(
            command,
            cwd=TRAINER,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(extra_env or {})},
        )
        self.lines = []
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line)
            if line.startswith("training worker ready: queue "):
                self.ready.set()

    def output(self):
        return "".join(self.lines)

    async def wait_ready(self, timeout_s=60):
        if not await asyncio.to_thread(self.ready.wait, timeout_s):
            raise AssertionError(f"the worker did not get ready in {timeout_s} s:\n{self.output()}")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self):
        """SIGTERM, then the exit code (a clean shutdown exits 0)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=45)


def write_batch(path, seed):
    generator = torch.Generator().manual_seed(seed)
    B, T = 4, 12
    loss_mask = torch.zeros(B, T)
    loss_mask[:, 4:10] = 1
    save_batch(
        path,
        {
            "input_ids": torch.randint(0, 32, (B, T), generator=generator),
            "loss_mask": loss_mask,
            "advantages": torch.tensor([1.0, -1.0, 0.5, -0.5]),
            "behaviour_logprobs": -3.5 + 0.1 * torch.randn(B, T, generator=generator),
        },
    )
    return str(path)


def request(run_dir, step, batch_path):
    return {
        "runRef": f"file://{run_dir}",
        "stepId": f"iteration-{step:04d}",
        "step": step,
        "batchRef": f"file://{batch_path}",
        "seed": 11,
        "modelConfig": MODEL_CONFIG,
        "optimizer": {"lr": 1e-2},
        "temperature": 0.9,
    }


async def start_server():
    return await WorkflowEnvironment.start_local(dev_server_existing_path=str(TEMPORAL), ui=False)


async def wait_for_heartbeat(handle, predicate, timeout_s=60):
    """The first heartbeat of the workflow's pending activity that satisfies `predicate`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        description = await handle.describe()
        for pending in description.raw_description.pending_activities:
            for payload in pending.heartbeat_details.payloads:
                details = json.loads(payload.data)
                if predicate(details):
                    return details
        await asyncio.sleep(0.2)
    raise AssertionError(f"no matching heartbeat within {timeout_s} s")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def scrape(url: str) -> str:
    return urllib.request.urlopen(url, timeout=10).read().decode()


def test_a_step_through_the_worker_returns_a_policy_that_onnxruntime_loads(tmp_path):
    step_one = request(tmp_path / "run", 1, write_batch(tmp_path / "batch-1.safetensors", seed=1))
    sdk_port = free_port()

    async def scenario():
        async with await start_server() as server:
            worker = TrainingWorker(  # the contract's default queue; its metrics and the SDK's on ports of their own
                server.client.service_client.config.target_host,
                extra_env={"AGENTRL_TRAINER_METRICS_PORT": "0", "AGENTRL_TRAINER_SDK_METRICS_PORT": str(sdk_port)},
            )
            try:
                await worker.wait_ready()
                tests_queue = f"tests-{uuid.uuid4()}"
                async with Worker(
                    server.client,
                    task_queue=tests_queue,
                    workflows=[TrainOneStepForTest],
                    workflow_runner=UnsandboxedWorkflowRunner(),
                ):
                    result = await server.client.execute_workflow(
                        TrainOneStepForTest.run,
                        {"input": step_one, "taskQueue": TASK_QUEUE},
                        id=f"train-{uuid.uuid4()}",
                        task_queue=tests_queue,
                    )
                url = re.search(r"training worker metrics: (\S+)", worker.output()).group(1)
                return result, worker, scrape(url), scrape(f"http://127.0.0.1:{sdk_port}/metrics")
            finally:
                exit_code = worker.stop()
                assert exit_code == 0, worker.output()

    result, worker, metrics, sdk_metrics = asyncio.run(scenario())
    assert 'agentrl_trainer_steps_total{outcome="trained"} 1.0' in metrics
    assert "agentrl_trainer_step 1.0" in metrics
    assert re.search(r"^temporal_\w+", sdk_metrics, re.M), sdk_metrics[:500]
    assert (
        f"training worker ready: queue {TASK_QUEUE}" in worker.output() and "training worker stopped" in worker.output()
    )
    assert result["step"] == 1 and result["stepId"] == "iteration-0001" and result["device"] == "cpu"
    assert result["policyVersion"].endswith("-step-1") and result["metrics"]["updates"] == 1
    session = onnxruntime.InferenceSession(
        result["policyRef"].removeprefix("file://") + "/policy.onnx", providers=["CPUExecutionProvider"]
    )
    (logits,) = session.run(["logits"], {"input_ids": torch.zeros((2, 5), dtype=torch.int64).numpy()})
    assert logits.shape == (2, 5, 32)
    assert (
        json.loads((Path(result["policyRef"].removeprefix("file://")) / "policy.onnx.json").read_text())[
            "policyVersion"
        ]
        == result["policyVersion"]
    )


def test_kill_9_mid_step_then_a_restarted_worker_applies_the_step_exactly_once(tmp_path):
    run_dir = tmp_path / "run"
    ActivityEnvironment().run(
        train_on_batch_activity, request(run_dir, 1, write_batch(tmp_path / "batch-1.safetensors", seed=1))
    )
    step_two = request(run_dir, 2, write_batch(tmp_path / "batch-2.safetensors", seed=2))
    training_queue = f"training-{uuid.uuid4()}"

    async def scenario():
        async with await start_server() as server:
            address = server.client.service_client.config.target_host
            slow = TrainingWorker(
                address, training_queue, {TEST_HOOK_STEP_DELAY_ENV: "120"}
            )  # test hook: stall after the update
            await slow.wait_ready()
            tests_queue = f"tests-{uuid.uuid4()}"
            async with Worker(
                server.client,
                task_queue=tests_queue,
                workflows=[TrainOneStepForTest],
                workflow_runner=UnsandboxedWorkflowRunner(),
            ):
                handle = await server.client.start_workflow(
                    TrainOneStepForTest.run,
                    {"input": step_two, "taskQueue": training_queue},
                    id=f"train-{uuid.uuid4()}",
                    task_queue=tests_queue,
                )
                # the update is applied in the killed process's memory; nothing of step 2 is on disk yet
                await wait_for_heartbeat(
                    handle, lambda details: details.get("phase") == "training" and details.get("update") == 1
                )
                slow.kill()
                assert (
                    not checkpoint_path(run_dir, 2).exists()
                    and not (run_dir / "steps" / "iteration-0002.json").exists()
                )
                fresh = TrainingWorker(address, training_queue)
                try:
                    result = await handle.result()
                finally:
                    assert fresh.stop() == 0, fresh.output()
                return result, [event async for event in handle.fetch_history_events()]

    result, events = asyncio.run(scenario())
    started = [
        event.activity_task_started_event_attributes
        for event in events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]
    assert len(started) == 1 and started[0].attempt == 2  # attempt 1 died with the worker
    assert started[0].last_failure.timeout_failure_info.timeout_type == TimeoutType.TIMEOUT_TYPE_HEARTBEAT

    assert sorted(path.name for path in (run_dir / "steps").iterdir()) == ["iteration-0001.json", "iteration-0002.json"]
    assert json.loads((run_dir / "steps" / "iteration-0002.json").read_text())["result"] == result
    assert not [path for path in run_dir.rglob("*") if ".tmp-" in path.name]
    checkpoint = load_checkpoint(checkpoint_path(run_dir, 2))
    assert checkpoint["step"] == 2 and checkpoint["stepId"] == "iteration-0002"
    assert {int(state["step"]) for state in checkpoint["optimizer"]["state"].values()} == {2}  # one update per step

    # what a single uninterrupted run from the same checkpoint 1 and batch produces
    reference_dir = tmp_path / "reference"
    checkpoint_path(reference_dir, 1).parent.mkdir(parents=True)
    shutil.copy2(checkpoint_path(run_dir, 1), checkpoint_path(reference_dir, 1))
    reference = ActivityEnvironment().run(train_on_batch_activity, {**step_two, "runRef": f"file://{reference_dir}"})
    expected = load_checkpoint(reference["checkpointRef"].removeprefix("file://"))
    for name, value in expected["model"].items():
        torch.testing.assert_close(checkpoint["model"][name], value, rtol=0, atol=1e-6)
    flat = lambda metrics: {key: value for key, value in metrics.items() if isinstance(value, (int, float))}  # noqa: E731
    assert flat(reference["metrics"]) == pytest.approx(flat(result["metrics"]), rel=1e-5, abs=1e-6)
    assert reference["metrics"]["importanceWeight"] == pytest.approx(
        result["metrics"]["importanceWeight"], rel=1e-5, abs=1e-6
    )


def test_the_worker_reads_temporal_profiles_and_environment_as_the_sdk_defines_them(tmp_path, monkeypatch):
    from agentrl_trainer.worker import connect_config, parse_args

    profile = tmp_path / "temporal.toml"
    profile.write_text(
        '[profile.cloud]\naddress = "ns.acct.tmprl.cloud:7233"\nnamespace = "ns.acct"\napi_key = "secret-key"\n'
    )
    monkeypatch.setenv("TEMPORAL_CONFIG_FILE", str(profile))
    monkeypatch.setenv("TEMPORAL_PROFILE", "cloud")
    monkeypatch.delenv("TEMPORAL_ADDRESS", raising=False)
    monkeypatch.delenv("TEMPORAL_NAMESPACE", raising=False)
    args = parse_args([])
    assert (args.address, args.namespace) == ("ns.acct.tmprl.cloud:7233", "ns.acct")
    assert connect_config()["api_key"] == "secret-key" and connect_config()["tls"] is True
    monkeypatch.setenv("TEMPORAL_ADDRESS", "10.1.1.1:7233")  # the environment wins over the profile
    assert parse_args([]).address == "10.1.1.1:7233"
    assert parse_args(["--address", "h:1"]).address == "h:1"  # a flag wins over both
