"""One run of the harness: the child started with its pytest configuration, its output and report read
within the timeout, and the result that the harness prints."""

import json
import os
import select
import shutil
import sys
import tempfile
import time

from .bootstrap import BOOTSTRAP
from .process import REPORT_FD, child_env, killpg, run_child, wait_exit
from .repo_config import repo_ini_lines, repo_pytest_config
from .report import validate_report

MAX_REPORT_BYTES = 64 * 1024 * 1024
# the printed line: a report re-encoded can outgrow its raw bytes (escapes); beyond this it is dropped
# and "reportOverLimit" set (the worker reads up to activities/checker/grading.ts harnessLineBytes)
MAX_LINE_BYTES = 80 * 1024 * 1024
DRAIN_AFTER_EXIT_S = 2.0
KILL_GRACE_S = 5.0


class HarnessError(Exception):
    """A failure of the harness itself: the line it prints carries the message, and it exits 3."""


def run(ns):
    """One run of the child under the parsed command line; returns the result object the harness prints."""
    start = time.monotonic()
    repo = os.path.abspath(ns.repo)
    rootdir = os.path.abspath(ns.rootdir) if ns.rootdir else repo
    python = ns.python or sys.executable
    if not python:
        raise HarnessError("cannot determine the python interpreter for the child")

    cfgdir = tempfile.mkdtemp(prefix="agentrl-grade-")
    pid = None
    kill_uid = ns.uid if (not ns.no_drop and os.geteuid() == 0) else None
    fds = []
    try:
        os.chmod(cfgdir, 0o755)
        ini = os.path.join(cfgdir, "pytest.ini")
        _, repo_keys, doctest_args = repo_pytest_config(repo) if not ns.ignore_repo_config else (None, {}, [])
        with open(ini, "w") as f:
            f.write("\n".join(["[pytest]"] + repo_ini_lines(repo, repo_keys)) + "\n")
        os.chmod(ini, 0o444)

        base_args = [
            "-c",
            ini,
            "--rootdir",
            rootdir,
            "--confcutdir",
            rootdir,
            "-p",
            "no:cacheprovider",
            "-q",
            "-rA",
            # Python's own tracebacks: pytest's long ones read the test file's source for every failure,
            # which costs minutes on a module with a thousand failing twins
            "--tb=native",
            "--import-mode=prepend",
            "-o",
            "addopts=",
        ] + doctest_args
        cfg = {
            "repo": repo,
            "rootdir": rootdir,
            "reportFd": REPORT_FD,
            "expectUid": None if ns.no_drop else ns.uid,
            "expectGid": None if ns.no_drop else ns.gid,
            "collectOnly": bool(ns.collect_only),
            "traceLines": bool(ns.trace_lines),
            "unsafeReportChannel": bool(ns.unsafe_report_channel),
            "baseArgs": base_args,
            "pytestArgs": list(ns.pytest_args),
        }
        argv = [python, "-I", "-B", "-c", BOOTSTRAP, json.dumps(cfg)]
        env = child_env(ns)

        out_r, out_w = os.pipe()
        rep_r, rep_w = os.pipe()
        fds = [out_r, out_w, rep_r, rep_w]
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            run_child(ns, out_w, rep_w, python, argv, env)
        os.close(out_w)
        os.close(rep_w)
        fds = [out_r, rep_r]

        deadline = start + ns.timeout
        out_buf = bytearray()
        out_total = 0
        rep_buf = bytearray()
        rep_over = False
        open_fds = {out_r: "out", rep_r: "rep"}
        exited = False
        drain_deadline = None
        timed_out = False
        unkillable = False

        while True:
            now = time.monotonic()
            if not exited:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                if info is not None:
                    exited = True
                    killpg(pid, kill_uid)  # stray grandchildren; the zombie still holds the pgid
                    drain_deadline = now + DRAIN_AFTER_EXIT_S
                elif now >= deadline:
                    timed_out = True
                    killpg(pid, kill_uid)
                    if not wait_exit(pid, kill_uid, KILL_GRACE_S):
                        unkillable = True
                        break
                    exited = True
                    drain_deadline = time.monotonic() + DRAIN_AFTER_EXIT_S
                    continue
            if exited and (not open_fds or now >= drain_deadline):
                break
            wait = 0.05
            if not exited:
                wait = max(0.0, min(wait, deadline - now))
            if open_fds:
                ready, _, _ = select.select(list(open_fds), [], [], wait)
            else:
                time.sleep(wait)
                ready = []
            for fd in ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    del open_fds[fd]
                    continue
                if open_fds[fd] == "out":
                    out_total += len(chunk)
                    if ns.max_output > 0:
                        out_buf += chunk
                        if len(out_buf) > ns.max_output:
                            del out_buf[: len(out_buf) - ns.max_output]
                elif not rep_over:
                    rep_buf += chunk
                    if len(rep_buf) > ns.max_report:
                        rep_over = True
                        rep_buf = bytearray()

        if unkillable:
            code = -1  # left behind; the container teardown has to remove it
        else:
            _, status = os.waitpid(pid, 0)
            pid = None
            code = os.waitstatus_to_exitcode(status)
        exit_code = None if (timed_out or code < 0) else code
        report = None
        if not timed_out and not rep_over and rep_buf:
            report = validate_report(bytes(rep_buf), ns.collect_only, ns.trace_lines)
        return {
            "exitCode": exit_code,
            "timedOut": timed_out,
            "report": report,
            "reportOverLimit": rep_over,
            "output": bytes(out_buf).decode("utf-8", "replace"),
            "outputTruncated": out_total > len(out_buf),
            "durationMs": int((time.monotonic() - start) * 1000),
        }
    finally:
        if pid is not None:
            try:
                killpg(pid, kill_uid)
                if wait_exit(pid, kill_uid, KILL_GRACE_S):
                    os.waitpid(pid, 0)
            except (ChildProcessError, OSError):
                pass
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(cfgdir, ignore_errors=True)
