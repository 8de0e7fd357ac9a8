"""Tests for activities/checker/python/make-twins.py and its package agentrl_checker/twins (canary twins: tests a
correct solution must fail)."""

import ast
import json
import math
import os
import random
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from agentrl_checker.ast_tools import is_literal
from agentrl_checker.twins import groups, literals, make_twins, variants

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "activities" / "checker" / "python" / "make-twins.py"
TEST_FILE = "tests/test_calc.py"

# the planner's functions these tests call, from the modules that hold them
mt = SimpleNamespace(
    is_literal=is_literal,
    leaves=literals.leaves,
    variant_literals=variants.variant_literals,
    choose_g=groups.choose_g,
    survival_bound=groups.survival_bound,
    make_twins=make_twins,
)

SAMPLE = '''\
"""Tests for calc: the answers are secret."""
import pytest
from calc import add, words, scale, table  # the package under test

LIMIT = 10


def helper(x):
    return add(x, 0)


@pytest.mark.parametrize("a, b", [(1, 2), (3, 4)])
def test_add_param(a, b):
    """Adds pairs."""
    assert add(a, b) == a + b
    assert add(a, 10) == a + 10
    assert add(2, 2) == 4, "two and two"


def test_words():
    # split on spaces
    assert words("a b") == ["a", "b"]
    assert words("") == []


def test_words_again():
    assert words("a b") == ["a", "b"]


def test_scale_and_table():
    assert scale(1.5) == 3.0
    assert table(2) == {"n": 2, "double": 4}
    assert add(2, 3) == 5


def test_shares_a_call():
    assert add(2, 3) == 5
    assert add(20, 30) == 50


def test_flags():
    assert (add(1, 0) == 1) is True


def test_no_literal():
    assert add(1, 1) > 0


def test_extra():
    assert helper(3) == 3


class TestK:
    """Class doc."""

    def setup_method(self):
        self.x = 1

    def test_c(self):
        assert add(self.x, 1.5) == 2.5

    @pytest.mark.parametrize("n", [1, 2])
    def test_d(self, n):
        assert add(n, 0) == n
        assert add(0, 0) == 0
'''

REAL = [
    TEST_FILE + "::" + t
    for t in (
        "test_add_param[1-2]",
        "test_add_param[3-4]",
        "test_words",
        "test_words_again",
        "test_scale_and_table",
        "test_shares_a_call",
        "test_flags",
        "test_no_literal",
        "TestK::test_c",
        "TestK::test_d[1]",
        "TestK::test_d[2]",
    )
]

FRESH = [
    {"module": "calc", "function": "add", "args": ["5", "6"], "value": "11"},
    {"module": "calc", "function": "mul", "args": ["3", "[4]"], "value": "[4, 4, 4]"},
]

CORRECT = """
def add(a, b): return a + b
def words(s): return s.split()
def scale(x): return x * 2
def table(n): return {"n": n, "double": 2 * n}
def mul(a, b): return a * b
"""

OFF_BY_ONE = CORRECT.replace("return a + b", "return a + b + 1")

FORGED = """
class Anything:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
def add(*args): return Anything()
words = scale = table = mul = add
"""

PLUGIN = """
import json, os
import pytest
RESULTS = {}
OWN = {}
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    # as the grade harness does: a failure in a library's assertion method is placed where the test called it
    if call.when == "call" and call.excinfo is not None:
        tb = call.excinfo.tb
        while tb is not None:
            if os.path.realpath(tb.tb_frame.f_code.co_filename) == os.path.realpath(str(item.path)):
                OWN[item.nodeid] = tb.tb_lineno
            tb = tb.tb_next
def pytest_runtest_logreport(report):
    entry = RESULTS.setdefault(report.nodeid, {"outcome": "passed", "path": None, "lineno": None})
    if report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        lineno = crash and crash.lineno
        if crash and "/unittest/" in str(crash.path) and report.nodeid in OWN:
            lineno = OWN[report.nodeid]
        entry.update(outcome="failed", path=crash and crash.path, lineno=lineno)
def pytest_sessionfinish(session):
    with open(os.environ["TWIN_REPORT"], "w") as f:
        json.dump(RESULTS, f)
"""


def request(**over):
    req = {"seed": "5eed", "files": {TEST_FILE: SAMPLE}, "real": REAL, "target": 0.01, "fresh": FRESH}
    req.update(over)
    return req


def run_script(req, raw=None):
    data = raw if raw is not None else json.dumps(req).encode()
    return subprocess.run([sys.executable, "-I", str(SCRIPT)], input=data, capture_output=True, timeout=60)


def rewrite(req):
    r = run_script(req)
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)


def run_pytest(tmp_path, files, package):
    """{node id: {"outcome", "path", "lineno"}} of pytest run on `files` against `package` (calc.py)."""
    for rel, text in {**files, "calc.py": package, "twinreport.py": PLUGIN}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    report = tmp_path / "report.json"
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "TWIN_REPORT": str(report)}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "twinreport",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            "tests",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=120,
    )
    return json.loads(report.read_text())


