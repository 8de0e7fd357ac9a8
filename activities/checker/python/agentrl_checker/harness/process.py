"""Process control: the child forked, its descriptors set, its identity dropped and exec'd; its
process group killed (as the tests' uid where root may not signal it) and waited for."""

import os
import signal
import time

REPORT_FD = 3  # fd number of the report pipe inside the child


def _set_no_new_privs():
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except Exception:  # noqa: BLE001 - ctypes unavailable: best effort
        return
    PR_SET_NO_NEW_PRIVS = 38
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")


def run_child(ns, out_w, rep_w, python, argv, env):
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


def child_env(ns):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST_"))}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["HOME"] = "/tmp"
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return env


def killpg(pgid, as_uid):
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


def wait_exit(pid, as_uid, limit_s):
    """Wait (without reaping) up to limit_s for pid to exit, re-sending SIGKILL."""
    end = time.monotonic() + limit_s
    while True:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return True
        if time.monotonic() >= end:
            return False
        killpg(pid, as_uid)
        time.sleep(0.05)
