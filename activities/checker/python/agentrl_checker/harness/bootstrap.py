"""The child's bootstrap: the source the harness runs as `python3 -I -B -c BOOTSTRAP <config-json>`.

It runs as the tests' uid, beside the candidate's code, so it stays ONE self-contained source string that
imports nothing from this package (nor from the folder that holds it): the standard library, then pytest
while no repository directory is on sys.path, and only then the repository. It takes what writes the
report (os.write, os._exit, json's encoder) before any other module is imported, checks its identity
(never root again), and runs pytest with a reporter whose writer and encoder are closure cells.
"""

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
    rootdir = cfg.get("rootdir") or repo
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
# where the tests lie: a failure's path is reported relative to it (the repository, or a verifier's /tests)
root_real = os.path.realpath(rootdir)

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
                    self.own[item.nodeid] = (_relpath(own, root_real), line)
            except Exception:  # noqa: BLE001
                pass

        def _crash(self, nid, ph):
            # where the call failed (the checker matches a canary twin's failure to its own assertion);
            # an assertion method outside the repository (unittest's) failed where the test called it
            try:
                crash = ph["call"].longrepr.reprcrash
                path, line = _relpath(str(crash.path), root_real), int(crash.lineno)
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
