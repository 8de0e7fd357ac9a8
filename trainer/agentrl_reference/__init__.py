"""Plain-Python references the golden files in shared/golden/ are written from and checked against.

Not part of the trainer: nothing in agentrl_trainer imports them. `golden_loss` and
`golden_off_policy` write loss.json and off-policy.json (`python -m agentrl_reference.golden_loss`
from trainer/); `advantages` is the reference of the group estimators the TypeScript side computes
(shared/math/advantages.ts), checked against advantages.json.
"""
