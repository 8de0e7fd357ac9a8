"""The rules that depend on where a construct is (a function, a class, module level), in one walk of a
module: each family of rules is a part of ScopedRules, in its own module."""

import ast

from ..ast_tools import const_str
from .bounds import on_time
from .descriptors import DescriptorRules
from .dynamic import DynamicRules
from .equality import EqualityRules
from .exits import ExitRules
from .names import BUILTINS_NAMESPACES
from .patches import PatchRules
from .runner import RunnerRules


class ScopedRules(ExitRules, EqualityRules, RunnerRules, DescriptorRules, DynamicRules, PatchRules, ast.NodeVisitor):
    """One walk of a module that applies every scoped rule, adding findings to the module."""

    def __init__(self, module, import_ids):
        self.module = module
        self.names = module.names
        self.consts = module.consts
        self.test_code = module.test_code
        self.add = module.add
        self.import_ids = import_ids
        self.funcs = []
        self.callees = set()  # ids of expressions that are called (not mere references)

    def visit(self, node):
        on_time()
        return super().visit(node)

    def _where(self):
        return ("in function %s" % self.funcs[-1]) if self.funcs else "at module level"

    def _function(self, node, name):
        if not self.test_code and name.startswith("pytest_"):
            self.add("pytest_hook", node, "defines pytest hook %s" % name)
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        self.funcs.append(name)
        for st in node.body:
            self.visit(st)
        self.funcs.pop()

    def visit_FunctionDef(self, node):
        self._function(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self.visit(node.args)
        self.funcs.append("<lambda>")
        self.visit(node.body)
        self.funcs.pop()

    def visit_Subscript(self, node):
        base = self.names.qual(node.value)
        if base == "sys.modules":
            key = const_str(node.slice)
            if key is not None:
                self._sys_modules_access(key, node)
        elif base in BUILTINS_NAMESPACES and const_str(node.slice) is None:
            self.add("dynamic_code", node, "looks up builtins with a non-constant name %s" % self._where())
        self._reference(node)
        self.generic_visit(node)

    def visit_Call(self, node):
        self.callees.add(id(node.func))
        q = self.names.qual(node.func)
        self._exit_or_skip_call(q, node)
        self._runner_call(node)
        self._dynamic(q, node)
        self._patch_call(q, node)
        self._check_fds(q, node)
        self._frame_call(q, node)
        self.generic_visit(node)
