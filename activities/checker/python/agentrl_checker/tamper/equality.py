"""always_true_eq: a class whose __eq__ always returns a truthy constant (or __ne__ a falsy one), so
that every equality assertion on its instances succeeds."""

import ast

from ..ast_tools import FUNCTIONS, SCOPES, strip_docstring


def const_truth(expr):
    """True/False if expr is a constant of known truthiness, else None."""
    if expr is None:
        return False
    if isinstance(expr, ast.Constant):
        return bool(expr.value)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = const_truth(expr.operand)
        return None if inner is None else not inner
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        return len(expr.elts) > 0
    if isinstance(expr, ast.Dict):
        return len(expr.keys) > 0
    return None


def returns(body):
    """Return statements of a function body, not entering nested scopes."""
    out = []
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (*SCOPES, ast.Lambda)):
            continue
        if isinstance(n, ast.Return):
            out.append(n)
        stack.extend(ast.iter_child_nodes(n))
    return out


def fixed_result(fn, want):
    """Whether the function/lambda always returns a constant with truthiness `want`."""
    if isinstance(fn, ast.Lambda):
        return const_truth(fn.body) is want
    body = strip_docstring(fn.body)
    if not body or not isinstance(body[-1], ast.Return):
        return False
    rets = returns(body)
    return bool(rets) and all(const_truth(r.value) is want for r in rets)


class EqualityRules:
    """The scoped rule on __eq__ and __ne__ (a part of ScopedRules)."""

    def visit_ClassDef(self, node):
        for st in node.body:
            target = None
            if isinstance(st, FUNCTIONS) and st.name in ("__eq__", "__ne__"):
                target = (st.name, st)
            elif isinstance(st, ast.Assign) and isinstance(st.value, ast.Lambda):
                for t in st.targets:
                    if isinstance(t, ast.Name) and t.id in ("__eq__", "__ne__"):
                        target = (t.id, st.value)
            if target is None:
                continue
            meth, fn = target
            if meth == "__eq__" and fixed_result(fn, True):
                self.add("always_true_eq", st, "class %s: __eq__ always returns a truthy constant" % node.name)
            elif meth == "__ne__" and fixed_result(fn, False):
                self.add("always_true_eq", st, "class %s: __ne__ always returns a falsy constant" % node.name)
        self.generic_visit(node)
