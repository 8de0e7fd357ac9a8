"""Name resolution: the qualified name (`sys.exit`, `builtins.exec`) an expression refers to, through a
module's imports, aliases, its own bindings (which shadow builtins) and lookups such as getattr(sys, "exit")."""

import ast

from ..ast_tools import SCOPES, const_str
from .bounds import on_time
from .toplevel import import_level_nodes, walk_no_lambda

# Names resolved to builtins.<name> when the module does not bind them itself.
BUILTIN_NAMES = frozenset(
    {
        "exit",
        "quit",
        "SystemExit",
        "__import__",
        "exec",
        "eval",
        "compile",
        "getattr",
        "vars",
        "open",
        "setattr",
        "delattr",
    }
)
IMPORT_FUNCS = frozenset({"importlib.import_module", "builtins.__import__", "importlib.__import__"})
# the builtins module and its namespace: a lookup there by a constant name is that builtin
BUILTINS_NAMESPACES = frozenset({"builtins", "builtins.__dict__"})


def top(modname):
    """The top-level package of a dotted module name ("" for none)."""
    return modname.split(".", 1)[0] if modname else ""


def single_assignments(tree):
    """name -> the value of its one plain assignment, for names stored exactly once anywhere in the tree (no other
    assignment, loop target, parameter or augmented assignment); none at all when the module reaches its namespaces
    through globals(), locals() or vars(), which could rebind a name unseen."""
    stores, values = {}, {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("globals", "locals", "vars")
        ):
            return {}
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            stores[node.arg] = stores.get(node.arg, 0) + 2
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                values[targets[0].id] = node.value
    return {name: value for name, value in values.items() if stores.get(name) == 1}


class Names:
    """Import aliases and module-level bindings of one module.

    ``parent`` (the Names of the module that exec()s this code) supplies the
    aliases and bindings the code inherits from its caller's globals.
    """

    def __init__(self, tree, parent=None):
        self.alias = dict(parent.alias) if parent is not None else {}
        self.bound = set(parent.bound) if parent is not None else set()
        self._cache = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.alias[a.asname] = a.name
                    else:
                        head = top(a.name)
                        self.alias[head] = head
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for a in node.names:
                    if a.name != "*":
                        self.alias[a.asname or a.name] = node.module + "." + a.name
            elif isinstance(node, ast.ImportFrom) and node.level > 0:
                # `from .helpers import compile`: the package's own name, never a builtin
                base = "." * node.level + (node.module + "." if node.module else "")
                for a in node.names:
                    if a.name != "*":
                        self.alias[a.asname or a.name] = base + a.name
        self.assigned = single_assignments(tree)
        for node in import_level_nodes(tree.body, include_main=True, enter_classes=False):
            if isinstance(node, SCOPES):
                self.bound.add(node.name)  # `def compile(...)` at module level shadows the builtin
            for sub in walk_no_lambda(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    self.bound.add(sub.id)

    def qual(self, node):
        """Dotted qualified name of an expression, or None (memoised per node)."""
        hit = self._cache.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        value = self._qual(node)
        self._cache[id(node)] = (node, value)  # holding node keeps its id from being reused
        return value

    def _qual(self, node):
        on_time()
        if isinstance(node, ast.Name):
            if node.id in self.alias:
                return self.alias[node.id]
            if node.id not in self.bound:
                if node.id in BUILTIN_NAMES:
                    return "builtins." + node.id
                if node.id == "__builtins__":
                    return "builtins"
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.qual(node.value)
            return base + "." + node.attr if base else None
        if isinstance(node, ast.Subscript):
            # __builtins__["exec"], builtins.__dict__["exec"], vars(builtins)["exec"]
            key = const_str(node.slice)
            if key is not None and self.qual(node.value) in BUILTINS_NAMESPACES:
                return "builtins." + key
            return None
        if isinstance(node, ast.Call):
            func = self.qual(node.func)
            if func == "builtins.getattr" and len(node.args) in (2, 3):
                # getattr(sys, "exit") is sys.exit
                attr = const_str(node.args[1])
                base = self.qual(node.args[0])
                return base + "." + attr if attr is not None and base else None
            if func == "builtins.vars" and len(node.args) == 1:
                base = self.qual(node.args[0])
                return base + ".__dict__" if base else None
            if (
                isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and len(node.args) in (1, 2)
                and self.qual(node.func.value) in BUILTINS_NAMESPACES
            ):
                key = const_str(node.args[0])
                return "builtins." + key if key is not None else None
            mod = self.imported_module(node)
            return mod
        return None

    def imported_module(self, call):
        """Module name for importlib.import_module("x") / __import__("x")."""
        if not isinstance(call, ast.Call) or not call.args:
            return None
        if self.qual(call.func) not in IMPORT_FUNCS:
            return None
        return const_str(call.args[0])
