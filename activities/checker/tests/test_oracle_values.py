"""Tests for activities/checker/python/oracle_values.py (the value encoding of oracle.json) and the oracle.json files of tasks/."""

import importlib.util
import json
import math
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[3]
MODULE = ROOT / "activities" / "checker" / "python" / "oracle_values.py"
GOLDEN = json.loads((ROOT / "shared" / "golden" / "oracle-values.json").read_text(encoding="utf-8"))
COMPARE = json.loads((ROOT / "shared" / "golden" / "oracle-compare.json").read_text(encoding="utf-8"))
SCHEMA = json.loads((ROOT / "shared" / "contracts" / "oracle.schema.json").read_text(encoding="utf-8"))
ORACLE_FILES = (
    sorted((ROOT / "tasks").glob("*/oracle.json"))
    + sorted((ROOT / "tasks" / "suite").glob("*/*/oracle.json"))
    + sorted((ROOT / "tasks" / "curriculum").glob("*/*/*/oracle.json"))
)

spec = importlib.util.spec_from_file_location("oracle_values", MODULE)
ov = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ov)


def text(data):
    """Type-exact comparison of JSON data (Python says True == 1)."""
    return json.dumps(data, sort_keys=True)


def nested(kind, depth):
    value = 0
    for _ in range(depth):
        value = kind([value])
    return value


