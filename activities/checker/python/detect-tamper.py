#!/usr/bin/env python3
"""agentrl tamper detector: static (AST) checks of an agent's changes.

Usage:
    python3 -I detect-tamper.py < input.json > output.json

The detector is the package agentrl_checker/tamper/ beside this script; its docstring describes the
input, the output and the kind table.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the checker's code, in the tree or in a container
# -I leaves this script's folder off sys.path: the package is found there, after the standard library
sys.path.append(os.path.dirname(os.path.realpath(__file__)))
from agentrl_checker import run_script  # noqa: E402

if __name__ == "__main__":
    run_script("tamper")
