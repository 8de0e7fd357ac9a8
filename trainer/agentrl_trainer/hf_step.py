"""One forward pass of a Hugging Face Llama-architecture causal LM with an explicit key/value cache,
written from the model's own modules so that it exports to ONNX with the cache as plain inputs and
outputs (the embedded server keeps a cache per request and batches requests).

  inputs   input_ids (B, T) int64, position_ids (B, T) int64, past_mask (B, P) int64 (1 where a
           past key is real: the padding of a shorter past is 0), past_key_i / past_value_i
           (B, kv_heads, P, head_dim) float32 for every layer i
  outputs  logits (B, V) float32 of the last position of each row, present_key_i / present_value_i
           (B, kv_heads, P + T, head_dim)

Queries attend to every real past key and to the new keys up to their own position (causal).
Rotary embeddings use the model's own inverse frequencies (default rope only).
"""

from __future__ import annotations

import math

import torch
from torch import nn


class LlamaStep(nn.Module):
    def __init__(self, model: nn.Module):
        super().__init__()
        config = model.config
        rope = getattr(config, "rope_parameters", None) or getattr(config, "rope_scaling", None) or {}
        if (rope.get("rope_type") or rope.get("type") or "default") != "default":
            raise ValueError(f"only default rotary embeddings are supported, got {rope}")
        if getattr(config, "model_type", None) != "llama":
            raise ValueError(f"a Llama-architecture model is needed, got {getattr(config, 'model_type', None)!r}")
        self.model = model
        self.heads = config.num_attention_heads
        self.kv_heads = config.num_key_value_heads
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        self.layers = config.num_hidden_layers
        theta = float(rope.get("rope_theta", getattr(config, "rope_theta", 10000.0)))
        inv_freq = 1.0 / (theta ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @staticmethod
    def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin

    def forward(
        self, input_ids: torch.Tensor, position_ids: torch.Tensor, past_mask: torch.Tensor, *past: torch.Tensor
    ):
        inner = self.model.model
        batch, new = input_ids.shape
        hidden = inner.embed_tokens(input_ids)
        freqs = position_ids.to(torch.float32)[..., None] * self.inv_freq  # (B, T, D/2)
        angles = torch.cat((freqs, freqs), dim=-1)[:, None]  # (B, 1, T, D)
        cos, sin = angles.cos(), angles.sin()
        past_length = past[0].shape[2]
        total = past_length + new
        # (B, 1, T, P + T): a real key, and a new one no later than the query
        keys = torch.arange(total, device=input_ids.device)
        queries = torch.arange(new, device=input_ids.device) + past_length
        causal = keys[None, :] <= queries[:, None]  # (T, P + T)
        real = torch.cat(
            (past_mask.bool(), torch.ones(batch, new, dtype=torch.bool, device=input_ids.device)), dim=1
        )  # (B, P + T)
        allowed = causal[None, None] & real[:, None, None, :]
        bias = torch.where(
            allowed,
            torch.zeros((), dtype=hidden.dtype),
            torch.full((), torch.finfo(hidden.dtype).min, dtype=hidden.dtype),
        )
        presents: list[torch.Tensor] = []
        group = self.heads // self.kv_heads
        grouped_bias = bias.repeat(1, 1, group, 1)  # (B, 1, group*T, P + T): the same mask for each head of a group
        scale = 1.0 / math.sqrt(self.head_dim)
        for index, layer in enumerate(inner.layers):
            attention = layer.self_attn
            normed = layer.input_layernorm(hidden)
            q = attention.q_proj(normed).view(batch, new, self.heads, self.head_dim).transpose(1, 2)
            k = attention.k_proj(normed).view(batch, new, self.kv_heads, self.head_dim).transpose(1, 2)
            v = attention.v_proj(normed).view(batch, new, self.kv_heads, self.head_dim).transpose(1, 2)
            q, k = self._rotate(q, cos, sin), self._rotate(k, cos, sin)
            k = torch.cat((past[2 * index], k), dim=2)
            v = torch.cat((past[2 * index + 1], v), dim=2)
            presents += [k, v]
            # grouped-query attention without copying the cache: the `group` query heads of each
            # key/value head (heads j*group .. j*group+group-1, as repeat_interleave pairs them)
            # are stacked along the query axis and meet that head's keys in one matmul
            grouped = q.reshape(batch, self.kv_heads, group * new, self.head_dim)
            scores = torch.matmul(grouped, k.transpose(-1, -2)) * scale + grouped_bias  # (B, KV, group*T, P + T)
            mixed = torch.matmul(torch.softmax(scores, dim=-1), v)  # (B, KV, group*T, D)
            mixed = (
                mixed.reshape(batch, self.heads, new, self.head_dim)
                .transpose(1, 2)
                .reshape(batch, new, self.heads * self.head_dim)
            )
            hidden = hidden + attention.o_proj(mixed)
            hidden = hidden + layer.mlp(layer.post_attention_layernorm(hidden))
        last = inner.norm(hidden[:, -1])
        return (self.model.lm_head(last), *presents)

    def empty_past(self, batch: int = 1) -> list[torch.Tensor]:
        return [torch.zeros(batch, self.kv_heads, 0, self.head_dim) for _ in range(2 * self.layers)]
