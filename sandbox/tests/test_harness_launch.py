"""The harness launcher (sandbox/harness-launch.py): its forwarder carries a harness's HTTP from 127.0.0.1:PORT to the
gateway's unix socket unchanged (streamed answers as they come, many connections at once, each side's end passed on),
and its status file says how the harness ended (an exit code, or the signal that killed it). A real unix-socket server
stands in for the gateway, and small Python programs for the harnesses."""

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

LAUNCHER = Path(__file__).resolve().parents[1] / "harness-launch.py"
spec = importlib.util.spec_from_file_location("harness_launch", LAUNCHER)
launch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(launch)

TIMEOUT = 10


class UnixServer:
    """A unix-socket server that runs `handle(connection)` in a thread per connection."""

    def __init__(self, path, handle):
        self.path, self.handle = str(path), handle
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(64)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.run, args=(connection,), daemon=True).start()

    def run(self, connection):
        with connection:
            connection.settimeout(TIMEOUT)
            self.handle(connection)

    def close(self):
        self.sock.close()


@pytest.fixture
def gateway(tmp_path):
    """Starts a UnixServer at a path short enough for AF_UNIX; closed after the test."""
    servers = []

    def start(handle):
        server = UnixServer(tmp_path / "gw.sock", handle)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def forwarder(tmp_path):
    made = launch.Forwarder(0, str(tmp_path / "gw.sock"))
    yield made
    made.close()


def connect(port):
    client = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    return client


def read_all(sock):
    chunks = []
    while data := sock.recv(65536):
        chunks.append(data)
    return b"".join(chunks)


def test_a_streamed_answer_reaches_the_client_as_it_is_sent(gateway, forwarder):
    first_seen = threading.Event()

    def stream(connection):
        request = connection.recv(65536)
        assert request.startswith(b"POST /v1/responses")
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nevent: one\ndata: {}\n\n")
        # the rest only once the client holds the first event: a forwarder that waited for the end would stall here
        assert first_seen.wait(TIMEOUT)
        connection.sendall(b"event: two\ndata: {}\n\n")

    gateway(stream)
    with connect(forwarder.port) as client:
        client.sendall(b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}")
        received = b""
        while b"event: one" not in received:
            received += client.recv(65536)
        first_seen.set()
        received += read_all(client)
    assert received.endswith(b"event: one\ndata: {}\n\nevent: two\ndata: {}\n\n")


