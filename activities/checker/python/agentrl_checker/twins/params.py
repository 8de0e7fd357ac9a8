"""Parametrize rows: the expected column of a `@pytest.mark.parametrize` test, which a twin changes in
every row, and the ids pytest gives the rows."""

import ast

from ..ast_tools import const_str, is_literal
from .checks import check_of, own_asserts
from .literals import leaves


class ParamGroup:
    """The expected column of a `@pytest.mark.parametrize` test: each twin changes every row's value."""

    def __init__(self, decorator, column, rows, ids, names):
        self.decorator, self.column, self.rows, self.ids, self.names = decorator, column, rows, ids, names

    def values(self):
        return [row_values(row, len(self.names))[self.column] for row in self.rows]


def param_call(row):
    """`pytest.param(<literals>, id=..., marks=...)` as a parametrize row, else False."""
    return (
        isinstance(row, ast.Call)
        and ast.unparse(row.func) in ("pytest.param", "param")
        and all(is_literal(a) and not isinstance(a, ast.Starred) for a in row.args)
        and all(k.arg in ("id", "marks") for k in row.keywords)
        and all(const_str(k.value) is not None for k in row.keywords if k.arg == "id")
    )


def row_values(row, width):
    """The value nodes of one parametrize row (a literal, a tuple of them, or pytest.param of them)."""
    if param_call(row):
        return list(row.args)
    return list(row.elts) if width > 1 else [row]


def set_row_value(row, width, column, value):
    """Puts `value` in a row's column; returns the row (a new node for a plain one-value row)."""
    if param_call(row):
        row.args[column] = value
    elif width > 1:
        row.elts[column] = value
    else:
        return value
    return row


def pytest_id(value, argname, index):
    """pytest's id of one parameter value, for the plain values it writes as text; None for others."""
    if value is None or isinstance(value, (bool, int, float)):
        return str(value)
    if isinstance(value, str):
        return value if value.isascii() and value.isprintable() and value else None
    return "%s%d" % (argname, index) if isinstance(value, (tuple, list, dict, set)) else None


def is_parametrize(decorator):
    return ast.unparse(getattr(decorator, "func", decorator)) == "pytest.mark.parametrize"


def param_group(func):
    """A ParamGroup of a test whose one parametrize decorator has literal rows and whose body asserts
    `<expression> == <parameter>` at top level; with the ordinal of that assert. Else None."""
    marks = [d for d in func.decorator_list if is_parametrize(d)]
    # one parametrize (stacked ones combine their ids); other marks (skipif, usefixtures) change no id
    if len(marks) != 1 or any("parametrize" in ast.unparse(d) for d in func.decorator_list if d is not marks[0]):
        return None
    mark = marks[0]
    if not isinstance(mark, ast.Call) or len(mark.args) != 2 or mark.keywords:
        return None
    names_node, rows_node = mark.args
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = [n.strip() for n in names_node.value.split(",") if n.strip()]
    elif isinstance(names_node, (ast.List, ast.Tuple)) and all(const_str(e) is not None for e in names_node.elts):
        names = [e.value for e in names_node.elts]
    else:
        return None
    if not isinstance(rows_node, (ast.List, ast.Tuple)) or not rows_node.elts:
        return None
    rows = rows_node.elts
    for row in rows:
        if param_call(row):
            if len(row.args) != len(names):
                return None
        elif not is_literal(row) or (
            len(names) > 1 and not (isinstance(row, ast.Tuple) and len(row.elts) == len(names))
        ):
            return None
    for ordinal, (a, guarded) in enumerate(own_asserts(func)):
        test = check_of(a)
        if guarded or not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            continue
        sides = [test.left, test.comparators[0]]
        named = [x for x in sides if isinstance(x, ast.Name) and x.id in names]
        if len(named) != 1 or is_literal(sides[0] if named[0] is sides[1] else sides[1]):
            continue
        uses = sum(isinstance(n, ast.Name) and n.id == named[0].id for n in ast.walk(ast.Module(func.body, [])))
        if uses != 1:  # the parameter is an input too (`add(n, 0) == n`): changing it changes the call
            continue
        column = names.index(named[0].id)
        group = ParamGroup(mark, column, rows, None, names)
        if not all(leaves(v) for v in group.values()):
            continue
        ids = []
        for index, row in enumerate(rows):
            given = [k.value.value for k in getattr(row, "keywords", []) if k.arg == "id"] if param_call(row) else []
            if given:
                ids.append(given[0])
                continue
            values = [ast.literal_eval(v) for v in row_values(row, len(names))]
            parts = [pytest_id(v, names[i], index) for i, v in enumerate(values)]
            if None in parts:
                return None
            ids.append("-".join(parts))
        if len(set(ids)) != len(ids):
            return None
        group.ids = ids
        return group, ordinal
    return None
