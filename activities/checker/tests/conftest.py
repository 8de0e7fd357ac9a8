"""The checker's Python tests: the scripts and their package live in ../python, the shared rules in shared/ at the root."""

import sys
from pathlib import Path

# the package is imported from the source tree, as the scripts import it: without writing __pycache__ there
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))


def pytest_configure(config):
    # scripts/test.sh runs the tests without containers early, and these with the integration tier
    config.addinivalue_line("markers", "docker: starts containers on the Docker engine (the integration tier)")
