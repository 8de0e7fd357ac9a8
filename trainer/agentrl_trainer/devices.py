"""The device the trainer runs on: `AGENTRL_DEVICE` (auto, cpu or cuda; default auto).

`auto` takes a CUDA device where there is one. `cuda` asks for one: without it the trainer says so once and runs on the
CPU, so a command written for a GPU machine still finishes elsewhere. On a CUDA device with bfloat16, a real model's
forward and backward passes run under bf16 autocast (the weights, the optimizer's state and the checkpoints stay
float32); the CPU computes in float32, which the training-inference mismatch bounds are measured with.
"""

from __future__ import annotations

import contextlib
import os
import sys

import torch

DEVICE_ENV = "AGENTRL_DEVICE"
_CHOICES = ("auto", "cpu", "cuda")
_warned = False


def wanted_device() -> str:
    """The device `AGENTRL_DEVICE` asks for; anything else than auto, cpu or cuda is refused."""
    wanted = os.environ.get(DEVICE_ENV, "auto").strip() or "auto"
    if wanted not in _CHOICES:
        raise ValueError(f"{DEVICE_ENV}={wanted!r}: expected one of {', '.join(_CHOICES)}")
    return wanted


def training_device() -> torch.device:
    """The device to train on, falling back to the CPU (with one warning) where a CUDA device is asked for but absent."""
    global _warned
    wanted = wanted_device()
    if wanted != "cpu" and torch.cuda.is_available():
        return torch.device("cuda")
    if wanted == "cuda" and not _warned:
        _warned = True
        print(f"{DEVICE_ENV}=cuda but no CUDA device is present: training on the CPU", file=sys.stderr, flush=True)
    return torch.device("cpu")


def autocast(device: torch.device) -> contextlib.AbstractContextManager:
    """bf16 autocast on a CUDA device that has bfloat16; no change elsewhere."""
    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()
