"""Runs one tool call inside the sandbox, exactly once, as the agent's user.

Usage: python3 -I -S /run/agentrl/run-tool.py NONCE
The request comes in environment variables (AGENTRL_TOOL, AGENTRL_ARG1,
AGENTRL_ARG2 as base64, AGENTRL_TIMEOUT_MS, AGENTRL_MAX_OUTPUT, AGENTRL_CLEANUP)
or, when large, as JSON in /run/agentrl/NONCE.req.json. The runner claims
NONCE.started with O_EXCL (a second start of the same call does nothing and
prints {"alreadyStarted": true}), runs the call, and writes the result as one
JSON line, atomically, to NONCE.json and to stdout. The spool folder is writable
but not listable by the agent. Whatever the agent did to its sandbox (a repository
root it cannot enter, a full spool, its runner's limits lowered) is answered as the
call's own failure: a call left unanswered would read as a lost sandbox. AGENTRL_CLEANUP names earlier calls whose results
the host has recorded: their files are removed, so the spool does not fill up.

Only builtin modules are imported (os, select, sys, time, binascii): the runner
starts on every tool call, and its start-up time is part of each call's latency.

Usage: python3 -I -S /run/agentrl/run-tool.py --serve UID [--cold]
The same calls through a long-lived executor (serve): started once per sandbox as
root, it forks a child per call that drops to UID and runs the call exactly as
above; the host reaches it on a unix socket in the spool's root-only ctl folder
(activities/sandbox/executor.ts). It keeps the sandbox's warm interpreter
(warm-python.py) running, unless --cold: a call that is one simple
`python3 -c ...` or `python3 -m ...` command, which bash would only exec, runs there,
without an interpreter start or pytest's import, where its result cannot differ
from a cold start.

A `bash` call runs `/bin/bash -c COMMAND` (not sh: agents and harnesses write bash).
"""

import binascii
import os
import select
import sys
import time

SPOOL = "/run/agentrl"
REPO = "/work"
SHELL = "/bin/bash"
# Linux's numbers: the signal module's import would add to every call's start-up
SIGKILL, SIGPIPE, SIGXFSZ = 9, 13, 25
ENOENT, EACCES = 2, 13


def quote(text):
    """A JSON string literal (what json.dumps gives, without importing json)."""
    out = []
    for char in text:
        code = ord(char)
        if char == '"' or char == "\\":
            out.append("\\" + char)
        elif code < 0x20:
            out.append("\\u%04x" % code)
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def encode(result):
    parts = []
    for key, value in result.items():
        if value is None:
            literal = "null"
        elif value is True or value is False:
            literal = "true" if value else "false"
        elif isinstance(value, int):
            literal = str(value)
        else:
            literal = quote(value.encode("utf-8", errors="replace").decode("utf-8"))
        parts.append(quote(key) + ": " + literal)
    return "{" + ", ".join(parts) + "}"


