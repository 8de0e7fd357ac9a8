"""Which tool calls the executor hands to the warm interpreter (sandbox/run-tool.py simple_python): exactly the
commands a POSIX shell would run as one `python3 -c|-m ...` with literal words, and with the argv the shell would
give. Checked against dash itself, with a `python3` on PATH that prints the argv it got."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[1] / "run-tool.py"
spec = importlib.util.spec_from_file_location("run_tool", RUNNER)
run_tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_tool)


def shell_argv(command, tmp_path):
    """The argv a POSIX shell gives `python3` for this command (a stand-in python3 on PATH prints it)."""
    fake = tmp_path / "python3"
    fake.write_text("#!%s\nimport json, sys\nprint(json.dumps(['python3'] + sys.argv[1:]))\n" % sys.executable)
    fake.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (tmp_path, os.environ.get("PATH", "")), HOME=str(tmp_path))
    done = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, env=env, cwd=tmp_path)
    return json.loads(done.stdout.strip().splitlines()[-1])


def quote(value):
    """shellQuote of shared/compact-actions/language.ts."""
    return "'" + value.replace("'", "'\\''") + "'"


SIMPLE = [
    "python3 -m pytest -q",
    "python3 -m pytest -q -p no:cacheprovider tests/test_a.py::test_b",
    "python3 -c 'print(1)'",
    " ".join(quote(word) for word in ["python3", "-c", "import sys\nprint(sys.argv)", "it's", "a b", ""]),
    "python3 -c 'x = \"$HOME\" ; `id` | true' 'literal * ?' k=v,w:1+2@3%4",
    "python3 -c pass " + quote("'\\''"),
    "python3 -c pass trailing ",
]


@pytest.mark.parametrize("command", SIMPLE)
def test_a_simple_command_gives_the_argv_the_shell_gives(command, tmp_path):
    assert run_tool.simple_python(command) == shell_argv(command, tmp_path)


NOT_SIMPLE = [
    "python3 -m pytest -q ;",  # an operator: the shell runs it
    "python3 -m pytest -q && echo done",
    "python3 -m pytest -q > out.txt",
    "python3 -c 'print(1)' $HOME",  # an expansion
    "python3 -c 'print(1)' *.py",  # a glob
    "python3 -c 'print(1)' ~",  # a tilde
    'python3 -c "print(1)"',  # double quotes expand
    "python3 -c pass\necho again",  # two commands
    "PYTHONPATH=x python3 -c pass",  # an assignment
    "python3  -c pass",  # an empty word between two spaces
    "python3 -c 'unterminated",
    "python3 script.py",  # neither -c nor -m
    "python3 -I -c pass",  # interpreter options: not handed over
    "/usr/bin/python3 -c pass",  # another path to an interpreter
    "python -c pass",
    "python3 -c",
    "",
]


@pytest.mark.parametrize("command", NOT_SIMPLE)
def test_anything_else_runs_through_the_shell(command):
    assert run_tool.simple_python(command) is None
