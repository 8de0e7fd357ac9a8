"""The harness's command line and `main`: always exactly one JSON line on stdout."""

import argparse
import json
import os
import signal
import sys
import time

from .run import MAX_LINE_BYTES, MAX_REPORT_BYTES, HarnessError, run


def parse_args(argv):
    """The command line (everything after `--` goes to pytest); a bad one exits 2 with a usage message."""
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1 :]
    p = argparse.ArgumentParser(
        prog="grade-harness.py", description="Run pytest as an unprivileged child and print one JSON line."
    )
    p.add_argument("--repo", required=True, help="repository root (absolute path)")
    p.add_argument("--uid", type=int, default=None, help="uid to run the tests as (required as root)")
    p.add_argument("--gid", type=int, default=None, help="gid to run the tests as (required as root)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds before the child's process group is killed")
    p.add_argument("--max-output", type=int, default=20000, help="keep at most this many trailing bytes of output")
    p.add_argument(
        "--max-report",
        type=int,
        default=MAX_REPORT_BYTES,
        help="bytes of the raw report kept (default 64 MiB); the printed line may hold 1.25 times as much",
    )
    p.add_argument("--collect-only", action="store_true", help="only collect; report nodeids with outcome 'collected'")
    p.add_argument(
        "--trace-lines",
        action="store_true",
        help="record, per test, the lines of its own file its call ran (\"lines\" in the report; validation only)",
    )
    p.add_argument("--no-drop", action="store_true", help="(tests only) run the child as the current user")
    p.add_argument(
        "--rootdir",
        default=None,
        help="where the tests lie and their ids are relative to (default: --repo); a Harbor verifier's /tests, run "
        "from the repository as `cd REPO && python3 -m pytest /tests/...` would",
    )
    p.add_argument(
        "--ignore-repo-config",
        action="store_true",
        help="apply none of the repository's pytest configuration (by default its test paths, pythonpath, naming and doctest options)",
    )
    p.add_argument(
        "--unsafe-report-channel",
        action="store_true",
        help="(tests only) write the report with the json.dumps and os.write the tested code can replace",
    )
    p.add_argument("--python", default=None, help="interpreter for the child (default: this interpreter)")
    ns = p.parse_args(argv)
    ns.pytest_args = extra
    if ns.timeout <= 0:
        p.error("--timeout must be positive")
    if ns.max_output < 0:
        p.error("--max-output must be >= 0")
    if not os.path.isabs(ns.repo):
        p.error("--repo must be an absolute path")
    if not os.path.isdir(ns.repo):
        p.error("--repo is not a directory: %s" % ns.repo)
    if ns.rootdir is not None and not (os.path.isabs(ns.rootdir) and os.path.isdir(ns.rootdir)):
        p.error("--rootdir must be an absolute path to a directory: %s" % ns.rootdir)
    if not ns.no_drop:
        if ns.uid is None or ns.gid is None:
            p.error("--uid and --gid are required (or --no-drop)")
        if ns.uid == 0 or ns.gid == 0:
            p.error("refusing to run tests as uid/gid 0")
        if os.geteuid() != 0 and (ns.uid, ns.gid) != (os.getuid(), os.getgid()):
            p.error("not running as root: cannot switch to uid %d gid %d (use --no-drop)" % (ns.uid, ns.gid))
    return ns


def on_term(signum, frame):
    raise HarnessError("harness received signal %d" % signum)


def main(argv=None):
    """Runs the tests once and prints one JSON line; returns 0, or 3 for an error of the harness itself."""
    ns = parse_args(sys.argv[1:] if argv is None else argv)
    start = time.monotonic()
    signal.signal(signal.SIGTERM, on_term)
    try:
        result = run(ns)
        rc = 0
    except BaseException as e:  # noqa: BLE001 - always print one JSON line
        result = {
            "exitCode": None,
            "timedOut": False,
            "report": None,
            "reportOverLimit": False,
            "output": "grade-harness error: %r" % (e,),
            "outputTruncated": False,
            "durationMs": int((time.monotonic() - start) * 1000),
        }
        rc = 3
    line = json.dumps(result, ensure_ascii=True)
    if len(line) > ns.max_report * MAX_LINE_BYTES // MAX_REPORT_BYTES:
        line = json.dumps(dict(result, report=None, reportOverLimit=True), ensure_ascii=True)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
    return rc
