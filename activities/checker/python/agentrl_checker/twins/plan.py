"""make_twins: the whole rewrite, request object in, response object out."""

import ast
from collections import Counter

from .build import build
from .checks import check_of, comparison_keys, own_asserts
from .fresh import place_fresh
from .groups import assign_groups, choose_g, survival_bound
from .params import ParamGroup
from .raises import INPUT_TWINS, RAISES_CALL, normalise_raises
from .request import BadInput, parse_request
from .secret import rng
from .units import Module, unsupported
from .unittest_asserts import normalise_unittest
from .variants import class_variants, literal_capacity, param_variants, variant_literals


def make_twins(data):
    """The whole rewrite: request object in, response object out (raises BadInput)."""
    request = parse_request(data)
    seed, files, real, target, cap, fresh, deciding = (
        request.seed,
        request.files,
        request.real,
        request.target,
        request.cap,
        request.fresh,
        request.deciding,
    )
    inputs, executed = request.inputs, request.executed
    modules, unparsed, total, calls = {}, [], Counter(), set()
    why_file = {}  # path -> why the file is returned as given
    for path, text in files.items():
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            unparsed.append(path)
            why_file[path] = "its file is not Python this rewrite parses"
            continue
        try:
            normalise_raises(tree, seed)
            normalise_unittest(tree)
            counts, texts = comparison_keys(tree)
            module = Module(path, tree)
            problem = unsupported(module)
        except Exception as error:  # noqa: BLE001 - the task's own test code never fails the grading
            counts, texts, problem = Counter(), set(), "the rewrite failed on it (%s)" % type(error).__name__
        total.update(counts)
        calls |= texts
        if problem:
            unparsed.append(path)  # returned as given; its tests keep their names
            why_file[path] = "its file is returned as given: %s" % problem
        else:
            modules[path] = module

    tests, uncovered = {}, []
    for rid in real:
        path = rid.partition("::")[0]
        if path not in files:
            raise BadInput("real id %s names a file that is not in 'files'" % rid)
        if path in modules and modules[path].find(rid.partition("[")[0]) is None:
            if modules[path].inherited(rid):
                continue
            # a test pytest finds but this rewrite cannot (under a module-level `if`, inherited from a
            # test class): the file is returned as given, its tests uncovered, never an error
            del modules[path]
            unparsed.append(path)
            why_file[path] = "its file is returned as given: a test the rewrite does not find by name (%s)" % rid
    for rid in real:
        path = rid.partition("::")[0]
        head, bracket, tail = rid.partition("[")
        if path not in modules:
            tests[rid] = {"kind": "real", "id": rid}
            uncovered.append(rid)
            continue
        unit = modules[path].find(head)
        if unit is None:  # inherited from a mixin: it follows its class's new name, without a twin
            cls_name, _, method = head.split("::", 1)[1].partition("::")
            modules[path].class_item(cls_name).setdefault("inherited", []).append((rid, method, bracket + tail))
            uncovered.append(rid)
            why_file[rid] = "inherited from a class that is not a test class (a mixin): its assertions are not twinned"
            continue
        unit.real_ids.append((rid, bracket + tail))

    units = [u for m in modules.values() for u in m.units() if u.real_ids]
    if executed is not None:
        for u in units:
            u.drop_unexecuted(executed)
    for u in units:
        u.prefer_failing(request.failing)
    for u in units:
        if u.param is None:
            continue
        key, group = u.param
        if sorted(suffix for _, suffix in u.real_ids) == sorted("[%s]" % i for i in group.ids):
            total[key] = 1  # one test holds it
        else:  # pytest named the rows otherwise than this rewrite would: no twin of the rows
            del u.cands[key], u.counts[key]
            u.param = None
    assign_groups(seed, units, total)
    # the lines of the check each covered test is twinned on, in its original file (the bound counts a deciding
    # test only through the assertion it failed at before the fix)
    ranges = {}
    for u in units:
        if u.group is not None:
            check = own_asserts(u.node)[u.ordinal][0]
            for rid, _ in u.real_ids:
                ranges[rid] = [check.lineno, check.end_lineno]
    placed, skipped = place_fresh(seed, fresh, modules, calls)
    groups = {}
    for u in units:
        groups.setdefault(u.group, u.literal)
    groups.pop(None, None)
    # the bound counts on real groups only: fresh twins are single-assert tests a careful reader may tell
    # apart, so they are an extra catch (an agent answering every asserted call), never part of the figure
    # g reaches the target over the groups of the deciding tests when they are given (the tests the
    # unfixed code passes already prove nothing against a guesser), else over every group
    decisive = {u.group for u in units if u.group is not None and any(rid in deciding for rid, _ in u.real_ids)}
    counted = [(key, lit) for key, lit in groups.items() if key in decisive] or list(groups.items())
    g = choose_g(
        [literal_capacity(lit) for _, lit in counted],
        0,
        target,
        cap + 1,
        [key.startswith("raises: ") for key, _ in counted],
    )
    # a group outside the deciding tests gets one twin: enough to catch a wholesale forgery, and a suite's
    # hundreds of other tests do not multiply by g
    count = {key: g - 1 if key in decisive or not decisive else 1 for key in groups}
    variants = {
        key: class_variants(seed, key, lit, count[key])
        if isinstance(lit, (ast.Name, ast.Attribute))
        else param_variants(seed, key, lit, count[key])
        if isinstance(lit, ParamGroup)
        else variant_literals(seed, key, lit, count[key])
        for key, lit in groups.items()
    }
    summary = {
        key: {"values": len(v) + 1, "real": True, "check": "raise" if key.startswith("raises: ") else "value"}
        for key, v in variants.items()
    }
    # a raise check also gets twins on inputs the oracle calls valid: the same block, which a correct
    # solution fails (DID NOT RAISE); code that raises for every input it finds in a raise block passes
    # them, beside its real sibling: a forgery. They are an extra catch, never part of the bound.
    used_inputs = set()
    for u in units:
        check = check_of(own_asserts(u.node)[u.ordinal][0]) if u.group and u.group.startswith("raises: ") else None
        call = getattr(check.args[0], RAISES_CALL, None) if check is not None else None
        name = call and (call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None))
        valid = [i for i in inputs if i["function"] == name and len(i["args"]) == len(call.args)] if call else []
        # an input used by one raise check only: a call shared by two would be checked against both checks' classes
        # nor one the tests assert a value for: a raise block's call also found in an equality would be a valid input
        valid = [
            i
            for i in valid
            if (u.path, tuple(i["args"])) not in used_inputs
            and ast.unparse(ast.Call(call.func, [ast.parse(a, mode="eval").body for a in i["args"]], [])) not in calls
        ]
        if valid:
            rng(seed, "inputs", u.group).shuffle(valid)
            chosen = valid[:INPUT_TWINS]
            used_inputs.update((u.path, tuple(i["args"])) for i in chosen)
            u.inputs = [[ast.parse(a, mode="eval").body for a in i["args"]] for i in chosen]
            summary[u.group + " (valid inputs)"] = {
                "values": len(variants[u.group]) + 1,
                "real": False,
                "check": "input",
            }
    survival = survival_bound([len(v) + 1 for v in variants.values()], 0, [k.startswith("raises: ") for k in variants])
    for module, key, call, value in placed:
        literals = variant_literals(seed, key, value, min(g, cap))
        module.fresh.append((key, call, literals))
        summary[key] = {"values": len(literals), "real": False, "check": "fresh"}

    out_files = dict(files)
    for path, module in list(modules.items()):
        own = {}
        try:
            out_files[path] = build(seed, module, variants, own)
        except Exception as error:  # noqa: BLE001 - the task's own test code never fails the grading
            del modules[path]
            unparsed.append(path)
            why_file[path] = "its file is returned as given: the rewrite failed on it (%s)" % type(error).__name__
            for unit in module.units():
                for rid, _ in unit.real_ids:
                    tests[rid] = {"kind": "real", "id": rid}
                    uncovered.append(rid)
            for item in module.items:
                for rid, _, _ in item.get("inherited", []) if isinstance(item, dict) else []:
                    tests[rid] = {"kind": "real", "id": rid}  # uncovered already
            continue
        tests.update(own)
    uncovered += [rid for u in units if u.group is None and u.path in modules for rid, _ in u.real_ids]
    reasons = {}
    for rid in uncovered:
        path = rid.partition("::")[0]
        unit = modules[path].find(rid.partition("[")[0]) if path in modules else None
        if unit is None:
            reasons[rid] = why_file.get(rid) or why_file.get(path, "its file is returned as given")
        elif not unit.cands and getattr(unit, "unexecuted", False):
            reasons[rid] = "its assertions a twin could change did not run in the reference solution's run"
        elif not unit.cands:
            reasons[rid] = (
                "no assertion a twin can change: a literal expected value (==, is True/False, pytest.approx, "
                "unittest's assertEqual family, assertAlmostEqual or assertIs), a pytest.raises block or a "
                "parametrized expected value, outside branches and loops"
            )
        else:
            reasons[rid] = "each value it asserts is asserted by another test too, or its group went to another test"
    return {
        "files": out_files,
        "tests": dict(sorted(tests.items())),
        "groups": dict(sorted(summary.items())),
        "checkRanges": dict(sorted(ranges.items())),
        "survival": survival,
        "uncovered": sorted(uncovered),
        "reasons": dict(sorted(reasons.items())),
        "unparsed": unparsed,
        "skippedFresh": skipped,
    }
