"""Fresh calls: new inputs with wrong values, all twins, placed in a test module that imports their
function (or under tests/), unless the tests assert the call already."""

import ast

from .request import BadInput
from .secret import rng
from .variants import literal_capacity


def place_fresh(seed, fresh, modules, calls):
    """(module, group key, call text, value node) per usable fresh call, and the skipped indices."""
    placed, skipped, seen = [], [], set()
    for i, f in enumerate(fresh):
        mod, name = f["module"], f["function"]
        importing = [
            m
            for m in modules.values()
            if any(
                (isinstance(s, ast.Import) and any(a.name == mod for a in s.names))
                or (isinstance(s, ast.ImportFrom) and s.module == mod and not s.level)
                for s in m.keep
            )
        ]
        target = (
            rng(seed, "fresh", str(i)).choice(importing)
            if importing
            else next((m for p, m in modules.items() if p.startswith("tests/")), None)
        )
        if target is None:
            raise BadInput("no rewritable file under tests/ to hold fresh call %d" % i)
        func = None  # call the function the way the file already names it
        for s in target.keep:
            for a in getattr(s, "names", []):
                if isinstance(s, ast.ImportFrom) and s.module == mod and not s.level and a.name == name:
                    func = a.asname or name
                elif isinstance(s, ast.Import) and a.name == mod and func is None:
                    func = "%s.%s" % (a.asname or mod, name)
        if func is None:
            target.keep.insert(
                sum(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in target.keep),
                ast.Import([ast.alias(mod)]),
            )
            func = "%s.%s" % (mod, name)
        call = ast.unparse(ast.parse("%s(%s)" % (func, ", ".join(f.get("args", []))), mode="eval"))
        value = ast.parse(f["value"], mode="eval").body
        if call in calls or call in seen or literal_capacity(value) < 2:
            skipped.append(i)  # a call the tests assert already, a repeat, or an unchangeable value
            continue
        seen.add(call)
        placed.append((target, "fresh: %s == %s" % (call, ast.unparse(value)), call, value))
    return placed, skipped