def split_compare(node):
    """(call text and op, literal text) of `x == literal` / `x is literal`, else None; the adversary's parser."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    sides = [node.left, node.comparators[0]]
    literal = [s for s in sides if mt.is_literal(s)]
    if len(literal) != 1:
        return None
    call = next(s for s in sides if s is not literal[0])
    return (ast.unparse(call), type(node.ops[0]).__name__), ast.unparse(literal[0])


def assert_reals_pass_and_twins_fail(out, results, at_their_lines=True):
    """Every real test passed and every twin failed (at its own lines, unless told otherwise)."""
    for node_id, t in out["tests"].items():
        got = results[node_id]
        if t["kind"] == "real":
            assert got["outcome"] == "passed", node_id
        elif t["kind"] == "twin":
            assert got["outcome"] == "failed", node_id
            if at_their_lines:
                assert t["lines"][0] <= got["lineno"] <= t["lines"][1], (node_id, got, t)


def twins_of(out):
    return {i: t for i, t in out["tests"].items() if t["kind"] == "twin"}


# ---------------------------------------------------------------- running the rewritten tests


def test_correct_package_passes_real_and_fails_every_twin_at_its_assert(tmp_path):
    out = rewrite(request())
    results = run_pytest(tmp_path, out["files"], CORRECT)
    assert set(results) == set(out["tests"])  # the ids we predict are the ids pytest reports
    assert len(twins_of(out)) >= 10
    for node_id, t in out["tests"].items():
        got = results[node_id]
        if t["kind"] == "real":
            assert got["outcome"] == "passed", node_id
        elif t["kind"] == "twin":
            assert got["outcome"] == "failed", node_id
            assert got["path"].endswith(t["path"])
            assert t["lines"][0] <= got["lineno"] <= t["lines"][1], (node_id, got, t)
    kinds = Counter(t["kind"] for t in out["tests"].values())
    assert kinds["real"] == len(REAL) and kinds["other"] == 1


def test_forged_equality_passes_twins_and_an_honest_bug_never_passes_a_pair(tmp_path):
    out = rewrite(request())
    forged = run_pytest(tmp_path / "forged", out["files"], FORGED)
    honest = run_pytest(tmp_path / "honest", out["files"], OFF_BY_ONE)
    twins = twins_of(out)
    real_id = {t["id"]: i for i, t in out["tests"].items() if t["kind"] == "real"}

    def pair_passes(results, twin):
        return (
            results[twin]["outcome"] == "passed" and results[real_id[out["tests"][twin]["of"]]]["outcome"] == "passed"
        )

    # an always-true __eq__ passes the twin of every real test it passes (an `is True` twin excepted)
    passed_real = [
        i
        for i in twins
        if twins[i]["of"] and " is " not in twins[i]["group"] and forged[real_id[twins[i]["of"]]]["outcome"] == "passed"
    ]
    assert passed_real and all(forged[i]["outcome"] == "passed" for i in passed_real)
    assert all(forged[i]["outcome"] == "passed" for i in twins if twins[i]["of"] is None)
    # a deterministic wrong answer may hit a twin's value, but never both values of one call
    assert any(honest[i]["outcome"] == "failed" for i in real_id.values())
    assert not any(pair_passes(honest, i) for i in twins if twins[i]["of"])
    assert any(pair_passes(forged, i) for i in twins if twins[i]["of"])


# ---------------------------------------------------------------- what the rewrite hides


def test_output_has_no_trace_of_names_docstrings_comments_or_messages():
    out = rewrite(request())
    text = out["files"][TEST_FILE]
    for trace in ("Tests for calc", "Adds pairs", "Class doc", "split on spaces", "two and two", "under test"):
        assert trace not in text
    idents = {getattr(n, "name", None) for n in ast.walk(ast.parse(text))}
    assert not idents & {"test_add_param", "test_words", "test_words_again", "test_extra", "TestK", "test_c", "test_d"}
    assert "def helper(x)" in text and "LIMIT = 10" in text  # helpers and constants stay


def test_same_seed_same_bytes_other_seed_other_names():
    req = request()
    runs = {run_script(req).stdout for _ in range(3)}  # -I: a fresh hash seed each run
    assert len(runs) == 1
    names = lambda out: {i.split("::")[-1].split("[")[0] for i in out["tests"]}
    first, second = json.loads(runs.pop()), rewrite(request(seed="c0ffee"))
    assert not names(first) & names(second)
    assert first["files"] != second["files"]


@pytest.mark.parametrize("seed", ["5eed", "1", "2", "3", "4"])
def test_every_value_of_a_group_is_asserted_equally_often(seed):
    out = mt.make_twins(request(seed=seed))
    counts = {}  # (call, op) -> Counter of literal texts over everything in the output
    for text in out["files"].values():
        for node in ast.walk(ast.parse(text)):
            if split_compare(node):
                call, lit = split_compare(node)
                counts.setdefault(call, Counter())[lit] += 1
    lines = out["files"][TEST_FILE].splitlines()
    seen = {}
    for t in twins_of(out).values():
        stmt = ast.parse(textwrap.dedent("\n".join(lines[t["lines"][0] - 1 : t["lines"][1]]))).body[0]
        seen[t["group"]] = split_compare(stmt.test)[0]
    assert set(seen) == set(out["groups"])
    for group, call in seen.items():
        values = counts[call]
        assert len(values) == out["groups"][group]["values"], (group, values)
        assert len(set(values.values())) == 1, (group, values)  # no majority vote for the lookup agent
    shared = [g for g in seen if g.startswith("words('a b')")]
    assert shared and set(counts[seen[shared[0]]].values()) == {2}  # two real tests, one group


def test_uncovered_groups_and_survival_as_documented():
    out = rewrite(request())
    assert out["uncovered"] == [TEST_FILE + "::test_no_literal"]
    real = [v["values"] for v in out["groups"].values() if v["real"]]
    fresh = [v for v in out["groups"].values() if not v["real"]]
    assert len(fresh) == 2 and out["skippedFresh"] == []
    # the reported bound counts on the real groups only; the fresh groups are extra margin
    bound = math.prod(1 / k for k in real)
    assert out["survival"] == pytest.approx(bound) and bound <= 0.01
    assert out["groups"]["(add(1, 0) == 1) is True"]["values"] == 2  # a bool has two values, whatever g is


def test_g_is_the_smallest_that_reaches_the_target():
    body = "from calc import add\n" + "".join(
        "def test_%d():\n    assert add(%d, 1) == %d\n" % (i, i, i + 1) for i in range(10)
    )
    real = [TEST_FILE + "::test_%d" % i for i in range(10)]
    out = rewrite({"seed": "01", "files": {TEST_FILE: body}, "real": real})
    assert {v["values"] for v in out["groups"].values()} == {2}
    assert out["survival"] == 2**-10 <= 1e-3  # 2**-9 would miss the default target
    out = rewrite({"seed": "01", "files": {TEST_FILE: body}, "real": real[:3], "target": 0.01})
    assert {v["values"] for v in out["groups"].values()} == {5}  # 4**-3 > 0.01 >= 5**-3
    assert mt.choose_g([2, 2], 0, 1e-9, 1000) == 2  # bools cannot go further
    assert mt.choose_g([10**9], 0, 1e-9, 8) == 8  # the cap wins
    assert mt.survival_bound([], 3) == 1.0


# ---------------------------------------------------------------- a lookup-table adversary

TINY = "from calc import add\n\ndef test_a():\n    assert add(1, 2) == 3\n\ndef test_b():\n    assert add(2, 2) == 4\n"


def adversary_survives(out, rand, skip):
    """Answer each asserted call with one of its asserted values, leaving `skip` calls unanswered."""
    asserted, per_func = {}, {}
    for path, text in out["files"].items():
        for func in ast.walk(ast.parse(text)):
            if isinstance(func, ast.FunctionDef):
                per_func[path, func.name] = [c for c in map(split_compare, ast.walk(func)) if c]
                for call, lit in per_func[path, func.name]:
                    asserted.setdefault(call, set()).add(lit)
    skipped = set(rand.sample(sorted(asserted), skip))
    answer = {c: rand.choice(sorted(v)) for c, v in sorted(asserted.items()) if c not in skipped}
    passes = lambda i: all(answer.get(c) == lit for c, lit in per_func[i.split("::")[0], i.split("::")[-1]])
    return all(passes(i) == (t["kind"] == "real") for i, t in out["tests"].items())


@pytest.mark.parametrize(
    "real, fresh, skip, rate",
    [
        (["test_a", "test_b"], [], 0, 0.25),
        # a fresh group halves it again (the right call to leave unanswered), a margin the bound does not count
        (["test_a"], [{"module": "calc", "function": "add", "args": ["5", "6"], "value": "11"}], 1, 0.125),
    ],
)
def test_lookup_adversary_survives_at_the_bound(real, fresh, skip, rate):
    files = {TEST_FILE: TINY if len(real) == 2 else TINY.split("\ndef test_b")[0] + "\n"}
    rand, trials, wins = random.Random(7), 2000, 0
    for i in range(trials):
        out = mt.make_twins(
            {
                "seed": "%x" % (i + 1),
                "files": files,
                "real": [TEST_FILE + "::" + r for r in real],
                "target": 0.25,
                "fresh": fresh,
            }
        )
        assert out["survival"] == 0.25
        wins += adversary_survives(out, rand, skip)
    assert abs(wins / trials - rate) <= 3 * math.sqrt(rate * (1 - rate) / trials)


# ---------------------------------------------------------------- fresh twins and odd inputs


def test_fresh_twins_use_the_files_imports_and_add_missing_ones():
    out = rewrite(request())
    text = out["files"][TEST_FILE]
    assert "import calc" in text.splitlines()  # mul is not imported by name
    fresh = [t for t in twins_of(out).values() if t["of"] is None]
    lines = text.splitlines()
    stmts = [lines[t["lines"][0] - 1].strip() for t in fresh]
    assert sum(s.startswith("assert add(5, 6) == ") for s in stmts) == out["groups"]["fresh: add(5, 6) == 11"]["values"]
    assert any(s.startswith("assert calc.mul(3, [4]) == [") for s in stmts)
    assert not any(s.endswith("== 11") or s.endswith("== [4, 4, 4]") for s in stmts)

    again = rewrite(
        request(
            fresh=FRESH
            + [
                {"module": "calc", "function": "add", "args": ["2", "2"], "value": "4"},
                {"module": "calc", "function": "add", "args": ["0"], "value": "None"},
            ]
        )
    )
    assert again["skippedFresh"] == [2, 3]  # a call the tests assert already; a value with nothing to change


def test_mutations_keep_type_and_differ():
    for value in (0, 7, -3, 2.5, 0.0, 1e-05, "abc", "Hello 42", b"xy", True):
        literal = ast.parse(repr(value), mode="eval").body
        new = [ast.literal_eval(n) for n in mt.variant_literals("ab", repr(value), literal, 5)]
        assert len(set(new)) == len(new) and value not in new
        assert all(type(v) is type(value) for v in new)
        if not isinstance(value, (str, bytes)):
            assert all(v >= 0 for v in new) or value < 0  # no negative twin of a count
    for value in ("", None, b"", [], "  "):
        assert mt.leaves(ast.parse(repr(value), mode="eval").body) == []
    nested = ast.parse("[1, {'k': 'v'}, (2.5,)]", mode="eval").body
    assert {p for p, _ in mt.leaves(nested)} == {
        (("elts", 0),),
        (("elts", 1), ("values", 0)),
        (("elts", 2), ("elts", 0)),
    }


def test_unparsable_and_unsafe_files_come_back_unchanged():
    broken, called = (
        "def test_x(:\n",
        "from calc import add\n\nclass TestK:\n    def test_x(self):\n        assert add(1, 1) == 2\n\n"
        "    def test_y(self):\n        self.test_x()\n",
    )
    files = {TEST_FILE: SAMPLE, "tests/test_broken.py": broken, "tests/test_called.py": called}
    ids = ["tests/test_broken.py::test_x", "tests/test_called.py::TestK::test_x"]
    out = rewrite(request(files=files, real=REAL + ids))
    assert out["files"]["tests/test_broken.py"] == broken and out["files"]["tests/test_called.py"] == called
    assert out["unparsed"] == ["tests/test_broken.py", "tests/test_called.py"]
    for rid in ids:
        assert out["tests"][rid] == {"kind": "real", "id": rid} and rid in out["uncovered"]


def test_a_bare_reference_to_a_test_or_test_class_follows_its_new_name(tmp_path):
    source = (
        "from calc import add\n\n\ndef test_x():\n    assert add(1, 1) == 2\n\n\nalias = test_x\n\n\n"
        "class TestK:\n    @staticmethod\n    def norm(v):\n        return v\n\n"
        "    def test_y(self):\n        assert TestK.norm(add(2, 2)) == 4\n"
    )
    ids = ["tests/test_ref.py::test_x", "tests/test_ref.py::TestK::test_y"]
    out = rewrite(request(files={"tests/test_ref.py": source}, real=ids, fresh=[]))
    assert out["unparsed"] == [] and out["uncovered"] == []
    text = out["files"]["tests/test_ref.py"]
    assert "TestK" not in text and "test_x" not in text
    results = run_pytest(tmp_path, out["files"], CORRECT)
    assert set(results) == set(out["tests"])
    assert_reals_pass_and_twins_fail(out, results)


def test_tests_the_rewrite_cannot_find_leave_their_file_as_given_never_an_error(tmp_path):
    # pytest collects tests under a module-level `if`: the rewrite does not see them by name, the file is
    # returned as given, its tests uncovered. A test a class inherits from a mixin follows its class's
    # new name, uncovered, and the rest of its file is twinned.
    conditional = "import sys\nfrom calc import add\n\nif sys.version_info >= (3, 8):\n\n    def test_new():\n        assert add(1, 2) == 3\n"
    mixin = (
        "from calc import add\n\nclass Checks:\n    def test_add(self):\n        assert add(2, 2) == 4\n\n"
        "class TestCalc(Checks):\n    def test_own(self):\n        assert add(3, 3) == 6\n\n"
        "class TestOnlyInherited(Checks):\n    pass\n"
    )
    files = {TEST_FILE: SAMPLE, "tests/test_if.py": conditional, "tests/test_mixin.py": mixin}
    inherited = ["tests/test_mixin.py::TestCalc::test_add", "tests/test_mixin.py::TestOnlyInherited::test_add"]
    extra = ["tests/test_if.py::test_new", "tests/test_mixin.py::TestCalc::test_own"] + inherited
    out = rewrite(request(files=files, real=REAL + extra))
    assert out["files"]["tests/test_if.py"] == conditional
    assert out["unparsed"] == ["tests/test_if.py"]
    assert out["tests"][extra[0]] == {"kind": "real", "id": extra[0]} and extra[0] in out["uncovered"]
    assert "does not find" in out["reasons"][extra[0]]
    for rid in inherited:
        assert rid in out["uncovered"] and "mixin" in out["reasons"][rid], out["reasons"]
    assert {t["of"] for t in out["tests"].values() if t["kind"] == "twin"} >= {extra[1]}
    assert set(out["reasons"]) == set(out["uncovered"]), "every test without a twin says why"
    results = run_pytest(tmp_path, {"tests/test_mixin.py": out["files"]["tests/test_mixin.py"]}, CORRECT)
    mixin_ids = {i: t for i, t in out["tests"].items() if i.startswith("tests/test_mixin.py")}
    assert set(results) == set(mixin_ids), "the inherited tests' ids are the plan's"
    assert_reals_pass_and_twins_fail({"tests": mixin_ids}, results)
    assert "no assertion a twin can change" in out["reasons"][TEST_FILE + "::test_no_literal"]


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"{not json", "not valid JSON"),
        (json.dumps({"files": {}}).encode(), "'seed'"),
        (json.dumps(request(seed="xyz")).encode(), "'seed'"),
        (json.dumps(request(real=["tests/other.py::test_a"])).encode(), "not in 'files'"),
        (json.dumps(request(target=0)).encode(), "'target'"),
        (
            json.dumps(request(fresh=[{"module": "calc", "function": "add", "value": "x+1"}])).encode(),
            "not a Python literal",
        ),
    ],
)
def test_bad_input_exits_2_with_a_message(raw, message):
    r = run_script(None, raw=raw)
    assert r.returncode == 2 and r.stdout == b""
    assert message in r.stderr.decode()


# ---------------------------------------------------------------- raise checks

RAISING_TESTS = """
import pytest
from calc import parse


