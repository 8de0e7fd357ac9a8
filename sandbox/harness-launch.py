"""Runs one agent harness inside the sandbox against the model gateway.

Usage: python3 /opt/agentrl/harnesses/launch.py --harness NAME --task-file PATH --status PATH [--port 4000]
           [--home /tmp/agentrl-home] [--socket /run/agentrl-gateway/gateway.sock]

Run as the agent's uid in the repository root of a sandbox (no network but loopback). It:
  1. listens on 127.0.0.1:PORT and relays every TCP connection, byte for byte in both directions, to the gateway's
     unix socket (bind-mounted from the host); a harness speaks plain HTTP to http://127.0.0.1:PORT/v1, streamed
     responses included, over as many connections as it opens;
  2. makes HOME (mode 0700) and writes the harness's configuration files under it, from the registry harnesses.json
     that lies beside this file (shared/harnesses.json, copied by scripts/build-harnesses.sh);
  3. runs the harness's command in the current folder, with the registry's environment over its own (HOME set, proxy
     variables removed), stdin the task file where the registry says so (else /dev/null), stdout and stderr its own;
  4. when the harness ends, writes the status file atomically as JSON {"exitCode": int or null, "signal": name or null,
     "durationMs": int} (exitCode null and the signal's name, e.g. "SIGKILL", when a signal ended it; an "error"
     string besides when the harness could not run at all), and exits with the harness's code (128 + the signal's
     number after a signal, as a shell reports it).
The gateway's key and the model's name come from the environment: AGENTRL_GATEWAY_KEY and AGENTRL_GATEWAY_MODEL.
SIGTERM, SIGINT and SIGHUP sent to the launcher are passed on to the harness's process group, and the status records
how the harness ended. Registry placeholders: {dir} (the harness's folder beside this file), {home}, {task} (the task's
text), {task_file}, {base_url}, {port}, {model}, {key}.

Only the standard library is imported: this runs on the sandbox image's python3 with nothing installed.
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

GATEWAY_SOCKET = "/run/agentrl-gateway/gateway.sock"
DEFAULT_HOME = "/tmp/agentrl-home"
PLACEHOLDER = re.compile(r"\{(dir|home|task|task_file|base_url|port|model|key)\}")
# written into configuration files unescaped (TOML, JSON), so a name that needs quoting is refused
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]*")
CHUNK = 65536


class LaunchError(Exception):
    """A launch that cannot start: a bad argument, registry or environment."""


def relay(client, gateway_path):
    """Relays one accepted connection to the gateway until both directions have ended, then closes both sockets."""
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(gateway_path)
    except OSError as error:
        print(f"launch: cannot reach the gateway at {gateway_path}: {error}", file=sys.stderr, flush=True)
        upstream.close()
        client.close()
        return
    done = threading.Event()
    # each direction in its own thread: a streamed response flows while the request side waits for more
    back = threading.Thread(target=pump, args=(upstream, client, done), daemon=True)
    back.start()
    pump(client, upstream, done)
    back.join()
    client.close()
    upstream.close()


def pump(source, target, failed):
    """Copies source to target until source's end (then half-closes target) or an error (then stops both ways)."""
    try:
        while not failed.is_set():
            data = source.recv(CHUNK)
            if not data:
                target.shutdown(socket.SHUT_WR)
                return
            target.sendall(data)
    except OSError:
        # a reset on either side ends the connection both ways: the other direction is woken from its recv
        failed.set()
        for sock in (source, target):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Forwarder:
    """127.0.0.1:PORT to the gateway's unix socket, one thread per connection, until the process ends."""

    def __init__(self, port, gateway_path):
        self.gateway_path = gateway_path
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.listener.bind(("127.0.0.1", port))
        except OSError as error:
            self.listener.close()
            raise LaunchError(f"cannot listen on 127.0.0.1:{port}: {error.strerror}") from None
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=relay, args=(client, self.gateway_path), daemon=True).start()

    def close(self):
        self.listener.close()


def load_entry(registry_path, name):
    """The registry's entry of a harness; an unknown name is refused with the known ones."""
    try:
        with open(registry_path, encoding="utf-8") as handle:
            harnesses = json.load(handle)["harnesses"]
    except (OSError, ValueError, KeyError) as error:
        raise LaunchError(f"cannot read the harness registry {registry_path}: {error}") from None
    for entry in harnesses:
        if entry.get("name") == name:
            return entry
    known = ", ".join(entry.get("name", "?") for entry in harnesses)
    raise LaunchError(f"unknown harness {name!r}; known: {known}")


