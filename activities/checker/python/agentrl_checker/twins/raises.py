"""Raise checks: `with pytest.raises(Cls):` blocks (and unittest's assertRaises forms) normalised into a
block that catches BaseException and a check `assert issubclass(name.type, Cls)` a twin can change to
another class, and the pool of classes it may change to."""

import ast

from ..ast_tools import FUNCTIONS
from .secret import token

RAISES = "raises"  # the op of a normalised `with pytest.raises(Cls):` block
RAISES_KEY = "agentrl_raises"  # attribute of the check's `<name>.type` node: the group key
RAISES_CALL = "agentrl_raises_call"  # and the one call the block makes, when it makes one
INPUT_TWINS = 2  # input twins per raise check: the same block on inputs the oracle says are valid
# exception classes a raise twin may expect instead: common ones, so that the real class is not special among
# them, and no two related by inheritance (an antichain): an exception deriving from one more class than the
# expected one then passes at most one twin's class, which the judgement excuses (the usual backward-compatible
# change); for a class of the candidate's package, only classes such a class rarely derives from (its real bases
# are unknown here, and task validate proves every twin)
RAISE_POOL = (
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "AttributeError",
    "ZeroDivisionError",
    "OverflowError",
    "NotImplementedError",
    "RecursionError",
    "OSError",
)
FOREIGN_POOL = ("ZeroDivisionError", "OverflowError", "NotImplementedError", "RecursionError", "UnicodeError")


def builtin_exception(name):
    """The builtin exception class of that name, or None."""
    import builtins

    cls = getattr(builtins, name, None)
    return cls if isinstance(cls, type) and issubclass(cls, BaseException) else None


def raise_pool(cls_node):
    """The classes a twin of `pytest.raises(cls)` may expect: none an honest fix could derive its exception
    from beside cls. So none related to cls by inheritance, and none of the family of a base of cls below
    Exception (for KeyError, nothing of LookupError's: a fix raising a class that derives from KeyError and
    IndexError, as a backward-compatible change does, must not pass a twin)."""
    name = cls_node.id if isinstance(cls_node, ast.Name) else None
    real = builtin_exception(name) if name else None
    if real is None:
        return [c for c in FOREIGN_POOL if c != name]
    families = [base for base in real.__mro__ if base not in (real, Exception, BaseException, object)]

    def related(other):
        return issubclass(other, real) or issubclass(real, other) or any(issubclass(other, b) for b in families)

    return [c for c in RAISE_POOL if not related(builtin_exception(c))]


UNITTEST_RAISES = {"assertRaises": 1, "assertRaisesRegex": 2}  # the method and its arguments as a context manager


def raises_call(item):
    """(class, the call's other arguments, keywords, unittest?) of `pytest.raises(Cls[, match=...])`,
    `self.assertRaises(Cls)` or `self.assertRaisesRegex(Cls, regex)` as a with item, else None."""
    call = item.context_expr
    if not isinstance(call, ast.Call) or not call.args:
        return None
    name = ast.unparse(call.func)
    if name in ("pytest.raises", "raises") and len(call.args) == 1:
        if any(k.arg != "match" for k in call.keywords):
            return None
        unittest = False
    elif name.startswith("self.") and UNITTEST_RAISES.get(name[5:]) == len(call.args):
        if any(k.arg != "msg" for k in call.keywords):
            return None
        unittest = True
    else:
        return None
    cls = call.args[0]
    if not isinstance(cls, (ast.Name, ast.Attribute)):
        return None
    return cls, call.args[1:], call.keywords, unittest


def raises_statement(stmt):
    """`self.assertRaises(Cls, f, *args)` as the block `with self.assertRaises(Cls): f(*args)`, else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (
        isinstance(call, ast.Call)
        and ast.unparse(call.func) == "self.assertRaises"
        and len(call.args) >= 2
        and not any(isinstance(a, ast.Starred) for a in call.args[:2])
    ):
        return None
    inner = ast.Call(call.args[1], call.args[2:], call.keywords)
    block = ast.With([ast.withitem(ast.Call(call.func, call.args[:1], []), None)], [ast.Expr(inner)])
    return ast.fix_missing_locations(ast.copy_location(block, stmt))


def normalise_raises(tree, seed):
    """Rewrites each unguarded `with pytest.raises(Cls):` block at the top of a test's body as
    `with pytest.raises(BaseException) as name:` and `assert issubclass(name.type, Cls)` after it:
    the same outcome for every solution (the block fails unless it raises a Cls), and a check a
    twin can change to another class and that then fails at its own line. unittest's
    `self.assertRaises(Cls)` and `assertRaisesRegex` blocks likewise (the check reads
    `name.exception.__class__`), and `self.assertRaises(Cls, f, *args)` first becomes such a block.
    """
    name = "caught_" + token(seed, "raises")[:8]
    for node in ast.walk(tree):
        if not isinstance(node, FUNCTIONS) or not node.name.startswith("test"):
            continue
        body = []
        for stmt in node.body:
            stmt = raises_statement(stmt) or stmt
            body.append(stmt)
            if not isinstance(stmt, ast.With) or len(stmt.items) != 1:
                continue
            found = raises_call(stmt.items[0])
            target = stmt.items[0].optional_vars
            if found is None or (target is not None and not isinstance(target, ast.Name)):
                continue
            cls, rest, keywords, unittest = found
            var = target.id if target is not None else name
            stmt.items[0] = ast.withitem(
                ast.Call(stmt.items[0].context_expr.func, [ast.Name("BaseException", ast.Load())] + rest, keywords),
                ast.Name(var, ast.Store()),
            )
            if unittest:
                caught = ast.Attribute(ast.Name(var, ast.Load()), "exception", ast.Load())
                subject = ast.Attribute(caught, "__class__", ast.Load())
            else:
                subject = ast.Attribute(ast.Name(var, ast.Load()), "type", ast.Load())
            setattr(subject, RAISES_KEY, "raises: " + ast.unparse(ast.Module(stmt.body, [])))
            only = stmt.body[0] if len(stmt.body) == 1 else None
            if isinstance(only, ast.Expr) and isinstance(only.value, ast.Call) and not only.value.keywords:
                setattr(subject, RAISES_CALL, only.value)  # the call an input twin gives a valid input
            check = ast.Assert(ast.Call(ast.Name("issubclass", ast.Load()), [subject, cls], []), None)
            body.append(ast.copy_location(check, stmt))  # at the block's line: it ran if the block did
        node.body = body
    ast.fix_missing_locations(tree)
