"""Test units and modules: a parsed test module split into kept statements, test functions and test
classes, each test with the checks a twin may change (its candidate groups)."""

import ast

from ..ast_tools import FUNCTIONS, strip_docstring
from .checks import check_of, comparison, comparison_keys, drop_message, group_key, own_asserts
from .literals import leaves
from .params import param_group
from .raises import RAISES, raise_pool


def is_test_func(node):
    """A test function pytest collects (`test*`, not a fixture)."""
    return (
        isinstance(node, FUNCTIONS)
        and node.name.startswith("test")
        and not any("fixture" in ast.unparse(d) for d in node.decorator_list)
    )


def is_test_class(node):
    """A test class pytest collects (`Test*`, or a unittest TestCase)."""
    return isinstance(node, ast.ClassDef) and (
        node.name.startswith("Test") or any(ast.unparse(b).endswith("TestCase") for b in node.bases)
    )


def split_tests(body, is_test):
    """(kept statements, tests) of a body; of tests defined twice only the last counts, as in pytest."""
    keep = [s for s in strip_docstring(body) if not is_test(s)]
    tests = [s for s in body if is_test(s)]
    latest = {s.name: s for s in tests}
    return keep, [s for s in tests if latest[s.name] is s]


def top_level_names(module):
    """The names of the module's top-level tests and test classes: a bare reference to one is renamed with it."""
    return {item["node"].name if isinstance(item, dict) else item.node.name for item in module.items}


def unsupported(module):
    """Why renaming tests could break this module (a test used by attribute or as a parameter name, a
    method used by bare name, a nested test class), or None. A bare name of a top-level test or test
    class (`SomeTests._helper(x)`) is renamed with it."""
    top = top_level_names(module)
    names = {u.node.name for u in module.units()} | top
    for item in module.items:
        if isinstance(item, dict):
            if any(is_test_class(s) for s in item["node"].body):
                return "nested test class in %s" % item["node"].name
    for node in ast.walk(module.tree):
        used = {ast.Name: "id", ast.Attribute: "attr", ast.arg: "arg"}.get(type(node))
        name = used and getattr(node, used)
        if name in names and not (isinstance(node, ast.Name) and name in top):
            return "test %s is referenced by name" % name
    return None


class Unit:
    """One test function (top level or a method of a test class) of a rewritable module."""

    def __init__(self, path, cls, node):
        self.path, self.cls, self.node = path, cls, node
        self.old_id = "::".join([path] + ([cls["node"].name] if cls else []) + [node.name])
        self.real_ids, self.group, self.ordinal, self.literal = [], None, None, None
        for a, _ in own_asserts(node):
            drop_message(a)  # a message may quote the real value
        node.body = strip_docstring(node.body) or [ast.Pass()]
        self.counts = comparison_keys(node)[0]
        self.cands = {}  # group key -> ordinal of its assert, for asserts a twin may change
        for i, (a, guarded) in enumerate(own_asserts(node)):
            cmp = comparison(check_of(a))
            twinnable = raise_pool(cmp[1]) if cmp and cmp[2] is RAISES else cmp and leaves(cmp[1])
            if cmp and not guarded and twinnable:
                self.cands.setdefault(group_key(cmp), i)
        self.param = None  # (key, ParamGroup) while its rows' ids match the real ids (make_twins checks)
        found = param_group(node)
        if found:
            key = "param: %s == %s" % (self.old_id, ast.unparse(check_of(own_asserts(node)[found[1]][0])))
            self.param = (key, found[0])
            self.cands[key] = found[1]
            self.counts[key] = 1

    def drop_unexecuted(self, executed):
        """Keeps only the candidate asserts whose line every real id of this test ran in the reference
        run (`executed`: node id -> lines of its own file, recorded at validation): an assert after an
        early return, or in a test the reference skipped, never gets a twin that an honest solution
        passes beside its real sibling. A test with no record keeps none."""
        ran = None
        for rid, _ in self.real_ids:
            lines = set(executed.get(rid, ()))
            ran = lines if ran is None else ran & lines
        asserts = own_asserts(self.node)
        for key, ordinal in list(self.cands.items()):
            if asserts[ordinal][0].lineno not in (ran or ()):
                del self.cands[key]
                self.unexecuted = True
                if self.param and self.param[0] == key:
                    del self.counts[key]
                    self.param = None

    def prefer_failing(self, failing):
        """A deciding test is twinned on the assertion it failed at before the fix when a twin can change it
        (`failing`: node id -> that line in its own file, recorded at validation): the unfixed code passes its
        other assertions already, so only a twin of that one holds a guesser back."""
        lines = {failing[rid] for rid, _ in self.real_ids if rid in failing}
        if not lines:
            return
        asserts = own_asserts(self.node)
        keep = {
            key: ordinal
            for key, ordinal in self.cands.items()
            if any(asserts[ordinal][0].lineno <= line <= asserts[ordinal][0].end_lineno for line in lines)
        }
        if keep:
            for key in set(self.cands) - set(keep):
                del self.cands[key]


class Module:
    """A parsed test module split into kept statements, test functions and test classes."""

    def __init__(self, path, tree):
        self.path, self.tree, self.fresh = path, tree, []
        self.keep, tests = split_tests(tree.body, lambda s: is_test_func(s) or is_test_class(s))
        self.items = []
        for node in tests:
            if isinstance(node, ast.ClassDef):
                keep, methods = split_tests(node.body, is_test_func)
                cls = {"node": node, "keep": keep}
                cls["units"] = [Unit(path, cls, m) for m in methods]
                self.items.append(cls)
            else:
                self.items.append(Unit(path, None, node))

    def units(self):
        for item in self.items:
            yield from item["units"] if isinstance(item, dict) else [item]

    def find(self, node_id):
        return next((u for u in self.units() if u.old_id == node_id), None)

    def class_item(self, name):
        return next((i for i in self.items if isinstance(i, dict) and i["node"].name == name), None)

    def inherited(self, node_id):
        """True for `path::Class::test` where Class is a test class of this module that does not define the
        test and no test class here does (it comes from a mixin, which keeps its name)."""
        parts = node_id.partition("[")[0].split("::")
        if len(parts) != 3 or self.class_item(parts[1]) is None:
            return False
        return all(u.node.name != parts[2] for u in self.units() if u.cls is not None)
