#!/usr/bin/env python3
"""agentrl grade harness: run a repository's pytest suite as an unprivileged
child and print exactly one JSON line describing the result.

It is copied into a fresh scoring container and started as root (uid 0) with
every capability dropped except CAP_SETUID/CAP_SETGID:

    python3 -I -S /opt/agentrl/grade-harness.py --repo /work --uid 1000 \
        --gid 1000 --timeout 120 [--max-output 20000] [--collect-only] [--trace-lines] \
        [-- EXTRA PYTEST ARGS...]

Only the Python 3.11 standard library is used by this (parent) process, so it
runs fine under ``-I -S``.  The child is a fresh interpreter started as
``python3 -I -B -c <bootstrap>`` (without ``-S``, so the system site-packages
holding pytest are on ``sys.path``); it imports pytest and its dependencies
while no repository directory is on ``sys.path`` and only then changes into the
repository and puts its root on ``sys.path`` (as ``python3 -m pytest`` would).

Process layout:
  parent (root)  -- reads two pipes, enforces the timeout, prints the JSON
  child          -- setsid, setgroups([]), setresgid, setresuid (+ verify it
                    cannot regain root), PR_SET_NO_NEW_PRIVS, then exec.
                    stdout+stderr -> output pipe, JSON report -> report fd.

Output (one line on stdout):
  {"exitCode": int|null, "timedOut": bool,
   "report": null | {"tests": [{"nodeid": str, "outcome": str,
                                "crash"?: {"path": str, "line": int, "message": str}}],
                     "collectErrors": [str]},
   "reportOverLimit": bool (the report was over its bound, so "report" is null),
   "output": str, "outputTruncated": bool, "durationMs": int}

A doctest also carries "examples": a 16-hex digest of each of its examples
(source, expected output, expected exception), taken with a hash function held
from before the repository's code was imported.

With --trace-lines each test also carries "lines": the lines of its own file
its call phase ran (for validation runs of a reference solution only; a
candidate's code could change them).

Outcomes: passed, failed, skipped, error, xfailed, xpassed (and "collected"
with --collect-only).  A test is "passed" only if setup, call and teardown all
passed.

Exit status of the harness itself: 0 when the JSON line was printed for a run
(whatever the tests did), 2 for usage errors, 3 for an internal harness error
(a JSON line is still printed, with the message in "output").

``--no-drop`` (for tests only) runs the child as the current user instead of
switching to --uid/--gid.  ``--unsafe-report-channel`` (for tests only) writes
the report with the ``json.dumps`` and ``os.write`` the tested code can
replace, so that a test can show the attack the default prevents.
"""

import argparse
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time

REPORT_FD = 3  # fd number of the report pipe inside the child
MAX_REPORT_BYTES = 64 * 1024 * 1024
# the printed line: a report re-encoded can outgrow its raw bytes (escapes); beyond this it is dropped
# and "reportOverLimit" set (the worker reads up to activities/checker/grading.ts harnessLineBytes)
MAX_LINE_BYTES = 80 * 1024 * 1024
DRAIN_AFTER_EXIT_S = 2.0
KILL_GRACE_S = 5.0
OUTCOMES = ("passed", "failed", "skipped", "error", "xfailed", "xpassed")

