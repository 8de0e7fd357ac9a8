"""Puts trainer/ on sys.path so `import agentrl_trainer` works when pytest runs from the repository root."""

import sys
from pathlib import Path

TRAINER = Path(__file__).resolve().parents[1]
if str(TRAINER) not in sys.path:
    sys.path.insert(0, str(TRAINER))


def pytest_configure(config):
    # scripts/test.sh runs the tests without containers early, beside the TypeScript tiers, and these with the integration tier
    config.addinivalue_line("markers", "docker: starts containers on the Docker engine (the integration tier)")
