"""The detector's command line: its input (one JSON document, or JSON lines), the kind table and path
rules it names, the classification of paths (the answer of shared/paths/checker-paths.ts's classifyPath),
and `main`, which prints the findings (exit 0), or exits 2 on bad input."""

import json
import sys

from .driver import detect
from .kinds import load_kinds, validate_kinds
from .paths import is_config_path, is_startup_path, is_test_path, load_checker_paths, parts, set_checker_paths
from .shared import InputError, exc_text


def _table_from_input(data, field, use_inline, load):
    """The table the input gives inline (`field`), or names (`field` + "File"), or else the default one."""
    if data.get(field) is not None:
        return use_inline(data[field], "inline " + field)
    name = field + "File"
    if data.get(name) is not None:
        if not isinstance(data[name], str):
            raise InputError("%s must be a string" % name)
        return load(data[name])
    return load(None)


def _classify(paths):
    """What each path (a key: shared/paths/repo-paths.ts) is to the checker: the answer of classifyPath in
    shared/paths/checker-paths.ts.
    """
    if not isinstance(paths, list) or not all(isinstance(p, str) and parts(p) for p in paths):
        raise InputError("classify must be a list of non-empty paths")
    out = [
        {"path": p, "test": is_test_path(p), "config": is_config_path(p), "startup": is_startup_path(p)} for p in paths
    ]
    sys.stdout.write(json.dumps({"paths": out}) + "\n")
    return 0


def _read_input(stream):
    """One JSON document, or JSON lines: a header {"format": "lines", ...} and then one change per line.

    The worker sends lines, so no serialisation of the agent's changes is ever one string.
    """
    first = stream.readline()
    rest = stream.read()
    try:
        head = json.loads(first.decode("utf-8")) if first.strip() else None
        if isinstance(head, dict) and head.get("format") == "lines" and "changes" not in head:
            changes = [json.loads(line.decode("utf-8")) for line in rest.split(b"\n") if line.strip()]
            return dict(head, changes=changes)
        return json.loads((first + rest).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError("input is not valid JSON: %s" % exc_text(e))


def main():
    """Reads the input on stdin and prints the findings (or the classification); returns 0, or 2 on bad input."""
    try:
        data = _read_input(sys.stdin.buffer)
        if not isinstance(data, dict) or ("changes" not in data and "classify" not in data):
            raise InputError('input must be an object with a "changes" list')
        _table_from_input(data, "kinds", validate_kinds, load_kinds)
        _table_from_input(data, "checkerPaths", set_checker_paths, load_checker_paths)
        if data.get("classify") is not None:
            return _classify(data["classify"])
        findings = detect(data["changes"])
    except InputError as e:
        sys.stderr.write("detect-tamper: %s\n" % e)
        return 2
    sys.stdout.write(json.dumps({"findings": findings}) + "\n")
    return 0
