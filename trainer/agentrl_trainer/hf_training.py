"""One training step of a Hugging Face causal LM of shared/models.json, applied exactly once per
step id: the same losses, masks, aggregations and mismatch measurement as the toy model's
(train_step.train_on_batch through hf_models.CausalLmPolicy).

  step 1 starts from the model's prepared weights; step N from checkpoint N-1
  checkpoints/step-N/   the weights in the Hugging Face layout (loadable by `from_pretrained`),
                        optimizer.pt (optimizer state and RNG) beside them
  policies/vN/          the ONNX folder the embedded server loads: the graph exported once, the
                        weights of step N written in its layout (hf_models.write_onnx_weights)
  steps/<stepId>.json   written last: a call whose record exists returns it without training

It runs on a GPU when one is present (CUDA), else on the CPU, in float32.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path
from typing import Any

import torch

from . import devices, hf_models
from .checkpoints import read_step_record, run_lock, write_step_record
from .credit import VALUE_HEAD_FILE, restore_critic
from .store import file_ref
from .train_step import load_batch, result_metrics, train_on_batch
from .training_input import TrainOnBatchInput


def hf_checkpoint_dir(run_dir: str | os.PathLike[str], step: int) -> Path:
    return Path(run_dir) / "checkpoints" / f"step-{step}"


def hf_policy_dir(run_dir: str | os.PathLike[str], step: int) -> Path:
    return Path(run_dir) / "policies" / f"v{step}"


# a checkpoint's critic (value head and its optimizer), beside the model's weights
CRITIC_FILE = "critic.pt"


def train_hf_step(
    request: TrainOnBatchInput, *, run_dir: str, batch_path: str, policy_version: str, locked: bool = False
) -> dict[str, Any]:
    """Step `request.step` of the model `request.model` on the batch at `batch_path`, under the request's settings
    (its optimizer, step config, KL reference and critic), recorded in `run_dir` as `policy_version`. `locked`: the
    caller holds the run's lock already (the trainOnBatch activity). A KL coefficient pulls the policy toward
    checkpoint `request.reference_step` (a warm start's; 0: none), as the toy model's steps do."""
    step, step_id, model_name, config = request.step, request.step_id, request.model, request.config
    if model_name is None:
        raise ValueError("model: a Hugging Face step needs the model's name")
    lr, weight_decay = request.optimizer.lr, request.optimizer.weight_decay
    recorded = read_step_record(run_dir, step_id)
    if recorded is not None:
        return recorded["result"]
    started = time.monotonic()
    hf_models.known_model(model_name)
    device = devices.training_device()
    with contextlib.nullcontext() if locked else run_lock(run_dir):
        previous = hf_checkpoint_dir(run_dir, step - 1)
        if step > 1 and not (previous / "model.safetensors").is_file():
            raise ValueError(f"step {step} needs the checkpoint of step {step - 1}, but {previous} holds none")
        inner = hf_models.load_model(previous if step > 1 else hf_models.weights_dir(model_name)).to(device)
        policy = hf_models.CausalLmPolicy(inner)
        optimizer = torch.optim.AdamW(policy.parameters(), lr=lr, weight_decay=weight_decay)
        if step > 1:
            saved = torch.load(previous / "optimizer.pt", map_location=device, weights_only=False)
            optimizer.load_state_dict(saved["optimizer"])
            for group in optimizer.param_groups:  # this step's settings win over the saved ones (a warm start's lr)
                group["lr"], group["weight_decay"] = lr, weight_decay
            torch.set_rng_state(saved["rng"])
        else:
            torch.manual_seed(request.seed)
        reference = None
        reference_step = request.reference_step
        if config.loss.kl_coef > 0 and config.objective == "policy_gradient":
            if reference_step is None:
                raise ValueError(
                    "referenceStep is required when klCoef > 0 (the checkpoint the policy is pulled toward)"
                )
            anchor = (
                hf_checkpoint_dir(run_dir, reference_step) if reference_step > 0 else hf_models.weights_dir(model_name)
            )
            if not (anchor / "model.safetensors").is_file():
                raise ValueError(f"referenceStep: {reference_step} has no checkpoint at {anchor}")
            reference = hf_models.CausalLmPolicy(hf_models.load_model(anchor).to(device))
            reference.requires_grad_(False)
            reference.eval()
        # the critic: a value head on the model's hidden states, kept beside checkpoint N-1's weights
        saved_critic = previous / CRITIC_FILE
        value_critic = (
            restore_critic(
                policy,
                request.critic,
                torch.load(saved_critic, map_location=device, weights_only=False)
                if step > 1 and saved_critic.is_file()
                else None,
                lr,
                device,
            )
            if request.critic is not None
            else None
        )
        tensors, _ = load_batch(batch_path)
        batch = {key: value.to(device) for key, value in tensors.items()}
        with devices.autocast(device):
            metrics = train_on_batch(
                policy, optimizer, batch, config, reference=reference, base_version=step - 1, critic=value_critic
            )
        checkpoint = hf_checkpoint_dir(run_dir, step)
        staging = checkpoint.with_name(f".{checkpoint.name}.staging")
        shutil.rmtree(staging, ignore_errors=True)
        inner.save_pretrained(staging)
        torch.save(
            {
                "optimizer": optimizer.state_dict(),
                "rng": torch.get_rng_state(),
                "step": step,
                "policyVersion": policy_version,
            },
            staging / "optimizer.pt",
        )
        if value_critic is not None:
            torch.save(value_critic.state(), staging / CRITIC_FILE)
        shutil.rmtree(checkpoint, ignore_errors=True)
        staging.rename(checkpoint)
        exported = hf_models.write_onnx_weights(
            hf_models.onnx_dir(model_name), inner.state_dict(), hf_policy_dir(run_dir, step)
        )
        if value_critic is not None:
            # published beside the policy (its server does not serve it)
            torch.save(value_critic.state()["head"], Path(exported) / VALUE_HEAD_FILE)
        result = {
            "stepId": step_id,
            "step": step,
            "policyVersion": policy_version,
            "policyRef": file_ref(exported),
            "checkpointRef": file_ref(checkpoint),
            "metrics": result_metrics(metrics, config.off_policy.mode),
            "device": device.type,
            "durationMs": round((time.monotonic() - started) * 1000),
        }
        write_step_record(
            run_dir, step_id, {"stepId": step_id, "step": step, "batchRef": file_ref(batch_path), "result": result}
        )
        return result
