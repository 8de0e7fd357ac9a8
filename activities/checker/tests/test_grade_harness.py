"""Tests for activities/checker/python/grade-harness.py and its package agentrl_checker/harness (runs pytest as an
unprivileged child)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HARNESS = ROOT / "activities" / "checker" / "python" / "grade-harness.py"
IMAGE = "agentrl-base:latest"
KEYS = {"exitCode", "timedOut", "report", "reportOverLimit", "output", "outputTruncated", "durationMs"}


def make_repo(base, files):
    base = Path(base)
    for rel, text in files.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return base


def run_harness(repo, *args, drop=False, env=None, timeout=120, interp_flags=("-I", "-S")):
    cmd = [sys.executable, *interp_flags, str(HARNESS), "--repo", str(repo)]
    if not drop:
        cmd.append("--no-drop")
    if "--timeout" not in args:
        cmd += ["--timeout", "60"]
    cmd.extend(args)
    r = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)
    lines = r.stdout.decode().splitlines()
    assert len(lines) == 1, (r.stdout, r.stderr)
    result = json.loads(lines[0])
    assert set(result) == KEYS
    assert isinstance(result["durationMs"], int)
    return r.returncode, result


def outcomes(result):
    assert result["report"] is not None, result["output"]
    return {t["nodeid"]: t["outcome"] for t in result["report"]["tests"]}


BASIC = {
    "mypkg/__init__.py": """
        def add(a, b):
            return a + b
    """,
    "conftest.py": """
        import pytest

        @pytest.fixture
        def two():
            return 2
    """,
    "tests/test_basic.py": """
        import pytest
        from mypkg import add

        def test_add(two):
            assert add(1, 1) == two

        @pytest.mark.parametrize("a,b", [(1, 2), (3, 4)])
        def test_p(a, b):
            assert add(a, b) == a + b
    """,
}


# ---------------------------------------------------------------- basic outcomes


def test_all_pass(tmp_path):
    repo = make_repo(tmp_path / "repo", BASIC)
    rc, res = run_harness(repo)
    assert rc == 0
    assert res["exitCode"] == 0 and res["timedOut"] is False
    assert outcomes(res) == {
        "tests/test_basic.py::test_add": "passed",
        "tests/test_basic.py::test_p[1-2]": "passed",
        "tests/test_basic.py::test_p[3-4]": "passed",
    }
    assert res["report"]["collectErrors"] == []
    assert res["outputTruncated"] is False
    assert "3 passed" in res["output"]
    # nothing written into the repository (no bytecode, no cache)
    assert not list(repo.rglob("__pycache__")) and not (repo / ".pytest_cache").exists()


def test_mixed_outcomes(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "tests/test_mix.py": """
        import pytest

        def test_ok():
            pass

        def test_fail():
            assert 1 == 2

        @pytest.mark.skip(reason="no")
        def test_skip():
            pass

        def test_skip_inside():
            pytest.skip("later")

        @pytest.mark.xfail
        def test_xfail():
            assert 0

        @pytest.mark.xfail
        def test_xpass():
            pass

        @pytest.mark.xfail(strict=True)
        def test_xpass_strict():
            pass

        @pytest.fixture
        def broken():
            raise RuntimeError("setup")

        def test_setup_error(broken):
            pass

        @pytest.fixture
        def bad_teardown():
            yield
            raise RuntimeError("teardown")

        def test_teardown_error(bad_teardown):
            pass
    """
        },
    )
    rc, res = run_harness(repo)
    assert rc == 0
    assert res["exitCode"] == 1
    assert outcomes(res) == {
        "tests/test_mix.py::test_ok": "passed",
        "tests/test_mix.py::test_fail": "failed",
        "tests/test_mix.py::test_skip": "skipped",
        "tests/test_mix.py::test_skip_inside": "skipped",
        "tests/test_mix.py::test_xfail": "xfailed",
        "tests/test_mix.py::test_xpass": "xpassed",
        "tests/test_mix.py::test_xpass_strict": "failed",
        "tests/test_mix.py::test_setup_error": "error",
        "tests/test_mix.py::test_teardown_error": "error",
    }


def test_collect_error_reported(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "tests/test_ok.py": "def test_a():\n    pass\n",
            "tests/test_broken.py": "import does_not_exist_anywhere\n\ndef test_b():\n    pass\n",
        },
    )
    _, res = run_harness(repo)
    assert res["exitCode"] == 2
    assert outcomes(res) == {}  # pytest stops after collection errors
    assert res["report"]["collectErrors"] == ["tests/test_broken.py"]


def test_collect_only(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        dict(
            BASIC,
            **{
                "tests/test_more.py": "import pytest\n\n@pytest.mark.parametrize('x', ['a', 'b'])\ndef test_x(x):\n    assert 0\n",
            },
        ),
    )
    rc, res = run_harness(repo, "--collect-only")
    assert rc == 0 and res["exitCode"] == 0
    assert res["report"]["tests"] == [
        {"nodeid": "tests/test_basic.py::test_add", "outcome": "collected"},
        {"nodeid": "tests/test_basic.py::test_p[1-2]", "outcome": "collected"},
        {"nodeid": "tests/test_basic.py::test_p[3-4]", "outcome": "collected"},
        {"nodeid": "tests/test_more.py::test_x[a]", "outcome": "collected"},
        {"nodeid": "tests/test_more.py::test_x[b]", "outcome": "collected"},
    ]


def test_extra_pytest_args_select_tests(tmp_path):
    repo = make_repo(tmp_path / "repo", BASIC)
    _, res = run_harness(repo, "--", "tests/test_basic.py::test_add")
    assert outcomes(res) == {"tests/test_basic.py::test_add": "passed"}


def test_repo_config_and_env_addopts_ignored(tmp_path):
    files = dict(BASIC)
    files["pytest.ini"] = "[pytest]\naddopts = -k nothing_matches -p no:python\n"
    repo = make_repo(tmp_path / "repo", files)
    env = dict(os.environ, PYTEST_ADDOPTS="-k nothing_matches", PYTEST_PLUGINS="nonexistent_plugin_xyz")
    _, res = run_harness(repo, env=env)
    assert res["exitCode"] == 0
    assert len(outcomes(res)) == 3


# ---------------------------------------------------------------- tampering attempts


def test_planted_runner_modules_not_used(tmp_path):
    marker = tmp_path / "sitecustomize-ran"
    repo = make_repo(
        tmp_path / "repo",
        {
            "pytest.py": "import sys\nsys.exit(0)\n",
            "_pytest/__init__.py": "raise SystemExit(0)\n",
            "pluggy.py": "import os\nos._exit(0)\n",
            "sitecustomize.py": f"open({str(marker)!r}, 'w').close()\nimport os\nos._exit(0)\n",
            "usercustomize.py": "import os\nos._exit(0)\n",
            "tests/test_real.py": """
            import pytest, _pytest, sys, os

            def test_runner_is_real():
                assert not pytest.__file__.startswith(os.getcwd())
                assert not _pytest.__file__.startswith(os.getcwd())

            def test_fails():
                assert False, "real failure"
        """,
        },
    )
    rc, res = run_harness(repo)
    assert rc == 0
    assert res["exitCode"] == 1
    assert outcomes(res) == {
        "tests/test_real.py::test_runner_is_real": "passed",
        "tests/test_real.py::test_fails": "failed",
    }
    assert not marker.exists()


def test_exit_during_test_gives_no_report(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "tests/test_exit.py": """
        import os

        def test_a():
            os._exit(0)
    """
        },
    )
    _, res = run_harness(repo)
    assert res["exitCode"] == 0
    assert res["report"] is None


def test_sys_exit_at_import_of_code_under_test(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "mypkg/__init__.py": "import sys\nsys.exit(0)\n",
            "tests/test_a.py": "import mypkg\n\ndef test_a():\n    pass\n",
        },
    )
    _, res = run_harness(repo)
    # pytest turns the SystemExit during collection into an internal error
    assert res["exitCode"] not in (0, None)
    if res["report"] is not None:
        assert "tests/test_a.py::test_a" not in outcomes(res)


def test_garbage_on_report_fd_invalidates_report(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "tests/test_fd.py": """
        import os

        def test_a():
            try:
                os.write(3, b"garbage")
            except OSError:
                pass
    """
        },
    )
    _, res = run_harness(repo)
    assert res["exitCode"] == 0
    assert res["report"] is None


# ---------------------------------------------------------------- timeout, output, processes


def test_timeout_kills_child(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "tests/test_loop.py": """
        def test_forever():
            while True:
                pass
    """
        },
    )
    start = time.monotonic()
    rc, res = run_harness(repo, "--timeout", "2")
    elapsed = time.monotonic() - start
    assert rc == 0
    assert res["timedOut"] is True
    assert res["exitCode"] is None
    assert res["report"] is None
    assert elapsed < 15
    assert 1900 <= res["durationMs"] < 15000


def test_background_process_is_killed_and_does_not_block(tmp_path):
    pidfile = tmp_path / "bg.pid"
    repo = make_repo(
        tmp_path / "repo",
        {
            "tests/test_bg.py": f"""
        import subprocess, sys

        def test_spawn():
            # inherits stdout/stderr, so it keeps the output pipe open
            p = subprocess.Popen(["sleep", "300"], stdout=sys.__stdout__, stderr=sys.__stderr__)
            open({str(pidfile)!r}, "w").write(str(p.pid))
    """
        },
    )
    start = time.monotonic()
    _, res = run_harness(repo, "--timeout", "60")
    assert time.monotonic() - start < 20
    assert res["timedOut"] is False
    assert outcomes(res) == {"tests/test_bg.py::test_spawn": "passed"}
    pid = int(pidfile.read_text())
    for _ in range(50):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    break  # killed; a zombie waiting for init to reap it
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.1)
    else:
        os.kill(pid, 9)
        pytest.fail("background process survived the harness")


def test_output_truncation(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "tests/test_noisy.py": """
        import sys

        def test_noisy():
            sys.__stdout__.write("x" * 5000 + "\\n")
            sys.__stdout__.flush()
    """
        },
    )
    _, res = run_harness(repo, "--max-output", "200")
    assert res["outputTruncated"] is True
    assert len(res["output"].encode()) <= 200
    assert "1 passed" in res["output"]  # the tail is kept
    _, res = run_harness(repo)
    assert res["outputTruncated"] is False
    assert "x" * 5000 in res["output"]


def test_child_cannot_write_parent_stdout(tmp_path):
    forged = json.dumps(
        {"exitCode": 0, "timedOut": False, "report": None, "output": "", "outputTruncated": False, "durationMs": 1}
    )
    repo = make_repo(
        tmp_path / "repo",
        {
            "tests/test_print.py": f"""
        import os, sys

        def test_print():
            os.write(1, b{forged!r} + b"\\n")
            print("hello")
            assert False
    """
        },
    )
    rc, res = run_harness(repo)  # run_harness asserts exactly one stdout line
    assert res["exitCode"] == 1
    assert outcomes(res) == {"tests/test_print.py::test_print": "failed"}


def test_child_environment(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "tests/test_env.py": """
        import os, sys

        def test_env():
            assert os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
            assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1"
            assert os.environ["HOME"] == "/tmp"
            assert "PYTHONPATH" not in os.environ
            assert "PYTHONSTARTUP" not in os.environ
            assert sys.flags.isolated and sys.dont_write_bytecode
            assert sys.path[0] == os.getcwd() or os.getcwd() in sys.path
            assert os.path.basename(os.getcwd()) == "repo"
            assert os.read(0, 10) == b""  # stdin is /dev/null
    """
        },
    )
    env = dict(os.environ, PYTHONPATH="/nonexistent", PYTHONSTARTUP="/nonexistent.py")
    _, res = run_harness(repo, env=env)
    assert outcomes(res) == {"tests/test_env.py::test_env": "passed"}, res["output"]


@pytest.mark.parametrize(
    "args",
    [
        ["--repo", "relative/path", "--no-drop"],
        ["--repo", "/nonexistent/repo/xyz", "--no-drop"],
        ["--repo", "/tmp", "--uid", "0", "--gid", "0"],
        ["--repo", "/tmp", "--no-drop", "--timeout", "0"],
    ],
)
def test_usage_errors(args):
    r = subprocess.run([sys.executable, "-I", "-S", str(HARNESS), *args], capture_output=True, timeout=60)
    assert r.returncode == 2
    assert r.stdout == b""


def test_a_module_left_beside_the_script_never_runs(tmp_path):
    # in a grading container the harness's folder (the spool) is writable by the tests' user: a module left
    # there under a standard-library name must never run in the root process, and nothing is compiled there
    spool = tmp_path / "spool"
    spool.mkdir()
    shutil.copy(HARNESS, spool / "grade-harness.py")
    shutil.copytree(
        HARNESS.parent / "agentrl_checker", spool / "agentrl_checker", ignore=shutil.ignore_patterns("__pycache__")
    )
    marker = tmp_path / "planted-module-ran"
    for name in ("argparse", "configparser", "shlex", "tempfile", "fcntl", "pwd", "ctypes"):
        (spool / f"{name}.py").write_text(f"open({str(marker)!r}, 'a').write({name!r})\n")
    repo = make_repo(
        tmp_path / "repo",
        {"pytest.ini": "[pytest]\ntestpaths = tests\n", "tests/test_a.py": "def test_a():\n    pass\n"},
    )
    r = subprocess.run(
        [sys.executable, "-I", "-S", str(spool / "grade-harness.py"), "--repo", str(repo), "--no-drop"],
        capture_output=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert outcomes(json.loads(r.stdout.decode())) == {"tests/test_a.py::test_a": "passed"}
    assert not marker.exists(), marker.read_text()
    assert not list(spool.rglob("__pycache__"))


# ---------------------------------------------------------------- real uid drop (host, as root)


def _uid1000_can_run_python():
    try:
        r = subprocess.run(
            [sys.executable, "-I", "-c", "import pytest"],
            user=1000,
            group=1000,
            extra_groups=[],
            capture_output=True,
            cwd="/",
            timeout=60,
        )
    except OSError:
        return False
    return r.returncode == 0


def _world_readable_repo(files):
    base = Path(tempfile.mkdtemp(prefix="agentrl-harness-test-"))
    repo = make_repo(base / "repo", files)
    os.chmod(base, 0o755)
    for dirpath, dirnames, filenames in os.walk(base):
        os.chown(dirpath, 1000, 1000)
        for f in filenames:
            os.chown(os.path.join(dirpath, f), 1000, 1000)
    return base, repo


UID_FILES = {
    "tests/test_uid.py": """
    import os
    import pytest

    def test_uid():
        assert os.getuid() == 1000 and os.geteuid() == 1000
        assert os.getgid() == 1000 and os.getegid() == 1000
        assert os.getgroups() == []

    def test_cannot_regain_root():
        with pytest.raises(PermissionError):
            os.setuid(0)
