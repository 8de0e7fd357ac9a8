"""The critic: a value head on the policy's hidden states, GAE over the action tokens or the turns, the
truncation bootstrap, and the clipped value loss.

Alignment (as train_step.py): the value of action token t is the value of the state it was chosen in,
read from the hidden state at position t - 1, the same position whose logits score token t.
Environment tokens (mask 0) are context only: GAE skips them, carrying the next action token's value
and advantage across (verl's multi-turn GAE). The reward of an episode sits on its last step; a
truncated episode bootstrapped by the critic adds gamma * V(its last state) there (`last_values`).

Estimators (trainOnBatch's `critic.estimator`): `gae`, one advantage per action token (gamma and
lambda per token); `gae_turn`, one per turn (ArCHer's turn-level critic: the value at each turn's
first action token, gamma and lambda per turn), carried by every token of the turn. Both are the same
recursion on a step mask (every action token, or each turn's first); golden cases in
shared/golden/gae.json (written by agentrl_reference/golden_credit.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .contract import CRITIC_DEFAULTS

CRITIC_ESTIMATORS = ("gae", "gae_turn")
# what a privileged critic reads beside the hidden state at each token: whether a stop point's grade is known
# yet, and that grade (the reward submitting there earns)
PRIVILEGED_FEATURES = 2
# the value head's weights in a published policy's folder (beside the ONNX file the policy server loads)
VALUE_HEAD_FILE = "value-head.pt"


@dataclass(frozen=True)
class CriticOptions:
    """trainOnBatch's `critic`: the estimator, its discount and lambda, the value loss's weight and clip
    (None: unclipped), and whether the advantages are whitened over the batch's action tokens (verl's)."""

    estimator: str = CRITIC_DEFAULTS["estimator"]
    gamma: float = CRITIC_DEFAULTS["gamma"]
    lam: float = CRITIC_DEFAULTS["lambda"]
    value_coef: float = CRITIC_DEFAULTS["valueCoef"]
    value_clip: float | None = CRITIC_DEFAULTS["valueClip"]
    whiten: bool = CRITIC_DEFAULTS["whiten"]
    # SWEET-RL's asymmetry: the critic also reads batch.privileged (B, T, PRIVILEGED_FEATURES), the checker's grade
    # of the latest stop point, which the policy never sees
    privileged: bool = CRITIC_DEFAULTS["privileged"]

    def __post_init__(self) -> None:
        if self.estimator not in CRITIC_ESTIMATORS:
            raise ValueError(f"unknown critic estimator {self.estimator!r}; known: {', '.join(CRITIC_ESTIMATORS)}")
        if not 0.0 <= self.gamma <= 1.0 or not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"critic gamma and lambda must lie in [0, 1], got {self.gamma}, {self.lam}")
        if not self.value_coef > 0:
            raise ValueError(f"critic valueCoef must be > 0, got {self.value_coef}")
        if self.value_clip is not None and not self.value_clip > 0:
            raise ValueError(f"critic valueClip must be > 0 (or null), got {self.value_clip}")


def last_state_values(
    head: ValueHead, hidden: torch.Tensor, loss_mask: torch.Tensor, privileged: torch.Tensor | None = None
) -> torch.Tensor:
    """(B,) the value of each row's last state, after its last action token (read from that token's hidden state)."""
    positions = torch.arange(loss_mask.shape[1], device=loss_mask.device).expand_as(loss_mask)
    last = torch.where(loss_mask.bool(), positions, torch.zeros_like(positions)).max(dim=1).values  # (B,)
    rows = torch.arange(hidden.shape[0], device=hidden.device)
    features = None if privileged is None else privileged[rows, last].unsqueeze(1)
    return head(hidden[rows, last].unsqueeze(1), features).squeeze(1)


def critic_advantages(
    options: CriticOptions,
    values: torch.Tensor,
    last_values: torch.Tensor,
    rewards: torch.Tensor,
    loss_mask: torch.Tensor,
    turn_ids: torch.Tensor | None,
    bootstrap: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(advantages (B, T) as the action tokens carry them, returns (B, T), the step mask (B, T)) of a batch.

    values (B, T): the step's starting critic at every token; last_values (B,): at each row's last state,
    used where `bootstrap` (B,) is set (a truncated episode bootstrapped), else 0 (the episode ended).
    """
    steps = step_mask(loss_mask, turn_ids, options.estimator)
    after = torch.zeros_like(last_values) if bootstrap is None else torch.where(bootstrap.bool(), last_values, 0.0)
    advantages, returns = gae(
        step_rewards(rewards.to(values.dtype), steps),
        values,
        steps,
        gamma=options.gamma,
        lam=options.lam,
        last_values=after,
    )
    carried = spread_over_turns(advantages, steps, loss_mask)
    if options.whiten:
        carried = whiten(carried, loss_mask)
    return carried, returns, steps


