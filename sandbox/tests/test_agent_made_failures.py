"""What the agent can do to its sandbox is answered as the call's own failure (sandbox/run-tool.py): a repository root
it cannot enter, a spool it filled, a runner whose limits it lowered. An unanswered call would read as a lost sandbox
(sandbox_crash), which erases the episode from training."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[1] / "run-tool.py"
spec = importlib.util.spec_from_file_location("run_tool_failures", RUNNER)
run_tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_tool)


@pytest.fixture(autouse=True)
def no_kill(monkeypatch):
    """The runner ends a call by killing every process of its uid (kill -1): here that uid is the test's own, so the
    signal is 0 (a check that sends nothing)."""
    monkeypatch.setattr(run_tool, "SIGKILL", 0)


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A spool and a repository root in a temporary folder."""
    spool, repo = tmp_path / "spool", tmp_path / "work"
    spool.mkdir()
    repo.mkdir()
    monkeypatch.setattr(run_tool, "SPOOL", str(spool))
    monkeypatch.setattr(run_tool, "REPO", str(repo))
    monkeypatch.chdir(tmp_path)
    return spool, repo


def bash(command):
    return lambda _nonce: ("bash", command, "", 5000, 10_000, [])


def test_a_call_runs_and_is_recorded(sandbox):
    spool, _ = sandbox
    line = run_tool.run_call("n1", bash("echo hi; pwd"))
    result = json.loads(line)
    assert result["output"].splitlines() == ["hi", run_tool.REPO]
    assert json.loads((spool / "n1.json").read_bytes()) == result


def test_a_repository_root_that_is_gone_answers_with_an_error(sandbox):
    _, repo = sandbox
    repo.rmdir()
    result = json.loads(run_tool.run_call("n1", bash("echo hi")))
    assert result["error"] == "the call could not start: cannot enter %s: No such file or directory" % repo


def test_a_result_that_cannot_be_written_is_still_answered(sandbox):
    spool, _ = sandbox
    # what a full spool or a lowered descriptor limit does to the write: it fails
    (spool / "n1.json.tmp").mkdir()
    result = json.loads(run_tool.run_call("n1", bash("echo hi")))
    assert result["output"] == "hi\n"
    assert not (spool / "n1.json").exists()
    assert (spool / "n1.started").exists(), "the claim stays: a retried host never runs the call again"


def test_a_claim_that_cannot_be_made_answers_without_running(sandbox, tmp_path):
    spool, _ = sandbox
    spool.rmdir()
    marker = tmp_path / "ran"
    result = json.loads(run_tool.run_call("n1", bash("touch %s" % marker)))
    assert result["error"] == "the call could not start: No such file or directory"
    assert not marker.exists()


def test_a_claimed_call_is_not_run_twice(sandbox):
    run_tool.run_call("n1", bash("echo once"))
    with pytest.raises(run_tool.AlreadyStarted):
        run_tool.run_call("n1", bash("echo twice"))


def test_a_runner_that_fails_answers_its_call(sandbox, monkeypatch, capsysbinary):
    def broken(nonce, request_of):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(run_tool, "run_call", broken)
    monkeypatch.setattr(sys, "argv", ["run-tool.py", "n1"])
    run_tool.main()
    line = capsysbinary.readouterr().out
    assert json.loads(line) == {"error": "the tool call's runner failed: No space left on device"}
