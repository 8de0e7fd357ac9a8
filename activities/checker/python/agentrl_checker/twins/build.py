"""The rewrite of one module: tests renamed from the secret, twins added beside the real tests, the order
shuffled, and every new node id mapped to what it is (a real test, a twin, another test)."""

import ast
import copy

from ..ast_tools import FUNCTIONS
from .checks import check_of, comparison, own_asserts
from .params import is_parametrize, param_call, set_row_value
from .raises import RAISES, RAISES_CALL
from .secret import rng, token


def build(seed, module, variants, tests):
    """Rename, twin and shuffle one module; returns its source and fills `tests` with its node ids."""
    taken = {
        getattr(n, f)
        for n in ast.walk(ast.Module(module.keep + module.tree.body, []))
        for f in ("id", "attr", "arg", "name")
        if isinstance(getattr(n, f, None), str)
    }

    def fresh_name(prefix, *label):
        for i in range(10**6):
            name = prefix + token(seed, "name", module.path, *label, str(i))[:12]
            if name not in taken:
                taken.add(name)
                return name

    # (unit or None, class name or None, function name, ordinal, group, what it changes, the class it expects)
    twins = []

    def expand(unit, cls_name):
        old = unit.old_id
        unit.node.name = fresh_name("test_", old)
        param = unit.param if unit.param and unit.param[0] == unit.group else None
        if param:
            # pytest's own ids of the rows would quote the real expected values: the rows get ids from
            # the secret instead, the same in the real test and its twins, mapped back to the real ids
            neutral = ["r" + token(seed, "row", old, str(i))[:10] for i in range(len(param[1].ids))]
            unit.suffixes = {"[%s]" % orig: "[%s]" % new for orig, new in zip(param[1].ids, neutral)}
            param[1].decorator.keywords = [ast.keyword("ids", ast.List([ast.Constant(i) for i in neutral], ast.Load()))]
            for row in param[1].decorator.args[1].elts:  # an id a row gives itself would win over `ids`
                if param_call(row):
                    row.keywords = [k for k in row.keywords if k.arg != "id"]
        out = [unit.node]
        for k, literal in enumerate(variants.get(unit.group, [])):
            twin = copy.deepcopy(unit.node)
            twin.name = fresh_name("test_", old, "twin", str(k))
            if param:
                mark = next(d for d in twin.decorator_list if is_parametrize(d))
                rows = mark.args[1].elts
                for index, value in enumerate(literal):
                    rows[index] = set_row_value(rows[index], len(param[1].names), param[1].column, value)
                twins.append((unit, cls_name, twin.name, unit.ordinal, unit.group, "value", None))
                out.append(twin)
                continue
            cmp = check_of(own_asserts(twin)[unit.ordinal][0])
            found = comparison(cmp)
            if found[2] is RAISES:
                cmp.args[1] = literal  # a raise check: another class
                twins.append((unit, cls_name, twin.name, unit.ordinal, unit.group, "raise", ast.unparse(literal)))
                out.append(twin)
                continue
            elif isinstance(cmp, ast.Call):  # a unittest assertion: the literal argument
                cmp.args[0 if cmp.args[0] is found[1] else 1] = literal
            elif cmp.left is found[1]:
                cmp.left = literal
            else:
                cmp.comparators = [literal]
            twins.append((unit, cls_name, twin.name, unit.ordinal, unit.group, "value", None))
            out.append(twin)
        out.extend(input_twins(unit, cls_name, variants.get(unit.group, [])))
        return out

    def input_twins(unit, cls_name, classes):
        # the same block on inputs the oracle calls valid, each checked against every class the real check's
        # call is checked against (the real one and its twins'): a valid input's call then looks like an invalid
        # one's in every way but its arguments, and a correct solution fails them all (DID NOT RAISE)
        made = []
        for k, args in enumerate(getattr(unit, "inputs", [])):
            for c, cls in enumerate([None, *classes]):
                twin = copy.deepcopy(unit.node)
                twin.name = fresh_name("test_", unit.old_id, "input", str(k), str(c))
                check = check_of(own_asserts(twin)[unit.ordinal][0])
                getattr(check.args[0], RAISES_CALL).args = copy.deepcopy(args)
                if cls is not None:
                    check.args[1] = copy.deepcopy(cls)
                group = unit.group + " (valid inputs)"
                twins.append((unit, cls_name, twin.name, unit.ordinal, group, "input", ast.unparse(check.args[1])))
                made.append(twin)
        return made

    top, renamed = [], {}  # renamed: old -> new name of each top-level test and test class
    for item in module.items:
        if isinstance(item, dict):
            node = item["node"]
            old_cls, node.name = node.name, fresh_name("Test", "class", node.name)
            renamed[old_cls] = node.name
            methods = [n for u in item["units"] for n in expand(u, node.name)]
            rng(seed, "order", module.path, old_cls).shuffle(methods)
            node.body = item["keep"] + methods or [ast.Pass()]
            top.append(node)
        else:
            old_name = item.node.name
            top.extend(expand(item, None))
            renamed[old_name] = item.node.name
    for i, (key, call, literals) in enumerate(module.fresh):
        for k, literal in enumerate(literals):
            name = fresh_name("test_", "fresh", key, str(k))
            top.append(ast.parse("def %s():\n    assert %s == %s\n" % (name, call, ast.unparse(literal))).body[0])
            twins.append((None, None, name, 0, key, "fresh", None))
    rng(seed, "order", module.path).shuffle(top)
    # a bare reference to a test or test class (`SomeTests._helper(x)`, `alias = test_x`) follows its new
    # name; a module-level statement holding one runs after the tests are defined
    after = []
    for stmt in module.keep:
        if any(isinstance(n, ast.Name) and n.id in renamed for n in ast.walk(stmt)):
            after.append(stmt)
    keep = [stmt for stmt in module.keep if stmt not in after]
    for node in ast.walk(ast.Module(module.keep + top, [])):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]
    source = ast.unparse(ast.Module(keep + top + after, [])) + "\n"
    compile(source, module.path, "exec")

    defs = {}  # (class name or None, function name) -> node, in the text as printed
    for node in ast.parse(source).body:
        for sub in node.body if isinstance(node, ast.ClassDef) else [node]:
            if isinstance(sub, FUNCTIONS):
                defs[(node.name if sub is not node else None, sub.name)] = sub
    prefix = lambda cls, name: "::".join([module.path] + ([cls] if cls else []) + [name])
    for item in module.items:
        for rid, method, suffix in item.get("inherited", []) if isinstance(item, dict) else []:
            tests[prefix(item["node"].name, method) + suffix] = {"kind": "real", "id": rid}
    for unit in module.units():
        new = prefix(unit.cls and unit.cls["node"].name, unit.node.name)
        renamed = getattr(unit, "suffixes", {})
        for rid, suffix in unit.real_ids:
            tests[new + renamed.get(suffix, suffix)] = {"kind": "real", "id": rid}
        if not unit.real_ids:
            tests[new] = {"kind": "other", "id": unit.old_id}
    for unit, cls, name, ordinal, key, check, expects in twins:
        func = defs[(cls, name)]
        stmt = own_asserts(func)[ordinal][0]
        first = stmt.lineno
        if key.startswith("raises: ") and stmt in func.body and func.body.index(stmt) > 0:
            block = func.body[func.body.index(stmt) - 1]
            if isinstance(block, ast.With):  # a raise twin fails at its check, or at its block (DID NOT RAISE)
                first = block.lineno
        record = {"kind": "twin", "group": key, "path": module.path, "lines": [first, stmt.end_lineno], "check": check}
        if expects is not None:
            record["variant"] = expects
        renamed = getattr(unit, "suffixes", {}) if unit else {}
        for rid, suffix in unit.real_ids if unit else [(None, "")]:
            tests[prefix(cls, name) + renamed.get(suffix, suffix)] = dict(record, of=rid)
    return source
