"""Module-level analysis: what runs when a module is imported (its top-level statements, not the bodies
of its functions and lambdas), and the `if __name__ == "__main__":` blocks that do not run then."""

import ast

from ..ast_tools import FUNCTIONS, SCOPES


def walk_no_lambda(node):
    """ast.walk that does not enter lambda bodies or nested defs/classes
    (import-level defs and classes are expanded by import_level_nodes)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if isinstance(child, ast.Lambda):
                stack.extend(child.args.defaults)
                stack.extend(d for d in child.args.kw_defaults if d is not None)
                continue
            if isinstance(child, SCOPES):
                continue
            stack.append(child)


def is_main_test(test):
    """`__name__ == "__main__"` (either order), possibly inside an `and`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(is_main_test(v) for v in test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        a, b = test.left, test.comparators[0]
        for x, y in ((a, b), (b, a)):
            if isinstance(x, ast.Name) and x.id == "__name__" and isinstance(y, ast.Constant) and y.value == "__main__":
                return True
    return False


def import_level_nodes(body, include_main=False, enter_classes=True):
    """Simple statements and expressions that run when the module is imported."""
    for st in body:
        if isinstance(st, FUNCTIONS):
            yield ast.Name(id=st.name, ctx=ast.Store())  # binds a name; the body does not run
            yield from st.decorator_list
            yield from st.args.defaults
            yield from (d for d in st.args.kw_defaults if d is not None)
        elif isinstance(st, ast.ClassDef):
            yield ast.Name(id=st.name, ctx=ast.Store())
            yield from st.decorator_list
            yield from st.bases
            yield from (k.value for k in st.keywords)
            if enter_classes:
                yield from import_level_nodes(st.body, include_main, enter_classes)
        elif isinstance(st, ast.If):
            yield st.test
            if include_main or not is_main_test(st.test):
                yield from import_level_nodes(st.body, include_main, enter_classes)
            yield from import_level_nodes(st.orelse, include_main, enter_classes)
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            yield st.target
            yield st.iter
            yield from import_level_nodes(st.body, include_main, enter_classes)
            yield from import_level_nodes(st.orelse, include_main, enter_classes)
        elif isinstance(st, ast.While):
            yield st.test
            yield from import_level_nodes(st.body, include_main, enter_classes)
            yield from import_level_nodes(st.orelse, include_main, enter_classes)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            for item in st.items:
                yield item.context_expr
                if item.optional_vars is not None:
                    yield item.optional_vars
            yield from import_level_nodes(st.body, include_main, enter_classes)
        elif isinstance(st, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            yield from import_level_nodes(st.body, include_main, enter_classes)
            for h in st.handlers:
                if h.type is not None:
                    yield h.type
                if h.name:
                    yield ast.Name(id=h.name, ctx=ast.Store())
                yield from import_level_nodes(h.body, include_main, enter_classes)
            yield from import_level_nodes(st.orelse, include_main, enter_classes)
            yield from import_level_nodes(st.finalbody, include_main, enter_classes)
        elif isinstance(st, ast.Match):
            yield st.subject
            for case in st.cases:
                if case.guard is not None:
                    yield case.guard
                yield from import_level_nodes(case.body, include_main, enter_classes)
        else:
            yield st
