"""Puts trainer/ on sys.path so `import agentrl_trainer` works when pytest runs from the repository root."""

import sys
from pathlib import Path

TRAINER = Path(__file__).resolve().parents[1]
if str(TRAINER) not in sys.path:
    sys.path.insert(0, str(TRAINER))