# --------------------------------------------------------------------------
# Child bootstrap, run as `python3 -I -B -c BOOTSTRAP <config-json>`.
# --------------------------------------------------------------------------
BOOTSTRAP = r'''
import sys, os

# What the report and the exit status are written with, taken before any other module (and so before
# the candidate's code) is imported: replacing os.write, os._exit, json.dumps or json's encoder later
# changes nothing here.
try:
    from _json import encode_basestring_ascii as _quote
except ImportError:  # pragma: no cover - CPython always has _json
    from json.encoder import py_encode_basestring_ascii as _quote
_write, _close, _exit = os.write, os.close, os._exit
try:
    from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover - Python 3.12 and later
    from _sha2 import sha256 as _sha256


def _report_encoder(_type=type, _quote=_quote, _int=int.__repr__, _items=dict.items):
    def encode(value):
        # the report's JSON (dicts with str keys, lists, str, int, None, bools), ASCII only; four levels deep
        kind = _type(value)
        if kind is str:
            return _quote(value)
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if kind is int:
            return _int(value)
        if kind is list:
            return "[" + ",".join([encode(item) for item in value]) + "]"
        if kind is dict:
            return "{" + ",".join([_quote(key) + ":" + encode(item) for key, item in _items(value)]) + "}"
        raise TypeError("not report data")

    return encode

def _die(msg, code=125):
    try:
        os.write(2, ("grade-harness bootstrap: " + msg + "\n").encode("utf-8", "replace"))
    finally:
        os._exit(code)

try:
    import json
    cfg = json.loads(sys.argv[1])
    repo = cfg["repo"]
    report_fd = int(cfg["reportFd"])
    expect_uid = cfg["expectUid"]
    expect_gid = cfg["expectGid"]
    collect_only = bool(cfg["collectOnly"])
    trace_lines = bool(cfg.get("traceLines"))
    unsafe_report_channel = bool(cfg.get("unsafeReportChannel"))
    pytest_args = list(cfg["pytestArgs"])
except Exception as e:  # noqa: BLE001
    _die("bad configuration: %r" % (e,))

sys.dont_write_bytecode = True
os.set_inheritable(report_fd, False)

# ---- identity checks: we must not be (able to become) root again ----------
if expect_uid is not None:
    if os.getresuid() != (expect_uid,) * 3 or os.getresgid() != (expect_gid,) * 3:
        _die("unexpected identity uid=%r gid=%r" % (os.getresuid(), os.getresgid()))
    if os.getgroups() not in ([], [expect_gid]):
        _die("unexpected supplementary groups %r" % (os.getgroups(),))
    for _fn in (os.setuid, os.seteuid, os.setgid, os.setegid):
        try:
            _fn(0)
        except PermissionError:
            continue
        _die("could regain root via %s" % _fn.__name__)
    try:
        with open("/proc/self/status") as _f:
            for _line in _f:
                _k, _, _v = _line.partition(":")
                if _k in ("CapPrm", "CapEff", "CapAmb") and int(_v.strip(), 16) != 0:
                    _die("capabilities still present: %s=%s" % (_k, _v.strip()))
    except OSError:
        pass

repo_real = os.path.realpath(repo)

def _under_repo(p):
    try:
        rp = os.path.realpath(p)
    except Exception:  # noqa: BLE001
        return True
    return rp == repo_real or rp.startswith(repo_real.rstrip(os.sep) + os.sep)

# ---- no repository path (nor cwd) may be on sys.path while importing pytest; the image's own entries
# into the repository (an editable install's .pth) come back once pytest is in
_installed_into_repo = [p for p in sys.path if p and _under_repo(p)]
sys.path[:] = [p for p in sys.path if p and not _under_repo(p)]

try:
    import pytest
    import _pytest
    import pluggy
except Exception as e:  # noqa: BLE001
    _die("cannot import pytest: %r" % (e,))

import importlib
import pkgutil

for _name in ("iniconfig", "py", "attr", "packaging", "packaging.version",
              "exceptiongroup", "tomli", "tomllib", "unittest", "unittest.mock",
              "unittest.case", "doctest", "pdb", "bdb", "cmd", "code", "codeop",
              "json", "shlex", "textwrap", "inspect", "traceback", "warnings",
              "tempfile", "shutil", "fnmatch", "glob", "pprint", "difflib",
              "decimal", "fractions", "numbers", "math", "dataclasses", "enum",
              "functools", "itertools", "collections", "collections.abc",
              "contextlib", "importlib.util", "importlib.machinery",
              "importlib.abc", "importlib.metadata", "importlib.resources",
              "types", "typing", "re", "io", "locale", "platform", "signal",
              "faulthandler", "threading", "gc", "tokenize", "ast", "dis",
              "linecache", "string", "struct", "copy", "weakref", "argparse",
              "getpass", "pwd", "stat", "uuid", "random", "datetime", "time",
              "logging", "atexit", "errno", "subprocess", "selectors",
              "pathlib", "posixpath", "zipimport", "encodings.idna",
              "xml.etree.ElementTree", "xml.dom.minidom", "base64", "hashlib",
              "operator", "keyword", "abc", "heapq", "bisect", "queue",
              "codecs", "unicodedata", "sysconfig", "site"):
    try:
        importlib.import_module(_name)
    except Exception:  # noqa: BLE001
        pass

for _pkg in (_pytest, pluggy):
    for _m in pkgutil.walk_packages(_pkg.__path__, _pkg.__name__ + ".", onerror=lambda n: None):
        try:
            importlib.import_module(_m.name)
        except Exception:  # noqa: BLE001
            pass

for _modname, _mod in list(sys.modules.items()):
    _file = getattr(_mod, "__file__", None)
    if isinstance(_file, str) and _under_repo(_file):
        _die("module %s was imported from the repository (%s)" % (_modname, _file))
if _under_repo(pytest.__file__) or _under_repo(_pytest.__file__):
    _die("pytest resolves into the repository")


def _line_tracer():
    """(lines, plugin): while a test's call phase runs, the lines executed in its own file, by node id.
    Only for validation runs of the reference solution (the checker twins only assertions that ran)."""
    lines = {}
    state = {"files": (), "seen": None}

    def local(frame, event, arg):
        if event == "line":
            state["seen"].add(frame.f_lineno)
        return local

    def enter(frame, event, arg):
        if frame.f_code.co_filename in state["files"]:
            return local
        return None

    class _Tracer:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            path = str(getattr(item, "path", "") or "")
            state["files"] = (path, os.path.realpath(path)) if path else ()
            state["seen"] = lines.setdefault(item.nodeid, set())
            sys.settrace(enter)
            try:
                yield
            finally:
                sys.settrace(None)
                state["files"] = ()

    return lines, _Tracer()


def _example_digests(item, _sha=_sha256, _getattr=getattr, _str=str):
    # a doctest item's examples (source, expected output, expected exception), each as a short digest:
    # the checker compares them with the reference's, so a docstring's examples cannot be edited away
    dtest = _getattr(item, "dtest", None)
    if dtest is None:
        return None
    digests = []
    for example in dtest.examples:
        text = "%s\0%s\0%s" % (_str(example.source), _str(example.want), _str(example.exc_msg or ""))
        digests.append(_sha(text.encode("utf-8", "surrogatepass")).hexdigest()[:16])
    return digests


def _reporter_class(_write, _close, _encode, _lines, _realpath=os.path.realpath, _relpath=os.path.relpath,
                    _examples=_example_digests):
    # the report's writer and encoder are this function's cells, not names a module holds: replacing
    # os.write, json.dumps or this script's globals from the candidate's code changes nothing here
    class _AgentrlReporter:
        """Records the final outcome of every test and writes the JSON report."""

        def __init__(self):
            self.order = []
            self.phases = {}
            self.collect_errors = []
            self.collected = []
            self.written = False
            self.own = {}  # node id -> (path, line): the innermost frame of the test's own file that failed
            self.examples = {}  # doctest node id -> digests of its examples

        def pytest_collectreport(self, report):
            if report.failed:
                nid = report.nodeid or str(getattr(report, "fspath", "") or "") or "<session>"
                if nid not in self.collect_errors:
                    self.collect_errors.append(nid)

        def pytest_collection_finish(self, session):
            self.collected = [item.nodeid for item in session.items]
            for item in session.items:
                try:
                    digests = _examples(item)
                except Exception:  # noqa: BLE001
                    digests = []
                if digests is not None:
                    self.examples[item.nodeid] = digests

        def pytest_runtest_logreport(self, report):
            nid = report.nodeid
            if nid not in self.phases:
                self.phases[nid] = {}
                self.order.append(nid)
            self.phases[nid][report.when] = report

        @staticmethod
        def _outcome(ph):
            s, c, t = ph.get("setup"), ph.get("call"), ph.get("teardown")
            if c is not None and c.failed:
                return "failed"
            if (s is not None and s.failed) or (t is not None and t.failed):
                return "error"
            if s is not None and s.skipped:
                return "xfailed" if hasattr(s, "wasxfail") else "skipped"
            if c is not None:
                if c.skipped:
                    return "xfailed" if hasattr(c, "wasxfail") else "skipped"
                if c.passed and s is not None and s.passed and t is not None and t.passed:
                    return "xpassed" if hasattr(c, "wasxfail") else "passed"
            return "error"  # incomplete: a phase never reported

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            yield
            if call.when != "call" or call.excinfo is None:
                return
            try:
                own, tb, line = _realpath(str(item.path)), call.excinfo.tb, None
                while tb is not None:
                    if _realpath(tb.tb_frame.f_code.co_filename) == own:
                        line = tb.tb_lineno
                    tb = tb.tb_next
                if line is not None:
                    self.own[item.nodeid] = (_relpath(own, repo_real), line)
            except Exception:  # noqa: BLE001
                pass

        def _crash(self, nid, ph):
            # where the call failed (the checker matches a canary twin's failure to its own assertion);
            # an assertion method outside the repository (unittest's) failed where the test called it
            try:
                crash = ph["call"].longrepr.reprcrash
                path, line = _relpath(str(crash.path), repo_real), int(crash.lineno)
                if path.startswith("..") and nid in self.own:
                    path, line = self.own[nid]
                return {"path": path, "line": line, "message": str(crash.message)[:300]}
            except Exception:  # noqa: BLE001
                return None

        @pytest.hookimpl(trylast=True)
        def pytest_sessionfinish(self, session, exitstatus):
            if self.written:
                return
            self.written = True
            if collect_only:
                tests = [{"nodeid": n, "outcome": "collected"} for n in self.collected]
            else:
                tests = []
                for n in self.order:
                    entry = {"nodeid": n, "outcome": self._outcome(self.phases[n])}
                    crash = self._crash(n, self.phases[n]) if entry["outcome"] == "failed" else None
                    if crash:
                        entry["crash"] = crash
                    if _lines is not None:
                        entry["lines"] = sorted(_lines.get(n, ()))
                    if n in self.examples:
                        entry["examples"] = self.examples[n]
                    tests.append(entry)
            data = _encode({"tests": tests, "collectErrors": list(self.collect_errors)}).encode("ascii")
            try:
                view = memoryview(data)
                while view:
                    n = _write(report_fd, view)
                    view = view[n:]
            except OSError:
                pass
            finally:
                try:
                    _close(report_fd)
                except OSError:
                    pass
    return _AgentrlReporter


_lines, _tracer = _line_tracer() if trace_lines else (None, None)
if unsafe_report_channel:  # TEST ONLY: the writer and encoder looked up when the report is written
    _AgentrlReporter = _reporter_class(
        lambda fd, data: os.write(fd, data), lambda fd: os.close(fd), lambda value: json.dumps(value), _lines
    )
else:
    _AgentrlReporter = _reporter_class(_write, _close, _report_encoder(), _lines)

try:
    os.chdir(repo)
except OSError as e:
    _die("cannot enter repository: %r" % (e,))
# Emulate `python3 -m pytest` run from the repository root: cwd on sys.path.
sys.path.insert(0, repo)
sys.path.extend(p for p in _installed_into_repo if p not in sys.path)
sys.argv = ["pytest"]

args = list(cfg["baseArgs"])
if collect_only:
    args.append("--collect-only")
args.extend(pytest_args)
try:
    rc = pytest.main(args, plugins=[_AgentrlReporter()] + ([_tracer] if _tracer else []))
except BaseException as e:  # noqa: BLE001
    try:
        sys.stderr.write("grade-harness bootstrap: pytest.main raised %r\n" % (e,))
    except Exception:  # noqa: BLE001
        pass
    rc = 3
for _s in (sys.stdout, sys.stderr):
    try:
        _s.flush()
    except Exception:  # noqa: BLE001
        pass
try:
    rc = int(rc)
except Exception:  # noqa: BLE001
    rc = 3
(os._exit if unsafe_report_channel else _exit)(rc if 0 <= rc <= 255 else 3)
'''


