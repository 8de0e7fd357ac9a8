"""Which tool calls the executor hands to the warm interpreter (sandbox/run-tool.py simple_python, bash_only_execs):
only commands that bash, the tool's shell, would run as nothing but one exec of `python3 -c|-m ...`, with the argv
bash gives. Checked against bash itself, with a `python3` on PATH that records each start (argv and stdin)."""

import importlib.util
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[1] / "run-tool.py"
spec = importlib.util.spec_from_file_location("run_tool", RUNNER)
run_tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_tool)

STUB = """#!%s -I
import json, sys
with open(%r, "a") as log:
    log.write(json.dumps([["python3"] + sys.argv[1:], sys.stdin.read()]) + "\\n")
"""


@pytest.fixture
def bash_run(tmp_path):
    """What `bash -c COMMAND` does, started as the runner starts it (stdin /dev/null, a small environment plus
    `extra`): the python3 starts it made, everything else it printed, and its exit status."""
    folder, work, log = tmp_path / "bin", tmp_path / "work", tmp_path / "starts.jsonl"
    folder.mkdir()
    work.mkdir()
    (folder / "python3").write_text(STUB % (sys.executable, str(log)))
    (folder / "python3").chmod(0o755)

    def run(command, **extra):
        env = {"PATH": "%s:%s" % (folder, os.defpath), "HOME": str(tmp_path), "LANG": "C.UTF-8", **extra}
        done = subprocess.run(
            ["/bin/bash", "-c", command],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=env,
            cwd=work,
            timeout=30,
        )
        starts = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        log.unlink(missing_ok=True)
        return {"starts": starts, "output": done.stdout + done.stderr, "status": done.returncode}

    return run


def exec_of(argv):
    """What bash_run gives for a command bash only execs: one start, nothing read, nothing printed, status 0."""
    return {"starts": [[argv, ""]], "output": "", "status": 0}


def quote(value):
    """shellQuote of shared/compact-actions/language.ts."""
    return "'" + value.replace("'", "'\\''") + "'"


SIMPLE = [
    "python3 -m pytest -q",
    "python3 -m pytest -q -p no:cacheprovider tests/test_a.py::test_b",
    "python3 -c 'print(1)'",
    " ".join(quote(word) for word in ["python3", "-c", "import sys\nprint(sys.argv)", "it's", "a b", ""]),
    "python3 -c 'x = \"$HOME\" ; `id` | true' 'literal * ? {a,b} $((1)) ~ !x' k=v,w:1+2@3%4",
    "python3 -c pass " + quote("'\\''"),
    "python3 -c pass trailing ",
    "python3 -c pass a,b x=y %1 @x +x",
]


@pytest.mark.parametrize("command", SIMPLE)
def test_a_simple_command_is_exactly_what_bash_runs(command, bash_run):
    argv = run_tool.simple_python(command)
    assert argv is not None
    assert bash_run(command) == exec_of(argv)


# what only bash makes of a command: each must go through bash, never as its words to the warm interpreter
BASH_SYNTAX = [
    "python3 -c pass {a,b}",  # brace expansion
    "python3 -c pass a{b,c}d",
    "python3 -c pass {1..3}",  # a sequence
    "python3 -c pass $'a\\tb'",  # ANSI-C quoting
    'python3 -c pass $"text"',  # a translated string
    "python3 -c pass <<< text",  # a here-string
    "python3 -c pass <(true)",  # process substitution
    "python3 -c pass >(true)",
    "python3 -c 'print(1)' &> out",  # both streams redirected
    "python3 -c 'print(1)' |& cat",  # both streams piped
    "[[ a == a ]] && python3 -c pass",  # a conditional command
    "time python3 -c pass",  # bash's time keyword
    "python3 -c pass $((1 + 2))",  # arithmetic
    "python3 -c pass $[1 + 2]",  # bash's old arithmetic
    "python3 -c pass ~+",  # bash's tilde forms
    "python3 -c pass x=~",  # a tilde after = in an argument (bash, outside POSIX mode)
    "python3 -c pass ${PATH:0:1}",  # a substring
    "python3 -c pass @(x)",  # an extended glob
    "coproc python3 -c pass",
    "python3 -c pass\\\nx",  # a line continuation
    "python3 -c 'pass'\"\" x",  # double quotes
    "python3\t-c pass",  # a tab between words
]


