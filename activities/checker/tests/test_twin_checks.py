"""Which checks the twin planner twins, and how: equalities made through a named helper, the assertion a deciding
test failed at before the fix, the classes a raise twin may expect, and what the plan says of each twin."""

import ast

from agentrl_checker.twins import make_twins
from agentrl_checker.twins.raises import raise_pool

HELPERS = """
import more_itertools as mi
from pkg import helpers
from pkg.helpers import assert_equal
from calc import parse


def test_through_helpers():
    assert parse("1s") == 1
    assert mi.iequals(parse.all("1s 2s"), [1, 2])
    assert_equal(parse("3m"), 180)


def test_not_an_equality():
    assert helpers.contains(parse.all("1s 2s"), 2)
    assert helpers.assert_not_equal(parse("1s"), 5) is None
"""


def plan(files, real, **over):
    request = {"seed": "a11ce", "files": files, "real": real, "target": 1e-3}
    request.update(over)
    return make_twins(request)


def twin_sources(out, path):
    """The changed check of each twin, as source lines of the rewritten module."""
    lines = out["files"][path].splitlines()
    return [
        "\n".join(lines[entry["lines"][0] - 1 : entry["lines"][1]])
        for entry in out["tests"].values()
        if entry["kind"] == "twin"
    ]


def test_an_equality_through_a_named_helper_is_twinned_on_its_literal():
    # a forged helper that always agrees passes its must-fail twin too: such a check is twinned like assertEqual
    real = ["tests/test_h.py::test_through_helpers"]
    failing = {real[0]: 10}  # before the fix the test failed at the iequals assertion (line 10)
    out = plan({"tests/test_h.py": HELPERS}, real, deciding=real, failing=failing)
    checks = twin_sources(out, "tests/test_h.py")
    assert checks and all("mi.iequals(parse.all('1s 2s'), [" in check for check in checks), checks
    assert out["checkRanges"] == {real[0]: [10, 10]}
    # without the failing line, any of its three equalities may be chosen; each is a helper or an ==
    for seed in ("b0", "b1", "b2", "b3"):
        out = plan({"tests/test_h.py": HELPERS}, real, seed=seed)
        assert out["checkRanges"][real[0]][0] in (9, 10, 11)


def test_a_helper_that_does_not_say_equality_is_not_twinned():
    out = plan({"tests/test_h.py": HELPERS}, ["tests/test_h.py::test_not_an_equality"])
    assert out["uncovered"] == ["tests/test_h.py::test_not_an_equality"]


def test_every_twin_says_what_it_changes():
    source = (
        "import pytest\nfrom calc import parse\n\n\ndef test_a():\n    assert parse('1s') == 1\n\n\n"
        "def test_b():\n    with pytest.raises(ValueError):\n        parse('x')\n"
    )
    real = ["tests/test_c.py::test_a", "tests/test_c.py::test_b"]
    inputs = [{"module": "calc", "function": "parse", "args": ["'2s'"]}]
    out = plan({"tests/test_c.py": source}, real, inputs=inputs)
    kinds = {entry["check"] for entry in out["tests"].values() if entry["kind"] == "twin"}
    assert kinds == {"value", "raise", "input"}
    for entry in out["tests"].values():
        if entry["kind"] == "twin" and entry["check"] in ("raise", "input"):
            assert entry["variant"] in {"ValueError", *raise_pool(ast.Name("ValueError"))}
    assert {group["check"] for group in out["groups"].values()} == {"value", "raise", "input"}


def test_a_raise_twin_never_expects_a_class_an_honest_exception_could_also_derive_from():
    # for KeyError: neither LookupError nor IndexError (a fix raising a class of KeyError and IndexError, the usual
    # backward-compatible change, must not pass a twin); for TypeError: nothing related to it
    assert not {"LookupError", "IndexError", "KeyError"} & set(raise_pool(ast.Name("KeyError")))
    assert not {"TypeError"} & set(raise_pool(ast.Name("TypeError")))
    assert not {"ArithmeticError", "OverflowError"} & set(raise_pool(ast.Name("ZeroDivisionError")))


def test_the_pools_are_antichains():
    # no two classes a twin may expect are related: an exception of one more base passes at most one twin's class
    import builtins
    import itertools

    from agentrl_checker.twins.raises import FOREIGN_POOL, RAISE_POOL

    for pool in (RAISE_POOL, FOREIGN_POOL):
        for a, b in itertools.combinations(pool, 2):
            first, second = getattr(builtins, a), getattr(builtins, b)
            assert not issubclass(first, second) and not issubclass(second, first), (a, b)