# --------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------
class HarnessError(Exception):
    pass


def _parse_args(argv):
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
    if not ns.no_drop:
        if ns.uid is None or ns.gid is None:
            p.error("--uid and --gid are required (or --no-drop)")
        if ns.uid == 0 or ns.gid == 0:
            p.error("refusing to run tests as uid/gid 0")
        if os.geteuid() != 0 and (ns.uid, ns.gid) != (os.getuid(), os.getgid()):
            p.error("not running as root: cannot switch to uid %d gid %d (use --no-drop)" % (ns.uid, ns.gid))
    return ns


def _set_no_new_privs():
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except Exception:  # noqa: BLE001 - ctypes unavailable: best effort
        return
    PR_SET_NO_NEW_PRIVS = 38
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")


def _child(ns, out_w, rep_w, python, argv, env):
    """Runs in the forked child; never returns."""
    try:
        os.setsid()
        # stdin </dev/null, stdout/stderr -> output pipe, report pipe -> REPORT_FD
        import fcntl

        # move our ends out of the way first so the dup2 targets cannot clash
        out_hi = fcntl.fcntl(out_w, fcntl.F_DUPFD_CLOEXEC, 64)
        rep_hi = fcntl.fcntl(rep_w, fcntl.F_DUPFD_CLOEXEC, 64)
        devnull = os.open("/dev/null", os.O_RDONLY)
        null_hi = fcntl.fcntl(devnull, fcntl.F_DUPFD_CLOEXEC, 64)
        os.dup2(null_hi, 0)
        os.dup2(out_hi, 1)
        os.dup2(out_hi, 2)
        os.dup2(rep_hi, REPORT_FD)
        os.set_inheritable(REPORT_FD, True)
        os.closerange(REPORT_FD + 1, 1 << 20)
        for fd in (0, 1, 2):
            os.set_inheritable(fd, True)
        drop = not ns.no_drop and os.geteuid() == 0
        if drop:
            uid, gid = ns.uid, ns.gid
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
            if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid):
                raise OSError("identity switch did not take effect")
            for fn in (os.setuid, os.setgid):
                try:
                    fn(0)
                except PermissionError:
                    continue
                raise OSError("child could regain root after dropping privileges")
            try:
                import pwd

                name = pwd.getpwuid(uid).pw_name
                env["USER"] = env["LOGNAME"] = name
            except KeyError:
                for k in ("USER", "LOGNAME", "LNAME", "USERNAME"):
                    env.pop(k, None)
        _set_no_new_privs()
        os.umask(0o022)
        os.chdir("/")
        os.execve(python, argv, env)
    except BaseException as e:  # noqa: BLE001
        try:
            os.write(2, ("grade-harness: child setup failed: %r\n" % (e,)).encode("utf-8", "replace"))
        finally:
            os._exit(127)
    os._exit(127)


