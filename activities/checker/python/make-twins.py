#!/usr/bin/env python3
"""agentrl canary twins: rewrite test modules so that a forged pass shows.

Usage:
    python3 -I make-twins.py < request.json > response.json

The planner is the package agentrl_checker/twins/ beside this script; its docstring describes the
request, the response, the groups and the survival bound.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the checker's code, in the tree or in a container
# -I leaves this script's folder off sys.path: the package is found there, after the standard library
sys.path.append(os.path.dirname(os.path.realpath(__file__)))
from agentrl_checker import run_script  # noqa: E402

if __name__ == "__main__":
    run_script("twins")
