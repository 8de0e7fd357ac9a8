"""A small causal transformer policy and the log-prob transform shared with the sampler.

Shapes: B batch, T sequence, V vocabulary, C d_model, H heads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


@dataclass(frozen=True)
class PolicyModelConfig:
    """Size of the policy; `context` is the largest sequence length the model accepts."""

    vocab_size: int = 512
    context: int = 256
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    dropout: float = 0.0
    # ALiBi (Press et al., arXiv:2108.12409): each head adds -slope * distance to its attention scores,
    # so recent tokens (e.g. the exit status that ends the last observation) are easy to attend to
    alibi: bool = False

    def __post_init__(self) -> None:
        for field in ("vocab_size", "context", "d_model", "n_layers", "n_heads"):
            if getattr(self, field) < 1:
                raise ValueError(f"PolicyModelConfig.{field} must be >= 1, got {getattr(self, field)}")
        if self.d_model % self.n_heads != 0:
            raise ValueError(
                f"PolicyModelConfig.d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})"
            )
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"PolicyModelConfig.dropout must be in [0, 1), got {self.dropout}")


class CausalSelfAttention(nn.Module):
    """Multi-head attention where position t sees positions <= t only."""

    def __init__(self, config: PolicyModelConfig) -> None:
        super().__init__()
        self.n_heads = config.n_heads
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.proj = nn.Linear(config.d_model, config.d_model)
        self.dropout = nn.Dropout(config.dropout)
        self.alibi = config.alibi
        if config.alibi:
            # only the H slopes are kept: masks and biases are built for each call's length, so the
            # exported graph holds no context-sized constant
            self.register_buffer("slopes", alibi_slopes(config.n_heads), persistent=False)  # (H,)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)  # 3 x (B, T, C)
        q = q.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)  # (B, H, T, C/H)
        k = k.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)  # (B, H, T, C/H)
        v = v.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)  # (B, H, T, C/H)
        # the ONNX graph keeps plain ops for onnxruntime-node; the fused kernel (about 2x faster to
        # train on a CPU) is used when attention dropout is off, so dropout draws stay as they were
        if torch.onnx.is_in_onnx_export() or (self.training and self.dropout.p > 0):
            y = self.plain_attention(q, k, v)  # (B, H, T, C/H)
        elif self.alibi:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=alibi_bias(self.slopes, T))  # (B, H, T, C/H)
        else:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, T, C/H)
        y = y.transpose(1, 2).reshape(B, T, C)  # (B, T, C)
        return self.dropout(self.proj(y))

    def plain_attention(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Causal softmax(q k^T / sqrt(C/H)) v written out in plain ops: 3 x (B, H, T, C/H) -> (B, H, T, C/H)."""
        T = q.shape[2]
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))  # (B, H, T, T)
        if self.alibi:
            scores = scores + alibi_bias(self.slopes, T)  # -inf above the diagonal
        else:
            positions = torch.arange(T, device=q.device)
            scores = scores.masked_fill(positions.view(1, -1) > positions.view(-1, 1), float("-inf"))  # j > i
        weights = self.dropout(F.softmax(scores, dim=-1))  # (B, H, T, T)
        return weights @ v  # (B, H, T, C/H)


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """(H,) ALiBi slopes 2^(-8 (h + 1) / H): with 4 heads 1/4, 1/16, 1/64, 1/256, from local to nearly global."""
    return torch.tensor([2.0 ** (-8.0 * (head + 1) / n_heads) for head in range(n_heads)])


def alibi_bias(slopes: torch.Tensor, length: int | torch.SymInt) -> torch.Tensor:
    """(1, H, T, T) additive attention bias: -slope_h * (i - j) for j <= i, -inf for j > i."""
    positions = torch.arange(length, device=slopes.device)
    distance = (positions.view(-1, 1) - positions.view(1, -1)).to(slopes.dtype)  # (T, T): i - j
    bias = -slopes.view(-1, 1, 1) * distance  # (H, T, T)
    bias = bias.masked_fill(distance < 0, float("-inf"))
    return bias.unsqueeze(0)


