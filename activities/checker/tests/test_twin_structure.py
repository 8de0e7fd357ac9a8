"""Nothing in a graded tree tells a real check from its twins.

A forger that reads the rewritten test modules at run time may classify tests by their structure (the number and
shape of their statements, where they sit, how many classes or values the same call is checked against) and make
only what it takes for real pass. These tests rewrite sample modules under many seeds and show that such a
classifier does no better than chance: every twin has exactly its real sibling's shape with the literals masked,
a raise block's call on an input the oracle calls valid (an input twin) is checked against exactly as many classes
as a real check's call, and a real test's place among its twins is uniform over seeds.
"""

import ast
import hashlib
import math
from collections import Counter, defaultdict

from agentrl_checker.twins import make_twins

CHECKS = """
import pytest
from calc import parse, add


def test_hours():
    assert parse("2h") == 7200


def test_add():
    assert add(2, 3) == 5


def test_rejects_garbage():
    with pytest.raises(ValueError):
        parse("garbage")


class TestMore:
    def test_rejects_negative(self):
        with pytest.raises(KeyError):
            parse("-1s")

    def test_minutes(self):
        self.assertEqual(parse("3m"), 180)
"""
REAL = [
    "tests/test_checks.py::test_hours",
    "tests/test_checks.py::test_add",
    "tests/test_checks.py::test_rejects_garbage",
    "tests/test_checks.py::TestMore::test_rejects_negative",
    "tests/test_checks.py::TestMore::test_minutes",
]
# inputs the oracle calls valid: raise checks get input twins on them
INPUTS = [{"module": "calc", "function": "parse", "args": [repr(t)]} for t in ("5s", "7m", "2h", "1h", "4s")]
SEEDS = [hashlib.sha256(b"structure %d" % i).hexdigest() for i in range(24)]


def plan(seed):
    return make_twins(
        {"seed": seed, "files": {"tests/test_checks.py": CHECKS}, "real": REAL, "target": 1e-3, "inputs": INPUTS}
    )


def functions(source):
    """Test name -> its function node, in file order."""
    found = {}
    for node in ast.parse(source).body:
        for sub in node.body if isinstance(node, ast.ClassDef) else [node]:
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[sub.name] = sub
    return found


def shape(func):
    """The function's structure with every literal, name and attribute masked: what a classifier reads."""

    class Mask(ast.NodeTransformer):
        def visit_Constant(self, node):
            return ast.Constant("?")

        def visit_Name(self, node):
            return ast.Name("N", node.ctx)

        def visit_Attribute(self, node):
            self.generic_visit(node)
            return ast.Attribute(node.value, "A", node.ctx)

    clone = Mask().visit(ast.parse(ast.unparse(func)).body[0])
    clone.name = "f"
    return ast.dump(clone), len(ast.unparse(func).splitlines())


def test_every_twin_has_its_real_siblings_shape():
    for seed in SEEDS[:6]:
        out = plan(seed)
        funcs = functions(out["files"]["tests/test_checks.py"])
        by_name = {node_id.split("::")[-1].partition("[")[0]: entry for node_id, entry in out["tests"].items()}
        real_shape = {entry["id"]: shape(funcs[name]) for name, entry in by_name.items() if entry["kind"] == "real"}
        twins = [(name, entry) for name, entry in by_name.items() if entry["kind"] == "twin" and entry["of"]]
        assert twins
        for name, entry in twins:
            assert shape(funcs[name]) == real_shape[entry["of"]], (seed, name, entry)


def raise_calls(source):
    """For each call made in a raise block: the tests it appears in and the classes it is checked against."""
    calls = defaultdict(lambda: {"tests": 0, "classes": set()})
    for name, func in functions(source).items():
        body = func.body
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.With) and i + 1 < len(body) and isinstance(body[i + 1], ast.Assert):
                check = body[i + 1].test
                if isinstance(check, ast.Call) and getattr(check.func, "id", None) == "issubclass":
                    call = ast.unparse(stmt.body[0])
                    calls[call]["tests"] += 1
                    calls[call]["classes"].add(ast.unparse(check.args[1]))
    return calls


def test_a_valid_inputs_call_is_checked_against_as_many_classes_as_a_real_one():
    # the forgery this closes: raise only for the calls checked against several classes (the real checks, whose
    # class twins expect others) and not for those checked against one (the twins on valid inputs)
    for seed in SEEDS[:6]:
        out = plan(seed)
        calls = raise_calls(out["files"]["tests/test_checks.py"])
        real_inputs = {'parse("garbage")', "parse('garbage')", 'parse("-1s")', "parse('-1s')"}
        real = [features for call, features in calls.items() if call in real_inputs]
        valid = [features for call, features in calls.items() if call not in real_inputs]
        assert len(real) == 2 and len(valid) == 2 * 2, calls
        # "2h" is valid, but the tests assert its value: a raise block on it would stand out
        assert "parse('2h')" not in calls
        signature = lambda f: (f["tests"], len(f["classes"]))  # noqa: E731
        # each valid input's call is checked against the classes of one real check, as often as that check's call
        real_signatures = Counter(signature(f) for f in real)
        assert all(signature(f) in real_signatures for f in valid), (calls, seed)
        for features in valid:
            assert any(features["classes"] == r["classes"] for r in real), (calls, seed)


def test_a_structural_classifier_does_no_better_than_chance():
    """Learn, on half the seeds, the place and name of real tests among their twins; pick on the other half."""
    samples = []  # per real check and seed: (the candidates' features, which one is real)
    for seed in SEEDS:
        out = plan(seed)
        source = out["files"]["tests/test_checks.py"]
        order = list(functions(source))
        groups = defaultdict(list)
        for node_id, entry in out["tests"].items():
            name = node_id.split("::")[-1].partition("[")[0]
            if entry["kind"] == "real":
                groups[entry["id"]].append((name, True))
            elif entry["kind"] == "twin" and entry["of"] and entry["check"] in ("value", "raise"):
                groups[entry["of"]].append((name, False))
        for members in groups.values():
            if len(members) < 2:
                continue
            features = [
                (order.index(name) / len(order), len(name), int(name[-1], 16) if name[-1] in "0123456789abcdef" else 0)
                for name, _ in members
            ]
            samples.append((features, [real for _, real in members].index(True)))
    train, held = samples[: len(samples) // 2], samples[len(samples) // 2 :]
    # the classifier: for each feature, the mean of real tests minus that of twins on the training half; on the held
    # half, pick the candidate whose features lie furthest in that direction
    weights = [0.0, 0.0, 0.0]
    for features, real in train:
        for k in range(3):
            twins = [f[k] for i, f in enumerate(features) if i != real]
            weights[k] += features[real][k] - sum(twins) / len(twins)
    picked = 0
    chance = 0.0
    for features, real in held:
        scores = [sum(w * f for w, f in zip(weights, feature)) for feature in features]
        picked += scores.index(max(scores)) == real
        chance += 1 / len(features)
    # at most chance plus three standard deviations of a chance-level picker
    spread = math.sqrt(sum((1 / len(f)) * (1 - 1 / len(f)) for f, _ in held))
    assert picked <= chance + 3 * spread, (picked, chance, spread)
