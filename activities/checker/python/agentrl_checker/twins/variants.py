"""The values a twin asserts instead of the real one, drawn so that the real value is not special among
them (numbers: a uniform sample of a window that holds the original at a uniform place; strings: the
same positions changed within the same character class; raise checks: other exception classes)."""

import ast
import math
from decimal import Decimal

from .literals import alphabet, capacity, float_step, leaves, with_leaf
from .params import ParamGroup
from .raises import raise_pool
from .secret import rng


def numeric_variants(value, count, rand):
    # The original sits at a uniform place in a window of lattice points and the variants are a
    # uniform sample of the rest, so given the set every member is equally likely the original.
    if isinstance(value, int):
        make, steps_to_zero = (lambda j: value + j), value
    else:
        exact = Decimal(repr(value))
        step = float_step(exact)
        make, steps_to_zero = (lambda j: float(exact + j * step)), int(exact // step)
    width = max(2 * (count + 1), 6)
    low = -rand.randrange(width)
    if value >= 0:  # a negative count or length would give the twin away
        low = max(low, -steps_to_zero)
    offsets = [j for j in range(low, low + width) if j]
    rand.shuffle(offsets)
    out, seen = [], {value}
    for new in map(make, offsets):
        finite = isinstance(new, int) or math.isfinite(new)
        if new not in seen and len(out) < count and finite:  # a float may round onto a neighbour
            out.append(new)
            seen.add(new)
    return out


def text_variants(value, count, rand):
    # Every member differs from the original at the same positions, each within its character
    # class, so no member is the "centre" of the set.
    raw = isinstance(value, bytes)
    chars = list(value.decode("latin-1") if raw else value)
    spots = [i for i, c in enumerate(chars) if alphabet(c)]
    rand.shuffle(spots)
    chosen, space = [], 1
    while spots and space <= count:
        chosen.append(spots.pop())
        space *= len(alphabet(chars[chosen[-1]]))
    out = []
    while len(out) < min(count, space - 1):
        new = chars[:]
        for i in chosen:
            new[i] = rand.choice(alphabet(chars[i]))
        text = "".join(new).encode("latin-1") if raw else "".join(new)
        if text != value and text not in out:
            out.append(text)
    return out


def variant_literals(seed, key, literal, count):
    """`count` (or fewer, if the literal allows fewer) changed copies of a literal node, fixed by seed and key."""
    rand = rng(seed, "values", key)
    spots = leaves(literal)
    best = max(capacity(v) for _, v in spots)
    path, value = rand.choice(
        [s for s in spots if capacity(s[1]) > count] or [s for s in spots if capacity(s[1]) == best]
    )
    if isinstance(value, bool):
        new = [not value]
    elif isinstance(value, (int, float)):
        new = numeric_variants(value, count, rand)
    else:
        new = text_variants(value, count, rand)
    return [with_leaf(literal, path, v) for v in new[:count]]


def literal_capacity(literal):
    """How many values a group's expected value (a literal, a raise check's class, parametrize rows) can take."""
    if isinstance(literal, ParamGroup):
        return min(literal_capacity(v) for v in literal.values())
    if isinstance(literal, (ast.Name, ast.Attribute)):
        return len(raise_pool(literal)) + 1  # a raise check: its class and the pool
    return max((capacity(v) for _, v in leaves(literal)), default=0)


def class_variants(seed, key, cls_node, count):
    """`count` other exception classes for a raise check, drawn from its pool by the seed."""
    pool = raise_pool(cls_node)
    rng(seed, "values", key).shuffle(pool)
    return [ast.Name(name, ast.Load()) for name in pool[:count]]


def param_variants(seed, key, group, count):
    """`count` twins' rows: in each, every row's expected value changed (a variant per row)."""
    per_row = [variant_literals(seed, "%s#%d" % (key, i), v, count) for i, v in enumerate(group.values())]
    count = min(len(v) for v in per_row)
    return [[variants[k] for variants in per_row] for k in range(count)]