def _child_env(ns):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST_"))}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["HOME"] = "/tmp"
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return env


def _validate_report(raw, collect_only, trace_lines=False):
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or set(data) != {"tests", "collectErrors"}:
        return None
    tests, errs = data["tests"], data["collectErrors"]
    if not isinstance(tests, list) or not isinstance(errs, list):
        return None
    allowed = ("collected",) if collect_only else OUTCOMES
    clean = []
    for t in tests:
        keys = {"nodeid", "outcome", "crash", "examples"} | ({"lines"} if trace_lines else set())
        if not isinstance(t, dict) or not {"nodeid", "outcome"} <= set(t) <= keys:
            return None
        if not isinstance(t["nodeid"], str) or t["outcome"] not in allowed:
            return None
        entry = {"nodeid": t["nodeid"], "outcome": t["outcome"]}
        crash = t.get("crash")
        if crash is not None:
            if not (
                isinstance(crash, dict)
                and set(crash) == {"path", "line", "message"}
                and isinstance(crash["path"], str)
                and type(crash["line"]) is int
                and isinstance(crash["message"], str)
            ):
                return None
            entry["crash"] = {"path": crash["path"], "line": crash["line"], "message": crash["message"]}
        if "lines" in t:
            if not (isinstance(t["lines"], list) and all(type(n) is int for n in t["lines"])):
                return None
            entry["lines"] = t["lines"]
        if "examples" in t:
            if not (isinstance(t["examples"], list) and all(isinstance(d, str) for d in t["examples"])):
                return None
            entry["examples"] = t["examples"]
        clean.append(entry)
    if not all(isinstance(e, str) for e in errs):
        return None
    return {"tests": clean, "collectErrors": list(errs)}