class ValueHead(nn.Module):
    """V(s) from a final hidden state (and, privileged, the features beside it): one linear layer, initialised
    to 0 (every value starts at 0)."""

    def __init__(self, hidden_size: int, extra: int = 0) -> None:
        super().__init__()
        self.extra = extra
        self.linear = nn.Linear(hidden_size + extra, 1)
        nn.init.zeros_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, hidden: torch.Tensor, privileged: torch.Tensor | None = None) -> torch.Tensor:
        """(B, T, C) hidden states (and (B, T, extra) features) -> (B, T) values."""
        if self.extra:
            if privileged is None:
                raise ValueError(f"this value head reads {self.extra} privileged features: batch.privileged is missing")
            hidden = torch.cat([hidden, privileged.to(hidden.dtype)], dim=-1)
        return self.linear(hidden).squeeze(-1)


def hidden_size_of(model: nn.Module) -> int:
    """The width of a policy's hidden states: the toy model's d_model, a Hugging Face model's hidden_size."""
    config = model.config
    size = getattr(config, "d_model", None) or getattr(config, "hidden_size", None)
    if not size:
        raise ValueError("the policy's config names no hidden width (d_model or hidden_size)")
    return int(size)


def token_values(head: ValueHead, hidden: torch.Tensor, privileged: torch.Tensor | None = None) -> torch.Tensor:
    """(B, T) value of each token's state: position t's value read from hidden[t - 1] (and the privileged
    features at t, what the checker knew when token t was chosen); position 0 gets 0."""
    values = head(hidden[:, :-1], None if privileged is None else privileged[:, 1:])  # (B, T - 1)
    return torch.cat([torch.zeros_like(values[:, :1]), values], dim=1)


def step_mask(loss_mask: torch.Tensor, turn_ids: torch.Tensor | None, estimator: str) -> torch.Tensor:
    """The positions GAE steps through: every action token (`gae`), or each turn's first (`gae_turn`)."""
    mask = loss_mask.bool()
    if estimator == "gae":
        return mask
    if estimator != "gae_turn":
        raise ValueError(f"unknown critic estimator {estimator!r}; known: {', '.join(CRITIC_ESTIMATORS)}")
    if turn_ids is None:
        raise ValueError("gae_turn needs batch.turn_ids (the turn of each action token)")
    previous = torch.cat([torch.full_like(turn_ids[:, :1], -1), turn_ids[:, :-1]], dim=1)
    return mask & (turn_ids >= 0) & (turn_ids != previous)


