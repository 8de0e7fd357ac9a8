"""agentrl's checker in Python: the scripts beside this package are its command lines.

- ``tamper``: the static tamper detector (``detect-tamper.py``), run on the worker.
- ``twins``: the canary-twin planner (``make-twins.py``), run on the worker, never in a sandbox.
- ``harness``: the grade harness (``grade-harness.py``), copied with this package's ``__init__`` and its
  ``harness`` folder, root-owned and read-only, into every grading container.
- ``ast_tools``: the syntax-tree helpers the detector and the planner share.

Only the Python 3.11 standard library is used. Nothing here imports a sub-package at import time:
a grading container holds only the harness's part of the package.
"""

import importlib
import os
import sys


def run_script(concern):
    """The body of a script beside this package: runs the `main` of one sub-package and exits with its status.

    The script put its folder on sys.path (after the standard library) to import this package; the folder
    comes off again first, so that no module left beside the scripts (the grading container's spool is
    writable by the tests' user) is ever imported, by the harness running as root least of all. The
    sub-package's own modules are found through the package.
    """
    folder = os.path.dirname(os.path.dirname(__file__))
    if folder in sys.path:
        sys.path.remove(folder)
    sys.exit(importlib.import_module("." + concern, __name__).main())
