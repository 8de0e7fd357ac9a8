"""Policy model, log-prob transform, constraint mask, and PyTorch vs onnxruntime agreement."""

import json

import numpy as np
import onnxruntime
import pytest
import torch
from agentrl_trainer.export import export_onnx, sidecar_path
from agentrl_trainer.model import PolicyModel, PolicyModelConfig, apply_constraint_mask, token_logprobs

torch.set_num_threads(2)
TEMPERATURE = 0.7


def make_model(seed=0, **config):
    torch.manual_seed(seed)
    return PolicyModel(PolicyModelConfig(**config)).eval()


@pytest.fixture(scope="module", params=[False, True], ids=["learned-positions", "alibi"])
def exported(request, tmp_path_factory):
    model = make_model(alibi=request.param)
    path = export_onnx(model, tmp_path_factory.mktemp("onnx") / "policy.onnx")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 2
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return model, path, session


def numpy_logprobs(logits, targets, temperature):
    """Independent float64 log_softmax(logits / temperature) gathered at targets."""
    scaled = logits.astype(np.float64) / temperature  # (B, T, V)
    scaled -= scaled.max(axis=-1, keepdims=True)
    logp = scaled - np.log(np.exp(scaled).sum(axis=-1, keepdims=True))  # (B, T, V)
    return np.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]  # (B, T)


@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("length", [1, 17, 200, 256])
def test_onnx_logprobs_match_pytorch(exported, batch, length):
    model, _, session = exported
    generator = torch.Generator().manual_seed(batch * 1000 + length)
    input_ids = torch.randint(0, model.config.vocab_size, (batch, length), generator=generator)  # (B, T)
    targets = torch.randint(0, model.config.vocab_size, (batch, length), generator=generator)  # (B, T)
    with torch.no_grad():
        torch_logprobs = token_logprobs(model(input_ids), targets, TEMPERATURE).numpy()  # (B, T)
    (onnx_logits,) = session.run(["logits"], {"input_ids": input_ids.numpy()})
    assert onnx_logits.dtype == np.float32 and onnx_logits.shape == (batch, length, model.config.vocab_size)
    onnx_logprobs = numpy_logprobs(onnx_logits, targets.numpy(), TEMPERATURE)
    assert np.abs(torch_logprobs - onnx_logprobs).max() < 1e-4


def test_onnx_graph_and_sidecar(exported):
    model, path, session = exported
    (graph_input,) = session.get_inputs()
    (graph_output,) = session.get_outputs()
    assert (graph_input.name, graph_input.type, graph_input.shape) == (
        "input_ids",
        "tensor(int64)",
        ["batch", "sequence"],
    )
    assert (graph_output.name, graph_output.type) == ("logits", "tensor(float)")
    assert graph_output.shape[2] == model.config.vocab_size
    assert not path.with_name(path.name + ".data").exists()  # weights are inside the one file
    sidecar = json.loads(sidecar_path(path).read_text())
    assert sidecar["formatVersion"] == 1
    assert sidecar["policyVersion"].startswith("onnx-") and sidecar["sha256"].startswith(sidecar["policyVersion"][5:])
    assert sidecar["config"] == {
        "vocab_size": 512,
        "context": 256,
        "d_model": 64,
        "n_layers": 2,
        "n_heads": 4,
        "dropout": 0.0,
        "alibi": model.config.alibi,
    }
    # the file is the weights plus a small graph: no (context x context) constant is baked in
    weight_bytes = sum(parameter.numel() * 4 for parameter in model.parameters())
    assert path.stat().st_size < weight_bytes + 100_000, (path.stat().st_size, weight_bytes)