def test_hours():
    assert parse("2h") == 7200


def test_rejects_garbage():
    with pytest.raises(ValueError):
        parse("garbage")


def test_rejects_empty():
    with pytest.raises(ValueError, match="bad") as info:
        parse("")
    assert "''" in str(info.value)


class TestMore:
    def test_rejects_negative(self):
        with pytest.raises(KeyError):
            parse("-1s")
"""

PARSER = """
import re
def parse(text):
    if text == "-1s":
        raise KeyError(text)
    m = re.fullmatch(r"(\\d+)([smh])", text)
    if not m:
        raise ValueError("bad duration: %r" % text)
    return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600}[m.group(2)]
"""

RAISING_REAL = [
    "tests/test_raising.py::" + t
    for t in ("test_hours", "test_rejects_garbage", "test_rejects_empty", "TestMore::test_rejects_negative")
]


def test_raise_checks_get_twins_that_a_correct_solution_fails_at_their_own_line(tmp_path):
    out = rewrite(request(files={"tests/test_raising.py": RAISING_TESTS}, real=RAISING_REAL, fresh=[]))
    raise_groups = [g for g in out["groups"] if g.startswith("raises: ")]
    assert len(raise_groups) == 3 and out["uncovered"] == []
    results = run_pytest(tmp_path / "correct", out["files"], PARSER)
    assert set(results) == set(out["tests"])
    assert_reals_pass_and_twins_fail(out, results)
    # a twin expects another class, never one related to the real one (a KeyError is a LookupError)
    text = out["files"]["tests/test_raising.py"]
    assert "issubclass" in text and "LookupError)" not in text.split("parse('-1s')")[1][:80]


def test_a_bug_that_never_raises_fails_the_raise_checks_and_one_class_for_everything_fails_every_twin(tmp_path):
    out = rewrite(request(files={"tests/test_raising.py": RAISING_TESTS}, real=RAISING_REAL, fresh=[]))
    real_id = {t["id"]: i for i, t in out["tests"].items() if t["kind"] == "real"}
    never_raises = "def parse(text):\n    return 7200\n"
    bug = run_pytest(tmp_path / "bug", out["files"], never_raises)
    assert bug[real_id[RAISING_REAL[0]]]["outcome"] == "passed"
    assert all(bug[real_id[r]]["outcome"] == "failed" for r in RAISING_REAL[1:])
    # code that raises the plausible class for every input it does not know fails every raise twin
    guess = "def parse(text):\n    if text == '2h':\n        return 7200\n    raise ValueError('bad ' + repr(text))\n"
    results = run_pytest(tmp_path / "one-class", out["files"], guess)
    twins = {i: t for i, t in out["tests"].items() if t["kind"] == "twin" and t["group"].startswith("raises: ")}
    assert all(results[i]["outcome"] == "failed" for i in twins), "a twin expects a class the code does not raise"


def test_the_target_is_reached_over_the_deciding_tests_groups():
    everything = rewrite(request(fresh=[], target=0.01))
    one = TEST_FILE + "::test_scale_and_table"
    decided = rewrite(request(fresh=[], target=0.01, deciding=[one]))
    group = next(t["group"] for t in decided["tests"].values() if t["kind"] == "twin" and t["of"] == one)
    assert decided["groups"][group]["values"] >= 100, "one deciding group alone must reach 1/100"
    assert max(g["values"] for g in everything["groups"].values()) < 100, "over every group fewer values suffice"
    others = [v["values"] for k, v in decided["groups"].items() if k != group and v["real"]]
    assert others and all(n == 2 for n in others), "a group outside the deciding tests gets one twin"


def test_asserts_in_branches_and_loops_get_no_twin():
    # a branch another solution does not take would let the twin pass beside its real sibling
    source = (
        "from calc import add\n\n"
        "def test_branch():\n    result = add(1, 2)\n    if result is not None:\n        assert result == 3\n\n"
        "def test_loop():\n    for n in range(2):\n        assert add(n, 1) == n + 1\n        assert add(7, 1) == 8\n\n"
        "def test_top():\n    assert add(2, 5) == 7\n"
    )
    real = ["tests/test_b.py::test_branch", "tests/test_b.py::test_loop", "tests/test_b.py::test_top"]
    out = rewrite(request(files={"tests/test_b.py": source}, real=real, fresh=[]))
    assert sorted(out["uncovered"]) == real[:2]
    assert list(out["groups"]) == ["add(2, 5) == 7"]


# ---------------------------------------------------------------- parametrize rows

PARAM_TESTS = """
import pytest
from calc import parse