def fill(template, values):
    return PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def prepare(entry, args, port, environ):
    """The harness's argv, environment and stdin path; its configuration files written under HOME."""
    key, model = environ.get("AGENTRL_GATEWAY_KEY", ""), environ.get("AGENTRL_GATEWAY_MODEL", "")
    if not key:
        raise LaunchError("AGENTRL_GATEWAY_KEY is not set: the gateway's key for this episode")
    if not MODEL_NAME.fullmatch(model):
        raise LaunchError(f"AGENTRL_GATEWAY_MODEL {model!r} is not a model name (letters, digits and ._:/@+-)")
    try:
        with open(args.task_file, encoding="utf-8") as handle:
            task = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise LaunchError(f"cannot read the task file {args.task_file}: {error}") from None
    here = os.path.dirname(os.path.abspath(args.registry))
    values = {
        "dir": os.path.join(here, f"{entry['name']}-{entry['version']}"),
        "home": args.home,
        "task": task,
        "task_file": os.path.abspath(args.task_file),
        "base_url": f"http://127.0.0.1:{port}/v1",
        "port": str(port),
        "model": model,
        "key": key,
    }
    os.makedirs(args.home, mode=0o700, exist_ok=True)
    for spec in entry.get("files", []):
        path = os.path.join(args.home, spec["path"])
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(fill(spec["content"], values))
    env = {k: v for k, v in environ.items() if not k.lower().endswith("_proxy")}
    env["HOME"] = args.home
    env.update({k: fill(v, values) for k, v in entry.get("env", {}).items()})
    argv = [fill(arg, values) for arg in entry["command"]]
    stdin = fill(entry["stdin"], values) if entry.get("stdin") else os.devnull
    return argv, env, stdin


def run(argv, env, stdin_path):
    """Runs the harness in its own process group: (exit code or None, signal name or None, error or None, duration)."""
    started = time.monotonic()
    children, early = [], []

    def pass_on(signum, _frame):
        if not children:
            # before the harness exists: it gets the signal as soon as it does
            early.append(signum)
            return
        try:
            os.killpg(children[0].pid, signum)
        except ProcessLookupError:
            pass

    passed = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    previous = {signum: signal.signal(signum, pass_on) for signum in passed}
    try:
        try:
            with open(stdin_path, "rb") as stdin:
                children.append(subprocess.Popen(argv, env=env, stdin=stdin, start_new_session=True))
        except OSError as error:
            return 127, None, f"cannot start {argv[0]}: {error.strerror or error}", time.monotonic() - started
        for signum in early:
            pass_on(signum, None)
        code = children[0].wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    duration = time.monotonic() - started
    if code < 0:
        return None, signal.Signals(-code).name, None, duration
    return code, None, None, duration


def write_status(path, status):
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(status, handle)
    os.replace(tmp, path)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="Runs an agent harness against the model gateway.")
    parser.add_argument("--harness", required=True)
    parser.add_argument("--task-file", required=True)
    parser.add_argument("--status", required=True)
    parser.add_argument("--port", type=int, default=4000)
    parser.add_argument("--home", default=DEFAULT_HOME)
    parser.add_argument("--socket", default=GATEWAY_SOCKET)
    parser.add_argument("--registry", default=os.path.join(here, "harnesses.json"))
    args = parser.parse_args(argv)
    forwarder = None
    try:
        entry = load_entry(args.registry, args.harness)
        # listening before the harness starts, so its first request never finds the port closed
        forwarder = Forwarder(args.port, args.socket)
        argv, env, stdin = prepare(entry, args, forwarder.port, os.environ)
        code, signame, error, duration = run(argv, env, stdin)
    except LaunchError as launch_error:
        code, signame, error, duration = 2, None, str(launch_error), 0.0
    finally:
        if forwarder:
            forwarder.close()
    if error:
        print(f"launch: {error}", file=sys.stderr, flush=True)
    status = {"exitCode": code, "signal": signame, "durationMs": round(duration * 1000)}
    if error:
        status["error"] = error
    write_status(args.status, status)
    return code if signame is None else 128 + signal.Signals[signame].value


if __name__ == "__main__":
    sys.exit(main())