def _killpg(pgid, as_uid):
    """SIGKILL the child's process group.

    In the scoring container the parent is root *without* CAP_KILL, so it may
    not signal processes of another uid.  It then switches only its effective
    uid to the tests' uid (allowed by CAP_SETUID; the real and saved uid stay
    0, so the children still cannot signal or trace the parent), sends the
    signal and switches back.
    """
    try:
        os.killpg(pgid, signal.SIGKILL)
        return
    except ProcessLookupError:
        return
    except PermissionError:
        if as_uid is None or os.geteuid() != 0:
            return
    try:
        os.seteuid(as_uid)
    except OSError:
        return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        os.seteuid(0)


def _wait_exit(pid, as_uid, limit_s):
    """Wait (without reaping) up to limit_s for pid to exit, re-sending SIGKILL."""
    end = time.monotonic() + limit_s
    while True:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return True
        if time.monotonic() >= end:
            return False
        _killpg(pid, as_uid)
        time.sleep(0.05)


# The repository's own pytest configuration: only what decides which files are tests and how they import
# is applied (testpaths, pythonpath, the naming options, norecursedirs, doctest options and the doctest
# switches of addopts); everything else (plugins, other addopts, filterwarnings, ...) stays ignored.
REPO_INI_KEYS = (
    "testpaths",
    "pythonpath",
    "python_files",
    "python_classes",
    "python_functions",
    "norecursedirs",
    "doctest_optionflags",
    "doctest_encoding",
)
DOCTEST_FLAGS = ("--doctest-modules", "--doctest-continue-on-failure", "--doctest-ignore-import-errors")


