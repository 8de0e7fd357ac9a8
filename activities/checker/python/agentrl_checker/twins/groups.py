"""Group assignment and the survival bound: which conflict group each test's twins change, and how
many values per group (g) bring a guesser's survival to the target."""

import math

from .checks import check_of, comparison, own_asserts
from .secret import rng


def survival_bound(values, n_fresh, raises=()):
    """Chance that a guesser survives: 1/k per real group with k values (2/k for a raise check, whose judgement
    excuses one other class an honest exception derives from), times 1/C(D, D_fresh)."""
    if not values:
        return 1.0
    excused = 2 ** sum(1 for r in raises if r)
    return excused / (math.prod(values) * math.comb(len(values) + n_fresh, n_fresh))  # exact ints: no overflow


def choose_g(caps, n_fresh, target, most, raises=()):
    """Smallest g >= 2 (at most `most`) whose bound meets the target; a group holds min(g, its capacity) values."""
    g = 2
    while caps and g < min(most, max(caps)) and survival_bound([min(g, c) for c in caps], n_fresh, raises) > target:
        g += 1
    return g


def assign_groups(seed, units, total):
    """Give tests a conflict group such that every occurrence of a chosen group is that test's changed assert."""
    holders = {}
    for u in units:
        for key in u.counts:
            holders.setdefault(key, []).append(u)
    ok = {k: total[k] == len(us) and all(u.counts[k] == 1 and k in u.cands for u in us) for k, us in holders.items()}
    rand = rng(seed, "assign")
    order = sorted(units, key=lambda u: (sum(ok[k] for k in u.cands), rand.random()))
    for u in order:
        options = [k for k in u.cands if ok[k] and all(v.group is None for v in holders[k])]
        if u.group is None and options:
            key = rand.choice(options)
            for v in holders[key]:
                v.group, v.ordinal = key, v.cands[key]
                if v.param and v.param[0] == key:
                    v.literal = v.param[1]
                else:
                    v.literal = comparison(check_of(own_asserts(v.node)[v.ordinal][0]))[1]