def oom_kills():
    """Count of OOM kills in this container's memory cgroup (v2 or v1), or None."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as handle:
                for line in handle:
                    name, _, value = line.partition(" ")
                    if name == "oom_kill":
                        return int(value)
        except OSError:
            continue
    return None


class Capture:
    """Keeps all output up to the limit, else its head and tail with the cut stated."""

    def __init__(self, limit):
        self.limit, self.half = limit, limit // 2
        self.whole, self.head, self.tail, self.total = bytearray(), None, bytearray(), 0

    def add(self, chunk):
        self.total += len(chunk)
        if self.head is None:
            self.whole += chunk
            if len(self.whole) > self.limit:
                self.head, self.tail = bytes(self.whole[: self.half]), self.whole[-self.half :]
                self.whole = None
        else:
            self.tail = (self.tail + chunk)[-self.half :]

    def result(self):
        if self.head is None:
            return bytes(self.whole), False
        cut = self.total - len(self.head) - len(self.tail)
        return self.head + b"\n[... %d bytes truncated ...]\n" % cut + bytes(self.tail), True


class Shell:
    """The call's shell, bash (what the tool is called, and what agents and harnesses expect): spawned here, waited
    for here."""

    def __init__(self, command, write_end):
        # in its own session and process group, output into the pipe, nothing else inherited (Python's own
        # descriptors are close-on-exec); spawned without copying this process (vfork). SIGPIPE and SIGXFSZ get
        # their default action back, as in a terminal: Python ignores both, and a shell cannot undo a signal
        # ignored at its start (`yes | head -1` would print "Broken pipe" and fail under pipefail)
        self.pid = os.posix_spawn(
            SHELL,
            ["bash", "-c", command],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, write_end, 1),
                (os.POSIX_SPAWN_DUP2, write_end, 2),
            ],
            setsid=True,
            setsigdef=(SIGPIPE, SIGXFSZ),
        )
        self.wakeup = []

    def poll(self):
        done, status = os.waitpid(self.pid, os.WNOHANG)
        return status if done else None

    def wait(self):
        return os.waitpid(self.pid, 0)[1]


class WarmCall:
    """A simple `python3 -c/-m` command run by the sandbox's warm interpreter (warm-python.py).

    The connection was made as root, before the uid drop; the worker it starts is in its own session, as
    the shell would be, and the handler at the other end reports its pid and then its wait status.
    """

    def __init__(self, connection, argv, write_end):
        import socket

        self.connection, self.buffer = connection, b""
        request = "{%s}" % ", ".join(
            [
                quote("argv") + ": [" + ", ".join(quote(arg) for arg in argv) + "]",
                quote("cwd") + ": " + quote(REPO),
                quote("env") + ": {" + ", ".join(quote(k) + ": " + quote(v) for k, v in os.environ.items()) + "}",
            ]
        )
        null = os.open("/dev/null", os.O_RDONLY)
        try:
            socket.send_fds(connection, [request.encode("utf-8") + b"\n"], [null, write_end])
        finally:
            os.close(null)
        line = self.line(60.0)
        if not line.startswith(b'{"pid": '):
            # the handler answers only once the call's process exists: without a pid nothing of the call ran
            raise OSError("the warm interpreter did not start the call")
        self.pid = int(line[8:-1])
        self.wakeup = [connection]

    def line(self, seconds):
        deadline = time.monotonic() + seconds
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.connection], [], [], left)[0]:
                return b""
            chunk = self.connection.recv(4096)
            if not chunk:
                return b""
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def poll(self):
        if not select.select([self.connection], [], [], 0)[0] and b"\n" not in self.buffer:
            return None
        line = self.line(0.05)
        if line.startswith(b'{"status": '):
            return int(line[11:-1])
        # the handler went away without a status: the worker is gone or goes with the sweep below
        return 9 if not line else None

    def wait(self):
        line = self.line(10.0)
        return int(line[11:-1]) if line.startswith(b'{"status": ') else 9


SIMPLE_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+@%-")


def simple_python(command):
    """The argv of a command that is exactly `python3 -c|-m ...`, each word bare or single-quoted; else None.

    Such words mean the same to bash as to every POSIX shell: no operator, no expansion (none of bash's own
    either: braces need `{`, `$'...'` and `$"..."` a `$`, extended globs a `(`), so bash would execvp python3
    with exactly this argv, unless its environment makes it do more (bash_only_execs).
    """
    words, i, n = [], 0, len(command)
    while i < n:
        word, start = [], i
        while i < n and command[i] != " ":
            char = command[i]
            if char == "'":
                end = command.find("'", i + 1)
                if end < 0:
                    return None
                word.append(command[i + 1 : end])
                i = end + 1
            elif char == "\\" and command[i + 1 : i + 2] == "'":
                word.append("'")
                i += 2
            elif char in SIMPLE_WORD:
                word.append(char)
                i += 1
            else:
                return None
        if i == start:
            return None
        words.append("".join(word))
        i += 1
    if len(words) < 3 or words[0] != "python3" or words[1] not in ("-c", "-m"):
        return None
    return words


def run_bash(command, timeout_ms, limit, warm=None):
    capture = Capture(limit)
    deadline = time.monotonic() + timeout_ms / 1000.0
    try:
        # the agent's own tree: it can take away its modes (chmod 000 /work), and then no command runs in it
        os.chdir(REPO)
    except OSError as error:
        return {"error": "the call could not start: cannot enter %s: %s" % (REPO, error.strerror)}
    try:
        read_end, write_end = os.pipe()
    except OSError as error:
        return {"error": "the call could not start: %s" % error.strerror}
    child = None
    if warm is not None:
        try:
            child = WarmCall(warm, simple_python(command), write_end)
        except (OSError, ValueError):
            # nothing of the call ran (see WarmCall): it runs through the shell as usual
            child = None
    if child is None:
        try:
            child = Shell(command, write_end)
        except OSError as error:
            # the pids limit is full (the agent's own processes), or an image without bash: nothing ran
            os.close(read_end)
            os.close(write_end)
            missing = error.errno in (ENOENT, EACCES)
            return {
                "error": "the call could not start: %s"
                % ("%s: %s" % (SHELL, error.strerror) if missing else error.strerror)
            }
    os.close(write_end)
    pid = child.pid
    status, timed_out, exited_at = None, False, None
    while True:
        now = time.monotonic()
        if now > deadline:
            timed_out = status is None
            break
        if status is None:
            status = child.poll()
            if status is not None:
                exited_at = now
        # after the call's process exits, drain briefly: background jobs may hold the pipe open
        if exited_at is not None and now - exited_at > 0.2:
            break
        ready, _, _ = select.select([read_end] + (child.wakeup if status is None else []), [], [], 0.05)
        if read_end not in ready:
            continue
        chunk = os.read(read_end, 65536)
        if not chunk:
            if status is None:
                status = child.wait()
            break
        capture.add(chunk)
    # every other process of the agent's uid goes, its own session or not: no tool call leaves
    # processes behind (the container's init runs as another user and stays)
    for target in (-pid, -1):
        try:
            os.kill(target, SIGKILL)
        except OSError:
            pass
    if status is None:
        status = child.wait()
    os.close(read_end)
    output, truncated = capture.result()
    signal = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return {
        "exitCode": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": signal,
        "timedOut": timed_out,
        "output": output.decode("utf-8", errors="replace"),
        "outputBytes": capture.total,
        "truncated": truncated,
    }


def run_write_file(relative, content):
    path = os.path.normpath(os.path.join(REPO, relative))
    if not path.startswith(REPO + "/"):
        return {"error": "path leaves the repository"}
    parent = os.path.dirname(path)
    # checked before anything is created: no component may be a symlink out of the repository
    existing = parent
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not (os.path.realpath(existing) + "/").startswith(REPO + "/"):
        return {"error": "path leaves the repository through a symlink"}
    try:
        os.makedirs(parent, exist_ok=True)
        data = content.encode("utf-8", errors="replace")
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            os.write(handle, data)
        finally:
            os.close(handle)
        return {"written": len(data)}
    except OSError as error:
        return {"error": "%s: %s" % (error.strerror, relative)}


def read_request(nonce):
    """The request as (tool, arg1, arg2, timeout_ms, max_output, cleanup)."""
    env = os.environ
    if "AGENTRL_TOOL" in env:
        text = lambda name: binascii.a2b_base64(env.pop(name, "")).decode("utf-8")
        request = (
            env.pop("AGENTRL_TOOL"),
            text("AGENTRL_ARG1"),
            text("AGENTRL_ARG2"),
            int(env.pop("AGENTRL_TIMEOUT_MS")),
            int(env.pop("AGENTRL_MAX_OUTPUT")),
            [name for name in env.pop("AGENTRL_CLEANUP", "").split(",") if name],
        )
        return request
    import json  # only large requests (a big write_file) come as a file

    path = os.path.join(SPOOL, nonce + ".req.json")
    with open(path) as handle:
        data = json.load(handle)
    remove(nonce + ".req.json")
    arg1 = data.get("command", data.get("path", ""))
    return (
        data["tool"],
        arg1,
        data.get("content", ""),
        int(data["timeoutMs"]),
        int(data["maxOutputBytes"]),
        data.get("cleanup", []),
    )


class AlreadyStarted(Exception):
    """An earlier start of the same call claimed it: this one does nothing."""


def remove(name):
    try:
        os.unlink(os.path.join(SPOOL, name))
    except OSError:
        pass


def run_call(nonce, request_of, warm=None):
    """Claims NONCE exactly once, runs the call and records its result; returns the result line.

    `request_of(nonce)` gives (tool, arg1, arg2, timeout_ms, max_output, cleanup); it is read only once
    the claim is made. Raises AlreadyStarted when another start of the call came first. `warm`: a connection
    to the sandbox's warm interpreter, made as root, for a bash call that is one simple python3 command.
    """
    if not nonce.isalnum():
        raise ValueError("bad nonce")
    if os.path.exists(os.path.join(SPOOL, nonce + ".json")):
        raise AlreadyStarted()
    try:
        os.close(os.open(os.path.join(SPOOL, nonce + ".started"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        raise AlreadyStarted()
    except OSError as error:
        # the spool is the agent's to fill (it can write there): nothing of the call ran, and it says why
        return encode({"error": "the call could not start: %s" % error.strerror}).encode("utf-8")
    # the claim stays as a tombstone until the host has recorded the result (it names the call in a
    # later cleanup); a result that appeared meanwhile means the call already ran
    if os.path.exists(os.path.join(SPOOL, nonce + ".json")):
        raise AlreadyStarted()
    tool, arg1, arg2, timeout_ms, max_output, cleanup = request_of(nonce)
    for old in cleanup:
        if old.isalnum():
            remove(old + ".json")
            remove(old + ".started")
    before = oom_kills()
    started = time.monotonic()
    if tool == "bash":
        result = run_bash(arg1, timeout_ms, max_output, warm)
    elif tool == "write_file":
        result = run_write_file(arg1, arg2)
    else:
        result = {"error": "unknown tool %r" % tool}
    after = oom_kills()
    result["oomKilled"] = before is not None and after is not None and after > before
    result["durationMs"] = int((time.monotonic() - started) * 1000)
    line = encode(result).encode("utf-8")
    record(nonce, line)
    return line


def record(nonce, line):
    """Writes a call's result to the spool for a retried host to find; what the agent did can prevent it.

    The spool is writable by the agent, its descriptors and file size limits are its to lower (its calls
    run as this uid): a result that cannot be written is still answered (stdout, or the executor's
    socket), and a host that lost the answer finds the claim without a result, as when the call killed
    its runner.
    """
    temporary = os.path.join(SPOOL, nonce + ".json.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(line)
        os.rename(temporary, os.path.join(SPOOL, nonce + ".json"))
    except OSError:
        remove(nonce + ".json.tmp")


ALREADY_STARTED = b'{"alreadyStarted": true}'
CONTROL = SPOOL + "/ctl"
SOCKET = CONTROL + "/exec.sock"
MAX_REQUEST = 256 * 1024 * 1024


def serve(uid, warm=True):
    """The sandbox's executor: runs as root (with only CAP_SETUID and CAP_SETGID), listens on SOCKET.

    Every connection carries one request, a JSON line {"nonce", "tool", "arg1", "arg2" (base64),
    "timeoutMs", "maxOutput", "cleanup"}; a forked child drops to the agent's uid for good and then
    does exactly what a one-shot run of this script does (run_call), answering with the result line.
    The agent's uid can neither signal this process nor reach its socket (CONTROL is root's, 0700).
    """
    import json
    import signal
    import socket
    import stat

    try:
        os.mkdir(CONTROL, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(CONTROL)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o077:
        sys.exit("executor: %s is not root's private folder" % CONTROL)
    # the uid drop must work here (CAP_SETUID, CAP_SETGID), else no call could run
    probe = os.fork()
    if probe == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os._exit(0)
        except OSError:
            os._exit(1)
    if os.waitpid(probe, 0)[1] != 0:
        sys.exit("executor: cannot drop to uid %d (the container lacks CAP_SETUID/CAP_SETGID)" % uid)
    try:
        os.unlink(SOCKET)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(SOCKET + ".new")
    os.chmod(SOCKET + ".new", 0o600)
    server.listen(128)
    # bound, then renamed: the host never connects to a socket that is not listening yet
    os.rename(SOCKET + ".new", SOCKET)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped by the kernel
    interpreter = WarmInterpreter(uid) if warm else None
    while True:
        try:
            connection, _ = server.accept()
        except InterruptedError:
            continue
        # started at the host's ping once the sandbox is seeded (a .pth file may name a folder of the repository), or
        # at the first call
        if interpreter is not None:
            interpreter.keep()
        try:
            pid = os.fork()
        except OSError as error:
            # the pids limit is full (the agent's processes): this call does not start, nothing was claimed
            refused = encode({"error": "the call could not start: %s" % error.strerror})
            try:
                connection.sendall(refused.encode("utf-8") + b"\n")
            except OSError:
                pass
            connection.close()
            continue
        if pid == 0:
            code = 0
            try:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                server.close()
                handle_connection(connection, uid, json)
            except BaseException:  # noqa: BLE001 - the handler's end, whatever happened
                code = 1
            finally:
                os._exit(code)
        connection.close()


class WarmInterpreter:
    """The sandbox's warm interpreter (warm-python.py): started by the executor, again when it has died."""

    BOOT = "import sys; del sys.path[0]; path = %r; exec(compile(open(path).read(), path, 'exec'))" % (
        SPOOL + "/warm-python.py"
    )

    def __init__(self, uid):
        self.uid, self.pid, self.started = uid, None, 0.0

    def keep(self):
        if self.pid is not None:
            try:
                os.kill(self.pid, 0)
                return
            except OSError:
                self.pid = None
        if time.monotonic() - self.started < 10 or not os.path.exists(SPOOL + "/warm-python.py"):
            return
        self.started = time.monotonic()
        # root's HOME for its own start (no user site the agent could write); each call gets the call's HOME back
        env = dict(os.environ, HOME=CONTROL + "/home")
        try:
            self.pid = os.posix_spawn(
                sys.executable,
                ["python3", "-c", self.BOOT, str(self.uid)],
                env,
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0),
                ],
            )
        except OSError:
            self.pid = None


