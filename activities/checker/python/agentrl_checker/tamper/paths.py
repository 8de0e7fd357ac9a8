"""What a path is to the checker: a test, a test configuration, an interpreter start-up file, a module
that shadows another. The rules are shared/checker-paths.json, the one list that shared/paths/checker-paths.ts
reads too (load_checker_paths; the input may name another file).
"""

import fnmatch

from .shared import InputError, read_json, shared_file

STATUSES = ("added", "modified", "deleted")
CONFIG_FILES = STARTUP_FILES = STARTUP_SUFFIXES = TEST_DIRS = TEST_FILES = None
# the test runner and what it imports on its own (a module of these names in the tree runs inside any pytest run
# started from the repository, as a Harbor verifier's `cd /app && python3 -m pytest` is)
SHADOW_EXTRA = frozenset(
    {"pytest", "_pytest", "pluggy", "py", "iniconfig", "attr", "attrs", "packaging", "tomli", "exceptiongroup"}
    | {"colorama", "pygments", "pexpect"}
)
MODULE_SUFFIXES = (".py", ".pyc", ".so", ".pyd")
# compiled (sourceless) modules: importable, never analysed
COMPILED_SUFFIXES = (".pyc", ".pyo", ".so", ".pyd")


def default_checker_paths_path():
    """shared/checker-paths.json of the repository that holds this package."""
    return shared_file("checker-paths.json")


def _names(rules, field, where):
    value = rules.get(field)
    if not isinstance(value, list) or not all(isinstance(v, str) and v and "/" not in v for v in value):
        raise InputError("%s: %s must be a list of file names" % (where, field))
    return value


def set_checker_paths(rules, where):
    """Validates the path rules (the shape of shared/checker-paths.json) and makes them the ones in force."""
    global CONFIG_FILES, STARTUP_FILES, STARTUP_SUFFIXES, TEST_DIRS, TEST_FILES
    if not isinstance(rules, dict):
        raise InputError("%s: checker paths must be an object" % where)
    TEST_FILES = tuple(_names(rules, "testFiles", where))
    TEST_DIRS = frozenset(_names(rules, "testDirs", where))
    CONFIG_FILES = frozenset(_names(rules, "configFiles", where))
    STARTUP_FILES = frozenset(_names(rules, "startupFiles", where))
    STARTUP_SUFFIXES = tuple(_names(rules, "startupSuffixes", where))
    return rules


def load_checker_paths(path=None):
    """Reads the path rules from path (default: shared/checker-paths.json of this repository)."""
    path = path or default_checker_paths_path()
    return set_checker_paths(read_json(path, "checker paths"), path)


def _require_checker_paths():
    if TEST_FILES is None:
        load_checker_paths(None)


def parts(path):
    """The segments of a path, with "." and empty ones dropped and backslashes read as separators."""
    p = path.replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return [x for x in p.split("/") if x not in ("", ".")]


def is_startup_path(path):
    """An interpreter start-up file (sitecustomize.py, a .pth file, ...)."""
    _require_checker_paths()
    name = parts(path)[-1]
    return name in STARTUP_FILES or name.endswith(STARTUP_SUFFIXES)


def is_config_path(path):
    """A test configuration file (conftest.py, pytest.ini, ...) or a start-up file."""
    _require_checker_paths()
    return parts(path)[-1] in CONFIG_FILES or is_startup_path(path)


def is_test_path(path):
    """A test file, or a file in a test folder."""
    _require_checker_paths()
    segments = parts(path)
    if any(fnmatch.fnmatchcase(segments[-1], glob) for glob in TEST_FILES):
        return True
    return any(d in TEST_DIRS for d in segments[:-1])


def shadowed_name(path):
    """Top-level module name an added file provides, or None."""
    segments = parts(path)
    name = segments[-1]
    if not name.endswith(MODULE_SUFFIXES):
        return None
    if len(segments) == 1:
        return name.split(".", 1)[0]
    return segments[0]
