"""The shell of a `bash` tool call (sandbox/run-tool.py): bash, with the signal dispositions a terminal gives it."""

import importlib.util
import json
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[1] / "run-tool.py"
spec = importlib.util.spec_from_file_location("run_tool_shell", RUNNER)
run_tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_tool)


@pytest.fixture(autouse=True)
def sandbox(tmp_path, monkeypatch):
    """A spool and a repository root in a temporary folder; the runner's end-of-call kill of its uid sends nothing
    (signal 0: that uid is the test's own)."""
    (tmp_path / "spool").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.setattr(run_tool, "SPOOL", str(tmp_path / "spool"))
    monkeypatch.setattr(run_tool, "REPO", str(tmp_path / "work"))
    monkeypatch.setattr(run_tool, "SIGKILL", 0)


def run(command):
    return json.loads(run_tool.run_call("n1", lambda _nonce: ("bash", command, "", 5000, 10_000, [])))


@pytest.mark.parametrize(
    "command, output",
    [
        ("set -o pipefail; false | true; echo $?", "1\n"),
        ("[[ abc == a* ]] && echo matched", "matched\n"),
        ("words=(a 'b c'); echo ${#words[@]} ${words[1]}", "2 b c\n"),
        ("cat <<< $'tab\\there'", "tab\there\n"),
        ("echo {1..3} x{a,b}", "1 2 3 xa xb\n"),
        ("diff <(echo a) <(echo a) && echo same", "same\n"),
    ],
)
def test_bash_syntax_runs(command, output):
    result = run(command)
    assert (result["output"], result["exitCode"]) == (output, 0)


def test_a_pipe_closed_early_ends_its_writer_quietly_as_in_a_terminal():
    # the runner is Python, which ignores SIGPIPE; a shell started with it ignored could not restore it
    result = run("set -o pipefail; yes | head -1; echo ${PIPESTATUS[@]}")
    assert result["output"] == "y\n141 0\n"


def test_an_image_without_bash_answers_with_an_error_that_names_it(tmp_path, monkeypatch):
    missing = str(tmp_path / "no-bash")
    monkeypatch.setattr(run_tool, "SHELL", missing)
    assert run("echo hi")["error"] == "the call could not start: %s: No such file or directory" % missing
