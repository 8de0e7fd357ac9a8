"""Syntax-tree helpers that the tamper detector and the twin planner share."""

import ast

# statements that open a scope of their own: code in their body does not run where they stand
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPES = (*FUNCTIONS, ast.ClassDef)


def const_str(node):
    """The value of a string constant node, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def strip_docstring(body):
    """A body's statements without its leading docstring (a new list)."""
    if body and isinstance(body[0], ast.Expr) and const_str(body[0].value) is not None:
        return body[1:]
    return list(body)


def is_literal(node):
    """Whether the node is a Python literal (what ast.literal_eval accepts)."""
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def is_literal_source(text):
    """Whether the text is the source of one Python literal."""
    try:
        return is_literal(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
