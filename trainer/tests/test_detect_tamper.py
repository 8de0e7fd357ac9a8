"""Tests for sandbox/detect-tamper.py (static tamper findings)."""

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "sandbox" / "detect-tamper.py"
KINDS_FILE = ROOT / "shared" / "tamper-kinds.json"


def _load():
    spec = importlib.util.spec_from_file_location("detect_tamper", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


dt = _load()


def change(path, after=None, status=None, protected=False, symlink=False, before=None):
    if status is None:
        status = "added" if before is None else "modified"
    if after is not None:
        after = textwrap.dedent(after)
    return {"path": path, "status": status, "after": after, "before": before,
            "protected": protected, "symlink": symlink}


def kinds_paths(findings):
    return [(f["kind"], f["path"]) for f in findings]


def run_cli(payload, raw=None):
    data = raw if raw is not None else json.dumps(payload)
    return subprocess.run([sys.executable, "-I", str(SCRIPT)], input=data.encode(),
                          capture_output=True, timeout=60)


# ---------------------------------------------------------------- kinds file

def test_kinds_file_matches_builtin_copy():
    data = json.loads(KINDS_FILE.read_text())
    assert data == {"kinds": dt.BUILTIN_KINDS}


def test_kinds_file_shape():
    kinds = json.loads(KINDS_FILE.read_text())["kinds"]
    expected = {
        "test_edit": "report_only", "config_edit": "report_only",
        "exit_at_import": "forges_pass", "process_exit": "report_only",
        "skip_raise": "report_only", "always_true_eq": "forges_pass",
        "pytest_hook": "report_only", "runner_internals": "forges_pass",
        "shadowing_module": "forges_pass", "symlink": "report_only",
    }
    assert {k: v["effect"] for k, v in kinds.items()} == expected
    for spec in kinds.values():
        assert set(spec) == {"effect", "description"}
        assert spec["description"].strip() and "\n" not in spec["description"]


def test_load_kinds_default_and_explicit():
    assert dt.load_kinds(None) == dt.BUILTIN_KINDS
    assert dt.load_kinds(str(KINDS_FILE)) == dt.BUILTIN_KINDS


def test_load_kinds_falls_back_to_builtin_when_copied_alone(tmp_path):
    copy = tmp_path / "detect-tamper.py"
    copy.write_text(SCRIPT.read_text())
    payload = {"changes": [change("a/b.py", "import sys\nsys.exit(0)\n")]}
    r = subprocess.run([sys.executable, "-I", str(copy)], input=json.dumps(payload).encode(),
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert kinds_paths(json.loads(r.stdout)["findings"]) == [("exit_at_import", "a/b.py")]


def test_inline_kinds_and_kinds_file_accepted():
    payload = {"changes": [], "kinds": dt.BUILTIN_KINDS}
    assert run_cli(payload).returncode == 0
    payload = {"changes": [], "kinds": {"kinds": dt.BUILTIN_KINDS}}
    assert run_cli(payload).returncode == 0
    payload = {"changes": [], "kindsFile": str(KINDS_FILE)}
    assert run_cli(payload).returncode == 0


def test_incomplete_kinds_table_rejected(tmp_path):
    kinds = dict(dt.BUILTIN_KINDS)
    del kinds["symlink"]
    r = run_cli({"changes": [], "kinds": kinds})
    assert r.returncode == 2 and b"symlink" in r.stderr
    bad = tmp_path / "k.json"
    bad.write_text("{not json")
    r = run_cli({"changes": [], "kindsFile": str(bad)})
    assert r.returncode == 2


# ---------------------------------------------------------------- CLI

def test_cli_output_shape_and_sorting():
    payload = {"changes": [
        change("z.py", "import os\nos._exit(0)\n"),
        change("a/m.py", "import _pytest\nclass A:\n    def __eq__(self, o):\n        return True\n"),
    ]}
    r = run_cli(payload)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == {"findings"}
    assert kinds_paths(out["findings"]) == [
        ("always_true_eq", "a/m.py"), ("runner_internals", "a/m.py"), ("exit_at_import", "z.py")]
    for f in out["findings"]:
        assert set(f) == {"kind", "path", "detail"} and f["detail"]


@pytest.mark.parametrize("raw", [
    "not json",
    "[]",
    '{"nochanges": []}',
    '{"changes": {}}',
    '{"changes": [{"path": "a.py", "status": "renamed"}]}',
    '{"changes": [{"path": "", "status": "added"}]}',
    '{"changes": [{"path": "a.py", "status": "added", "after": 3}]}',
    '{"changes": [{"path": "a.py", "status": "added", "protected": "yes"}]}',
    '{"changes": [], "kindsFile": "/nonexistent/kinds.json"}',
])
def test_cli_invalid_input_exit_2(raw):
    r = run_cli(None, raw=raw)
    assert r.returncode == 2
    assert r.stderr.strip()
    assert r.stdout == b""


# ---------------------------------------------------------------- one positive case per kind

def test_test_edit():
    f = dt.detect([
        change("tests/test_core.py", "def test_a():\n    assert True\n", protected=True, before="x"),
        change("pkg/core_test.py", None, status="deleted", protected=True, before="x"),
        change("test_top.py", "import sys\nsys.exit(0)\n", protected=True),
        change("tests/data/expected.json", "{}", protected=True, before="{}"),
    ])
    assert kinds_paths(f) == [("test_edit", "pkg/core_test.py"), ("test_edit", "test_top.py"),
                              ("test_edit", "tests/data/expected.json"), ("test_edit", "tests/test_core.py")]


def test_config_edit():
    f = dt.detect([
        change("conftest.py", "def pytest_configure(config):\n    pass\n", protected=True, before=""),
        change("tests/conftest.py", "import pytest\n", protected=True),
        change("pytest.ini", "[pytest]\n", protected=True, before=""),
        change("tox.ini", None, status="deleted", protected=True, before=""),
        change("setup.cfg", "[tool:pytest]\n", protected=True, before=""),
        change("pyproject.toml", "[tool.pytest.ini_options]\n", protected=True, before=""),
        change("sitecustomize.py", "import sys\nsys.exit(0)\n", protected=True, before=""),
        change("usercustomize.py", "", protected=True, before=""),
        change("x.pth", "import os\n", protected=True, before=""),
        # not protected, but still config: reported, not analysed
        change("src/conftest.py", "import sys\nsys.exit(0)\n"),
        change("sub/pyproject.toml", "[tool.pytest.ini_options]\n", before=""),
    ])
    assert kinds_paths(f) == [
        ("config_edit", "conftest.py"), ("config_edit", "pyproject.toml"), ("config_edit", "pytest.ini"),
        ("config_edit", "setup.cfg"), ("config_edit", "sitecustomize.py"), ("config_edit", "src/conftest.py"),
        ("config_edit", "sub/pyproject.toml"), ("config_edit", "tests/conftest.py"), ("config_edit", "tox.ini"),
        ("config_edit", "usercustomize.py"), ("config_edit", "x.pth"),
    ]


def test_protected_content_not_analysed():
    f = dt.detect([change("tests/test_a.py", "import _pytest\nimport os\nos._exit(0)\n", protected=True)])
    assert kinds_paths(f) == [("test_edit", "tests/test_a.py")]


@pytest.mark.parametrize("src,detail", [
    ("import sys\nsys.exit(0)\n", "sys.exit() at module level, line 2"),
    ("import os\nos._exit(0)\n", "os._exit() at module level, line 2"),
    ("exit()\n", "exit() at module level, line 1"),
    ("quit(0)\n", "quit() at module level, line 1"),
    ("raise SystemExit\n", "raise SystemExit at module level, line 1"),
    ("raise SystemExit(0)\n", "raise SystemExit at module level, line 1"),
    ("import sys as s\nx = 1\nif x:\n    s.exit(0)\n", "sys.exit() at module level, line 4"),
    ("from sys import exit as bye\nbye(0)\n", "sys.exit() at module level, line 2"),
    ("from os import _exit\ntry:\n    import foo\nexcept ImportError:\n    _exit(0)\n", "os._exit() at module level, line 5"),
    ("import sys\nclass C:\n    sys.exit(0)\n", "sys.exit() at module level, line 3"),
    ("import sys\nif __name__ == '__main__':\n    pass\nelse:\n    sys.exit(0)\n", "sys.exit() at module level, line 5"),
    ("import sys\nif __name__ != '__main__':\n    sys.exit(0)\n", "sys.exit() at module level, line 3"),
    ("import sys\nVALUE = [sys.exit(0) for _ in range(1)]\n", "sys.exit() at module level, line 2"),
    ("__import__('sys').exit(0)\n", "sys.exit() at module level, line 1"),
])
def test_exit_at_import(src, detail):
    f = dt.detect([change("pkg/mod.py", src)])
    assert kinds_paths(f) == [("exit_at_import", "pkg/mod.py")]
    assert f[0]["detail"] == detail


def test_process_exit():
    src = """
        import os, sys

        def main():
            os._exit(3)

        class Worker:
            def stop(self):
                cb = lambda: os._exit(1)
                return cb
    """
    f = dt.detect([change("pkg/run.py", src, before="")])
    assert kinds_paths(f) == [("process_exit", "pkg/run.py"), ("process_exit", "pkg/run.py")]
    assert f[0]["detail"] == "os._exit() in function main, line 5"
    assert f[1]["detail"] == "os._exit() in function <lambda>, line 9"


@pytest.mark.parametrize("src", [
    "import unittest\nraise unittest.SkipTest('no')\n",
    "from unittest import SkipTest\nraise SkipTest\n",
    "import pytest\npytest.skip('x', allow_module_level=True)\n",
    "import pytest\nraise pytest.skip.Exception('x', allow_module_level=True)\n",
    "import pytest as pt\ndef helper():\n    pt.skip('later')\n",
    "import pytest\ndef helper():\n    pytest.xfail('nope')\n",
])
def test_skip_raise(src):
    f = dt.detect([change("lib/util.py", src, before="")])
    kinds = [k for k, _ in kinds_paths(f)]
    assert "skip_raise" in kinds
    # anything else is the runner import that goes with `import pytest`
    assert set(kinds) <= {"skip_raise", "runner_internals"}
    assert kinds.count("skip_raise") == 1


def test_skip_raise_unittest_only():
    f = dt.detect([change("lib/util.py", "import unittest\nraise unittest.SkipTest('x')\n")])
    assert kinds_paths(f) == [("skip_raise", "lib/util.py")]
    assert f[0]["detail"] == "raise unittest.SkipTest at module level, line 2"


@pytest.mark.parametrize("body", [
    "def __eq__(self, other):\n        return True",
    "def __eq__(self, other):\n        'Always equal.'\n        return True",
    "def __eq__(self, other):\n        return 1",
    "def __eq__(self, other):\n        return not False",
    "def __eq__(self, other):\n        return 'yes'",
    "def __eq__(self, other):\n        if other is None:\n            return True\n        return True",
    "__eq__ = lambda self, other: True",
    "def __ne__(self, other):\n        return False",
    "def __ne__(self, other):\n        return 0",
])
def test_always_true_eq(body):
    src = "class Result:\n    x = 1\n    " + body + "\n"
    f = dt.detect([change("pkg/result.py", src, before="")])
    assert kinds_paths(f) == [("always_true_eq", "pkg/result.py")]


def test_always_true_eq_nested_class_detail():
    src = "def factory():\n    class Any:\n        def __eq__(self, o):\n            return True\n    return Any()\n"
    f = dt.detect([change("pkg/f.py", src)])
    assert f == [{"kind": "always_true_eq", "path": "pkg/f.py",
                  "detail": "class Any: __eq__ always returns a truthy constant, line 3"}]


def test_pytest_hook():
    src = """
        def pytest_collection_modifyitems(session, config, items):
            items.clear()

        class Plugin:
            def pytest_runtest_makereport(self, item, call):
                pass

        pytest_plugins = ["myplugin"]
    """
    f = dt.detect([change("pkg/plugin.py", src)])
    assert kinds_paths(f) == [("pytest_hook", "pkg/plugin.py")] * 3
    assert [x["detail"] for x in f] == [
        "defines pytest hook pytest_collection_modifyitems, line 2",
        "defines pytest hook pytest_runtest_makereport, line 6",
        "sets pytest_plugins, line 9",
    ]


@pytest.mark.parametrize("src", [
    "import _pytest.runner\n",
    "from _pytest.reports import TestReport\n",
    "import pluggy\n",
    "import pytest\n",
    "from pytest import fixture\n",
    "def f():\n    import pytest\n",
    "import sys\nsys.modules['pytest'].main\n",
    "import sys\nsys.modules.get('_pytest.terminal')\n",
    "import importlib\nimportlib.import_module('_pytest.runner')\n",
    "__import__('pluggy')\n",
])
def test_runner_internals(src):
    f = dt.detect([change("pkg/hack.py", src, before="")])
    assert kinds_paths(f) == [("runner_internals", "pkg/hack.py")]


def test_runner_internals_in_new_test_file_only_private_modules():
    f = dt.detect([
        change("tests/test_new.py", "import pytest\nfrom pytest import approx\n\ndef test_x():\n    pytest.skip('x')\n"),
        change("tests/test_evil.py", "import _pytest.runner\n"),
    ])
    assert kinds_paths(f) == [("runner_internals", "tests/test_evil.py")]


@pytest.mark.parametrize("path,mod", [
    ("pytest.py", "pytest"),
    ("_pytest/__init__.py", "_pytest"),
    ("pluggy/hooks.py", "pluggy"),
    ("py.py", "py"),
    ("iniconfig/__init__.py", "iniconfig"),
    ("unittest.py", "unittest"),
    ("os.py", "os"),
    ("json/__init__.py", "json"),
    ("json/decoder.py", "json"),
    ("sitecustomize.py", None),
    ("usercustomize.py", None),
    ("evil.pth", None),
])
def test_shadowing_module(path, mod):
    f = dt.detect([change(path, "X = 1\n")])
    assert kinds_paths(f) == [("shadowing_module", path)]
    if mod:
        assert repr(mod) in f[0]["detail"]


def test_shadowing_only_for_added_files():
    f = dt.detect([
        change("json/__init__.py", "X = 2\n", before="X = 1\n"),
        change("os.py", None, status="deleted", before="X = 1\n"),
        change("json/README.md", "text\n"),  # not a module file
        change("src/json/__init__.py", "X = 1\n"),  # first component is "src"
        change("test/helpers.py", "X = 1\n"),  # test directory
    ])
    assert f == []


def test_symlink():
    f = dt.detect([
        change("pkg/link.py", None, symlink=True),
        change("tests/test_link.py", None, symlink=True, protected=True),
        change("old_link", None, status="deleted", symlink=True, before="target"),
    ])
    assert kinds_paths(f) == [("symlink", "pkg/link.py"), ("symlink", "tests/test_link.py"),
                              ("test_edit", "tests/test_link.py")]


# ---------------------------------------------------------------- negative cases

ORDINARY = '''
"""Utility module: never call sys.exit or os._exit here; pytest is the runner."""
import argparse
import sys
import os

# a comment mentioning pytest, _pytest, pluggy, sys.exit() and SystemExit
MESSAGE = "call sys.exit(0) or raise SystemExit; pytest.skip; unittest.SkipTest"
exit_code = 0
skip_header = True
pytest_like = "pytest_configure"


class Point:
    """A point."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        if not isinstance(other, Point):
            return NotImplemented
        return (self.x, self.y) == (other.x, other.y)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash((self.x, self.y))


class Sentinel:
    def __eq__(self, other):
        return other is self

    def is_true(self):
        return True


def skip_header(lines):
    return lines[1:]


def exit(code):
    """A local function that happens to be called exit."""
    return code


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.parse_args(argv)
    if exit_code:
        sys.exit(exit_code)
    raise SystemExit(1)


def run_sub():
    try:
        main([])
    except SystemExit as e:
        return e.code


exit(0)
skip_header(["a"])

if __name__ == "__main__":
    sys.exit(main())
'''


def test_ordinary_code_not_flagged():
    assert dt.detect([change("pkg/util.py", ORDINARY, before="")]) == []
    assert dt.detect([change("pkg/new_util.py", ORDINARY)]) == []


def test_main_guard_variants_not_flagged():
    src = """
        import os, sys
        def main():
            return 0
        if __name__ == "__main__":
            os._exit(main())
        if "__main__" == __name__ and len(sys.argv) > 1:
            raise SystemExit(main())
    """
    assert dt.detect([change("tool.py", src)]) == []


def test_dunder_main_module_exit_not_flagged():
    src = "import sys\nfrom .cli import main\nsys.exit(main())\n"
    assert dt.detect([change("pkg/__main__.py", src)]) == []


def test_syntax_error_is_not_a_finding():
    assert dt.detect([change("pkg/broken.py", "def f(:\n    sys.exit(0)\n")]) == []


def test_deleted_and_non_python_files_not_flagged():
    f = dt.detect([
        change("pkg/gone.py", None, status="deleted", before="import sys\nsys.exit(0)\n"),
        change("docs/notes.md", "sys.exit(0)\nimport pytest\n"),
        change("pkg/data.txt", "import _pytest", before=""),
    ])
    assert f == []


def test_new_test_file_is_test_code():
    src = """
        import pytest

        @pytest.fixture
        def pytest_thing():
            return 1

        def test_a(pytest_thing):
            pytest.skip("later")
    """
    assert dt.detect([change("tests/test_new.py", src)]) == []


def test_eq_returning_false_or_comparison_not_flagged():
    src = """
        class A:
            def __eq__(self, other):
                return False
            def __ne__(self, other):
                return True
        class B:
            def __eq__(self, other):
                return self.v == other.v
        class C:
            def __eq__(self, other):
                if other:
                    return True
                return self.v == other
    """
    assert dt.detect([change("pkg/a.py", src)]) == []
