"""Temporal worker that serves `trainOnBatch` and `initPolicy` on the training task queue, one step at a time.

    python -m agentrl_trainer.worker [--address 127.0.0.1:7233] [--namespace default] [--task-queue
    agentrl-episodes-training]

Flags win over the environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE), which wins over the defaults.
Prints "training worker ready: queue <queue>" once polling; SIGINT or SIGTERM stop it cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.envconfig import ClientConfig
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.worker import Worker

from . import devices
from .init_policy import init_policy_activity
from .metrics import serve as serve_metrics
from .training_activity import TASK_QUEUE, train_on_batch_activity

DEFAULT_ADDRESS = "127.0.0.1:7233"
DEFAULT_NAMESPACE = "default"
# a step being trained when the stop signal comes aborts at its next minibatch (WorkerShutdown,
# retried from checkpoint N-1); this bounds the wait for one still exporting or saving
GRACEFUL_SHUTDOWN = timedelta(seconds=30)
# the SDK would otherwise send heartbeats only every 0.8 x heartbeatTimeout, leaving a late one 20% of
# slack; at most 1 s apart (the activity beats every 2 s) a short timeout stays safe under load
MAX_HEARTBEAT_THROTTLE = timedelta(seconds=1)


def connect_config() -> dict[str, Any]:
    """The SDK's environment configuration (temporalio.envconfig): a profile of TEMPORAL_CONFIG_FILE or
    ~/.config/temporalio/temporal.toml chosen by TEMPORAL_PROFILE, with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
    TEMPORAL_API_KEY, TEMPORAL_TLS* over it: address, namespace, TLS and API key, as the TypeScript side reads them."""
    return dict(ClientConfig.load_client_connect_config())


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; the SDK's environment configuration (connect_config) gives the defaults."""
    profile = connect_config()
    parser = argparse.ArgumentParser(prog="python -m agentrl_trainer.worker", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--address",
        default=profile.get("target_host") or DEFAULT_ADDRESS,
        help="Temporal frontend host:port (env TEMPORAL_ADDRESS or the profile; default %(default)s)",
    )
    parser.add_argument(
        "--namespace",
        default=profile.get("namespace") or DEFAULT_NAMESPACE,
        help="Temporal namespace (env TEMPORAL_NAMESPACE or the profile; default %(default)s)",
    )
    parser.add_argument("--task-queue", default=TASK_QUEUE, help="task queue to serve (default %(default)s)")
    port = os.environ.get("AGENTRL_TRAINER_METRICS_PORT")
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(port) if port else None,
        help="serve Prometheus metrics on 127.0.0.1:PORT/metrics, 0 for a free port (env AGENTRL_TRAINER_METRICS_PORT)",
    )
    sdk_port = os.environ.get("AGENTRL_TRAINER_SDK_METRICS_PORT")
    parser.add_argument(
        "--sdk-metrics-port",
        type=int,
        default=int(sdk_port) if sdk_port else None,
        help="serve the Temporal SDK's runtime metrics on 127.0.0.1:PORT/metrics (env AGENTRL_TRAINER_SDK_METRICS_PORT)",
    )
    return parser.parse_args(argv)


async def run_worker(address: str, namespace: str, task_queue: str, sdk_metrics_port: int | None = None) -> None:
    """Polls until SIGINT/SIGTERM, then lets the worker shut down (see GRACEFUL_SHUTDOWN)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    # TLS, API key and gRPC metadata from the profile and environment; address and namespace as given
    extra = {key: value for key, value in connect_config().items() if key not in ("target_host", "namespace")}
    if sdk_metrics_port is not None:
        # the SDK's own runtime metrics (task slots, polls, schedule-to-start latencies) through its telemetry options
        extra["runtime"] = Runtime(
            telemetry=TelemetryConfig(metrics=PrometheusConfig(bind_address=f"127.0.0.1:{sdk_metrics_port}"))
        )
    client = await Client.connect(address, namespace=namespace, **extra)
    # one thread and one slot: training steps of a run are sequential and each wants the whole device
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="trainOnBatch") as executor:
        worker = Worker(
            client,
            task_queue=task_queue,
            activities=[train_on_batch_activity, init_policy_activity],
            activity_executor=executor,
            max_concurrent_activities=1,
            graceful_shutdown_timeout=GRACEFUL_SHUTDOWN,
            max_heartbeat_throttle_interval=MAX_HEARTBEAT_THROTTLE,
            default_heartbeat_throttle_interval=MAX_HEARTBEAT_THROTTLE,
        )
        async with worker:
            device = devices.training_device().type
            print(
                f"training worker ready: queue {task_queue} (namespace {namespace}, {address}, device {device})",
                flush=True,
            )
            await stop.wait()
            print("training worker stopping", flush=True)
    print("training worker stopped", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse, run, exit non-zero on error."""
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for chatty in ("onnxscript", "onnx_ir"):  # the ONNX exporter logs each graph rewrite at INFO
        logging.getLogger(chatty).setLevel(logging.WARNING)
    try:
        if args.metrics_port is not None:
            print(f"training worker metrics: http://127.0.0.1:{serve_metrics(args.metrics_port)}/metrics", flush=True)
        asyncio.run(run_worker(args.address, args.namespace, args.task_queue, args.sdk_metrics_port))
    except Exception as error:
        print(f"training worker failed: {error}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    code = main()
    # past a clean stop, the interpreter's finalisation can still abort in a native thread (torch, the
    # Temporal core): the work is done and flushed, so leave without it
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