def step_rewards(rewards: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    """(B, T): each row's reward on its last step, 0 elsewhere (rewards (B,), steps (B, T) bool)."""
    positions = torch.arange(steps.shape[1], device=steps.device).expand_as(steps)
    last = torch.where(steps, positions, torch.full_like(positions, -1)).max(dim=1).values  # (B,)
    placed = torch.zeros(steps.shape, dtype=rewards.dtype, device=rewards.device)
    rows = torch.nonzero(last >= 0).squeeze(-1)
    placed[rows, last[rows]] = rewards[rows]
    return placed


def gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    steps: torch.Tensor,
    *,
    gamma: float,
    lam: float,
    last_values: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimation over the positions of `steps` (B, T), skipping the others.

    rewards, values (B, T); last_values (B,): the value after the last step (0: the episode ended; the
    critic's value at its last state: a truncation bootstrapped). Returns (advantages, returns), (B, T),
    0 off the steps; returns = advantages + values. With gamma = lambda = 1 and no bootstrap an
    advantage is the episode's return minus the step's value.
    """
    if not 0.0 <= gamma <= 1.0 or not 0.0 <= lam <= 1.0:
        raise ValueError(f"gamma and lambda must lie in [0, 1], got {gamma}, {lam}")
    steps = steps.bool()
    B, T = steps.shape
    next_value = (
        torch.zeros(B, dtype=values.dtype, device=values.device)
        if last_values is None
        else last_values.to(values.dtype)
    )
    running = torch.zeros(B, dtype=values.dtype, device=values.device)
    advantages = torch.zeros_like(values)
    for t in range(T - 1, -1, -1):
        here = steps[:, t]
        delta = rewards[:, t] + gamma * next_value - values[:, t]
        updated = delta + gamma * lam * running
        running = torch.where(here, updated, running)
        next_value = torch.where(here, values[:, t], next_value)
        advantages[:, t] = torch.where(here, updated, torch.zeros_like(updated))
    returns = torch.where(steps, advantages + values, torch.zeros_like(values))
    return advantages, returns


def spread_over_turns(step_values: torch.Tensor, steps: torch.Tensor, loss_mask: torch.Tensor) -> torch.Tensor:
    """Each step's value carried by the action tokens up to the next step (a turn's first token's to the whole turn)."""
    steps = steps.bool()
    mask = loss_mask.bool()
    out = torch.zeros_like(step_values)
    current = torch.zeros(step_values.shape[0], dtype=step_values.dtype, device=step_values.device)
    for t in range(step_values.shape[1]):
        current = torch.where(steps[:, t], step_values[:, t], current)
        out[:, t] = torch.where(mask[:, t], current, torch.zeros_like(current))
    return out


def whiten(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(x - mean) / std over the mask-1 positions (verl's masked_whiten); one position or none: centred only."""
    mask = mask.bool()
    count = int(mask.sum())
    if count == 0:
        return values
    selected = values[mask]
    centred = values - selected.mean()
    if count < 2:
        return torch.where(mask, centred, torch.zeros_like(values))
    std = selected.std(unbiased=False)
    return torch.where(mask, centred / (std + 1e-8), torch.zeros_like(values))


def value_loss(
    predicted: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    *,
    clip: float | None,
) -> tuple[torch.Tensor, float]:
    """0.5 * token mean of max((V - R)^2, (clip(V, V_old +- clip) - R)^2) over mask (PPO's clipped value
    loss; clip None: unclipped), and the share of positions where the clipped term bound."""
    mask = mask.bool()
    zero = torch.zeros((), dtype=predicted.dtype, device=predicted.device)
    unclipped = (predicted - returns) ** 2
    if clip is None:
        losses = unclipped
        bound = torch.zeros_like(mask)
    else:
        clipped = (old_values + torch.clamp(predicted - old_values, -clip, clip) - returns) ** 2
        losses = torch.maximum(unclipped, clipped)
        bound = mask & (clipped > unclipped)
    count = mask.sum().clamp(min=1)
    loss = 0.5 * torch.where(mask, losses, zero).sum() / count
    return loss, float(bound.sum()) / float(count)


@dataclass
class Critic:
    """A step's critic: the value head, its own optimizer (AdamW, the step's lr), and the options."""

    head: ValueHead
    optimizer: torch.optim.Optimizer
    options: CriticOptions

    def state(self) -> dict:
        """What a checkpoint keeps of it."""
        return {
            "head": {key: value.detach().cpu() for key, value in self.head.state_dict().items()},
            "optimizer": self.optimizer.state_dict(),
        }


def restore_critic(
    model: nn.Module, options: CriticOptions, saved: dict | None, lr: float, device: torch.device
) -> Critic:
    """The critic of checkpoint N-1 (`saved`), or a fresh one (values 0) for a run that turns it on now."""
    head = ValueHead(hidden_size_of(model), PRIVILEGED_FEATURES if options.privileged else 0).to(device)
    optimizer = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=0.0)
    if saved is not None:
        width = saved["head"]["linear.weight"].shape[1]
        if width != head.linear.in_features:
            raise ValueError(
                f"critic.privileged is {str(options.privileged).lower()}, but the checkpoint's value head reads "
                f"{width - hidden_size_of(model)} privileged features: a run keeps its critic's inputs"
            )
        head.load_state_dict(saved["head"])
        optimizer.load_state_dict(saved["optimizer"])
        for group in optimizer.param_groups:
            group["lr"] = lr
    return Critic(head, optimizer, options)