"""
}

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="uid drop needs root")


@needs_root
def test_real_uid_drop(tmp_path):
    if not _uid1000_can_run_python():
        pytest.skip("uid 1000 cannot run this interpreter with pytest (e.g. it lives under /root)")
    base, repo = _world_readable_repo(UID_FILES)
    try:
        rc, res = run_harness(repo, "--uid", "1000", "--gid", "1000", drop=True)
        assert rc == 0
        assert res["exitCode"] == 0, res["output"]
        assert outcomes(res) == {
            "tests/test_uid.py::test_uid": "passed",
            "tests/test_uid.py::test_cannot_regain_root": "passed",
        }
    finally:
        shutil.rmtree(base, ignore_errors=True)


@needs_root
def test_uid_drop_happens_before_exec(tmp_path):
    """Where uid 1000 cannot even execute this interpreter, the exec fails as
    uid 1000: proof that privileges were dropped first, reported cleanly."""
    if _uid1000_can_run_python():
        pytest.skip("interpreter is usable by uid 1000; covered by test_real_uid_drop")
    base, repo = _world_readable_repo(UID_FILES)
    try:
        rc, res = run_harness(repo, "--uid", "1000", "--gid", "1000", drop=True)
        assert rc == 0
        assert res["report"] is None
        assert res["exitCode"] not in (0, None)
        assert "child setup failed" in res["output"] and "Permission" in res["output"]
    finally:
        shutil.rmtree(base, ignore_errors=True)


# ---------------------------------------------------------------- Docker integration


def _docker_ok():
    if not shutil.which("docker"):
        return False
    try:
        if subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode != 0:
            return False
        return subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _docker_harness(files, *args, flags=("-I",), timeout=300):
    """Run the harness in a scoring container shaped like the real one."""
    if os.geteuid() == 0:
        base, repo = _world_readable_repo(files)
    else:
        base = Path(tempfile.mkdtemp(prefix="agentrl-harness-test-"))
        repo = make_repo(base / "repo", files)
        subprocess.run(["chmod", "-R", "a+rwX", str(base)], check=True)
    try:
        cmd = [
            "docker",
            "run",
            "--rm",
            "--network",
            "none",
            "--read-only",
            "--tmpfs",
            "/tmp",
            "--cap-drop",
            "ALL",
            "--cap-add",
            "SETUID",
            "--cap-add",
            "SETGID",
            "--security-opt",
            "no-new-privileges",
            "-u",
            "0",
            "-v",
            f"{repo}:/work",
            "-v",
            f"{HARNESS}:/opt/agentrl/grade-harness.py:ro",
            "-v",
            f"{HARNESS.parent / 'agentrl_checker'}:/opt/agentrl/agentrl_checker:ro",
            IMAGE,
            "python3",
            *flags,
            "/opt/agentrl/grade-harness.py",
            "--repo",
            "/work",
            "--uid",
            "1000",
            "--gid",
            "1000",
            *args,
        ]
        r = subprocess.run(cmd, capture_output=True, timeout=timeout)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.decode().splitlines()
        assert len(lines) == 1, r.stdout
        res = json.loads(lines[0])
        assert set(res) == KEYS
        return res
    finally:
        shutil.rmtree(base, ignore_errors=True)


def needs_docker(test):
    """A test that starts containers: marked `docker` (the integration tier runs it), skipped without an engine."""
    skip = pytest.mark.skipif(not _docker_ok(), reason="docker or the agentrl-base image is not available")
    return pytest.mark.docker(skip(test))


@needs_docker
@pytest.mark.parametrize("flags", [["-I"], ["-I", "-S"]])
def test_docker_scoring_container(flags):
    files = dict(UID_FILES)
    files.update(BASIC)
    files.update(
        {
            "pytest.py": "import sys\nsys.exit(0)\n",
            "_pytest/__init__.py": "raise SystemExit(0)\n",
            "sitecustomize.py": "import os\nos._exit(0)\n",
            "tests/test_fail.py": "def test_f():\n    assert 0\n",
            "tests/test_ro.py": """
            import os, pytest
            def test_readonly_root():
                with pytest.raises(OSError):
                    open("/usr/lib/python3/dist-packages/pytest/hacked.py", "w")
            def test_can_write_repo_and_tmp(tmp_path):
                (tmp_path / "x").write_text("ok")
                with open("scratch.txt", "w") as f:
                    f.write("ok")
        """,
        }
    )
    res = _docker_harness(files, "--timeout", "60", flags=flags)
    assert res["exitCode"] == 1 and res["timedOut"] is False
    assert outcomes(res) == {
        "tests/test_basic.py::test_add": "passed",
        "tests/test_basic.py::test_p[1-2]": "passed",
        "tests/test_basic.py::test_p[3-4]": "passed",
        "tests/test_fail.py::test_f": "failed",
        "tests/test_ro.py::test_readonly_root": "passed",
        "tests/test_ro.py::test_can_write_repo_and_tmp": "passed",
        "tests/test_uid.py::test_uid": "passed",
        "tests/test_uid.py::test_cannot_regain_root": "passed",
    }, res["output"]


@needs_docker
def test_docker_timeout_kills_unprivileged_child():
    # the parent has no CAP_KILL there: killing uid 1000 must still work
    files = {
        "tests/test_loop.py": """
        import subprocess
        def test_loop():
            subprocess.Popen(["sleep", "300"])
            while True:
                pass
    """
    }
    start = time.monotonic()
    res = _docker_harness(files, "--timeout", "3", timeout=120)
    assert time.monotonic() - start < 60
    assert res["timedOut"] is True and res["exitCode"] is None and res["report"] is None
    assert res["durationMs"] < 3000 + 1000 * 5


@needs_docker
def test_docker_stray_process_killed_after_exit():
    files = {
        "tests/test_bg.py": """
        import subprocess, sys
        def test_spawn():
            subprocess.Popen(["sleep", "300"], stdout=sys.__stdout__, stderr=sys.__stderr__)
    """
    }
    res = _docker_harness(files, "--timeout", "60", "--collect-only")
    assert res["report"]["tests"] == [{"nodeid": "tests/test_bg.py::test_spawn", "outcome": "collected"}]
    res = _docker_harness(files, "--timeout", "60")
    assert outcomes(res) == {"tests/test_bg.py::test_spawn": "passed"}
    # the sleeper holds the output pipe: only killing its group lets the
    # harness finish before the 2 s drain limit
    assert res["durationMs"] < 1900


def _long_ids(count, width):
    return textwrap.dedent(
        f"""
        import pytest

        @pytest.mark.parametrize("n", range({count}), ids=lambda n: str(n).rjust({width}, "x"))
        def test_wide(n):
            pass
        """
    )


def test_a_report_near_its_bound_comes_back_whole_and_one_over_it_is_dropped_and_said(tmp_path):
    # the bound is 64 MiB; the same rule with a 2 MiB bound, and node ids of 50 kB
    bound = str(2 * 1024 * 1024)
    near = make_repo(tmp_path / "near", {"test_wide.py": _long_ids(40, 50_000)})
    rc, result = run_harness(near, "--max-report", bound)
    assert rc == 0 and result["reportOverLimit"] is False
    assert len(result["report"]["tests"]) == 40
    assert all(t["outcome"] == "passed" for t in result["report"]["tests"])
    over = make_repo(tmp_path / "over", {"test_wide.py": _long_ids(45, 50_000)})
    rc, result = run_harness(over, "--max-report", bound)
    assert rc == 0 and result["report"] is None and result["reportOverLimit"] is True


def test_the_report_is_written_with_what_the_harness_took_before_the_candidate_was_imported(tmp_path):
    # the candidate replaces json.dumps, json's encoder, os.write and the harness's own globals at
    # import, to turn "DID NOT RAISE" failures into passes: the report still says failed
    repo = make_repo(
        tmp_path,
        {
            "dur/__init__.py": """
                import json, json.encoder, os, sys

                def parse(text):
                    return 0  # the bug: never raises

                _dumps, _write = json.dumps, os.write

                def _rewrite(data):
                    return data.replace(b'"failed"', b'"passed"') if isinstance(data, (bytes, memoryview)) else data

                def dumps(value, *args, **kwargs):
                    return _dumps(value, *args, **kwargs).replace('"failed"', '"passed"')

                def write(fd, data):
                    return _write(fd, _rewrite(bytes(data))) if fd > 2 else _write(fd, data)

                json.dumps = dumps
                os.write = write
                main = sys.modules.get("__main__")
                for name in ("_write", "_report_json", "_quote"):
                    if main is not None and hasattr(main, name):
                        setattr(main, name, write if name == "_write" else dumps)
            """,
            "tests/test_dur.py": """
                import pytest
                import dur

                def test_rejects_garbage():
                    with pytest.raises(ValueError):
                        dur.parse("garbage")
            """,
        },
    )
    rc, result = run_harness(repo)
    assert rc == 0
    assert outcomes(result) == {"tests/test_dur.py::test_rejects_garbage": "failed"}


# ---------------------------------------------------------------- where a test failed, and the lines it ran

PLACES = {
    "mypkg/__init__.py": """
        def add(a, b):
            return a + b + 1
    """,
    "tests/test_places.py": """
        import unittest
        from mypkg import add


        class TestAdd(unittest.TestCase):
            def test_list(self):
                value = [add(1, 1)]
                self.assertListEqual(value, [2])


        def test_plain():
            if add(0, 0) == 1:
                return
            assert add(2, 2) == 4
    """,
}


def test_a_failing_unittest_assertion_is_placed_at_the_tests_own_line(tmp_path):
    # unittest's assertion methods fail inside the standard library: the crash is where the test called one
    _, result = run_harness(make_repo(tmp_path, PLACES))
    crash = {t["nodeid"]: t.get("crash") for t in result["report"]["tests"]}
    listed = crash["tests/test_places.py::TestAdd::test_list"]
    assert listed["path"] == "tests/test_places.py" and listed["line"] == 9, listed
    assert listed["message"].startswith("AssertionError")


def test_trace_lines_records_the_lines_each_test_ran_and_only_when_asked(tmp_path):
    repo = make_repo(tmp_path, PLACES)
    _, plain = run_harness(repo)
    assert all("lines" not in t for t in plain["report"]["tests"])
    _, traced = run_harness(repo, "--trace-lines")
    lines = {t["nodeid"]: t["lines"] for t in traced["report"]["tests"]}
    assert lines["tests/test_places.py::test_plain"] == [13, 14], "the early return: the assert never ran"
    assert lines["tests/test_places.py::TestAdd::test_list"] == [8, 9]


# ---------------------------------------------------------------- the repository's pytest configuration

SRC_LAYOUT = {
    "pyproject.toml": """
        [project]
        name = "srcpkg"

        [tool.pytest.ini_options]
        testpaths = ["src", "checks"]
        pythonpath = ["src", "../../outside"]
        python_files = ["check_*.py"]
        python_functions = ["check_*"]
        addopts = "--doctest-modules -x -p no:python --maxfail=1"
        filterwarnings = ["error"]
    """,
    "src/srcpkg/__init__.py": '''
        def double(x):
            """Twice x.

            >>> double(2)
            4
            """
            return x * 2
    ''',
    "checks/check_double.py": """
        import warnings

        from srcpkg import double

        def check_two():
            warnings.warn("ignored: filterwarnings is not applied")
            assert double(2) == 4

        def check_three():
            assert double(3) == 6

        def test_not_collected():
            assert False
    """,
}


def test_the_repositorys_test_paths_pythonpath_naming_and_doctests_apply(tmp_path):
    _, res = run_harness(make_repo(tmp_path / "repo", SRC_LAYOUT))
    assert outcomes(res) == {
        "src/srcpkg/__init__.py::srcpkg.double": "passed",
        "checks/check_double.py::check_two": "passed",
        "checks/check_double.py::check_three": "passed",
    }, res["output"]
    assert res["exitCode"] == 0


def test_a_doctest_graded_fix_fails_before_it(tmp_path):
    files = dict(SRC_LAYOUT)
    files["src/srcpkg/__init__.py"] = files["src/srcpkg/__init__.py"].replace(
        "return x * 2", "return x + 2 if x != 2 else 4"
    )
    _, res = run_harness(make_repo(tmp_path / "repo", files))
    got = outcomes(res)
    assert got["src/srcpkg/__init__.py::srcpkg.double"] == "passed"
    assert got["checks/check_double.py::check_three"] == "failed"
    files["src/srcpkg/__init__.py"] = files["src/srcpkg/__init__.py"].replace(
        ">>> double(2)\n            4", ">>> double(5)\n            10"
    )
    _, res = run_harness(make_repo(tmp_path / "repo2", files))
    assert outcomes(res)["src/srcpkg/__init__.py::srcpkg.double"] == "failed"


def test_a_doctest_reports_a_digest_of_each_example_and_an_edited_example_changes_it(tmp_path):
    _, res = run_harness(make_repo(tmp_path / "repo", SRC_LAYOUT))
    examples = {t["nodeid"]: t.get("examples") for t in res["report"]["tests"]}
    digests = examples["src/srcpkg/__init__.py::srcpkg.double"]
    assert isinstance(digests, list) and len(digests) == 1 and len(digests[0]) == 16
    assert examples["checks/check_double.py::check_two"] is None, "only doctests carry examples"
    # the expected output edited to what the code gives: the test passes, but its example is another one
    files = dict(SRC_LAYOUT)
    files["src/srcpkg/__init__.py"] = (
        files["src/srcpkg/__init__.py"]
        .replace("return x * 2", "return x + 3")
        .replace(">>> double(2)\n            4", ">>> double(2)\n            5")
    )
    _, res = run_harness(make_repo(tmp_path / "repo2", files))
    test = next(t for t in res["report"]["tests"] if t["nodeid"] == "src/srcpkg/__init__.py::srcpkg.double")
    assert test["outcome"] == "passed"
    assert test["examples"] != digests


def test_setup_cfg_and_tox_ini_sections_and_ignore_repo_config(tmp_path):
    files = {
        "setup.cfg": "[tool:pytest]\npython_files = spec_*.py\n",
        "tests/spec_one.py": "def test_one():\n    assert True\n",
        "tests/test_two.py": "def test_two():\n    assert True\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    _, res = run_harness(repo)
    assert set(outcomes(res)) == {"tests/spec_one.py::test_one"}
    _, res = run_harness(repo, "--ignore-repo-config")
    assert set(outcomes(res)) == {"tests/test_two.py::test_two"}