def _repo_pytest_config(repo):
    """(file name, {key: [values]}, [doctest arguments]) of the configuration pytest would read at the
    repository root, or (None, {}, []). The files are protected, so in a grader they are the pristine ones."""
    import configparser
    import shlex

    def from_ini(name, section):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            with open(os.path.join(repo, name), encoding="utf-8") as handle:
                parser.read_file(handle)
        except (OSError, UnicodeDecodeError, configparser.Error):
            return None
        if not parser.has_section(section):
            return None
        return {key: shlex.split(value) for key, value in parser.items(section)}

    def from_toml(name):
        try:
            import tomllib

            with open(os.path.join(repo, name), "rb") as handle:
                data = tomllib.load(handle)
        except Exception:  # noqa: BLE001 - a file pytest cannot read either
            return None
        table = data.get("tool", {}).get("pytest", {}).get("ini_options")
        if not isinstance(table, dict):
            return None
        out = {}
        for key, value in table.items():
            if isinstance(value, str):
                out[key] = shlex.split(value)
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                out[key] = list(value)
        return out

    for name, read in (
        ("pytest.ini", lambda: from_ini("pytest.ini", "pytest")),
        (".pytest.ini", lambda: from_ini(".pytest.ini", "pytest")),
        ("pyproject.toml", lambda: from_toml("pyproject.toml")),
        ("tox.ini", lambda: from_ini("tox.ini", "pytest")),
        ("setup.cfg", lambda: from_ini("setup.cfg", "tool:pytest")),
    ):
        if not os.path.isfile(os.path.join(repo, name)) or os.path.islink(os.path.join(repo, name)):
            continue
        try:
            found = read()
        except ValueError:  # shlex: an unbalanced quote
            found = None
        if found is None:
            continue
        keys = {k: v for k, v in found.items() if k in REPO_INI_KEYS}
        doctest = []
        addopts = found.get("addopts", [])
        for i, arg in enumerate(addopts):
            if arg in DOCTEST_FLAGS:
                doctest.append(arg)
            elif arg.startswith("--doctest-glob="):
                doctest.append(arg)
            elif arg == "--doctest-glob" and i + 1 < len(addopts):
                doctest.append("--doctest-glob=" + addopts[i + 1])
        return name, keys, doctest
    return None, {}, []