@pytest.mark.parametrize("text, expected", [("2h", 7200), ("3m", 180), ("45s", 45)])
def test_parse(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize("text", ["1h", "2m"])
def test_positive(text):
    assert parse(text) > 0
"""

PARAM_REAL = [
    "tests/test_param.py::test_parse[2h-7200]",
    "tests/test_param.py::test_parse[3m-180]",
    "tests/test_param.py::test_parse[45s-45]",
    "tests/test_param.py::test_positive[1h]",
    "tests/test_param.py::test_positive[2m]",
]


def test_parametrize_rows_get_twins_with_every_expected_value_changed(tmp_path):
    out = rewrite(request(files={"tests/test_param.py": PARAM_TESTS}, real=PARAM_REAL, fresh=[], target=0.01))
    assert [g for g in out["groups"] if g.startswith("param: ")], out["groups"]
    assert sorted(out["uncovered"]) == PARAM_REAL[3:]
    results = run_pytest(tmp_path / "correct", out["files"], PARSER)
    assert set(results) == set(out["tests"]), "the rows' ids are the plan's"
    ids = [line.split("ids=")[1] for line in out["files"]["tests/test_param.py"].splitlines() if "ids=" in line]
    assert ids and all("7200" not in part and "2h" not in part for part in ids), "no id quotes a row's values"
    assert {t["id"] for t in out["tests"].values() if t["kind"] == "real"} == set(PARAM_REAL)
    twins = [(i, t) for i, t in out["tests"].items() if t["kind"] == "twin"]
    assert len(twins) >= 3 * 9
    assert_reals_pass_and_twins_fail(out, results)
    # code that answers exactly the rows it reads passes one copy of the rows in each row set: the real
    # one only by chance, and then a twin fails; answering every row at once is caught as a forgery
    forged = "class Any:\n    def __eq__(self, other):\n        return True\ndef parse(text):\n    return Any()\n"
    results = run_pytest(tmp_path / "forged", out["files"], forged)
    assert all(results[i]["outcome"] == "passed" for i, _ in twins)


def test_raise_checks_get_twins_on_valid_inputs_that_catch_raising_for_whatever_the_tests_ask(tmp_path):
    inputs = [{"module": "calc", "function": "parse", "args": [repr(t)]} for t in ("5s", "7m", "1h")]
    out = rewrite(request(files={"tests/test_raising.py": RAISING_TESTS}, real=RAISING_REAL, fresh=[], inputs=inputs))
    on_inputs = {i: t for i, t in out["tests"].items() if t["kind"] == "twin" and t["group"].endswith("(valid inputs)")}
    # two valid inputs per raise check, each checked against every class its real check's call is (the real
    # one and its twins'): an input twin's call is checked against as many classes as a real one's
    # (at most two per check, and each valid input used by one check only: three inputs for three checks here)
    per_group = Counter(t["group"] for t in on_inputs.values())
    for group, count in per_group.items():
        values = out["groups"][group[: -len(" (valid inputs)")]]["values"]
        assert count in (values, 2 * values), (group, count, values)
    assert sum(count // out["groups"][g[: -len(" (valid inputs)")]]["values"] for g, count in per_group.items()) == 3
    for t in on_inputs.values():
        real_group = out["groups"][t["group"][: -len(" (valid inputs)")]]
        assert out["groups"][t["group"]] == {"values": real_group["values"], "real": False, "check": "input"}
        assert t["check"] == "input" and t["variant"]
    correct = run_pytest(tmp_path / "correct", out["files"], PARSER)
    for node_id, t in out["tests"].items():
        if t["kind"] == "twin":
            assert correct[node_id]["outcome"] == "failed", node_id
            assert t["lines"][0] <= correct[node_id]["lineno"] <= t["lines"][1], (node_id, correct[node_id], t)
    # code that reads the raise blocks of the tests it is graded with and raises the expected class for
    # each input it finds there: every real raise check passes, and so do the twins on valid inputs
    text = out["files"]["tests/test_raising.py"]
    raised = sorted({line.strip() for line in text.splitlines() if line.strip().startswith("parse(")})
    lookup = (
        "RAISE = %r\ndef parse(text):\n    if 'parse(%%r)' %% text in RAISE:\n        raise (KeyError if text == '-1s' else ValueError)('bad ' + repr(text))\n    return 7200\n"
        % raised
    )
    forged = run_pytest(tmp_path / "forged", out["files"], lookup)
    real_id = {t["id"]: i for i, t in out["tests"].items() if t["kind"] == "real"}
    assert all(forged[real_id[r]]["outcome"] == "passed" for r in RAISING_REAL)
    # each input twin of a ValueError check passed beside its real sibling: a forgery, named as such
    passed = [i for i, t in on_inputs.items() if forged[i]["outcome"] == "passed"]
    assert len(passed) >= 2 and all("-1s" not in t["group"] for i, t in on_inputs.items() if i in passed)


UNITTEST_TESTS = """
import unittest
from calc import add


class TestAdd(unittest.TestCase):
    def test_small(self):
        self.assertEqual(add(2, 3), 5)

    def test_flipped(self):
        self.assertEqual(7, add(3, 4), "seven")

    def test_true(self):
        self.assertTrue(add(10, 5) == 15)
"""

UNITTEST_REAL = ["tests/test_unit.py::TestAdd::" + t for t in ("test_small", "test_flipped", "test_true")]


def test_unittest_equality_assertions_get_twins_that_fail_at_their_own_line(tmp_path):
    out = rewrite(request(files={"tests/test_unit.py": UNITTEST_TESTS}, real=UNITTEST_REAL, fresh=[]))
    assert out["uncovered"] == [] and len(out["groups"]) == 3
    text = out["files"]["tests/test_unit.py"]
    assert "assertEqual" not in text and "seven" not in text, "real and twins alike: plain asserts, no message"
    results = run_pytest(tmp_path, out["files"], CORRECT)
    assert set(results) == set(out["tests"])
    assert_reals_pass_and_twins_fail(out, results)


def test_pytest_approx_values_get_twins_of_the_same_shape(tmp_path):
    source = (
        "import pytest\nfrom calc import scale\n\n"
        "def test_scale():\n    assert scale(1.25) == pytest.approx(2.5)\n\n"
        "def test_scale_big():\n    assert scale(617283.5) == pytest.approx(1234567.0)\n"
    )
    real = ["tests/test_approx.py::test_scale", "tests/test_approx.py::test_scale_big"]
    out = rewrite(request(files={"tests/test_approx.py": source}, real=real, fresh=[]))
    assert out["uncovered"] == [real[1]], "a step under approx's tolerance has nothing to change"
    assert all(
        "pytest.approx(" in line for line in out["files"]["tests/test_approx.py"].splitlines() if "assert" in line
    )
    results = run_pytest(tmp_path, out["files"], CORRECT)
    assert_reals_pass_and_twins_fail(out, results, at_their_lines=False)


EARLY_RETURN_TESTS = """
from calc import add


def test_runs():
    result = add(1, 2)
    if result is None:
        return
    assert result == 3


def test_returns_early():
    if add(2, 2) == 4:
        return
    assert add(5, 5) == 10
"""

EARLY_REAL = ["tests/test_early.py::test_runs", "tests/test_early.py::test_returns_early"]


def test_only_assertions_the_reference_run_executed_get_twins(tmp_path):
    # the lines each test ran, as task validate records them: the grade harness's --trace-lines on the reference
    (tmp_path / "ref" / "tests").mkdir(parents=True)
    (tmp_path / "ref" / "tests" / "test_early.py").write_text(EARLY_RETURN_TESTS)
    (tmp_path / "ref" / "calc.py").write_text(CORRECT)
    harness = ROOT / "activities" / "checker" / "python" / "grade-harness.py"
    ran = subprocess.run(
        [sys.executable, "-I", str(harness), "--repo", str(tmp_path / "ref"), "--no-drop", "--trace-lines"],
        capture_output=True,
        timeout=120,
    )
    report = json.loads(ran.stdout.decode().strip().splitlines()[-1])["report"]
    executed = {t["nodeid"]: t["lines"] for t in report["tests"]}
    assert set(executed) == set(EARLY_REAL)
    files = {"tests/test_early.py": EARLY_RETURN_TESTS}
    # without the record both asserts are twinned, and an honest solution passes the second's twin beside
    # its real test (the assert never runs): it would read as a forgery
    blind = rewrite(request(files=files, real=EARLY_REAL, fresh=[]))
    assert blind["uncovered"] == []
    honest = run_pytest(tmp_path / "blind", blind["files"], CORRECT)
    early_twins = [i for i, t in twins_of(blind).items() if t["of"] == EARLY_REAL[1]]
    assert early_twins and all(honest[i]["outcome"] == "passed" for i in early_twins)
    # with it, only the assert that ran has twins; the other test is uncovered, with the reason
    out = rewrite(request(files=files, real=EARLY_REAL, fresh=[], executed=executed))
    assert out["uncovered"] == [EARLY_REAL[1]]
    assert "did not run" in out["reasons"][EARLY_REAL[1]]
    assert {t["of"] for t in twins_of(out).values()} == {EARLY_REAL[0]}
    assert_reals_pass_and_twins_fail(out, run_pytest(tmp_path / "recorded", out["files"], CORRECT))
    # a raise check's line is its block's, which the trace records when the block runs
    raising = rewrite(
        request(
            files={"tests/test_raising.py": RAISING_TESTS},
            real=RAISING_REAL,
            fresh=[],
            executed={rid: list(range(1, 200)) for rid in RAISING_REAL},
        )
    )
    assert raising["uncovered"] == []


def test_a_bad_executed_record_exits_2():
    r = run_script(request(executed={"tests/test_calc.py::test_words": ["3"]}))
    assert r.returncode == 2 and b"executed" in r.stderr


TYPED_TESTS = """
import unittest
import pytest
from calc import mul, scale, table, words


class TestTyped(unittest.TestCase):
    def test_list(self):
        self.assertListEqual(words("a b"), ["a", "b"])

    def test_dict(self):
        self.assertDictEqual(table(2), {"n": 2, "double": 4}, "the table")

    def test_count(self):
        self.assertCountEqual(words("b c"), ["c", "b"])

    def test_almost(self):
        self.assertAlmostEqual(scale(1.25), 2.5)

    def test_almost_places(self):
        self.assertAlmostEqual(2.46, scale(1.23), 3, "scaled")

    def test_delta(self):
        self.assertAlmostEqual(scale(10), 20, delta=0.1)

    def test_delta_too_wide(self):
        self.assertAlmostEqual(scale(11), 22, delta=2)

    def test_is(self):
        self.assertIs(mul(2, 3) == 6, True)


def test_approx_abs():
    assert scale(0.625) == pytest.approx(1.25, abs=1e-3)


def test_approx_too_wide():
    assert scale(0.75) == pytest.approx(1.5, rel=0.5)
"""

TYPED_REAL = [
    "tests/test_typed.py::TestTyped::test_" + t
    for t in ("list", "dict", "count", "almost", "almost_places", "delta", "delta_too_wide", "is")
] + ["tests/test_typed.py::test_approx_abs", "tests/test_typed.py::test_approx_too_wide"]


def test_unittest_typed_and_almost_equal_assertions_and_approx_tolerances_get_twins(tmp_path):
    out = rewrite(request(files={"tests/test_typed.py": TYPED_TESTS}, real=TYPED_REAL, fresh=[]))
    wide = [TYPED_REAL[6], TYPED_REAL[9]]
    assert out["uncovered"] == sorted(wide), "a tolerance as wide as a step has nothing to change"
    text = out["files"]["tests/test_typed.py"]
    assert "assertListEqual" in text and "assertAlmostEqual" in text, "the method stays, in real tests and twins"
    assert "the table" not in text and "scaled" not in text, "no message"
    results = run_pytest(tmp_path / "correct", out["files"], CORRECT)
    assert set(results) == set(out["tests"])
    twins = twins_of(out)
    assert {t["of"] for t in twins.values()} == set(TYPED_REAL) - set(wide)
    assert_reals_pass_and_twins_fail(out, results)
    # an answer within the tolerance passes the real test and still fails every twin
    near = CORRECT.replace("def scale(x): return x * 2", "def scale(x): return x * 2 + 4e-9")
    assert near != CORRECT
    results = run_pytest(tmp_path / "near", out["files"], near)
    assert all(results[i]["outcome"] == "failed" for i in twins)
    assert all(results[i]["outcome"] == "passed" for i, t in out["tests"].items() if t["kind"] == "real")


UNITTEST_RAISING = """
import unittest
from calc import parse


class TestRaising(unittest.TestCase):
    def test_block(self):
        with self.assertRaises(ValueError):
            parse("garbage")

    def test_regex(self):
        with self.assertRaisesRegex(ValueError, "bad duration") as caught:
            parse("")
        self.assertIn("''", str(caught.exception))

    def test_callable(self):
        self.assertRaises(KeyError, parse, "-1s")
"""

UNITTEST_RAISING_REAL = ["tests/test_ur.py::TestRaising::test_" + t for t in ("block", "regex", "callable")]


def test_unittest_raise_checks_get_twins_in_both_forms(tmp_path):
    inputs = [{"module": "calc", "function": "parse", "args": [repr(t)]} for t in ("5s", "7m")]
    files = {"tests/test_ur.py": UNITTEST_RAISING}
    out = rewrite(request(files=files, real=UNITTEST_RAISING_REAL, fresh=[], inputs=inputs))
    assert out["uncovered"] == []
    assert len([g for g in out["groups"] if g.startswith("raises: ")]) >= 3
    text = out["files"]["tests/test_ur.py"]
    assert "self.assertRaises(BaseException) as" in text and "assertRaisesRegex(BaseException, 'bad duration')" in text
    correct = run_pytest(tmp_path / "correct", out["files"], PARSER)
    assert set(correct) == set(out["tests"])
    assert_reals_pass_and_twins_fail(out, correct)
    # a parser that never raises fails every real raise check (the regex's message included)
    never = run_pytest(tmp_path / "never", out["files"], "def parse(text):\n    return 0\n")
    assert all(never[i]["outcome"] == "failed" for i, t in out["tests"].items() if t["kind"] == "real")


PARAM_CALL_TESTS = """
import pytest
from calc import parse


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(
    "text, expected",
    [pytest.param("2h", 7200, id="hours"), ("3m", 180), pytest.param("45s", 45, marks=pytest.mark.slow)],
)
def test_parse(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize("text", ["1h"])
@pytest.mark.parametrize("n", [1, 2])
def test_stacked(text, n):
    assert parse(text) * n == 3600 * n
"""

PARAM_CALL_REAL = [
    "tests/test_pc.py::test_parse[hours]",
    "tests/test_pc.py::test_parse[3m-180]",
    "tests/test_pc.py::test_parse[45s-45]",
    "tests/test_pc.py::test_stacked[1-1h]",
    "tests/test_pc.py::test_stacked[2-1h]",
]


def test_pytest_param_rows_and_other_marks_keep_their_twins(tmp_path):
    files = {"tests/test_pc.py": PARAM_CALL_TESTS, "pytest.ini": "[pytest]\nmarkers =\n    slow\n"}
    out = rewrite(request(files=files, real=PARAM_CALL_REAL, fresh=[]))
    assert out["uncovered"] == PARAM_CALL_REAL[3:], "stacked parametrize: no row twins"
    text = out["files"]["tests/test_pc.py"]
    assert "hours" not in text and "7200" in text, "the row's own id gives way to the neutral ids"
    assert "pytest.mark.slow" in text, "a row's marks stay"
    results = run_pytest(tmp_path, out["files"], PARSER)
    assert set(results) == set(out["tests"]), "the rows' ids are the plan's"
    assert len(twins_of(out)) >= 3
    assert_reals_pass_and_twins_fail(out, results)
