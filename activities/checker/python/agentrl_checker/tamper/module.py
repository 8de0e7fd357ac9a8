"""One module's analysis: what it knows (names, integer constants, whether it is test code) and
collects (findings, constant code strings), in two steps: the exits run at import, then the scoped rules."""

from .descriptors import int_constants
from .exits import exits_at_import
from .names import Names
from .paths import is_test_path
from .scoped import ScopedRules


class Module:
    """What the analysis of one module knows and collects: its names, constants, kind and findings."""

    def __init__(self, path, tree, parent):
        self.path = path
        self.test_code = is_test_path(path)
        self.names = Names(tree, parent)
        self.consts = int_constants(tree)
        self.found = []
        self.code_strings = []

    def add(self, kind, node, detail):
        line = getattr(node, "lineno", 0) or 0
        self.found.append((kind, line, "%s, line %d" % (detail, line)))


def analyse_tree(path, tree, import_level=True, parent=None):
    """Findings of one parsed module (or exec()'d code string), in two steps: the exits run at import,
    then the scoped rules (one walk of the tree).

    Returns (names, findings, code_strings): findings are (kind, line, detail);
    code_strings are (source, line, import_level, what) for the constant code
    passed to exec()/eval()/compile(), to be analysed in the same way.
    ``import_level`` is False for code that does not run at import time.
    """
    module = Module(path, tree, parent)
    import_ids = exits_at_import(module, tree, import_level)
    ScopedRules(module, import_ids).visit(tree)
    return module.names, module.found, module.code_strings
