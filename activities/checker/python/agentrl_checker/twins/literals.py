"""Literals a twin may change: the scalars (leaves) of an expected value, how many values each can take
(capacity), and which numbers lie far enough outside a tolerance (pytest.approx, assertAlmostEqual)."""

import ast
import copy
import math
import string
from decimal import Decimal

from ..ast_tools import is_literal

BIG = 10**9  # capacity of an unbounded leaf (ints, floats, long strings)
ALPHABETS = (string.ascii_lowercase, string.ascii_uppercase, string.digits)

TOLERANCE = "agentrl_tolerance"  # attribute of a literal node compared within a tolerance: its absolute size


def is_approx(node):
    """`pytest.approx(<number literal>)`, with its default tolerance or literal `rel`/`abs`."""
    return (
        isinstance(node, ast.Call)
        and ast.unparse(node.func) in ("pytest.approx", "approx")
        and len(node.args) == 1
        and all(k.arg in ("rel", "abs") and number(k.value) is not None for k in node.keywords)
        and is_literal(node.args[0])
    )


def number(node):
    """The value of a non-negative int or float literal node, else None."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    return value if ok else None


def approx_tolerance(node, value):
    """pytest.approx's tolerance around a number of size `value`: rel 1e-6 and abs 1e-12 by default; `abs`
    alone drops rel."""
    given = {k.arg: number(k.value) for k in node.keywords}
    rel = given.get("rel", 0.0 if "abs" in given else 1e-6)
    return max(rel * abs(value), given.get("abs", 1e-12))


def alphabet(char):
    """The character class a changed character stays in (lower case, upper case, digits), or ""."""
    return next((a for a in ALPHABETS if char in a), "")


def capacity(value):
    """How many distinct values (the original included) a scalar can take in a twin."""
    if isinstance(value, bool):
        return 2
    if isinstance(value, int):
        return BIG
    if isinstance(value, float):
        return BIG if math.isfinite(value) else 0
    if isinstance(value, (str, bytes)):
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        total = 1
        for char in text:
            total = min(BIG, total * max(1, len(alphabet(char))))
        return total
    return 0  # None, complex: a changed value would look odd or compare equal


def leaves(node, path=()):
    """(path, value) of each scalar a twin may change; dict keys stay (a new key can merge entries)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        parts = [("elts", i, e) for i, e in enumerate(node.elts)]
    elif isinstance(node, ast.Dict):
        parts = [("values", i, v) for i, v in enumerate(node.values)]
    elif isinstance(node, (ast.Constant, ast.UnaryOp)):
        value = ast.literal_eval(node)
        tolerance = getattr(node, TOLERANCE, None)
        if tolerance is not None:  # assertAlmostEqual: a step well outside its (absolute) tolerance
            return [(path, value)] if far_outside(value, lambda _: tolerance, 4) else []
        return [(path, value)] if capacity(value) >= 2 else []
    elif is_approx(node):
        # only numbers whose variants lie far outside approx's tolerance: a step of 100 default tolerances
        # (1e-4 of the number), or of 4 tolerances the test gives
        found = leaves(node.args[0], path + (("args", 0),))
        factor = 4 if node.keywords else 100
        return [(p, v) for p, v in found if far_outside(v, lambda x: approx_tolerance(node, x), factor)]
    else:
        return []  # set(), complex sums
    return [leaf for field, i, sub in parts for leaf in leaves(sub, path + ((field, i),))]


def far_outside(value, tolerance_at, factor):
    """A number whose twins (a step at its last digit apart, or more) lie `factor` tolerances away, the
    tolerance taken at the far end of the window the variants are drawn from (a relative one grows)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return False
    step = 1 if isinstance(value, int) else float(float_step(Decimal(repr(value))))
    return step > 0 and step >= factor * tolerance_at(abs(value) + 1000 * step)


def with_leaf(node, path, value):
    """A copy of the literal node with the scalar at `path` replaced by `value`."""
    new_leaf = ast.parse(repr(value), mode="eval").body
    if not path:
        return new_leaf
    root = parent = copy.deepcopy(node)
    for field, i in path[:-1]:
        parent = getattr(parent, field)[i]
    getattr(parent, path[-1][0])[path[-1][1]] = new_leaf
    return root


def float_step(exact):
    """A step at the last written digit, one finer for round numbers: 2.5 -> 0.1, 18.0 -> 1, 100.0 -> 10."""
    if not exact:
        return Decimal("0.5")
    return Decimal(1).scaleb(min(exact.normalize().as_tuple().exponent, exact.adjusted() - 1))
