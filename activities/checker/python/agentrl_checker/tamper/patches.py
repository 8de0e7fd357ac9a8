"""Assignments the detector reads: stdlib_patch (non-test code that replaces a function or attribute of
the standard library by assignment, del or setattr; attributes of sys are exempt) and pytest_plugins
set outside test code (pytest_hook)."""

import ast
import sys

from ..ast_tools import const_str
from .names import top


class PatchRules:
    """The scoped rules on assignments (a part of ScopedRules)."""

    def _patch_call(self, q, node):
        """setattr(json, "dumps", f) and delattr on a standard-library owner."""
        if q in ("builtins.setattr", "builtins.delattr") and node.args:
            owner = self._stdlib_owner(node.args[0])
            if owner is not None:
                name = const_str(node.args[1]) if len(node.args) > 1 else None
                self.add("stdlib_patch", node, "%s on %s.%s %s" % (q[9:], owner, name or "?", self._where()))

    def _plugins_target(self, t, node):
        if (isinstance(t, ast.Name) and t.id == "pytest_plugins") or (
            isinstance(t, ast.Attribute) and t.attr == "pytest_plugins"
        ):
            if not self.test_code:
                self.add("pytest_hook", node, "sets pytest_plugins")

    def _stdlib_owner(self, node):
        """The standard-library module or class an attribute target belongs to, or None (sys exempt)."""
        owner = self.names.qual(node)
        head = top(owner) if owner else None
        if not head or head == "sys" or self.test_code:
            return None
        if head == "builtins" or head in sys.stdlib_module_names:
            return owner
        return None

    def _patch_targets(self, target, node):
        for sub in ast.walk(target):
            if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                owner = self._stdlib_owner(sub.value)
                if owner is not None:
                    self.add("stdlib_patch", node, "replaces %s.%s %s" % (owner, sub.attr, self._where()))

    def visit_Assign(self, node):
        for t in node.targets:
            for sub in ast.walk(t):
                self._plugins_target(sub, node)
            self._patch_targets(t, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self._plugins_target(node.target, node)
        self._patch_targets(node.target, node)
        self.generic_visit(node)

    visit_AugAssign = visit_AnnAssign

    def visit_Delete(self, node):
        for t in node.targets:
            self._patch_targets(t, node)
        self.generic_visit(node)
