"""Prometheus metrics of the trainer worker (prometheus_client), served when a port is given
(`--metrics-port` or AGENTRL_TRAINER_METRICS_PORT; 0 picks a free one) at http://127.0.0.1:PORT/metrics.

    agentrl_trainer_step_seconds{outcome}       wall time of trainOnBatch calls: trained, recorded (a retry
                                                answered from the step record), failed
    agentrl_trainer_steps_total{outcome}        the same, counted
    agentrl_trainer_trained_tokens_total        loss-mask tokens of the steps trained
    agentrl_trainer_step                        the last step trained
    agentrl_trainer_loss, _grad_norm, _kl       the last step's figures
    agentrl_store_bytes_total{backend,direction} bytes the trainer moved through the store (s3: fetched, uploaded)
    agentrl_trainer_batch_staleness{stat}       the last batch's trained tokens: versions behind the weights the
                                                step starts from (max, mean; batches that record token versions)

`--sdk-metrics-port` (AGENTRL_TRAINER_SDK_METRICS_PORT) also serves the Temporal SDK's own runtime metrics
(`temporal_*`) through its telemetry options, on a port of their own.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, start_http_server

STEP_SECONDS = Histogram(
    "agentrl_trainer_step_seconds",
    "Wall time of trainOnBatch calls, by outcome (trained, recorded, failed)",
    ["outcome"],
    buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800),
)
STEPS = Counter("agentrl_trainer_steps", "trainOnBatch calls, by outcome", ["outcome"])
TRAINED_TOKENS = Counter("agentrl_trainer_trained_tokens", "Loss-mask tokens of the steps trained")
LAST_STEP = Gauge("agentrl_trainer_step", "The last step trained")
LOSS = Gauge("agentrl_trainer_loss", "The last step's loss")
GRAD_NORM = Gauge("agentrl_trainer_grad_norm", "The last step's gradient norm")
KL = Gauge("agentrl_trainer_kl", "The last step's KL to the sampling policy (k3)")
STORE_BYTES = Counter("agentrl_store_bytes", "Bytes moved through the artifact store", ["backend", "direction"])
BATCH_STALENESS = Gauge(
    "agentrl_trainer_batch_staleness",
    "The last batch's trained tokens: versions behind the weights the step starts from",
    ["stat"],
)


def serve(port: int) -> int:
    """Serves the metrics on 127.0.0.1:port (0: a free port); returns the port bound."""
    server, _ = start_http_server(port, addr="127.0.0.1")
    return server.server_port


def record_step(outcome: str, seconds: float, result: dict | None = None) -> None:
    STEP_SECONDS.labels(outcome).observe(seconds)
    STEPS.labels(outcome).inc()
    if outcome == "trained" and result is not None:
        metrics = result.get("metrics", {})
        TRAINED_TOKENS.inc(float(metrics.get("maskedTokens", 0)))
        LAST_STEP.set(result["step"])
        LOSS.set(float(metrics.get("loss", 0)))
        GRAD_NORM.set(float(metrics.get("gradNorm", 0)))
        KL.set(float(metrics.get("klK3", 0)))
