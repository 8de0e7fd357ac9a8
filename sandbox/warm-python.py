"""A warm Python interpreter for the sandbox's tool calls: pytest imported once, a fresh child per call.

Started by the executor (run-tool.py --serve) as root, as

    python3 -c "<bootstrap>" UID

with the container's environment and HOME pointed at root's control folder. It imports pytest and its
builtin plugins (never the repository's code), then listens on CONTROL/warm.sock (root's folder, so
only the executor reaches it). The executor's child for a tool call whose command is one simple
`python3 -c SCRIPT [ARG...]` or `python3 -m MODULE [ARG...]` connects while still root, drops to the
agent's uid, and sends the argv, its working folder and environment with the call's stdin and output
descriptors. For each request a handler (root) forks a worker that starts a new session (its own
process group, as the shell of a cold call has), takes those descriptors, drops groups, gid and uid
to the agent's for good, and becomes the call's interpreter, as `bash -c` execs a lone simple command
in place of itself (so the call's wait status is the interpreter's own, a signal included); it:

- runs the call in this interpreter as `python3` would (a fresh `__main__`, sys.argv, sys.path[0], the
  exit status, atexit handlers, waiting for threads) when the results cannot differ from a cold start:
  `python3` on the call's PATH is this interpreter, no PYTHON* variable differs, no user site folder
  exists for the call's HOME, every folder a site .pth file names exists now as it did when this
  interpreter started (an editable install's src/ made later would be on a cold start's path), and
  nothing in the working folder has the name of a module this interpreter has imported (a cold
  `python3` would import the repository's file instead);
- else executes the real `python3` with the same argv (the cold path, exactly what bash does).

The handler answers {"pid": N} once the worker exists and {"status": S} (waitpid's status) when it ends.
Known differences from a cold interpreter: this interpreter's modules (pytest and what it imports) are
in sys.modules before the call's code runs, the hash seed is the same for every warm call of one
sandbox (a cold one draws its own), and /proc/self/cmdline shows the warm interpreter's command line.
"""

import os
import sys

CONTROL = "/run/agentrl/ctl"
SOCKET = CONTROL + "/warm.sock"
MAX_REQUEST = 64 * 1024 * 1024
# environment variables that change how a cold interpreter starts: the warm one must have the same
STARTUP_VARIABLES = (
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONUSERBASE",
    "PYTHONSTARTUP",
    "PYTHONPLATLIBDIR",
    "PYTHONSAFEPATH",
)


def preload():
    """pytest and the plugins every run loads; what fails to import is simply not warm."""
    import importlib

    try:
        import pytest  # noqa: F401
        from _pytest.config import default_plugins
    except Exception:  # noqa: BLE001 - an image without pytest: plain Python is still warm
        return
    for name in default_plugins:
        try:
            importlib.import_module("_pytest." + name)
        except Exception:  # noqa: BLE001
            pass


def pth_paths():
    """The folders the .pth files of the site folders name, and whether each exists (site adds only those that do)."""
    import site

    paths = {}
    for folder in site.getsitepackages():
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith(".pth") or name.startswith("."):
                continue
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as handle:
                    lines = handle.read().splitlines()
            except OSError:
                continue
            for line in lines:
                if not line.strip() or line.startswith("#") or line.startswith(("import ", "import\t")):
                    continue
                path = os.path.join(folder, line.rstrip())
                paths[path] = os.path.exists(path)
    return paths


def serve(uid):
    import json
    import signal
    import socket

    for name in STARTUP_VARIABLES:
        # root would import from a folder the agent may write to; calls then start cold
        if name in os.environ and name not in ("PYTHONSAFEPATH",):
            sys.exit("warm-python: %s is set; no warm interpreter" % name)
    startup = {name: value for name, value in os.environ.items() if name.startswith("PYTHON")}
    site_paths = pth_paths()
    preload()
    import atexit  # noqa: F401 - run at a worker's end
    import runpy  # noqa: F401
    import shutil  # noqa: F401
    import site  # noqa: F401
    import threading  # noqa: F401
    import traceback  # noqa: F401
    import types  # noqa: F401

    preloaded = frozenset(name.partition(".")[0] for name in sys.modules)
    import gc

    # what is loaded now stays: the collector leaves it alone in every child (fewer pages copied after a fork)
    gc.freeze()
    try:
        os.unlink(SOCKET)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(SOCKET + ".new")
    os.chmod(SOCKET + ".new", 0o600)
    server.listen(64)
    os.rename(SOCKET + ".new", SOCKET)
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped by the kernel
    while True:
        try:
            connection, _ = server.accept()
        except InterruptedError:
            continue
        try:
            pid = os.fork()
        except OSError:
            connection.close()
            continue
        if pid == 0:
            code = 0
            try:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                server.close()
                handle(connection, uid, json, socket, (startup, site_paths, preloaded))
            except BaseException:  # noqa: BLE001 - the handler's end, whatever happened
                code = 1
            finally:
                os._exit(code)
        connection.close()


