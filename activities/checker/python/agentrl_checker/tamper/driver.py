"""The detector's driver: `detect(changes)`, each change validated and classified by its path (a
protected file, a symlink, a start-up or configuration file, a shadowing module, a compiled module),
and each added or modified Python file analysed within the bounds of all files together."""

import base64
import binascii
import re
import sys
import time

from .analysis import analyse_python
from .bounds import ANALYSIS_SECONDS, DETECTOR_SECONDS
from .paths import (
    COMPILED_SUFFIXES,
    SHADOW_EXTRA,
    STATUSES,
    is_config_path,
    is_startup_path,
    is_test_path,
    parts,
    shadowed_name,
)
from .shared import InputError


def _decode_b64(i, c, key):
    value = c.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError("changes[%d].%s must be a string or null" % (i, key))
    try:
        return base64.b64decode(value.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error, ValueError) as e:
        raise InputError("changes[%d].%s is not valid base64: %s" % (i, key, e))


def _check_change(i, c):
    """Validates one change; returns the bytes of its new content (None if none)."""
    if not isinstance(c, dict):
        raise InputError("changes[%d] must be an object" % i)
    path = c.get("path")
    if not isinstance(path, str) or not parts(path):
        raise InputError("changes[%d].path must be a non-empty string" % i)
    if c.get("status") not in STATUSES:
        raise InputError("changes[%d].status must be one of %s" % (i, ", ".join(STATUSES)))
    for k in ("after", "before"):
        if c.get(k) is not None and not isinstance(c[k], str):
            raise InputError("changes[%d].%s must be a string or null" % (i, k))
    for k in ("protected", "symlink"):
        if c.get(k) is not None and not isinstance(c[k], bool):
            raise InputError("changes[%d].%s must be a boolean" % (i, k))
    _decode_b64(i, c, "beforeBase64")
    data = _decode_b64(i, c, "afterBase64")
    if data is None and c.get("after") is not None:
        # lone surrogates (possible in JSON) become bytes that do not decode: unanalysable
        data = c["after"].encode("utf-8", "surrogatepass")
    return data


def _before_bytes(c):
    if isinstance(c.get("beforeBase64"), str):
        try:
            return base64.b64decode(c["beforeBase64"], validate=True)
        except ValueError:
            return None
    if isinstance(c.get("before"), str):
        return c["before"].encode("utf-8", "surrogatepass")
    return None


def _without_lines(detail):
    return re.sub(r"\blines? \d+(, \d+)*", "line", detail)


def detect(changes):
    """Return the sorted findings for a list of change objects."""
    if not isinstance(changes, list):
        raise InputError("changes must be a list")
    found = []  # (path, kind, line, detail)
    ends = time.monotonic() + DETECTOR_SECONDS
    for i, c in enumerate(changes):
        data = _check_change(i, c)
        path = c["path"]
        # the caller's classification key (shared/paths/repo-paths.ts: separators, "..", case, Unicode
        # forms) decides what kind of file this is; findings still name the path byte for byte
        key = c.get("key") if isinstance(c.get("key"), str) and parts(c["key"]) else path
        status = c["status"]
        name = parts(key)[-1]
        protected = bool(c.get("protected"))
        symlink = bool(c.get("symlink"))
        if protected:
            kind = "config_edit" if is_config_path(key) else "test_edit"
            what = "config" if kind == "config_edit" else "test"
            found.append((path, kind, 0, "protected %s file %s" % (what, status)))
        if symlink and status != "deleted":
            found.append((path, "symlink", 0, "symlink %s" % status))
        if protected or symlink:
            continue
        if is_startup_path(key):
            if status == "added":
                found.append((path, "shadowing_module", 0, "added interpreter startup file %s" % name))
            else:
                found.append((path, "config_edit", 0, "config file %s" % status))
            continue
        if is_config_path(key):
            found.append((path, "config_edit", 0, "config file %s" % status))
            continue
        if status == "added" and not is_test_path(key):
            mod = shadowed_name(key)
            if mod and (mod in SHADOW_EXTRA or mod in sys.stdlib_module_names):
                what = "the test runner" if mod in SHADOW_EXTRA else "the standard library"
                found.append((path, "shadowing_module", 0, "added module %r shadows %s" % (mod, what)))
        if status == "deleted":
            continue
        if name.lower().endswith(COMPILED_SUFFIXES):
            found.append(
                (path, "compiled_module", 0, "%s compiled module %s (importable, never analysed)" % (status, name))
            )
        elif name.endswith(".py"):
            if data is None:
                found.append((path, "unanalysable", 0, "no content supplied (neither after nor afterBase64)"))
            elif time.monotonic() >= ends:
                found.append(
                    (path, "unanalysable", 0, "the detector's %.0f s for all files ran out" % DETECTOR_SECONDS)
                )
            else:
                findings = analyse_python(path, data, min(ANALYSIS_SECONDS, ends - time.monotonic()))
                before = _before_bytes(c) if status == "modified" else None
                if before is not None:
                    # only what the agent added: a construct the pristine file already had is not its doing
                    # (matched by kind and detail without line numbers, as many times as it was there)
                    existing = [
                        (k, _without_lines(d))
                        for k, _, d in analyse_python(
                            path, before, min(ANALYSIS_SECONDS, max(1.0, ends - time.monotonic()))
                        )
                        if k != "unanalysable"
                    ]
                    kept = []
                    for kind, line, detail in findings:
                        if (kind, _without_lines(detail)) in existing:
                            existing.remove((kind, _without_lines(detail)))
                        else:
                            kept.append((kind, line, detail))
                    findings = kept
                for kind, line, detail in findings:
                    found.append((path, kind, line, detail))
    found.sort(key=lambda f: (f[0], f[1], f[2]))
    return [{"kind": k, "path": p, "detail": d} for p, k, _, d in found]
