"""Exits and skips: code that ends the interpreter at import time (exit_at_import), a function that ends
the process without cleanup (process_exit), and non-test code that turns tests into skips (skip_raise)."""

import ast

from .paths import parts
from .toplevel import import_level_nodes, walk_no_lambda

EXIT_FUNCS = {
    "sys.exit": "sys.exit()",
    "os._exit": "os._exit()",
    "posix._exit": "os._exit()",
    "_thread.exit": "_thread.exit()",
    "builtins.exit": "exit()",
    "builtins.quit": "quit()",
}
HARD_EXIT_FUNCS = {"os._exit", "posix._exit"}
SKIP_CALLS = {
    "pytest.skip": "pytest.skip()",
    "pytest.xfail": "pytest.xfail()",
    "pytest.importorskip": "pytest.importorskip()",
    "_pytest.outcomes.skip": "pytest.skip()",
    "_pytest.outcomes.xfail": "pytest.xfail()",
    "_pytest.outcomes.importorskip": "pytest.importorskip()",
}
SKIP_EXCEPTIONS = {
    "unittest.SkipTest": "unittest.SkipTest",
    "unittest.case.SkipTest": "unittest.SkipTest",
    "pytest.skip.Exception": "pytest.skip.Exception",
    "pytest.xfail.Exception": "pytest.xfail.Exception",
    "_pytest.outcomes.skip.Exception": "pytest.skip.Exception",
    "_pytest.outcomes.Skipped": "pytest.skip.Exception",
    "_pytest.outcomes.XFailed": "pytest.xfail.Exception",
}


def exits_at_import(module, tree, import_level):
    """exit_at_import: exits executed when the module is imported; returns the ids of the nodes that run then."""
    import_ids = set()
    check_exits = parts(module.path)[-1] != "__main__.py"
    if not import_level:
        return import_ids
    for node in import_level_nodes(tree.body):
        for sub in walk_no_lambda(node):
            import_ids.add(id(sub))
            if not check_exits:
                continue
            if isinstance(sub, ast.Call):
                q = module.names.qual(sub.func)
                if q in EXIT_FUNCS:
                    module.add("exit_at_import", sub, "%s at module level" % EXIT_FUNCS[q])
            elif isinstance(sub, ast.Raise) and sub.exc is not None:
                exc = sub.exc.func if isinstance(sub.exc, ast.Call) else sub.exc
                if module.names.qual(exc) == "builtins.SystemExit":
                    module.add("exit_at_import", sub, "raise SystemExit at module level")
    return import_ids


class ExitRules:
    """The scoped rules on exits and skips (a part of ScopedRules)."""

    def _exit_or_skip_call(self, q, node):
        if q in HARD_EXIT_FUNCS and self.funcs:
            self.add("process_exit", node, "os._exit() %s" % self._where())
        if not self.test_code and q in SKIP_CALLS:
            self.add("skip_raise", node, "%s %s" % (SKIP_CALLS[q], self._where()))

    def visit_Raise(self, node):
        if not self.test_code and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            q = self.names.qual(exc)
            if q in SKIP_EXCEPTIONS:
                self.add("skip_raise", node, "raise %s %s" % (SKIP_EXCEPTIONS[q], self._where()))
        self.generic_visit(node)
