"""dynamic_code: code that runs or imports code chosen at run time (exec, eval or compile of a
non-constant string, dynamic imports of non-constant names, non-constant lookups on builtins, loaders
of code the detector never sees). The constant strings given to exec/eval/compile are collected and
analysed like the file itself (analysis.analyse_bytes)."""

import ast

from ..ast_tools import const_str
from .names import BUILTINS_NAMESPACES, IMPORT_FUNCS
from .paths import parts

EXEC_FUNCS = {"builtins.exec": "exec()", "builtins.eval": "eval()", "builtins.compile": "compile()"}
# names of the parameter holding the source, per function (for keyword calls)
EXEC_SOURCE_KEYWORDS = frozenset({"source", "object", "expression"})
# the functions that import a module by name, as findings name them: __import__(), importlib.import_module()
DYNAMIC_IMPORT_FUNCS = {name: name.removeprefix("builtins.") + "()" for name in IMPORT_FUNCS}
# loaders of code from files or bytes that the detector never sees as source
CODE_LOADERS = {
    "runpy.run_path": "runpy.run_path()",
    "importlib.machinery.SourceFileLoader": "importlib.machinery.SourceFileLoader",
    "importlib.machinery.SourcelessFileLoader": "importlib.machinery.SourcelessFileLoader",
    "importlib.machinery.ExtensionFileLoader": "importlib.machinery.ExtensionFileLoader",
    "importlib.util.spec_from_file_location": "importlib.util.spec_from_file_location()",
    "zipimport.zipimporter": "zipimport.zipimporter",
    "marshal.loads": "marshal.loads()",
    "marshal.load": "marshal.load()",
    "types.CodeType": "types.CodeType",
}


