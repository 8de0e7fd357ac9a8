"""The planner's request (see the package's docstring for its fields), validated."""

import re

from ..ast_tools import is_literal_source


class BadInput(Exception):
    """The request is malformed: exit 2 with this message."""


def parse_request(data):
    """The request's fields, validated and with their defaults; raises BadInput naming the field."""
    if not isinstance(data, dict):
        raise BadInput("input must be a JSON object")
    seed, files, real = data.get("seed"), data.get("files"), data.get("real", [])
    if not isinstance(seed, str) or not re.fullmatch(r"[0-9a-fA-F]+", seed):
        raise BadInput("'seed' must be a non-empty hex string")
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise BadInput("'files' must be an object mapping paths to source text")
    if not isinstance(real, list) or not all(isinstance(r, str) and "::" in r for r in real):
        raise BadInput("'real' must be a list of pytest node ids (path::name)")
    target, cap = data.get("target", 1e-3), data.get("maxTwinsPerCall", 1000)
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0 < target <= 1:
        raise BadInput("'target' must be a number in (0, 1]")
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise BadInput("'maxTwinsPerCall' must be an integer >= 1")
    fresh = data.get("fresh", [])
    if not isinstance(fresh, list):
        raise BadInput("'fresh' must be a list")
    for i, f in enumerate(fresh):
        where = "fresh[%d]" % i
        if not isinstance(f, dict) or not all(
            isinstance(f.get(k), str) and f[k].strip() for k in ("module", "function", "value")
        ):
            raise BadInput("%s needs string fields module, function and value" % where)
        if not re.fullmatch(r"\w+(\.\w+)*", f["module"]) or not f["function"].isidentifier():
            raise BadInput("%s: module or function is not a Python name" % where)
        if not isinstance(f.get("args", []), list):
            raise BadInput("%s.args must be a list" % where)
        for src in f.get("args", []) + [f["value"]]:
            if not isinstance(src, str) or not is_literal_source(src):
                raise BadInput("%s: %r is not a Python literal" % (where, src))
    inputs = data.get("inputs", [])
    if not isinstance(inputs, list) or not all(
        isinstance(i, dict)
        and isinstance(i.get("function"), str)
        and isinstance(i.get("args"), list)
        and all(isinstance(a, str) and is_literal_source(a) for a in i["args"])
        for i in inputs
    ):
        raise BadInput("'inputs' must be a list of {module, function, args: [literal source]}")
    deciding = data.get("deciding")
    if deciding is not None and (not isinstance(deciding, list) or not all(isinstance(d, str) for d in deciding)):
        raise BadInput("'deciding' must be a list of node ids")
    executed = data.get("executed")
    if executed is not None and not (
        isinstance(executed, dict)
        and all(
            isinstance(v, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in v)
            for v in executed.values()
        )
    ):
        raise BadInput("'executed' must map node ids to lists of line numbers")
    failing = data.get("failing") or {}
    if not (
        isinstance(failing, dict) and all(isinstance(n, int) and not isinstance(n, bool) for n in failing.values())
    ):
        raise BadInput("'failing' must map node ids to line numbers")
    return Request(
        seed, files, list(dict.fromkeys(real)), target, cap, fresh, set(deciding or []), inputs, executed, failing
    )


class Request:
    """The request's fields, validated."""

    __slots__ = ("seed", "files", "real", "target", "cap", "fresh", "deciding", "inputs", "executed", "failing")

    def __init__(self, *values):
        for name, value in zip(self.__slots__, values):
            setattr(self, name, value)
