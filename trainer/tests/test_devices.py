"""The trainer's device choice (AGENTRL_DEVICE): a GPU command finishes on a machine without one."""

import contextlib

import pytest
import torch
from agentrl_trainer import devices


@pytest.fixture(autouse=True)
def _fresh_warning(monkeypatch):
    monkeypatch.setattr(devices, "_warned", False)


@pytest.mark.skipif(torch.cuda.is_available(), reason="the fallback is the CPU's only where no CUDA device is present")
def test_cuda_asked_without_a_device_falls_back_to_the_cpu_and_says_so_once(monkeypatch, capsys):
    monkeypatch.setenv("AGENTRL_DEVICE", "cuda")
    assert devices.training_device() == torch.device("cpu")
    assert devices.training_device() == torch.device("cpu")
    err = capsys.readouterr().err
    assert err.count("no CUDA device is present: training on the CPU") == 1
    # float32 on the CPU: no autocast
    assert isinstance(devices.autocast(torch.device("cpu")), contextlib.nullcontext)


def test_cpu_and_auto(monkeypatch, capsys):
    monkeypatch.setenv("AGENTRL_DEVICE", "cpu")
    assert devices.training_device() == torch.device("cpu")
    monkeypatch.setenv("AGENTRL_DEVICE", "auto")
    assert devices.training_device().type == ("cuda" if torch.cuda.is_available() else "cpu")
    monkeypatch.delenv("AGENTRL_DEVICE")
    assert devices.training_device().type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert capsys.readouterr().err == ""


def test_an_unknown_device_is_refused_with_the_choices(monkeypatch):
    monkeypatch.setenv("AGENTRL_DEVICE", "tpu")
    with pytest.raises(ValueError, match="AGENTRL_DEVICE='tpu': expected one of auto, cpu, cuda"):
        devices.training_device()