class Block(nn.Module):
    """Pre-LN transformer block: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, config: PolicyModelConfig) -> None:
        super().__init__()
        self.ln_attn = nn.LayerNorm(config.d_model)
        self.attn = CausalSelfAttention(config)
        self.ln_mlp = nn.LayerNorm(config.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(config.d_model, 4 * config.d_model),
            nn.GELU(),
            nn.Linear(4 * config.d_model, config.d_model),
            nn.Dropout(config.dropout),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_attn(x))  # (B, T, C)
        return x + self.mlp(self.ln_mlp(x))  # (B, T, C)


class PolicyModel(nn.Module):
    """Causal transformer: learned positions (plus ALiBi when configured), pre-LN blocks, output head tied to the token
    embedding.
    """

    def __init__(self, config: PolicyModelConfig | None = None) -> None:
        super().__init__()
        self.config = config or PolicyModelConfig()
        c = self.config
        self.token_embedding = nn.Embedding(c.vocab_size, c.d_model)
        self.position_embedding = nn.Embedding(c.context, c.d_model)
        self.dropout = nn.Dropout(c.dropout)
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.n_layers))
        self.ln_final = nn.LayerNorm(c.d_model)
        self.apply(_init_weights)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int64 token ids -> (B, T, V) logits; logits[:, t] score token t + 1."""
        return self.head(self.hidden_states(input_ids))

    def hidden_states(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int64 token ids -> (B, T, C) final hidden states, the input of `head`.

        Training applies `head` only where a log-prob is needed: with V several times C and ~10%
        action tokens, the (B, T, V) logits of every position are a large share of a step's work.
        """
        B, T = input_ids.shape
        if T > self.config.context:
            raise ValueError(f"input_ids: sequence length {T} exceeds the model context {self.config.context}")
        positions = torch.arange(T, device=input_ids.device)  # (T,)
        x = self.token_embedding(input_ids) + self.position_embedding(positions)  # (B, T, C)
        x = self.dropout(x)
        for block in self.blocks:
            x = block(x)  # (B, T, C)
        return self.ln_final(x)  # (B, T, C)

    def head(self, hidden: torch.Tensor) -> torch.Tensor:
        """(..., C) final hidden states -> (..., V) logits, with the head tied to the token embedding."""
        return hidden @ self.token_embedding.weight.t()


def _init_weights(module: nn.Module) -> None:
    # nanoGPT's initialisation: small normal weights, zero biases
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, mean=0.0, std=0.02)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)


def token_logprobs(logits: torch.Tensor, targets: torch.Tensor, temperature: float) -> torch.Tensor:
    """log_softmax(logits / temperature) at `targets`: (B, T, V), (B, T) -> (B, T).

    This is the sampling distribution itself: the sampler draws token t from
    softmax(logits / temperature) (after `apply_constraint_mask`, when constrained),
    so the behaviour log-probs recorded at sampling time are under exactly this
    distribution, and the trainer recomputes them with this function. Computed in float32.
    """
    if not temperature > 0.0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    scaled = logits.float() / temperature  # (B, T, V)
    logp = F.log_softmax(scaled, dim=-1)  # (B, T, V)
    return logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)  # (B, T)


def apply_constraint_mask(logits: torch.Tensor, allowed_mask: torch.Tensor) -> torch.Tensor:
    """Disallowed logits set to -inf: (..., V), bool (..., V) broadcastable -> (..., V).

    An all-True mask returns the logits unchanged. A row with no allowed token becomes all
    -inf and its softmax is NaN: callers must allow at least one token wherever they sample.
    Because -inf / temperature is -inf, masking before or after the temperature is the same.
    """
    if allowed_mask.dtype != torch.bool:
        raise ValueError(f"allowed_mask must be bool, got {allowed_mask.dtype}")
    return logits.masked_fill(~allowed_mask, float("-inf"))
