"""runner_internals: non-test code that reaches into the test runner or the harness process (its
modules, sys.modules entries for them, caller stack frames, trace or profile hooks, the garbage
collector's object lists, every class through __subclasses__())."""

import ast

from ..ast_tools import const_str
from .names import top

RUNNER_MODULES = frozenset({"pytest", "_pytest", "pluggy"})
# modules whose import reaches the harness: the harness script runs as __main__
# (its reporter class lives there); ctypes reads and writes raw process memory
PROCESS_MODULES = {
    "__main__": "the harness's __main__ module",
    "ctypes": "raw memory access",
    "_ctypes": "raw memory access",
}
# qualified names that reach the frames, objects or hooks of the running harness
PROCESS_REFS = {
    "sys._getframe": "caller stack frames",
    "sys._current_frames": "stack frames of all threads",
    "sys.settrace": "a trace hook that sees every frame",
    "sys.setprofile": "a profile hook that sees every frame",
    "sys.monitoring": "monitoring hooks that see every frame",
    "threading.settrace": "a trace hook that sees every frame",
    "threading.setprofile": "a profile hook that sees every frame",
    "threading.settrace_all_threads": "a trace hook that sees every frame",
    "threading.setprofile_all_threads": "a profile hook that sees every frame",
    "inspect.currentframe": "the current stack frame",
    "inspect.stack": "caller stack frames",
    "inspect.getouterframes": "caller stack frames",
    "traceback.walk_stack": "caller stack frames",
    "gc.get_objects": "every live object",
    "gc.get_referrers": "objects holding a reference",
    "gc.get_referents": "objects referenced by an object",
}
FRAME_ATTRS = frozenset({"f_back", "f_globals"})
# X.__subclasses__() lists every class of the process (the harness's included) when X is
# object or type, or is reached through __base__/__bases__/__mro__/mro() (a plain
# cls.__subclasses__() registry is ordinary code)
ROOT_CLASSES = frozenset({"object", "type", "builtins.object", "builtins.type"})
CLASS_WALK_ATTRS = frozenset({"__base__", "__bases__", "__mro__", "mro"})


class RunnerRules:
    """The scoped rules on the runner and the harness process (a part of ScopedRules)."""

    def _runner(self, modname, node, how):
        head = top(modname)
        if head in RUNNER_MODULES and not (self.test_code and head == "pytest"):
            self.add("runner_internals", node, "%s %s" % (how, modname))
        elif head in PROCESS_MODULES:
            self.add("runner_internals", node, "%s %s (%s)" % (how, modname, PROCESS_MODULES[head]))

    def _process_ref(self, q, node):
        """Flags a reference to a frame/gc/trace primitive; True if flagged."""
        if q in PROCESS_REFS:
            self.add("runner_internals", node, "uses %s (%s)" % (q, PROCESS_REFS[q]))
            return True
        return False

    def visit_Import(self, node):
        for a in node.names:
            self._runner(a.name, node, "imports")

    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module:
            self._runner(node.module, node, "imports from")
            for a in node.names:
                self._process_ref(node.module + "." + a.name, node)

    def _sys_modules_access(self, key, node):
        head = top(key)
        if head in RUNNER_MODULES or head in PROCESS_MODULES:
            self.add("runner_internals", node, "accesses sys.modules[%r]" % key)

    def visit_Attribute(self, node):
        if node.attr == "__subclasses__" and (
            self.names.qual(node.value) in ROOT_CLASSES
            or any(isinstance(n, ast.Attribute) and n.attr in CLASS_WALK_ATTRS for n in ast.walk(node.value))
        ):
            self.add("runner_internals", node, "lists every class of the process through __subclasses__()")
        if node.attr in FRAME_ATTRS:
            self.add("runner_internals", node, "accesses frame attribute .%s (caller frames and globals)" % node.attr)
        else:
            q = self.names.qual(node)
            if not self._process_ref(q, node):
                self._reference(node, q)
        self.generic_visit(node)

    def _runner_call(self, node):
        """A call that imports a runner module by name, or reads sys.modules for one."""
        mod = self.names.imported_module(node)
        if mod is not None:
            self._runner(mod, node, "dynamically imports")
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault", "__getitem__")
            and self.names.qual(node.func.value) == "sys.modules"
            and node.args
        ):
            key = const_str(node.args[0])
            if key is not None:
                self._sys_modules_access(key, node)

    def _frame_call(self, q, node):
        """getattr(frame, "f_back"), or a getattr/vars/.get whose value is a frame primitive or a dynamic-code builtin."""
        if q == "builtins.getattr" and len(node.args) >= 2 and const_str(node.args[1]) in FRAME_ATTRS:
            self.add(
                "runner_internals",
                node,
                "accesses frame attribute .%s (caller frames and globals)" % node.args[1].value,
            )
        elif q in ("builtins.getattr", "builtins.vars") or (
            isinstance(node.func, ast.Attribute) and node.func.attr == "get"
        ):
            # getattr(sys, "_getframe"), __builtins__.get("eval"): the value is the named object
            ref = self.names.qual(node)
            if not self._process_ref(ref, node):
                self._reference(node, ref)