def handle(connection, uid, json, socket, state):
    data = bytearray()
    fds = []
    while not data.endswith(b"\n"):
        chunk, received, _flags, _address = socket.recv_fds(connection, 1 << 20, 2)
        fds += received
        if not chunk or len(data) > MAX_REQUEST:
            return
        data += chunk
    if len(fds) != 2:
        return
    request = json.loads(bytes(data))
    # a fork refused (the pids limit) ends this handler without a pid: the executor runs the call through the shell
    pid = os.fork()
    if pid == 0:
        try:
            connection.close()
            worker(request, fds, uid, state)
        finally:
            os._exit(127)
    for fd in fds:
        os.close(fd)
    connection.sendall(b'{"pid": %d}\n' % pid)
    status = os.waitpid(pid, 0)[1]
    connection.sendall(b'{"status": %d}\n' % status)


def worker(request, fds, uid, state):
    import signal

    os.setsid()
    os.dup2(fds[0], 0)
    os.dup2(fds[1], 1)
    os.dup2(fds[1], 2)
    os.closerange(3, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 4096)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    # for good: real, effective and saved ids, no supplementary groups, no capabilities left
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    argv = [str(arg) for arg in request["argv"]]
    env = {str(key): str(value) for key, value in request["env"].items()}
    os.environ.clear()
    os.environ.update(env)
    try:
        os.chdir(request["cwd"])
        warm = is_warm(argv, env, *state)
    except OSError:
        warm = False
    # this process is the interpreter itself, as bash -c execs a lone simple command in place of the shell: the
    # call's wait status is the interpreter's own (an exit code, or the signal that ended it, with nothing printed)
    if warm:
        run(argv)
    cold(argv, env)


def is_warm(argv, env, startup, site_paths, preloaded):
    """Whether a cold `python3` with this argv would behave as this interpreter (see the module's notes)."""
    import shutil

    if len(argv) < 3 or argv[0] != "python3" or argv[1] not in ("-c", "-m"):
        return False
    found = shutil.which("python3", path=env.get("PATH", os.defpath))
    if not found or os.path.realpath(found) != os.path.realpath(sys.executable):
        return False
    if {name: value for name, value in env.items() if name.startswith("PYTHON")} != startup:
        return False
    # a .pth file's folder that has appeared (an editable install's src/) or gone since this interpreter started
    for path, existed in site_paths.items():
        if os.path.exists(path) != existed:
            return False
    home = env.get("HOME")
    version = "python%d.%d" % sys.version_info[:2]
    if home and os.path.isdir(os.path.join(home, ".local", "lib", version, "site-packages")):
        return False
    # what the import system would take from the working folder: a folder (a package), or a file with a module suffix
    import importlib.machinery

    suffixes = importlib.machinery.all_suffixes()
    for entry in os.listdir("."):
        if os.path.isdir(entry):
            name = entry
        else:
            name = next((entry[: -len(suffix)] for suffix in suffixes if entry.endswith(suffix)), None)
        if name in preloaded:
            return False
    return True


def cold(argv, env):
    """The real interpreter, as bash would start it: SIGPIPE and SIGXFSZ as the runner gives them to the shell, not
    ignored as in this interpreter; bash's message and status when it cannot be executed."""
    import errno
    import signal

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    try:
        os.execvpe(argv[0], argv, env)
    except OSError as error:
        if error.errno == errno.ENOENT:
            os.write(2, ("bash: line 1: %s: command not found\n" % argv[0]).encode())
            os._exit(127)
        os.write(2, ("bash: line 1: %s: %s\n" % (argv[0], error.strerror)).encode())
        os._exit(126)


def run(argv):
    """`python3 -c SCRIPT ARGS` or `python3 -m MODULE ARGS` in this interpreter, as a cold start runs it."""
    import atexit
    import builtins
    import runpy
    import site
    import threading
    import types

    sys.orig_argv = list(argv)
    # the user site as a cold start under this HOME computes it (the warm one started with root's)
    site.USER_BASE = None
    site.USER_SITE = None
    site.getusersitepackages()
    main = types.ModuleType("__main__")
    main.__dict__.update({"__builtins__": builtins, "__annotations__": {}})
    sys.modules["__main__"] = main
    code, interrupted = 0, False
    try:
        if argv[1] == "-c":
            main.__loader__ = sys.modules["builtins"].__loader__
            sys.argv = ["-c"] + argv[3:]
            sys.path.insert(0, "")
            exec(compile(argv[2], "<string>", "exec"), main.__dict__)
        else:
            sys.argv = ["-m"] + argv[3:]
            sys.path.insert(0, os.getcwd())
            runpy._run_module_as_main(argv[2], alter_argv=True)
    except SystemExit as stop:
        code = exit_status(stop.code)
    except BaseException as error:  # noqa: BLE001 - printed as the interpreter prints it, from the call's frames
        trace = error.__traceback__
        if trace is not None and trace.tb_frame.f_code is run.__code__:
            trace = trace.tb_next
        sys.excepthook(type(error), error.with_traceback(trace), trace)
        code = 1
        interrupted = type(error) is KeyboardInterrupt
    try:
        threading._shutdown()
    except BaseException:  # noqa: BLE001
        pass
    try:
        atexit._run_exitfuncs()
    except SystemExit as stop:
        code = exit_status(stop.code)
    except BaseException:  # noqa: BLE001
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            code = code or 120
    if interrupted:
        # as CPython ends on an unhandled KeyboardInterrupt: by SIGINT itself, so its caller sees the signal
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        code = 128 + signal.SIGINT
    os._exit(code & 0xFF)


def exit_status(value):
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    try:
        sys.stderr.write("%s\n" % (value,))
    except BaseException:  # noqa: BLE001
        pass
    return 1


if __name__ == "__main__":
    serve(int(sys.argv[1]))