def has_nan(value):
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(has_nan(k) or has_nan(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(has_nan(x) for x in value)
    return False


@pytest.mark.parametrize("case", GOLDEN["values"], ids=lambda c: c["python"])
def test_golden_values_encode(case):
    value = eval(case["python"])  # noqa: S307 - our own golden file
    assert text(ov.encode(value)) == text(case["encoded"])
    assert ov.dumps(value) == json.dumps(case["encoded"], separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("case", GOLDEN["values"], ids=lambda c: c["python"])
def test_golden_values_decode(case):
    value = eval(case["python"])  # noqa: S307
    decoded = ov.decode(case["encoded"])
    assert ov.dumps(decoded) == ov.dumps(value)  # exact types, NaN included
    if not has_nan(value):
        assert decoded == value
    want_type = set if type(value) is frozenset else type(value)
    assert type(decoded) is want_type


@pytest.mark.parametrize("case", GOLDEN["errors"], ids=lambda c: c["python"])
def test_golden_unencodable(case):
    assert case["error"] == "Unencodable"
    with pytest.raises(ov.Unencodable) as raised:
        ov.encode(eval(case["python"]))  # noqa: S307
    assert raised.value.args == (case["message"],)


@pytest.mark.parametrize("case", GOLDEN["undecodable"], ids=lambda c: json.dumps(c["encoded"]))
def test_golden_undecodable(case):
    assert case["error"] == "Undecodable"
    with pytest.raises(ov.Undecodable):
        ov.decode(case["encoded"])


def test_golden_encodings_match_the_schema_value():
    validator = Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": "#/$defs/value"})
    for case in GOLDEN["values"]:
        assert validator.is_valid(case["encoded"]), case["python"]


def test_the_schema_rejects_malformed_shapes():
    value = Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": "#/$defs/value"})
    for data in (
        1.5,
        2**53,
        -(2**53),
        {"$nope": 1},
        {"a": 1},
        {},
        {"$tuple": 1},
        {"$float": 1.0},
        {"$float": "1,0"},
        {"$dict": [[1]]},
        {"$bytes": "AP8"},
        {"$int": "0x10"},
        {"$tuple": [], "$set": []},
    ):
        assert not value.is_valid(data), data
    document = Draft202012Validator(SCHEMA)
    good = {"module": "m", "function": "f", "args": [], "expect": {"value": 1}}
    assert document.is_valid({"format": "agentrl-oracle/1", "calls": [good]})
    for bad in (
        {"format": "agentrl-oracle/2", "calls": [good]},
        {"format": "agentrl-oracle/1", "calls": []},
        {"format": "agentrl-oracle/1", "calls": [{**good, "expect": {"value": 1, "raises": "E"}}]},
        {"format": "agentrl-oracle/1", "calls": [{**good, "module": "a-b"}]},
        {"format": "agentrl-oracle/1", "calls": [{**good, "extra": 1}]},
    ):
        assert not document.is_valid(bad), bad


def test_exact_types_only():
    class AlwaysEqual(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    for value in (AlwaysEqual(3), [1, AlwaysEqual(3)], {AlwaysEqual(3): 1}, {1: (AlwaysEqual(3),)}):
        with pytest.raises(ov.Unencodable, match="^AlwaysEqual$"):
            ov.encode(value)
    for subclass in (
        type("S", (str,), {})("x"),
        type("L", (list,), {})(),
        type("T", (tuple,), {})(),
        type("F", (frozenset,), {})(),
        type("B", (bytes,), {})(b""),
    ):
        with pytest.raises(ov.Unencodable):
            ov.encode(subclass)


def test_encoding_runs_no_code_of_the_value():
    class Loud:
        def __repr__(self):
            raise AssertionError("repr was called")

        def __eq__(self, other):
            raise AssertionError("eq was called")

        __hash__ = object.__hash__

    with pytest.raises(ov.Unencodable, match="^Loud$"):
        ov.encode({1: [Loud()]})


def test_cycles_are_refused_and_shared_values_are_not():
    loop = [1]
    loop.append(loop)
    table = {}
    table["self"] = [table]
    for value in (loop, table, (loop,)):
        with pytest.raises(ov.Unencodable, match="^cycle$"):
            ov.encode(value)
    shared = [1, 2]
    assert ov.encode([shared, (shared,), {"k": shared}]) == [[1, 2], {"$tuple": [[1, 2]]}, {"$dict": [["k", [1, 2]]]}]


@pytest.mark.parametrize("kind", [list, tuple, lambda x: {"k": x[0]}, lambda x: frozenset(x)])
def test_depth(kind):
    assert ov.decode(ov.encode(nested(kind, 64))) == nested(kind, 64)
    with pytest.raises(ov.Unencodable, match="^too deep$"):
        ov.encode(nested(kind, 65))
    with pytest.raises(ov.Unencodable, match="^too deep$"):
        ov.encode(nested(kind, 3), max_depth=2)
    assert ov.encode(nested(list, 2), max_depth=2) == [[0]]
    deep = ov.encode(nested(list, 80), max_depth=80)
    with pytest.raises(ov.Undecodable, match="too deep"):
        ov.decode(deep)
    assert ov.encode(1.5, max_depth=0) == {"$float": "1.5"}


def test_size_limits():
    doubling = [0]
    for _ in range(40):  # 2**40 leaves if written out
        doubling = [doubling, doubling]
    with pytest.raises(ov.Unencodable, match="^too large$"):
        ov.encode(doubling)
    with pytest.raises(ov.Unencodable, match="^too large$"):
        ov.encode(list(range(10)), max_nodes=10)
    assert ov.encode(list(range(9)), max_nodes=10) == list(range(9))
    with pytest.raises(ov.Unencodable, match="^too large$"):
        ov.encode(10 ** (sys.get_int_max_str_digits() + 1))


def test_distinctions_survive_and_sets_are_canonical():
    assert len({ov.dumps(v) for v in (1, 1.0, True, "1", (1,), [1], {1}, b"1")}) == 8
    assert ov.dumps(0.0) != ov.dumps(-0.0)
    assert ov.dumps({3, 1, 2}) == ov.dumps(frozenset([2, 3, 1]))
    assert ov.dumps({"b": 1, "a": 2}) == ov.dumps(dict([("a", 2), ("b", 1)]))
    decoded = ov.decode(ov.encode({frozenset({1}): {(1, frozenset({2}))}}))
    assert type(next(iter(decoded))) is frozenset and type(decoded[frozenset({1})]) is set


def make_package(base, source):
    pkg = base / "mod"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(source))
    return str(base)


def call(function, *args, **kwargs):
    out = {"module": "mod", "function": function, "args": [ov.encode(a) for a in args]}
    if kwargs:
        out["kwargs"] = {k: ov.encode(v) for k, v in kwargs.items()}
    return out


def test_run_calls_outcomes(tmp_path):
    root = make_package(
        tmp_path / "a",
        """
        class Refused(ValueError):
            pass

        def add(a, b=0):
            return a + b

        def refuse(x):
            raise Refused(x)

        def opaque():
            return object()

        def leave():
            raise SystemExit(0)

        def grow(items):
            items.append(1)
            return items
    """,
    )
    calls = [
        call("add", 1, 2),
        call("add", 1, b=1.5),
        call("refuse", 1),
        call("opaque"),
        call("leave"),
        call("missing"),
        call("grow", []),
        call("grow", []),
        {"module": "nomod", "function": "f", "args": []},
        {"module": "mod", "function": "add", "args": [1.5]},
    ]
    outcomes = ov.run_calls(calls, root)
    assert outcomes[0] == {"value": 3}
    assert outcomes[1] == {"value": {"$float": "2.5"}}
    assert outcomes[2]["raises"][:3] == ["mod.Refused", "builtins.ValueError", "builtins.Exception"]
    assert outcomes[3] == {"error": "Unencodable: object"}
    assert outcomes[4]["raises"][0] == "builtins.SystemExit"
    assert "error" in outcomes[5] and "error" in outcomes[8]
    assert outcomes[6] == outcomes[7] == {"value": [1]}  # every call gets fresh arguments
    assert outcomes[9]["error"].startswith("bad arguments")
    assert root not in sys.path


def test_run_calls_imports_each_tree_fresh(tmp_path):
    first = make_package(tmp_path / "a", "def f():\n    return 'a'\n")
    second = make_package(tmp_path / "b", "def f():\n    return 'b'\n")
    assert ov.run_calls([call("f")], first) == [{"value": "a"}]
    assert ov.run_calls([call("f")], second) == [{"value": "b"}]


def test_outcome_matches():
    match = ov.outcome_matches
    assert match({"value": 1}, {"value": 1})
    assert not match({"value": 1}, {"value": True})
    assert not match({"value": 1}, {"value": {"$float": "1.0"}})
    assert match({"value": {"$float": "nan"}}, {"value": {"$float": "nan"}})
    assert match({"value": {"$float": "0.0"}}, {"value": {"$float": "-0.0"}})  # the same place, 0 ulps
    assert not match({"value": {"$set": [1, 2]}}, {"value": {"$set": [2, 1]}})  # not canonical
    assert not match({"value": 1}, {"raises": ["builtins.ValueError"]})
    assert not match({"value": 1}, {"error": "Unencodable: object"})
    assert not match({"value": 1}, {"value": 1, "raises": ["builtins.ValueError"]})  # one shape only
    assert match({"raises": "ValueError"}, {"raises": ["mod.Refused", "builtins.ValueError", "builtins.Exception"]})
    assert match({"raises": "mod.Refused"}, {"raises": ["mod.Refused", "builtins.ValueError"]})
    assert not match({"raises": "ValueError"}, {"raises": ["mod.ValueError", "builtins.Exception"]})
    assert not match({"raises": "ValueError"}, {"raises": ["?builtins.ValueError", "builtins.Exception"]})
    assert not match({"raises": "KeyError"}, {"raises": ["builtins.ValueError", "builtins.Exception"]})
    assert not match({"raises": "ValueError"}, {"value": None})
    assert not match({"raises": "ValueError"}, {"raises": "ValueError"})  # a list of names, not a string


@pytest.mark.parametrize("case", COMPARE["cases"], ids=lambda c: c["why"])
def test_golden_comparisons(case):
    assert ov.FLOAT_ULPS == COMPARE["floatUlps"]
    if "python" in case:
        namespace = {"Fraction": Fraction, "math": math}
        expected, actual = (eval(source, namespace) for source in case["python"])  # noqa: S307 - our own golden file
        assert text(ov.encode(expected)) == text(case["expected"])
        assert text(ov.encode(actual)) == text(case["actual"])
    assert ov.outcome_matches({"value": case["expected"]}, {"value": case["actual"]}) is case["match"]
    assert ov.outcome_matches({"value": case["actual"]}, {"value": case["expected"]}) is case["match"]


def test_golden_values_match_themselves_and_only_near_floats_match_each_other():
    near = {"0.0", "-0.0", "5e-324"}  # within 4 ulps of one another
    for a in GOLDEN["values"]:
        for b in GOLDEN["values"]:
            want = a is b or text(a["encoded"]) == text(b["encoded"]) or {a["python"], b["python"]} <= near
            assert ov.outcome_matches({"value": a["encoded"]}, {"value": b["encoded"]}) is want, (a, b)


def run_cli(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-I", "-B", str(MODULE), *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_cli(tmp_path):
    root = make_package(tmp_path / "pkg", "def f(x):\n    print('noise')\n    return x * 2\n")
    good = {"format": ov.FORMAT, "calls": [{**call("f", 2), "expect": {"value": 4}}]}
    bad = {"format": ov.FORMAT, "calls": [{**call("f", 2), "expect": {"value": 5}}]}
    for name, doc in (("good", good), ("bad", bad)):
        (tmp_path / f"{name}.json").write_text(ov.format_oracle(doc["calls"]))
    assert run_cli("check", str(tmp_path / "good.json"), root).returncode == 0
    missed = run_cli("check", str(tmp_path / "bad.json"), root)
    assert missed.returncode == 1 and "miss: mod.f(2)" in missed.stdout
    assert run_cli("check", str(tmp_path / "absent.json"), root).returncode == 2
    ran = run_cli("run", root, stdin=json.dumps([call("f", 2)]))
    assert ran.returncode == 0 and json.loads(ran.stdout) == [{"value": 4}] and "noise" in ran.stderr
    assert run_cli("run", root, stdin=json.dumps(good["calls"])).returncode == 2  # expectations stay out
    assert run_cli("nonsense").returncode == 2


def test_format_oracle_round_trips():
    calls = [{**call("f", 1, (2,)), "expect": {"raises": "ValueError"}}]
    assert json.loads(ov.format_oracle(calls)) == {"format": "agentrl-oracle/1", "calls": calls}


def test_task_oracles():
    assert len(ORACLE_FILES) == 3 + 68 + 64
    validator = Draft202012Validator(SCHEMA)
    for path in ORACLE_FILES:
        doc = json.loads(path.read_text(encoding="utf-8"))
        errors = [e.message for e in validator.iter_errors(doc)]
        assert not errors, (path, errors[:3])
        for c in doc["calls"]:
            for data in c.get("args", []) + list(c.get("kwargs", {}).values()):
                assert ov.encode(ov.decode(data)) == data
            if "value" in c["expect"]:
                assert text(ov.encode(ov.decode(c["expect"]["value"]))) == text(c["expect"]["value"])
        assert path.read_text(encoding="utf-8") == ov.format_oracle(doc["calls"])
        task = path.parent
        assert not (task / "oracle").exists(), task
        expected = json.loads((task / "expected-tests.json").read_text())
        assert expected["oracle"] == [] and expected["visible"], task


def load_generator():
    gen_spec = importlib.util.spec_from_file_location("generate_suite", ROOT / "tasks" / "generate_suite.py")
    gen = importlib.util.module_from_spec(gen_spec)
    gen_spec.loader.exec_module(gen)
    return gen


def test_the_generated_suite_is_current():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tasks" / "generate_suite.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_generator_keeps_expected_tests_across_oracle_changes(tmp_path, monkeypatch):
    gen = load_generator()
    monkeypatch.setattr(gen, "SUITE", str(tmp_path / "suite"))
    files, _, _ = gen.generate()
    assert gen.write_suite(files)[0] == 0
    task = tmp_path / "suite" / gen.task_dirs(gen.SUITE)[0]
    old = {
        "visible": ["tests/test_a.py::test_a"],
        "hidden": ["tests/test_h.py::test_h"],
        "oracle": ["tests/test_oracle_a.py::test_o"],
    }
    (task / "expected-tests.json").write_text(json.dumps(old, indent=2) + "\n")
    (task / "oracle" / "tests").mkdir(parents=True)
    (task / "oracle" / "tests" / "test_oracle_a.py").write_text("def test_o():\n    pass\n")
    (task / "oracle.json").write_text("{}\n")
    restored, stale = gen.write_suite(files)
    assert restored == 1 and len(stale) == 67
    kept = (task / "expected-tests.json").read_text()
    assert json.loads(kept) == {**old, "oracle": []}
    assert not (task / "oracle").exists()
    assert gen.write_suite(files)[0] == 1 and (task / "expected-tests.json").read_text() == kept
    (task / "solution.patch").write_text("changed\n")
    assert gen.write_suite(files)[0] == 0 and not (task / "expected-tests.json").exists()


def test_exception_names_are_qualified_and_only_for_the_class_the_name_finds(tmp_path):
    root = make_package(
        tmp_path,
        "class ValueError(Exception):\n    pass\n\n"
        "class Posing(Exception):\n    __module__ = 'builtins'\n    __qualname__ = 'ValueError'\n\n"
        "def home_made():\n    raise ValueError('x')\n\n"
        "def posing():\n    raise Posing('x')\n\n"
        "def real():\n    import json\n    json.loads('{')\n",
    )
    home, posing, real = ov.run_calls([call("home_made"), call("posing"), call("real")], root)
    assert home["raises"][0] == "mod.ValueError" and "builtins.ValueError" not in home["raises"]
    assert posing["raises"][0] == "?builtins.ValueError"
    assert real["raises"][:2] == ["json.decoder.JSONDecodeError", "builtins.ValueError"]
    assert not ov.outcome_matches({"raises": "ValueError"}, home)
    assert not ov.outcome_matches({"raises": "ValueError"}, posing)
    assert ov.outcome_matches({"raises": "ValueError"}, real)
