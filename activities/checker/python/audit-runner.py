#!/usr/bin/env python3
"""agentrl audit runner: make the oracle's calls on a candidate tree and print their outcomes.

Runs in a fresh audit container as the tests' unprivileged user:

    python3 -I /run/agentrl/audit-runner.py CALLS_JSON REPO [PER_CALL_SECONDS [unsafe-protocol]]

CALLS_JSON holds the calls WITHOUT their expected values ([{module, function, args, kwargs}]):
those never enter this container. For each call it prints one line on its original stdout,
`{"i": <index>, "value": <encoded>} | {"i": ..., "raises": [qualified names]} | {"i": ..., "error": "..."}`
(activities/checker/python/oracle_values.py encodes the values as plain data), and the trusted
process on the host compares them with the expected values.

The channel: this process never imports the candidate's code. Each call runs in a forked child
that keeps only stderr and the write end of its own pipe (stdout and every other descriptor are
closed before the candidate's module is imported); this process is made non-dumpable first, so
a child of the same uid can neither open /proc/<this pid>/fd/1 nor attach to it. The child
sends its outcome through its pipe; this process reads at most MAX_OUTCOME_BYTES of it, keeps
it only if it is exactly one JSON object of one of the three shapes, and writes the line itself
with the `json` it imported before any child ran. So the candidate decides, at most, its own
outcome of the call being made: one value or one raise, never both, never a line for another
call. A child that runs longer than PER_CALL_SECONDS (default 10), dies, or sends anything else
gets an error outcome.

`unsafe-protocol` (tests only) passes on whatever object a call sends, so that a test can show the
attack the one-outcome rule prevents.
"""

import json
import os
import select
import signal
import sys
import time

MAX_OUTCOME_BYTES = 1024 * 1024  # the host's auditLimits.lineBytes


def _not_dumpable():
    """PR_SET_DUMPABLE 0: /proc/<pid>/fd and ptrace of this process are closed to its own uid."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)
    except Exception:  # noqa: BLE001 - without ctypes the host-side rules still hold
        pass


def _load_codec():
    # by its path: the spool cannot be listed by this user, so it cannot go on sys.path
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle_values.py")
    spec = importlib.util.spec_from_file_location("oracle_values", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _child(codec, call, repo, write_end):
    """Runs one call; never returns. Only stderr and write_end stay open."""
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(2, 1)
        os.closerange(3, write_end)
        os.closerange(write_end + 1, 1 << 16)
        sys.stdout = sys.stderr
        os.chdir(repo)
        outcome = codec.run_calls([call], repo)[0]
        data = json.dumps(outcome, ensure_ascii=True, allow_nan=False).encode("ascii")
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
    except BaseException:  # noqa: BLE001 - whatever the candidate did, the child ends here
        pass
    os._exit(0)


def _read_outcome(read_end, pid, deadline):
    """The child's bytes, or None when it overran its time or the outcome bound."""
    chunks, size, exited = [], 0, False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([read_end], [], [], 0 if exited else min(left, 0.05))
        if not ready:
            if exited:  # a process it started may hold the pipe open: what was sent is all there is
                return b"".join(chunks)
            exited = os.waitpid(pid, os.WNOHANG)[0] == pid
            continue
        chunk = os.read(read_end, 65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_OUTCOME_BYTES:
            return b""
        chunks.append(chunk)


def _outcome(raw, unsafe=False):
    """The child's outcome if it is exactly one object of one shape, else an error outcome."""
    if raw is None:
        return None
    try:
        outcome = json.loads(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return {"error": "the call sent no outcome (it ended the process, or wrote something else)"}
    if unsafe and type(outcome) is dict and "i" not in outcome:
        return outcome
    if type(outcome) is not dict or len(outcome) != 1:
        return {"error": "the call sent a malformed outcome"}
    (key,) = outcome
    if key == "value":
        return outcome
    if key == "raises" and type(outcome[key]) is list and all(type(n) is str for n in outcome[key]):
        return outcome
    if key == "error" and type(outcome[key]) is str:
        return outcome
    return {"error": "the call sent a malformed outcome"}


def _stop(pid):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def main():
    calls_path, repo = sys.argv[1], sys.argv[2]
    per_call = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    unsafe = sys.argv[4:5] == ["unsafe-protocol"]
    _not_dumpable()
    codec = _load_codec()
    with open(calls_path, encoding="utf-8") as handle:
        calls = json.load(handle)
    dumps, write = json.dumps, os.write
    out = os.dup(1)
    os.set_inheritable(out, False)
    for index, call in enumerate(calls):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            os.close(out)
            _child(codec, call, repo, write_end)
        os.close(write_end)
        try:
            outcome = _outcome(_read_outcome(read_end, pid, time.monotonic() + per_call), unsafe)
        finally:
            os.close(read_end)
            _stop(pid)
        if outcome is None:
            outcome = {"error": "the call ran longer than %d s" % per_call}
        line = dumps(dict(outcome, i=index), ensure_ascii=True, allow_nan=False) + "\n"
        view = memoryview(line.encode("ascii"))
        while view:
            view = view[write(out, view) :]
    os._exit(0)


if __name__ == "__main__":
    main()
