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

The parent's modules, by concern: ``cli`` (the command line and ``main``),
``run`` (one run), ``process`` (fork, identity drop, kill and wait),
``repo_config`` (the repository's pytest configuration) and ``report`` (the
report's validation); ``bootstrap`` holds the child's source, which imports
nothing from this package.
"""

from .cli import main

__all__ = ["main"]
