#!/usr/bin/env python3
"""agentrl grade harness: run a repository's pytest suite as an unprivileged
child and print exactly one JSON line describing the result.

    python3 -I -S /opt/agentrl/grade-harness.py --repo /work --uid 1000 \\
        --gid 1000 --timeout 120 [--max-output 20000] [--collect-only] [--trace-lines] \\
        [-- EXTRA PYTEST ARGS...]

The harness is the package agentrl_checker/harness/ beside this script (in a grading container, the
spool holds both, root-owned and read-only); its docstring describes the process layout and the output.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the checker's code, in the tree or in a container
# -I leaves this script's folder off sys.path: the package is found there, after the standard library
sys.path.append(os.path.dirname(os.path.realpath(__file__)))
from agentrl_checker import run_script  # noqa: E402

if __name__ == "__main__":
    run_script("harness")
