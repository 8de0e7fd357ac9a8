"""The trainer on an S3 store: the real S3-compatible server scripts/setup.sh starts (moto, 127.0.0.1:9000).

Steps read and write only through the bucket and the store cache: checkpoint and policy objects
appear in the bucket, a deleted cache is fetched again, the step record is written once (a second
attempt's record does not replace the first), and the run's lease keeps two attempts apart until
its holder stops renewing it.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
import uuid
from pathlib import Path

import boto3
import pytest
import torch
from agentrl_trainer import store as store_module
from agentrl_trainer.checkpoints import RunBusyError
from agentrl_trainer.metrics import serve as serve_metrics
from agentrl_trainer.store import RunStore, fetch_ref
from agentrl_trainer.training_activity import train_on_batch_activity
from prometheus_client import REGISTRY
from temporalio.testing import ActivityEnvironment
from test_training_activity import MODEL_CONFIG, write_batch

ENDPOINT = f"http://127.0.0.1:{os.environ.get('AGENTRL_S3_PORT', '9000')}"


@pytest.fixture(scope="module")
def bucket():
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "agentrl-test")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "agentrl-test")
    os.environ["AWS_ENDPOINT_URL"] = ENDPOINT
    name = f"agentrl-trainer-{uuid.uuid4().hex[:8]}"
    boto3.client("s3", endpoint_url=ENDPOINT, region_name="us-east-1").create_bucket(Bucket=name)
    return name


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "store-cache"
    monkeypatch.setenv("AGENTRL_STORE_CACHE", str(folder))
    return folder


def keys(bucket: str, prefix: str) -> list[str]:
    client = boto3.client("s3", endpoint_url=ENDPOINT, region_name="us-east-1")
    return sorted(item["Key"] for item in client.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", []))


def put_file(bucket: str, key: str, path: str | Path) -> str:
    boto3.client("s3", endpoint_url=ENDPOINT, region_name="us-east-1").upload_file(str(path), bucket, key)
    return f"s3://{bucket}/{key}"


def step_input(run_ref: str, step: int, batch_ref: str) -> dict:
    return {
        "runRef": run_ref,
        "stepId": f"iteration-{step:04d}",
        "step": step,
        "batchRef": batch_ref,
        "seed": 5,
        "modelConfig": MODEL_CONFIG,
        "optimizer": {"lr": 1e-2},
    }


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_two_steps_on_s3_with_the_cache_deleted_between_them(bucket, cache, tmp_path):
    trained, recorded = (
        sample("agentrl_trainer_steps_total", outcome="trained"),
        sample("agentrl_trainer_steps_total", outcome="recorded"),
    )
    put, got = (
        sample("agentrl_store_bytes_total", backend="s3", direction="put"),
        sample("agentrl_store_bytes_total", backend="s3", direction="get"),
    )
    prefix = f"runs/{uuid.uuid4().hex[:8]}"
    run_ref = f"s3://{bucket}/{prefix}"
    batch_ref = put_file(bucket, f"{prefix}/batches/b1.safetensors", write_batch(tmp_path / "b1.safetensors", seed=1))
    first = ActivityEnvironment().run(train_on_batch_activity, step_input(run_ref, 1, batch_ref))
    assert first["policyRef"] == f"{run_ref}/policies/v1"
    assert first["checkpointRef"] == f"{run_ref}/checkpoints/step-1.pt"
    assert f"{prefix}/checkpoints/step-1.pt" in keys(bucket, prefix)
    assert {f"{prefix}/policies/v1/policy.onnx", f"{prefix}/policies/v1/policy.onnx.json"} <= set(keys(bucket, prefix))
    record = json.loads(
        boto3.client("s3", endpoint_url=ENDPOINT, region_name="us-east-1")
        .get_object(Bucket=bucket, Key=f"{prefix}/steps/iteration-0001.json")["Body"]
        .read()
    )
    assert record["result"] == first and record["batchRef"] == batch_ref
    # the lease is released after the step
    assert f"{prefix}/.train.lock" not in keys(bucket, prefix)

    shutil.rmtree(cache)  # the cache may go at any time: step 2 fetches checkpoint 1 again
    batch2 = put_file(bucket, f"{prefix}/batches/b2.safetensors", write_batch(tmp_path / "b2.safetensors", seed=2))
    second = ActivityEnvironment().run(train_on_batch_activity, step_input(run_ref, 2, batch2))
    assert second["step"] == 2 and f"{prefix}/checkpoints/step-2.pt" in keys(bucket, prefix)
    assert (cache / bucket / prefix / "checkpoints" / "step-1.pt").is_file()

    # a retry of step 2 (its record exists) returns the recorded result and writes nothing
    before = keys(bucket, prefix)
    assert ActivityEnvironment().run(train_on_batch_activity, step_input(run_ref, 2, batch2)) == second
    assert keys(bucket, prefix) == before
    # the trainer's metrics: two steps trained, one answered from its record, bytes both ways through the store
    assert sample("agentrl_trainer_steps_total", outcome="trained") - trained == 2
    assert sample("agentrl_trainer_steps_total", outcome="recorded") - recorded == 1
    assert sample("agentrl_trainer_step") == 2
    assert sample("agentrl_store_bytes_total", backend="s3", direction="put") > put
    assert sample("agentrl_store_bytes_total", backend="s3", direction="get") > got
    port = serve_metrics(0)
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    assert 'agentrl_trainer_step_seconds_count{outcome="trained"}' in text
    # the exported policy is fetched whole from the bucket by any reader
    folder = fetch_ref(second["policyRef"])
    assert json.loads((folder / "policy.onnx.json").read_text())["policyVersion"] == second["policyVersion"]


def test_keep_checkpoints_removes_older_checkpoints_from_the_bucket_and_the_cache(bucket, cache, tmp_path):
    prefix = f"runs/{uuid.uuid4().hex[:8]}"
    run_ref = f"s3://{bucket}/{prefix}"
    for step in (1, 2, 3):
        batch = write_batch(tmp_path / f"b{step}.safetensors", seed=step)
        batch_ref = put_file(bucket, f"{prefix}/batches/b{step}.safetensors", batch)
        payload = {**step_input(run_ref, step, batch_ref), "keepCheckpoints": 1}
        ActivityEnvironment().run(train_on_batch_activity, payload)
    stored = keys(bucket, prefix)
    assert [key for key in stored if "/checkpoints/" in key] == [f"{prefix}/checkpoints/step-3.pt"]
    assert {f"{prefix}/policies/v{step}/policy.onnx" for step in (1, 2, 3)} <= set(stored)
    assert sorted(path.name for path in (cache / bucket / prefix / "checkpoints").iterdir()) == ["step-3.pt"]
    assert RunStore(run_ref).checkpoint_steps() == [3]


def test_a_second_record_of_one_step_does_not_replace_the_first(bucket, cache):
    run = RunStore(f"s3://{bucket}/runs/{uuid.uuid4().hex[:8]}")
    first = run.write_record("s-1", {"step": 1, "result": {"who": "first"}})
    standing = run.write_record("s-1", {"step": 1, "result": {"who": "second"}})
    assert first["result"] == {"who": "first"} and standing["result"] == {"who": "first"}
    assert run.read_record("s-1")["result"] == {"who": "first"}


def test_the_lease_keeps_a_second_attempt_out_until_it_expires(bucket, cache, monkeypatch):
    ref = f"s3://{bucket}/runs/{uuid.uuid4().hex[:8]}"
    with RunStore(ref).lock():
        with pytest.raises(RunBusyError, match="held by"):
            with RunStore(ref).lock():
                pass
    with RunStore(ref).lock():  # released: taken again at once
        pass
    # a holder that died leaves its lease; once it has expired, another attempt takes it over
    monkeypatch.setattr(store_module, "LEASE_SECONDS", 1.0)
    dead = store_module._Lease(store_module._S3Objects(bucket), f"{ref.split('/', 3)[3]}/.train.lock")
    assert dead._put(IfNoneMatch="*")  # taken, never renewed, never released
    with pytest.raises(RunBusyError):
        with RunStore(ref).lock():
            pass
    import time

    time.sleep(1.3)
    with RunStore(ref).lock():
        pass


def test_a_missing_batch_is_named(bucket, cache):
    run_ref = f"s3://{bucket}/runs/{uuid.uuid4().hex[:8]}"
    with pytest.raises(Exception, match=r"batchRef: s3://.*/batches/none\.safetensors does not exist"):
        ActivityEnvironment().run(
            train_on_batch_activity, step_input(run_ref, 1, f"{run_ref}/batches/none.safetensors")
        )


def test_the_cache_keeps_within_its_bound_and_the_run_in_training_stays(bucket, cache, monkeypatch):
    old = cache / bucket / "runs" / "old" / "checkpoints" / "step-1.pt"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"x" * 300_000)
    os.utime(old, (1, 1))  # least recently used
    monkeypatch.setenv("AGENTRL_STORE_CACHE_MB", "0.2")
    run = RunStore(f"s3://{bucket}/runs/{uuid.uuid4().hex[:8]}")
    (run.local / "policies" / "v0").mkdir(parents=True)
    (run.local / "policies" / "v0" / "policy.onnx").write_bytes(b"y" * 250_000)
    run.publish("policies/v0")
    assert not old.exists(), "the least recently used file went"
    assert (run.local / "policies" / "v0" / "policy.onnx").exists(), "the run in training stays, even over the bound"


def test_the_staleness_of_a_batch_s_trained_tokens_is_a_gauge():
    from agentrl_trainer.train_step import check_staleness

    batch = {
        "policy_versions": torch.tensor([[3, 3, 1, -1], [2, 2, 2, 2]]),
        "loss_mask": torch.tensor([[1, 1, 1, 1], [0, 1, 1, 0]]),
    }
    check_staleness(batch, base_version=3, max_staleness=None)
    # trained tokens of known version: 3, 3, 1 and 2, 2 -> 0, 0, 2, 1, 1 versions behind version 3
    assert sample("agentrl_trainer_batch_staleness", stat="max") == 2
    assert sample("agentrl_trainer_batch_staleness", stat="mean") == pytest.approx(0.8)
