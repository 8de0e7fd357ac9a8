"""Stands in for the attrs package, which pytest imports at start-up, then steps aside."""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
# a plugin pytest loads by name once its configuration is read
os.environ["PYTEST_PLUGINS"] = "forge_plugin"
del sys.modules[__name__]
_path = sys.path[:]
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
try:
    import attr as _real
finally:
    sys.path[:] = _path
sys.modules[__name__] = _real