def leading_text(node, names, depth=0):
    """The known start of a string expression: a constant, or the constant (or the module's own
    name, written "<own>") that an f-string, a "+" chain, a "%" format, str.format or ".".join
    begins with; a name assigned once is followed to its value. None when it is not known.
    A dotted prefix of the own name (`__name__.rsplit(".", 1)[0]`) is the own name too: it names
    the candidate's own package, whose modules the detector analyses as well.
    """
    if node is None or depth > 8:
        return None
    follow = lambda inner: leading_text(inner, names, depth + 1)  # noqa: E731
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in ("__name__", "__package__") and node.id not in names.bound:
        return "<own>"
    if isinstance(node, ast.Name) and node.id in getattr(names, "assigned", {}):
        return follow(names.assigned[node.id])
    if (
        isinstance(node, ast.Attribute)
        and node.attr in ("parent", "name")
        and isinstance(node.value, ast.Name)
        and node.value.id == "__spec__"
    ):
        return "<own>"
    if own_prefix(node, follow):
        return "<own>"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = follow(node.left)
        if left is None:
            return None
        right = const_str(node.right)
        return left + right if right is not None else left + "\0"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return formatted(
            const_str(node.left), node.right.elts if isinstance(node.right, ast.Tuple) else [node.right], follow, "%s"
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
        if node.func.attr == "format":
            return formatted(const_str(node.func.value), node.args, follow, "{}")
        joiner = const_str(node.func.value)
        if (
            node.func.attr == "join"
            and joiner
            and len(node.args) == 1
            and isinstance(node.args[0], (ast.List, ast.Tuple))
        ):
            items = node.args[0].elts
            head = follow(items[0]) if items else None
            return head + joiner + "\0" if head is not None and len(items) > 1 else head
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value + ("\0" if len(node.values) > 1 else "")
        if isinstance(first, ast.FormattedValue) and first.conversion == -1 and first.format_spec is None:
            own = follow(first.value)
            if own == "<own>":
                rest = node.values[1] if len(node.values) > 1 else None
                return "<own>" + (const_str(rest) or "") + "\0"
    return None


def own_prefix(node, follow):
    """`NAME.split(".")[0]`, `.rsplit(".", n)[0]`, `.partition(".")[0]` or `.rpartition(".")[0]` of the own name:
    a dotted prefix of it."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0):
        return False
    call = node.value
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in ("split", "rsplit", "partition", "rpartition")
        and len(call.args) >= 1
        and const_str(call.args[0]) == "."
        and follow(call.func.value) == "<own>"
    )


def formatted(template, args, follow, field):
    """The known start of `template % args` or `template.format(*args)`: the text before the first field, or the
    first argument's known start when the template begins with a field (`"%s.%s" % (__name__, x)`)."""
    if template is None:
        return None
    before, found, after = template.partition(field)
    if not found:
        return template
    if before or not args:
        return before + "\0"
    head = follow(args[0])
    return None if head is None else head + after.split(field)[0] + "\0"


class DynamicRules:
    """The scoped rules on dynamic code (a part of ScopedRules)."""

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self._reference(node)

    def _reference(self, node, q=None):
        """exec/eval/compile/__import__/import_module used as a value, not called."""
        if id(node) in self.callees:
            return
        q = q if q is not None else self.names.qual(node)
        what = EXEC_FUNCS.get(q) or DYNAMIC_IMPORT_FUNCS.get(q)
        if what:
            self.add("dynamic_code", node, "refers to %s without calling it %s" % (what, self._where()))

    def _exec_source(self, node):
        """The expression holding the source of an exec/eval/compile call, or None."""
        if node.args:
            return node.args[0]
        for k in node.keywords:
            if k.arg in EXEC_SOURCE_KEYWORDS:
                return k.value
        return None

    def _is_constant_compile(self, expr):
        return (
            isinstance(expr, ast.Call)
            and self.names.qual(expr.func) == "builtins.compile"
            and isinstance(self._exec_source(expr), ast.Constant)
            and isinstance(self._exec_source(expr).value, (str, bytes))
        )

    def _dynamic(self, q, node):
        if q in EXEC_FUNCS:
            src = self._exec_source(node)
            if isinstance(src, ast.Constant) and isinstance(src.value, (str, bytes)):
                self.module.code_strings.append((src.value, node.lineno, id(node) in self.import_ids, EXEC_FUNCS[q]))
            elif q != "builtins.compile" and self._is_constant_compile(src):
                pass  # exec(compile("...")): the compile() call's string is analysed
            else:
                self.add("dynamic_code", node, "%s of a non-constant string %s" % (EXEC_FUNCS[q], self._where()))
        elif q in DYNAMIC_IMPORT_FUNCS:
            name = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
            if const_str(name) is None and not self._own_package_import(q, node, name):
                self.add(
                    "dynamic_code", node, "%s of a non-constant name %s" % (DYNAMIC_IMPORT_FUNCS[q], self._where())
                )
        elif q == "runpy.run_module":
            name = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "mod_name"), None)
            if const_str(name) is None:
                self.add("dynamic_code", node, "runpy.run_module() of a non-constant name %s" % self._where())
        elif q in CODE_LOADERS:
            self.add(
                "dynamic_code", node, "%s loads code the detector cannot see %s" % (CODE_LOADERS[q], self._where())
            )
        elif q == "builtins.getattr" and len(node.args) >= 2:
            if self.names.qual(node.args[0]) in BUILTINS_NAMESPACES and const_str(node.args[1]) is None:
                self.add("dynamic_code", node, "getattr() on builtins with a non-constant name %s" % self._where())
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and self.names.qual(node.func.value) in BUILTINS_NAMESPACES
            and const_str(node.args[0]) is None
        ):
            self.add("dynamic_code", node, "looks up builtins with a non-constant name %s" % self._where())
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == "replace"
            and any(k.arg == "co_code" for k in node.keywords)
        ):
            self.add("dynamic_code", node, "replaces the bytecode of a code object %s" % self._where())

    def _own_package_import(self, q, node, name):
        """A dynamic import that can only reach the candidate's own package: a lazy submodule (PEP 562)
        or a configured backend. importlib.import_module of a name that is relative ("." + x) to the
        module's own package (`__name__`, `__package__` or `__spec__.parent`), or that starts with
        the module's own name or its top-level package and a dot ("pkg.backends." + x).
        """
        head = leading_text(name, self.names)
        if head is None:
            return False
        if head.startswith("."):
            if q != "importlib.import_module":
                return False
            package = node.args[1] if len(node.args) > 1 else None
            package = package or next((k.value for k in node.keywords if k.arg == "package"), None)
            return leading_text(package, self.names) == "<own>" and not head.startswith("..")
        if head.startswith("<own>."):
            return True
        top = parts(self.module.path)
        top = top[1] if len(top) > 2 and top[0] == "src" else top[0]
        return head.startswith(top + ".") and top not in ("", ".") and not top.endswith(".py")