# what bash -c takes from its environment besides the command: a startup file (BASH_ENV; ~/.bashrc, which the agent
# can write, when it thinks sshd started it), options (xtrace prints the command) and functions (one may be named
# python3). With any of them set, bash may do more than exec a simple command.
SHELL_STARTUP = ("BASH_ENV", "SHELLOPTS", "SSH_CLIENT", "SSH2_CLIENT")


def bash_only_execs(env):
    """Whether `bash -c` with this environment runs a simple command as nothing but an exec of it.

    Bash's -c execs a lone simple command in its own process (no fork, no message of its own): the command's wait
    status is the call's, as when the warm interpreter runs it.
    """
    return not any(name in env for name in SHELL_STARTUP) and not any(name.startswith("BASH_FUNC_") for name in env)


def connect_warm(command):
    """A connection to the warm interpreter for a simple python3 command (made as root), else None."""
    if simple_python(command) is None or not bash_only_execs(os.environ):
        return None
    import socket

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(CONTROL + "/warm.sock")
    except OSError:
        connection.close()
        return None
    return connection


def handle_connection(connection, uid, json):
    data = bytearray()
    while not data.endswith(b"\n"):
        chunk = connection.recv(1 << 20)
        if not chunk or len(data) > MAX_REQUEST:
            return
        data += chunk
    request = json.loads(bytes(data))
    if request.get("ping"):
        # the host's word that the sandbox is seeded: the executor has started its warm interpreter by now
        connection.sendall(b'{"pong": true}\n')
        return
    text = lambda name: binascii.a2b_base64(request.get(name, "")).decode("utf-8")
    warm = connect_warm(text("arg1")) if request["tool"] == "bash" else None
    # for good: real, effective and saved ids, no supplementary groups, no capabilities left
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    parsed = (
        request["tool"],
        text("arg1"),
        text("arg2"),
        int(request["timeoutMs"]),
        int(request["maxOutput"]),
        [str(name) for name in request.get("cleanup", [])],
    )
    try:
        line = run_call(str(request["nonce"]), lambda _nonce: parsed, warm)
    except AlreadyStarted:
        line = ALREADY_STARTED
    except Exception as error:  # noqa: BLE001 - answered: a call left unanswered reads as a lost sandbox
        line = failed(error)
    connection.sendall(line + b"\n")
    connection.close()


def failed(error):
    """The result line of a call whose runner failed (what the agent did to its sandbox, e.g. a full disk)."""
    text = error.strerror if isinstance(error, OSError) and error.strerror else str(error) or type(error).__name__
    return encode({"error": "the tool call's runner failed: %s" % text}).encode("utf-8")


def main():
    if sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), warm="--cold" not in sys.argv[3:])
        return
    if not sys.argv[1].isalnum():
        sys.exit("bad nonce")
    try:
        line = run_call(sys.argv[1], read_request)
    except AlreadyStarted:
        line = ALREADY_STARTED
    except Exception as error:  # noqa: BLE001 - answered, as the executor answers it
        line = failed(error)
    sys.stdout.buffer.write(line + b"\n")


if __name__ == "__main__":
    main()