@pytest.mark.parametrize("command", BASH_SYNTAX)
def test_bash_syntax_is_never_handed_to_the_warm_interpreter(command, bash_run):
    assert run_tool.simple_python(command) is None
    words = [word.replace("'", "") for word in command.split(" ")]
    assert bash_run(command) != exec_of(words), "bash runs something other than the command's words"


NOT_SIMPLE = [
    "python3 -m pytest -q ;",  # an operator: the shell runs it
    "python3 -m pytest -q && echo done",
    "python3 -m pytest -q > out.txt",
    "python3 -c 'print(1)' $HOME",  # an expansion
    "python3 -c 'print(1)' *.py",  # a glob
    "python3 -c 'print(1)' ~",  # a tilde
    'python3 -c "print(1)"',  # double quotes expand
    "python3 -c pass\necho again",  # two commands
    "PYTHONPATH=x python3 -c pass",  # an assignment
    "python3  -c pass",  # an empty word between two spaces
    "python3 -c 'unterminated",
    "python3 script.py",  # neither -c nor -m
    "python3 -I -c pass",  # interpreter options: not handed over
    "/usr/bin/python3 -c pass",  # another path to an interpreter
    "python -c pass",
    "python3 -c",
    "",
]


@pytest.mark.parametrize("command", NOT_SIMPLE)
def test_anything_else_runs_through_the_shell(command):
    assert run_tool.simple_python(command) is None


# pieces of commands, bash's syntax among them: whatever the router hands over from their mixtures, bash would run
PIECES = [
    "pass", "x", "'a b'", "''", "\\'", "'", "{a,b}", "{1..2}", "$'x'", '$"x"', "~", "~+", "*", "?", "[a]", "x=y", "a,b",
    "%1", "@x", "+x", ":", "-", ".", "/", "#", ";", "&", "|", "<", ">", "<<<", "(", ")", "$", "`", '"', "!", "\\",
    "\t", "\n", "{", "}", "^", "@(x)", "!(x)", "$((1))",
]  # fmt: skip


def test_whatever_the_router_hands_over_bash_would_run_as_that_exec(bash_run):
    rng = random.Random(7)
    routed = {}
    piece = lambda: rng.choice(PIECES)
    for _ in range(400):
        # a safe piece, bash's syntax single-quoted (literal to bash), or any piece bare
        kinds = [lambda: rng.choice(PIECES[:5]), lambda: quote(piece() + piece()), piece]
        words = [rng.choice(kinds)() for _ in range(rng.randint(1, 4))]
        command = "python3 -c pass " + rng.choice(["", " "]).join(words)
        argv = run_tool.simple_python(command)
        if argv is not None:
            routed[command] = argv
    assert len(routed) >= 100, "the mixtures exercise the router"
    for command, argv in routed.items():
        assert bash_run(command) == exec_of(argv), command


def test_an_environment_that_makes_bash_do_more_keeps_calls_off_the_warm_interpreter(bash_run, tmp_path):
    (tmp_path / "startup.sh").write_text("echo from a startup file\n")
    (tmp_path / ".bashrc").write_text("echo from the agent's bashrc\n")
    environments = {
        "BASH_ENV": str(tmp_path / "startup.sh"),
        "SHELLOPTS": "xtrace",
        "BASH_FUNC_python3%%": "() {  echo a function named python3; }",
        "SSH_CLIENT": "10.0.0.1 50000 22",
        "SSH2_CLIENT": "10.0.0.1 50000 22",
    }
    command = "python3 -c pass"
    assert run_tool.bash_only_execs({"PATH": os.defpath, "HOME": "/tmp", "LANG": "C.UTF-8"})
    assert bash_run(command) == exec_of(["python3", "-c", "pass"])
    for name, value in environments.items():
        assert not run_tool.bash_only_execs({"PATH": os.defpath, name: value}), name
        assert bash_run(command, **{name: value}) != exec_of(["python3", "-c", "pass"]), name
