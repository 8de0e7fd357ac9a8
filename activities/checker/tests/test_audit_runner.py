"""The audit runner's channel (activities/checker/python/audit-runner.py), run as a process on this
machine: the candidate's code decides at most its own call's outcome, one value or one raise."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[1] / "python" / "audit-runner.py"

CANDIDATE = textwrap.dedent(
    """
    import os

    def add(a, b):
        return a + b

    def forge(x):
        # a line for every call, carrying a value and a raise, on every descriptor it can find
        line = b'{"i": 0, "value": 99, "raises": ["builtins.ValueError"]}\\n{"i": 2, "value": 5}\\n'
        for fd in range(64):
            try:
                os.write(fd, line)
            except OSError:
                pass
        return 1

    def hedge(x):
        import json
        real = json.dumps

        def both(value, *args, **kwargs):  # the codec's json, replaced inside the call's process
            if isinstance(value, dict) and "value" in value:
                value = dict(value, raises=["builtins.ValueError"])
            return real(value, *args, **kwargs)

        json.dumps = both
        return x

    def leaves(x):
        os._exit(0)

    def hangs(x):
        import time
        time.sleep(60)

    def background(x):
        if os.fork() == 0:
            import time
            time.sleep(30)
            os._exit(0)
        return 7
    """
)


def run(tmp_path, calls, per_call=2):
    (tmp_path / "repo" / "cand").mkdir(parents=True)
    (tmp_path / "repo" / "cand" / "__init__.py").write_text(CANDIDATE)
    calls_path = tmp_path / "calls.json"
    calls_path.write_text(json.dumps([{"module": "cand", "function": f, "args": args} for f, args in calls]))
    done = subprocess.run(
        [sys.executable, "-I", str(RUNNER), str(calls_path), str(tmp_path / "repo"), str(per_call)],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.decode().splitlines()], done.stderr.decode("utf-8", "replace")


def test_one_outcome_per_call_whatever_the_candidate_writes(tmp_path):
    outcomes, stderr = run(tmp_path, [("add", [1, 2]), ("forge", [0]), ("add", [2, 2]), ("hedge", [4])])
    assert [o["i"] for o in outcomes] == [0, 1, 2, 3], "exactly one line per call, in order"
    assert outcomes[0] == {"i": 0, "value": 3}
    assert "error" in outcomes[1], "its writes reached its own pipe too: it spoiled its own outcome, no other"
    assert outcomes[2] == {"i": 2, "value": 4}
    # the candidate's json.dumps, replaced in its own process, may only spoil its own outcome
    assert outcomes[3]["i"] == 3 and "value" not in outcomes[3] and "error" in outcomes[3]
    assert '"i": 2, "value": 5' in stderr, "what the candidate wrote went to stderr, not the outcomes"


def test_a_call_that_exits_hangs_or_leaves_a_process_behind_gets_its_own_outcome(tmp_path):
    outcomes, _ = run(tmp_path, [("leaves", [0]), ("hangs", [0]), ("background", [0]), ("add", [1, 1])])
    assert "error" in outcomes[0] and "error" in outcomes[1]
    assert outcomes[1]["error"] == "the call ran longer than 2 s"
    assert outcomes[2] == {"i": 2, "value": 7}
    assert outcomes[3] == {"i": 3, "value": 2}


def test_the_runner_cannot_be_reached_through_proc_by_its_own_uid():
    # the audit runs the runner as the tests' unprivileged user; as root (CI) this test drops to nobody
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="agentrl-audit-"))
    try:
        os.chmod(base, 0o755)
        for name in ("audit-runner.py", "oracle_values.py"):
            shutil.copy(RUNNER.parent / name, base / name)
        (base / "repo" / "cand").mkdir(parents=True)
        (base / "repo" / "cand" / "__init__.py").write_text(
            "import os\n"
            "def reach(x):\n"
            "    try:\n"
            "        with open('/proc/%d/fd/1' % os.getppid(), 'w') as h:\n"
            "            h.write('{\"i\": 0, \"value\": 42}\\n')\n"
            "        return 'reached'\n"
            "    except OSError:\n"
            "        return 'refused'\n"
        )
        (base / "calls.json").write_text(json.dumps([{"module": "cand", "function": "reach", "args": [0]}]))
        for path in base.rglob("*"):
            os.chmod(path, 0o755)
        drop = {"user": 65534, "group": 65534, "extra_groups": []} if os.geteuid() == 0 else {}
        # the runner's stdout is a pipe its own uid made (`| cat`), which /proc would let that uid open
        runner = f"/usr/bin/python3 -I {base}/audit-runner.py {base}/calls.json {base}/repo | cat"
        done = subprocess.run(
            ["/bin/sh", "-c", runner],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            **drop,
        )
        assert [json.loads(line) for line in done.stdout.decode().splitlines()] == [{"i": 0, "value": "refused"}]
    finally:
        shutil.rmtree(base, ignore_errors=True)
