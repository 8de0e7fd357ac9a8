#!/usr/bin/env python3
"""agentrl audit runner: make the oracle's calls on a candidate tree and print their outcomes.

Runs in a fresh audit container as the tests' unprivileged user:

    python3 -I /run/agentrl/audit-runner.py CALLS_JSON REPO [PER_CALL_SECONDS]

CALLS_JSON holds the calls WITHOUT their expected values ([{module, function, args, kwargs}]):
those never enter this container. For each call it prints one line on its original stdout,
`{"i": <index>, "value": <encoded>} | {"i": ..., "raises": [names]} | {"i": ..., "error": "..."}`
(activities/checker/python/oracle_values.py encodes the values as plain data), and the trusted process on the host
compares them with the expected values. The candidate's code runs in this process and may print,
exit or write to any descriptor: nothing it does can reveal what is expected, so at worst it spoils
its own outcomes. What it prints goes to stderr. A call that runs longer than PER_CALL_SECONDS
(default 10) gets an error outcome; the host also bounds the whole run.
"""

import json
import os
import signal
import sys


def main():
    calls_path, repo = sys.argv[1], sys.argv[2]
    per_call = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    # by its path: the spool cannot be listed by this user, so it cannot go on sys.path
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "oracle_values", os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle_values.py")
    )
    oracle_values = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle_values)
    with open(calls_path, encoding="utf-8") as handle:
        calls = json.load(handle)
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    os.chdir(repo)

    class CallTimeout(BaseException):
        pass

    def on_alarm(signum, frame):
        raise CallTimeout()

    for index, call in enumerate(calls):
        signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(per_call)
        try:
            outcome = oracle_values.run_calls([call], repo)[0]
        except CallTimeout:
            outcome = {"error": "the call ran longer than %d s" % per_call}
        finally:
            signal.alarm(0)
        if "raises" in outcome and "CallTimeout" in outcome["raises"]:
            outcome = {"error": "the call ran longer than %d s" % per_call}
        out.write(json.dumps(dict(outcome, i=index), ensure_ascii=True, allow_nan=False) + "\n")
        out.flush()
    out.close()
    os._exit(0)


if __name__ == "__main__":
    main()
