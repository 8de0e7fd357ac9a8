"""Checks a twin may change: `assert call == literal` (or `is True/False`, `== pytest.approx(...)`), a
normalised raise check, or a unittest assertion whose one literal argument decides; their group key (the
comparison as text), and the checks of a test in source order with whether a guard encloses them."""

import ast
from collections import Counter

from ..ast_tools import SCOPES, is_literal
from .literals import TOLERANCE, is_approx, number
from .raises import RAISES, RAISES_KEY

# an assert in these may never run (a branch or loop another solution does not take) or be swallowed:
# a twin of it could pass beside its real sibling for an honest solution and read as a forgery
GUARDS = (ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.If, ast.For, ast.AsyncFor, ast.While, ast.Match)

# unittest assertions a twin may change (in the real test and its twins alike, the method stays):
# the method, and which op its group key takes (`x == literal`, `x is True`)
CHECK_METHODS = {
    **dict.fromkeys(
        (
            "assertEqual",
            "assertEquals",
            "assertListEqual",
            "assertTupleEqual",
            "assertDictEqual",
            "assertSetEqual",
            "assertSequenceEqual",
            "assertMultiLineEqual",
            "assertCountEqual",
            "assertAlmostEqual",
            "assertAlmostEquals",
        ),
        ast.Eq,
    ),
    "assertIs": ast.Is,
}
ALMOST = ("assertAlmostEqual", "assertAlmostEquals")


def check_method(node):
    """The method name of a `self.assert...(...)` call a twin may change, else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
        and node.func.attr in CHECK_METHODS
        and len(node.args) >= 2
        and not any(isinstance(a, ast.Starred) for a in node.args)
        and all(k.arg is not None for k in node.keywords)
    ):
        return node.func.attr
    return None


# an equality checked through a named function (the package's own helper, numpy's assert_equal, more-itertools'
# iequals): its literal argument is twinned like assertEqual's, since a forged helper that always agrees passes
# its must-fail twin too. The name must say equality, and must not say its negation
EQUALITY_NAMES = ("equal", "equals", "iequals", "eq", "same")
ASSERTING_PREFIXES = ("assert", "check", "verify", "expect")


def helper_check(node):
    """(call side, literal) of `helper(x, literal)` (a statement, or under a bare assert) whose name says
    equality, such as `assert_equal(x, [1, 2])` or `assert iequals(x, (1, 2))`; else None."""
    if (
        not isinstance(node, ast.Call)
        or len(node.args) < 2
        or any(isinstance(a, ast.Starred) for a in node.args)
        or any(k.arg is None for k in node.keywords)
    ):
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    flat = name.lower().replace("_", "")
    if not flat or "not" in flat or (name in CHECK_METHODS and isinstance(func, ast.Attribute)):
        return None
    if flat not in EQUALITY_NAMES and not (
        flat.startswith(ASSERTING_PREFIXES) and flat.endswith(("equal", "equals", "eq"))
    ):
        return None
    first, second = node.args[:2]
    if is_literal(first) == is_literal(second):
        return None
    return (second, first) if is_literal(first) else (first, second)


def check_of(stmt):
    """The checked expression of a check statement: an assert's test, or a unittest assertion call."""
    return stmt.test if isinstance(stmt, ast.Assert) else stmt.value


def drop_message(stmt):
    """Removes an assert's or a unittest assertion's message (it may quote the real value)."""
    if isinstance(stmt, ast.Assert):
        stmt.msg = None
        return
    call = stmt.value
    call.keywords = [k for k in call.keywords if k.arg not in ("msg", "err_msg")]
    if not check_method(call):  # a helper's other arguments are its own
        return
    at = 3 if call.func.attr in ALMOST else 2  # (first, second, places, msg, delta) or (first, second, msg)
    if len(call.args) > at:
        call.args[at] = ast.Constant(None)


def is_expected(node):
    """A side a twin may change: a literal, or pytest.approx of one."""
    return is_literal(node) or is_approx(node)


def comparison(node):
    """(call side, literal side, op) of `x == literal`, `x is True/False` or a raise check, else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "issubclass"
        and len(node.args) == 2
        and getattr(node.args[0], RAISES_KEY, None)
    ):
        return node.args[0], node.args[1], RAISES
    method = check_method(node)
    if method:
        first, second = node.args[:2]
        if CHECK_METHODS[method] is ast.Is:
            bools = [x for x in (first, second) if isinstance(x, ast.Constant) and isinstance(x.value, bool)]
            if len(bools) == 1 and not is_literal(first if bools[0] is second else second):
                return (first if bools[0] is second else second), bools[0], ast.Is
            return None
        if is_literal(first) == is_literal(second):
            return None
        call, literal = (second, first) if is_literal(first) else (first, second)
        if method in ALMOST:
            number = ast.literal_eval(literal)
            if not isinstance(number, (int, float)) or isinstance(number, bool):
                return None
            tolerance = almost_tolerance(node)
            if tolerance is None:
                return None
            setattr(literal, TOLERANCE, tolerance)
        return call, literal, ast.Eq
    helper = helper_check(node)
    if helper:
        return helper[0], helper[1], ast.Eq
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    left, right = node.left, node.comparators[0]
    if isinstance(node.ops[0], ast.Eq) and is_expected(left) != is_expected(right):
        return (right, left, ast.Eq) if is_expected(left) else (left, right, ast.Eq)
    if (
        isinstance(node.ops[0], ast.Is)
        and isinstance(right, ast.Constant)
        and isinstance(right.value, bool)
        and not is_literal(left)
    ):
        return left, right, ast.Is
    return None


def almost_tolerance(call):
    """The absolute tolerance of `assertAlmostEqual(first, second, places=7, msg, delta)`, or None if not literal."""
    args = dict(zip(("first", "second", "places", "msg", "delta"), call.args))
    args.update((k.arg, k.value) for k in call.keywords)
    if "delta" in args and not (isinstance(args["delta"], ast.Constant) and args["delta"].value is None):
        return number(args["delta"])
    places = args.get("places", ast.Constant(7))
    value = number(places) if not (isinstance(places, ast.Constant) and places.value is None) else 7
    return 0.5 * 10.0**-value if isinstance(value, int) else None


def group_key(cmp):
    """The comparison as text, call side first: `f(1) == 2` and `2 == f(1)` are one group; a raise
    check's group is the code it expects to raise."""
    if cmp[2] is RAISES:
        return getattr(cmp[0], RAISES_KEY)
    return ast.unparse(ast.Compare(cmp[0], [cmp[2]()], [cmp[1]]))


def own_asserts(func):
    """(check, guarded) for each check of a test in source order, outside nested defs and classes: an
    assert, or a statement that is a unittest assertion a twin may change (`self.assertEqual(...)`)."""
    found, todo = [], [(n, False) for n in reversed(func.body)]
    while todo:
        node, guarded = todo.pop()
        if isinstance(node, ast.Assert) or (
            isinstance(node, ast.Expr) and (check_method(node.value) or helper_check(node.value))
        ):
            found.append((node, guarded))
        if not isinstance(node, (*SCOPES, ast.Lambda)):
            inner = guarded or isinstance(node, GUARDS)
            todo.extend((n, inner) for n in reversed(list(ast.iter_child_nodes(node))))
    return found


def comparison_keys(tree):
    """Group key -> count for every literal comparison anywhere in a tree, plus the call texts."""
    cmps = [c for c in map(comparison, ast.walk(tree)) if c]
    return Counter(map(group_key, cmps)), {ast.unparse(c[0]) for c in cmps}