def test_many_connections_are_relayed_at_once(gateway, forwarder):
    count = 24
    # each answer waits until every connection has reached the gateway: relaying one at a time would never get there
    everyone = threading.Barrier(count, timeout=TIMEOUT)

    def echo(connection):
        request = connection.recv(65536)
        everyone.wait()
        connection.sendall(b"answer to " + request)

    gateway(echo)
    answers = [None] * count

    def client(index):
        with connect(forwarder.port) as sock:
            sock.sendall(b"request %d" % index)
            answers[index] = read_all(sock)

    threads = [threading.Thread(target=client, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
    assert answers == [b"answer to request %d" % index for index in range(count)]


def test_the_end_of_a_request_is_passed_on_and_the_answer_still_comes_back(gateway, forwarder):
    payload = os.urandom(300_000)

    def reply_after_end(connection):
        body = read_all(connection)
        connection.sendall(b"%d bytes, last %s" % (len(body), body[-4:].hex().encode()))

    gateway(reply_after_end)
    with connect(forwarder.port) as client:
        client.sendall(payload)
        client.shutdown(socket.SHUT_WR)
        assert read_all(client) == b"%d bytes, last %s" % (len(payload), payload[-4:].hex().encode())


def test_a_client_that_hangs_up_mid_answer_closes_the_gateway_side(gateway, forwarder):
    gateway_saw_end = threading.Event()

    def endless(connection):
        connection.recv(65536)
        try:
            while True:
                connection.sendall(b"x" * 65536)
                time.sleep(0.01)
        except OSError:
            gateway_saw_end.set()

    gateway(endless)
    client = connect(forwarder.port)
    client.sendall(b"GET / HTTP/1.1\r\n\r\n")
    client.recv(1024)
    client.close()
    assert gateway_saw_end.wait(TIMEOUT)


def test_a_gateway_that_is_not_there_ends_the_connection_unanswered(forwarder, capfd):
    with connect(forwarder.port) as client:
        client.sendall(b"GET / HTTP/1.1\r\n\r\n")
        # closed with the request unread, so the client may see a reset rather than an end: either way no answer
        try:
            assert read_all(client) == b""
        except ConnectionResetError:
            pass
    assert "cannot reach the gateway at" in capfd.readouterr().err


def test_a_port_in_use_is_refused_with_its_number(forwarder, tmp_path):
    with pytest.raises(launch.LaunchError, match=f"cannot listen on 127.0.0.1:{forwarder.port}"):
        launch.Forwarder(forwarder.port, str(tmp_path / "gw.sock"))


@pytest.fixture
def harness(tmp_path, monkeypatch):
    """Writes a registry with one harness running `python3 -c SCRIPT` (with `entry`'s other fields), and returns the
    launcher's arguments and the status path."""
    monkeypatch.setenv("AGENTRL_GATEWAY_KEY", "sk-episode")
    monkeypatch.setenv("AGENTRL_GATEWAY_MODEL", "policy-7")

    def make(script, **entry):
        registry = tmp_path / "harnesses.json"
        command = [sys.executable, "-c", script, *entry.pop("args", [])]
        fields = {"name": "probe", "version": "1.0", "api": "chat-completions", "command": command, **entry}
        registry.write_text(json.dumps({"harnesses": [fields]}))
        (tmp_path / "task.txt").write_text("Fix the bug.\n")
        status = tmp_path / "status.json"
        argv = ["--harness", "probe", "--task-file", str(tmp_path / "task.txt"), "--status", str(status)]
        argv += ["--port", "0", "--home", str(tmp_path / "home"), "--socket", str(tmp_path / "gw.sock")]
        return argv + ["--registry", str(registry)], status

    return make


def test_an_exit_code_is_recorded_and_returned(harness):
    argv, status = harness("import sys; sys.exit(3)")
    assert launch.main(argv) == 3
    recorded = json.loads(status.read_text())
    assert recorded["exitCode"] == 3 and recorded["signal"] is None
    assert isinstance(recorded["durationMs"], int) and recorded["durationMs"] >= 0


def test_a_harness_killed_by_a_signal_reports_the_signal(harness):
    argv, status = harness("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert launch.main(argv) == 128 + signal.SIGKILL
    recorded = json.loads(status.read_text())
    assert (recorded["exitCode"], recorded["signal"]) == (None, "SIGKILL")


def test_a_terminated_launcher_passes_the_signal_on_and_records_it(harness, tmp_path):
    ready = tmp_path / "ready"
    argv, status = harness(f"import pathlib, time; pathlib.Path({str(ready)!r}).touch(); time.sleep(60)")
    launcher = subprocess.Popen([sys.executable, str(LAUNCHER), *argv])
    deadline = time.monotonic() + TIMEOUT
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    launcher.send_signal(signal.SIGTERM)
    assert launcher.wait(TIMEOUT) == 128 + signal.SIGTERM
    recorded = json.loads(status.read_text())
    assert (recorded["exitCode"], recorded["signal"]) == (None, "SIGTERM")


PROBE = """
import json, os, sys, urllib.request
request = urllib.request.Request(
    os.environ["PROBE_BASE_URL"] + "/chat/completions",
    data=b'{"model": "m"}',
    headers={"Authorization": "Bearer " + os.environ["PROBE_KEY"]},
)
answer = urllib.request.urlopen(request, timeout=10).read().decode()
home = os.environ["HOME"]
print(json.dumps({
    "argv": sys.argv[1:],
    "stdin": sys.stdin.read(),
    "home": home,
    "config": open(os.path.join(home, "probe", "config.toml")).read(),
    "proxy": os.environ.get("HTTPS_PROXY"),
    "answer": answer,
}))
"""


def test_a_harness_gets_its_settings_and_reaches_the_gateway(harness, gateway, tmp_path, monkeypatch, capfd):
    seen = []

    def answer(connection):
        request = connection.recv(65536)
        seen.append(request)
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")

    gateway(answer)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    argv, status = harness(
        PROBE,
        args=["--model", "openai/{model}", "--task", "{task}", "--dir", "{dir}"],
        stdin="{task_file}",
        env={"PROBE_BASE_URL": "{base_url}", "PROBE_KEY": "{key}"},
        files=[
            {"path": "probe/config.toml", "content": 'model = "{model}"\nbase_url = "{base_url}"\nkeep = {x = 1}\n'}
        ],
    )
    assert launch.main(argv) == 0
    printed = json.loads(capfd.readouterr().out)
    port = seen and int(seen[0].split(b"Host: 127.0.0.1:")[1].split(b"\r\n")[0])
    assert printed["argv"] == [
        "--model",
        "openai/policy-7",
        "--task",
        "Fix the bug.\n",
        "--dir",
        str(tmp_path / "probe-1.0"),
    ]
    assert printed["stdin"] == "Fix the bug.\n"
    assert printed["home"] == str(tmp_path / "home")
    assert printed["config"] == f'model = "policy-7"\nbase_url = "http://127.0.0.1:{port}/v1"\nkeep = {{x = 1}}\n'
    assert printed["proxy"] is None
    assert printed["answer"] == "ok"
    assert seen[0].startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert b"Authorization: Bearer sk-episode\r\n" in seen[0]
    assert (tmp_path / "home").stat().st_mode & 0o777 == 0o700
    assert json.loads(status.read_text())["exitCode"] == 0


def test_an_unknown_harness_is_refused_with_the_known_ones(harness, capfd):
    argv, status = harness("pass")
    argv[argv.index("probe")] = "claude"
    assert launch.main(argv) == 2
    recorded = json.loads(status.read_text())
    assert recorded["exitCode"] == 2 and recorded["error"] == "unknown harness 'claude'; known: probe"
    assert "launch: unknown harness 'claude'; known: probe" in capfd.readouterr().err


def test_a_missing_key_or_a_model_name_that_needs_quoting_is_refused(harness, monkeypatch):
    argv, status = harness("pass")
    monkeypatch.setenv("AGENTRL_GATEWAY_MODEL", 'x"; evil = "1')
    assert launch.main(argv) == 2
    assert "is not a model name" in json.loads(status.read_text())["error"]
    monkeypatch.delenv("AGENTRL_GATEWAY_KEY")
    assert launch.main(argv) == 2
    assert json.loads(status.read_text())["error"].startswith("AGENTRL_GATEWAY_KEY is not set")


def test_a_harness_that_cannot_start_is_recorded_as_such(harness, tmp_path):
    argv, status = harness("pass")
    registry = Path(argv[argv.index("--registry") + 1])
    entry = json.loads(registry.read_text())
    entry["harnesses"][0]["command"] = ["{dir}/bin/absent"]
    registry.write_text(json.dumps(entry))
    assert launch.main(argv) == 127
    recorded = json.loads(status.read_text())
    assert recorded["exitCode"] == 127
    assert recorded["error"] == f"cannot start {tmp_path}/probe-1.0/bin/absent: No such file or directory"