@pytest.mark.parametrize("alibi", [False, True], ids=["learned-positions", "alibi"])
def test_an_export_after_new_weights_reuses_the_trace_and_equals_a_fresh_one(tmp_path, alibi):
    from agentrl_trainer import export

    model = make_model(seed=3, vocab_size=64, context=32, d_model=16, n_layers=2, n_heads=2, alibi=alibi)
    export_onnx(model, tmp_path / "before.onnx")
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    traces = []
    original = export._trace
    try:
        export._trace = lambda *args: (traces.append(args), original(*args))[1]
        export_onnx(model, tmp_path / "after.onnx")
        assert traces == []  # the graph of the first export, new weights written in
        export._traced.clear()
        export_onnx(model, tmp_path / "fresh.onnx")
        assert len(traces) == 1
    finally:
        export._trace = original
    after, fresh = (tmp_path / "after.onnx").read_bytes(), (tmp_path / "fresh.onnx").read_bytes()
    assert after == fresh and after != (tmp_path / "before.onnx").read_bytes()
    assert (
        json.loads(sidecar_path(tmp_path / "after.onnx").read_text())["sha256"]
        == json.loads(sidecar_path(tmp_path / "fresh.onnx").read_text())["sha256"]
    )
    # onnxruntime on the reused graph computes the new weights' log-probs
    input_ids = torch.randint(0, 64, (2, 20), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        expected = token_logprobs(model(input_ids[:, :-1]), input_ids[:, 1:], TEMPERATURE).numpy()
    session = onnxruntime.InferenceSession(str(tmp_path / "after.onnx"), providers=["CPUExecutionProvider"])
    (logits,) = session.run(["logits"], {"input_ids": input_ids[:, :-1].numpy()})
    assert np.abs(numpy_logprobs(logits, input_ids[:, 1:].numpy(), TEMPERATURE) - expected).max() < 1e-4
    # another config is traced on its own, never written into this graph
    other = make_model(seed=3, vocab_size=64, context=32, d_model=16, n_layers=1, n_heads=2, alibi=alibi)
    export_onnx(other, tmp_path / "other.onnx")
    (other_logits,) = onnxruntime.InferenceSession(
        str(tmp_path / "other.onnx"), providers=["CPUExecutionProvider"]
    ).run(["logits"], {"input_ids": input_ids[:, :-1].numpy()})
    with torch.no_grad():
        assert np.abs(other_logits - other(input_ids[:, :-1]).numpy()).max() < 1e-4


def test_export_restores_training_mode(tmp_path):
    model = make_model(vocab_size=32, context=16, d_model=16, n_layers=1, n_heads=2).train()
    export_onnx(model, tmp_path / "small.onnx", policy_version="v7")
    assert model.training
    assert json.loads(sidecar_path(tmp_path / "small.onnx").read_text())["policyVersion"] == "v7"


def test_forward_shape_and_causality():
    model = make_model()
    input_ids = torch.randint(0, 512, (2, 10))
    changed = input_ids.clone()
    changed[:, 6:] = (changed[:, 6:] + 1) % 512
    with torch.no_grad():
        logits, logits_changed = model(input_ids), model(changed)
    assert logits.shape == (2, 10, 512) and logits.dtype == torch.float32
    assert torch.equal(logits[:, :6], logits_changed[:, :6])  # positions < 6 cannot see the change
    assert not torch.equal(logits[:, 6:], logits_changed[:, 6:])


def test_alibi_is_causal_and_favours_recent_tokens():
    from agentrl_trainer.model import alibi_bias, alibi_slopes

    bias = alibi_bias(alibi_slopes(4), 6)[0]  # (H, T, T)
    assert torch.isinf(bias[:, 2, 3:]).all() and bias[:, 3, 3].eq(0).all()
    assert torch.allclose(bias[:, 5, 2], -3 * torch.tensor([1 / 4, 1 / 16, 1 / 64, 1 / 256]))
    model = make_model(vocab_size=64, context=32, alibi=True)
    input_ids = torch.randint(0, 64, (2, 20), generator=torch.Generator().manual_seed(1))
    changed = input_ids.clone()
    changed[:, 12:] = (changed[:, 12:] + 1) % 64
    with torch.no_grad():
        assert torch.equal(model(input_ids)[:, :12], model(changed)[:, :12])


def test_head_is_tied_to_embedding_and_context_is_enforced():
    model = make_model()
    names = [name for name, _ in model.named_parameters()]
    assert not any("head" in name for name in names)  # the only vocabulary matrix is the embedding
    with pytest.raises(ValueError, match="sequence length 257 exceeds the model context 256"):
        model(torch.zeros((1, 257), dtype=torch.int64))
    with pytest.raises(ValueError, match="d_model .* divisible by n_heads"):
        PolicyModelConfig(d_model=10, n_heads=4)


def test_token_logprobs_is_temperature_scaled_log_softmax():
    torch.manual_seed(1)
    logits = torch.randn(2, 5, 11)  # (B, T, V)
    targets = torch.randint(0, 11, (2, 5))  # (B, T)
    expected = torch.log_softmax(logits / 0.5, dim=-1).gather(-1, targets[..., None])[..., 0]
    assert torch.allclose(token_logprobs(logits, targets, 0.5), expected, atol=1e-6)
    all_tokens = torch.stack([token_logprobs(logits, torch.full_like(targets, v), 0.5) for v in range(11)], -1)
    assert torch.allclose(all_tokens.exp().sum(-1), torch.ones(2, 5), atol=1e-5)
    with pytest.raises(ValueError, match="temperature must be > 0"):
        token_logprobs(logits, targets, 0.0)


def test_constraint_mask():
    torch.manual_seed(2)
    logits = torch.randn(2, 3, 7)  # (B, T, V)
    assert torch.equal(apply_constraint_mask(logits, torch.ones(7, dtype=torch.bool)), logits)
    allowed = torch.zeros(2, 3, 7, dtype=torch.bool)
    allowed[..., [1, 4]] = True
    masked = apply_constraint_mask(logits, allowed)
    assert torch.isneginf(masked[..., [0, 2, 3, 5, 6]]).all()
    assert torch.equal(masked[..., [1, 4]], logits[..., [1, 4]])
    # the constrained distribution renormalises over the allowed tokens, at any temperature
    targets = torch.full((2, 3), 4)
    expected = torch.log_softmax(logits[..., [1, 4]] / 0.7, dim=-1)[..., 1]
    assert torch.allclose(token_logprobs(masked, targets, 0.7), expected, atol=1e-6)
    with pytest.raises(ValueError, match="allowed_mask must be bool"):
        apply_constraint_mask(logits, torch.ones(7))


@pytest.mark.parametrize("alibi", [False, True])
def test_fused_attention_matches_the_plain_ops_of_the_onnx_graph(monkeypatch, alibi):
    """Training uses scaled_dot_product_attention; the export writes attention out in plain ops."""
    model = make_model(vocab_size=64, context=64, d_model=32, n_layers=2, n_heads=4, alibi=alibi).train()
    input_ids = torch.randint(0, 64, (3, 50), generator=torch.Generator().manual_seed(4))

    def logits_and_gradients():
        model.zero_grad()
        logits = model(input_ids)  # (B, T, V)
        (logits * torch.linspace(-1, 1, 64)).sum().backward()
        return logits.detach(), {name: p.grad.clone() for name, p in model.named_parameters()}

    fused, fused_grads = logits_and_gradients()
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    plain, plain_grads = logits_and_gradients()
    assert torch.allclose(fused, plain, rtol=0.0, atol=1e-5)
    for name in fused_grads:
        scale = float(plain_grads[name].abs().max())
        assert torch.allclose(fused_grads[name], plain_grads[name], rtol=0.0, atol=1e-5 * max(scale, 1.0)), name
