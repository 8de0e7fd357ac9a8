"""The child's report, validated: exactly the shape the bootstrap writes, or nothing."""

import json

OUTCOMES = ("passed", "failed", "skipped", "error", "xfailed", "xpassed")


def validate_report(raw, collect_only, trace_lines=False):
    """The report as the harness prints it, or None when the raw bytes are not exactly what the reporter writes."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or set(data) != {"tests", "collectErrors"}:
        return None
    tests, errs = data["tests"], data["collectErrors"]
    if not isinstance(tests, list) or not isinstance(errs, list):
        return None
    allowed = ("collected",) if collect_only else OUTCOMES
    clean = []
    for t in tests:
        keys = {"nodeid", "outcome", "crash", "examples"} | ({"lines"} if trace_lines else set())
        if not isinstance(t, dict) or not {"nodeid", "outcome"} <= set(t) <= keys:
            return None
        if not isinstance(t["nodeid"], str) or t["outcome"] not in allowed:
            return None
        entry = {"nodeid": t["nodeid"], "outcome": t["outcome"]}
        crash = t.get("crash")
        if crash is not None:
            if not (
                isinstance(crash, dict)
                and set(crash) == {"path", "line", "message"}
                and isinstance(crash["path"], str)
                and type(crash["line"]) is int
                and isinstance(crash["message"], str)
            ):
                return None
            entry["crash"] = {"path": crash["path"], "line": crash["line"], "message": crash["message"]}
        if "lines" in t:
            if not (isinstance(t["lines"], list) and all(type(n) is int for n in t["lines"])):
                return None
            entry["lines"] = t["lines"]
        if "examples" in t:
            if not (isinstance(t["examples"], list) and all(isinstance(d, str) for d in t["examples"])):
                return None
            entry["examples"] = t["examples"]
        clean.append(entry)
    if not all(isinstance(e, str) for e in errs):
        return None
    return {"tests": clean, "collectErrors": list(errs)}
