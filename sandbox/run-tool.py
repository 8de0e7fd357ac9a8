"""Runs one tool call inside the sandbox, exactly once, as the agent's user.

Usage: python3 -I /run/agentrl/run-tool.py NONCE
Reads /run/agentrl/NONCE.req.json ({"tool": "bash"|"write_file", ...}), claims
NONCE.started with O_EXCL (a second start of the same call does nothing and
exits 75), runs the call, and writes the result atomically to NONCE.json and
stdout. The spool folder is writable but not listable by the agent.
"""
import json
import os
import selectors
import signal
import subprocess
import sys
import time

SPOOL = "/run/agentrl"
REPO = "/work"
ALREADY_STARTED = 75


def oom_kills():
    """Count of OOM kills in this container's memory cgroup (v2 or v1), or None."""
    for path, key in (("/sys/fs/cgroup/memory.events", "oom_kill"),
                      ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill")):
        try:
            with open(path) as handle:
                for line in handle:
                    name, _, value = line.partition(" ")
                    if name == key:
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
                self.head, self.tail = bytes(self.whole[: self.half]), self.whole[-self.half:]
                self.whole = None
        else:
            self.tail = (self.tail + chunk)[-self.half:]

    def result(self):
        if self.head is None:
            return bytes(self.whole), False
        cut = self.total - len(self.head) - len(self.tail)
        return self.head + b"\n[... %d bytes truncated ...]\n" % cut + bytes(self.tail), True


def run_bash(request):
    capture = Capture(int(request["maxOutputBytes"]))
    timeout = float(request["timeoutMs"]) / 1000.0
    started = time.monotonic()
    child = subprocess.Popen(
        ["/bin/sh", "-c", request["command"]], cwd=REPO, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    stream = child.stdout.fileno()
    os.set_blocking(stream, False)
    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)
    timed_out, exited_at = False, None
    while True:
        now = time.monotonic()
        if now - started > timeout:
            timed_out = True
            break
        if exited_at is None and child.poll() is not None:
            exited_at = now
        # after the shell exits, drain briefly: background jobs may hold the pipe open
        if exited_at is not None and now - exited_at > 0.2:
            break
        if not selector.select(timeout=0.05):
            continue
        try:
            chunk = os.read(stream, 65536)
        except BlockingIOError:
            continue
        if not chunk:
            break
        capture.add(chunk)
    # the whole process group goes: no tool call leaves jobs behind
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    code = child.wait()
    output, truncated = capture.result()
    return {
        "exitCode": None if code < 0 else code,
        "signal": -code if code < 0 else None,
        "timedOut": timed_out,
        "output": output.decode("utf-8", errors="replace"),
        "outputBytes": capture.total,
        "truncated": truncated,
    }


def run_write_file(request):
    path = os.path.normpath(os.path.join(REPO, request["path"]))
    if not path.startswith(REPO + "/"):
        return {"error": "path leaves the repository"}
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.realpath(os.path.dirname(path)).startswith(REPO):
            return {"error": "path leaves the repository through a symlink"}
        data = request["content"].encode("utf-8")
        with open(path, "wb") as handle:
            handle.write(data)
        return {"written": len(data)}
    except OSError as error:
        return {"error": "%s: %s" % (error.strerror, request["path"])}


def main():
    nonce = sys.argv[1]
    if not nonce.isalnum():
        sys.exit("bad nonce")
    try:
        os.close(os.open(os.path.join(SPOOL, nonce + ".started"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        sys.exit(ALREADY_STARTED)
    with open(os.path.join(SPOOL, nonce + ".req.json")) as handle:
        request = json.load(handle)
    before = oom_kills()
    started = time.monotonic()
    if request["tool"] == "bash":
        result = run_bash(request)
    elif request["tool"] == "write_file":
        result = run_write_file(request)
    else:
        result = {"error": "unknown tool %r" % request["tool"]}
    after = oom_kills()
    result["oomKilled"] = before is not None and after is not None and after > before
    result["durationMs"] = int((time.monotonic() - started) * 1000)
    line = json.dumps(result)
    temporary = os.path.join(SPOOL, nonce + ".json.tmp")
    with open(temporary, "w") as handle:
        handle.write(line)
    os.rename(temporary, os.path.join(SPOOL, nonce + ".json"))
    sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
