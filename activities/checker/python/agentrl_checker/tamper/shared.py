"""What the detector reads from the repository's shared/ folder (JSON tables), and its input error."""

import json
import os

# shared/ at the repository root: activities/checker/python/agentrl_checker/tamper/ is five folders below it
SHARED_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 5, "shared"))


class InputError(Exception):
    """The input is malformed: the command exits 2 with this message."""


def shared_file(name):
    """The path of a file of shared/."""
    return os.path.join(SHARED_DIR, name)


def read_json(path, what):
    """The JSON document of a file; a file that cannot be read or parsed is an InputError naming `what`."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError("cannot read %s file %s: %s" % (what, path, e))


def exc_text(e):
    """An exception as one short line: its type and the start of its message."""
    try:
        lines = str(e).splitlines()
    except Exception:  # noqa: BLE001 - an exception whose str() fails
        lines = []
    text = lines[0][:200] if lines else ""
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__
