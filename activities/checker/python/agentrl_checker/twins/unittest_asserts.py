"""unittest normalisation: `self.assertEqual(x, literal)` and `self.assertTrue(x == literal)` at the top of
a test method as plain asserts, which a twin can change."""

import ast

from ..ast_tools import FUNCTIONS, is_literal
from .checks import comparison

UNITTEST_EQUAL = ("assertEqual", "assertEquals")


def normalise_unittest(tree):
    """Rewrites `self.assertEqual(x, literal)` and `self.assertTrue(x == literal)` at the top of a test
    method's body as `assert x == literal`, in the real test and its twins alike: unittest's own check
    is `first == second`, so every solution gets the same outcome, and the assert can be twinned.
    """
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for node in cls.body:
            if not isinstance(node, FUNCTIONS) or not node.name.startswith("test"):
                continue
            for index, stmt in enumerate(node.body):
                call = stmt.value if isinstance(stmt, ast.Expr) else None
                if not (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == "self"
                    and all(k.arg == "msg" for k in call.keywords)
                ):
                    continue
                test = None
                if call.func.attr in UNITTEST_EQUAL and len(call.args) in (2, 3):
                    first, second = call.args[:2]
                    if is_literal(first) != is_literal(second):
                        test = ast.Compare(first, [ast.Eq()], [second])
                elif call.func.attr == "assertTrue" and len(call.args) in (1, 2) and comparison(call.args[0]):
                    test = call.args[0]
                if test is not None:
                    node.body[index] = ast.copy_location(ast.Assert(test, None), stmt)
    ast.fix_missing_locations(tree)