def _repo_ini_lines(repo, keys):
    """The ini lines of the kept keys; pythonpath made absolute (the ini lies elsewhere), kept inside the repository."""
    import shlex

    lines = []
    root = os.path.realpath(repo)
    for key in REPO_INI_KEYS:
        values = keys.get(key)
        if not values:
            continue
        if key == "pythonpath":
            values = [os.path.realpath(os.path.join(root, v)) for v in values]
            values = [v for v in values if v == root or v.startswith(root + os.sep)]
            if not values:
                continue
        lines.append("%s =" % key)
        lines.extend("    " + shlex.quote(v) for v in values)
    return lines


def run(ns):
    start = time.monotonic()
    repo = os.path.abspath(ns.repo)
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
        _, repo_keys, doctest_args = _repo_pytest_config(repo) if not ns.ignore_repo_config else (None, {}, [])
        with open(ini, "w") as f:
            f.write("\n".join(["[pytest]"] + _repo_ini_lines(repo, repo_keys)) + "\n")
        os.chmod(ini, 0o444)

        base_args = [
            "-c",
            ini,
            "--rootdir",
            repo,
            "--confcutdir",
            repo,
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
        env = _child_env(ns)

        out_r, out_w = os.pipe()
        rep_r, rep_w = os.pipe()
        fds = [out_r, out_w, rep_r, rep_w]
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(ns, out_w, rep_w, python, argv, env)
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
                    _killpg(pid, kill_uid)  # stray grandchildren; the zombie still holds the pgid
                    drain_deadline = now + DRAIN_AFTER_EXIT_S
                elif now >= deadline:
                    timed_out = True
                    _killpg(pid, kill_uid)
                    if not _wait_exit(pid, kill_uid, KILL_GRACE_S):
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
            report = _validate_report(bytes(rep_buf), ns.collect_only, ns.trace_lines)
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
                _killpg(pid, kill_uid)
                if _wait_exit(pid, kill_uid, KILL_GRACE_S):
                    os.waitpid(pid, 0)
            except (ChildProcessError, OSError):
                pass
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(cfgdir, ignore_errors=True)


def _on_term(signum, frame):
    raise HarnessError("harness received signal %d" % signum)


def main(argv=None):
    ns = _parse_args(sys.argv[1:] if argv is None else argv)
    start = time.monotonic()
    signal.signal(signal.SIGTERM, _on_term)
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


if __name__ == "__main__":
    sys.exit(main())
