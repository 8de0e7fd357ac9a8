#!/usr/bin/env python3
"""Generate tasks/suite/: a reproducible suite of small Python bug-fix tasks.

Four bug families (comparison operator, arithmetic operator, off-by-one constant,
swapped return values / arguments).  Every task is built from a hand-written
template (a tiny module of 2-3 functions) with randomly drawn names and
constants, and one "bug site": a single line of the correct module replaced by
a buggy version.  Tests are derived by running the correct, buggy and (if any)
wrong-fix module over the template's input grid, so every invariant the
validator checks is also asserted here at generation time.

Usage (from anywhere; Python >= 3.10, stdlib only):

    python3 tasks/generate_suite.py            # delete and rewrite tasks/suite/
    python3 tasks/generate_suite.py --verify   # ... then check every task with host pytest
    python3 tasks/generate_suite.py --check    # write nothing; exit 1 if tasks/suite/ is stale

The output is a pure function of SEED, this file and activities/checker/python/oracle_values.py
(which encodes the values of oracle.json): rerunning it gives byte-identical
files.  expected-tests.json is not generated (it is written by
`node bin/agentrl.js task validate DIR`); a rerun keeps an existing
expected-tests.json when every file that decides its test ids (all but
oracle.json) is unchanged, with its "oracle" list emptied (generated tasks have
no oracle pytest files), and drops it otherwise (the summary says how many must
be validated again).
"""

import argparse
import copy
import difflib
import hashlib
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap

SEED = 20240611
HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "suite")
EXPECTED = "expected-tests.json"
ORACLE = "oracle.json"
ORACLE_VALUES = os.path.join(os.path.dirname(HERE), "activities", "checker", "python", "oracle_values.py")
MAX_TURNS = 8
MAX_MODULE_LINES = 25

FAMILIES = {
    "cmp": "comparison",
    "ari": "arithmetic",
    "obo": "off-by-one",
    "swp": "swap",
}
FAMILY_TEXT = {
    "cmp": "comparison operator: `<` vs `<=`, `>` vs `>=`, `==` vs `!=`, or a flipped direction",
    "ari": "arithmetic operator: `+` vs `-`, `*` vs `//` or `+`",
    "obo": "off-by-one constant: `range(n)` vs `range(n + 1)`, `i - 1` vs `i`, slice bounds",
    "swp": "swapped return values, swapped operands or swapped call arguments",
}

BOOLEAN_DECIDING = 10  # deciding tests of a task whose answers are all booleans: 2^-10


# ---------------------------------------------------------------------------
# helpers for templates
# ---------------------------------------------------------------------------


def func(name, params, doc, body):
    """A function as (name, doc, lines)."""
    return (name, doc, [f"def {name}({params}):", f'    """{doc}"""'] + list(body))


def rand_list(r, n_min, n_max, lo, hi):
    return [r.randint(lo, hi) for _ in range(r.randint(n_min, n_max))]


def lists(r, count, n_min, n_max, lo, hi, extra=()):
    out = [list(x) for x in extra]
    while len(out) < count:
        v = rand_list(r, n_min, n_max, lo, hi)
        if v not in out:
            out.append(v)
    return out


# Each template: (family, key, topic stems, {site: has_wrong_fix}, builder).
# builder(r, site) returns dict(doc, funcs, bug=(correct_line, buggy_line),
# wrong=None | (line_in_buggy_module, replacement), cases={fn: [args, ...]}).
TEMPLATES = {}


def template(family, key, stems, sites):
    def register(builder):
        TEMPLATES[key] = dict(family=family, key=key, stems=stems, sites=sites, build=builder)
        return builder

    return register


# ---------------------------------------------------------------- comparison


@template("cmp", "in-range", ["ranges", "bounds", "spans", "windows"], {"upper": True, "lower": True})
def t_in_range(r, site):
    fn = r.choice(["in_range", "within", "is_inside", "in_window", "covers"])
    x, lo, hi = r.choice([("x", "lo", "hi"), ("value", "low", "high"), ("n", "start", "stop"), ("pos", "begin", "end")])
    cnt = r.choice(["count_inside", "count_within", "how_many_inside", "tally_inside"])
    ret = f"    return {lo} <= {x} < {hi}"
    funcs = [
        func(fn, f"{x}, {lo}, {hi}", f"True if {lo} <= {x} < {hi}: {hi} itself is outside.", [ret]),
        func(
            cnt,
            f"values, {lo}, {hi}",
            f"How many values lie in the half-open range [{lo}, {hi}).",
            [f"    return sum(1 for v in values if {fn}(v, {lo}, {hi}))"],
        ),
    ]
    if site == "upper":
        bug = (ret, f"    return {lo} <= {x} <= {hi}")
        wrong = (bug[1], f"    return {lo} < {x} < {hi}")
    else:
        bug = (ret, f"    return {lo} < {x} < {hi}")
        wrong = (bug[1], f"    return {lo} <= {x} <= {hi}")
    bounds = r.choice([[(0, 5), (2, 4), (-3, 3)], [(1, 6), (-2, 2), (3, 7)], [(0, 10), (4, 6), (-5, -1)]])
    cases = {
        fn: [(v, a, b) for a, b in bounds for v in range(a - 2, b + 2)],
        cnt: [(vals, a, b) for a, b in bounds for vals in lists(r, 4, 0, 6, a - 2, b + 1, extra=[[]])],
    }
    return dict(doc="Helpers for half-open integer ranges.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


CMP_COUNT = {
    ">": ("greater than", ["count_above", "count_over", "num_greater"], ["keep_above", "only_over", "values_over"]),
    ">=": ("at least", ["count_at_least", "num_at_least", "count_not_below"], ["keep_at_least", "only_at_least"]),
    "<": ("less than", ["count_below", "count_under", "num_smaller"], ["keep_below", "only_under", "values_under"]),
    "<=": ("at most", ["count_at_most", "num_at_most", "count_not_above"], ["keep_at_most", "only_at_most"]),
}
FLIP_STRICT = {">": ">=", ">=": ">", "<": "<=", "<=": "<"}
FLIP_DIR = {">": "<", ">=": "<=", "<": ">", "<=": ">="}


@template("cmp", "count-cmp", ["limits", "tally", "counts", "levels"], {"strict": False, "direction": True})
def t_count_cmp(r, site):
    op = r.choice(sorted(CMP_COUNT))
    phrase, names, keeps = CMP_COUNT[op]
    fn, keep = r.choice(names), r.choice(keeps)
    limit = r.choice(["limit", "threshold", "bound", "cutoff"])
    line = f"    return sum(1 for v in values if v {op} {limit})"
    funcs = [
        func(fn, f"values, {limit}", f"How many values are {phrase} {limit}.", [line]),
        func(
            keep,
            f"values, {limit}",
            f"The values that are {phrase} {limit}, in order.",
            [f"    return [v for v in values if v {op} {limit}]"],
        ),
    ]
    if site == "strict":
        bug, wrong = (line, line.replace(f" {op} ", f" {FLIP_STRICT[op]} ")), None
    else:
        bug = (line, line.replace(f" {op} ", f" {FLIP_DIR[op]} "))
        wrong = (bug[1], line.replace(f" {op} ", f" {FLIP_STRICT[op]} "))
    limits = r.sample([2, 3, 4, 5, 6, 7], 3)
    vals = lists(r, 8, 0, 6, 0, 9, extra=[[], [limits[0]]])
    cases = {fn: [(v, k) for k in limits for v in vals], keep: [(v, k) for k in limits for v in vals[:5]]}
    return dict(doc="Counting and filtering against a limit.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


CMP_FIRST = {
    ">=": ("at least", ["first_at_least", "find_at_least", "index_reaching"], ["has_at_least", "any_reaching"]),
    ">": ("greater than", ["first_over", "find_above", "index_exceeding"], ["has_over", "any_exceeding"]),
    "<=": ("at most", ["first_at_most", "find_at_most", "index_not_over"], ["has_at_most", "any_not_over"]),
    "<": ("less than", ["first_below", "find_under", "index_below"], ["has_below", "any_under"]),
}


@template("cmp", "first-match", ["search", "scan", "finder", "lookup"], {"strict": False, "sentinel": True})
def t_first_match(r, site):
    op = r.choice(sorted(CMP_FIRST))
    phrase, names, hases = CMP_FIRST[op]
    fn, has = r.choice(names), r.choice(hases)
    target = r.choice(["target", "goal", "level"])
    test = f"        if v {op} {target}:"
    sentinel = f"    return {fn}(values, {target}) != -1"
    funcs = [
        func(
            fn,
            f"values, {target}",
            f"Index of the first value {phrase} {target}, or -1 if there is none.",
            ["    for i, v in enumerate(values):", test, "            return i", "    return -1"],
        ),
        func(has, f"values, {target}", f"True if some value is {phrase} {target}.", [sentinel]),
    ]
    if site == "strict":
        bug, wrong = (test, test.replace(f" {op} ", f" {FLIP_STRICT[op]} ")), None
    else:
        bug = (sentinel, sentinel.replace("!= -1", "== -1"))
        wrong = (bug[1], sentinel.replace("!= -1", "> 0"))
    targets = r.sample([2, 3, 4, 5, 6], 3)
    vals = lists(r, 8, 0, 6, 0, 8, extra=[[], [targets[0], 1], [9, targets[1]]])
    cases = {fn: [(v, t) for t in targets for v in vals], has: [(v, t) for t in targets for v in vals]}
    return dict(
        doc="Searching a list for the first value past a target.", funcs=funcs, bug=bug, wrong=wrong, cases=cases
    )


CMP_SORTED = {
    "<=": ("less than or equal to", ">", ["is_sorted", "is_ascending", "is_nondecreasing"]),
    ">=": ("greater than or equal to", "<", ["is_descending", "is_nonincreasing", "is_sorted_desc"]),
    "<": ("strictly less than", ">=", ["is_strictly_increasing", "is_rising", "increases"]),
    ">": ("strictly greater than", "<=", ["is_strictly_decreasing", "is_falling", "decreases"]),
}


@template("cmp", "sorted-check", ["order", "sorting", "monotone", "rank"], {"all": False, "drop": False})
def t_sorted_check(r, site):
    op = r.choice(sorted(CMP_SORTED))
    phrase, neg, names = CMP_SORTED[op]
    fn = r.choice(names)
    drop = r.choice(["first_break", "first_violation", "first_unsorted", "break_index"])
    allline = f"    return all(a {op} b for a, b in zip(values, values[1:]))"
    dropline = f"        if values[i] {neg} values[i + 1]:"
    funcs = [
        func(fn, "values", f"True if every value is {phrase} the next one.", [allline]),
        func(
            drop,
            "values",
            f"First index i with values[i] {neg} values[i + 1], or -1 if there is none.",
            ["    for i in range(len(values) - 1):", dropline, "            return i", "    return -1"],
        ),
    ]
    if site == "all":
        bug = (allline, allline.replace(f" {op} ", f" {FLIP_STRICT[op]} "))
    else:
        bug = (dropline, dropline.replace(f" {neg} ", f" {FLIP_STRICT[neg]} "))
    base = lists(r, 6, 2, 5, 0, 4)
    vals = [[], [3]]
    for v in base:
        for w in (v, sorted(v), sorted(v, reverse=True)):
            if w not in vals:
                vals.append(w)
    # ties decide a strict-versus-non-strict bug: enough of them for ten deciding boolean tests
    ties = ([1, 1], [2, 2, 3], [3, 2, 2], [0, 0], [4, 4, 4], [1, 3, 3], [5, 5, 2], [2, 4, 4, 6], [6, 3, 3, 1])
    for w in ties + ([0, 0, 1, 1], [4, 4, 2, 2], [1, 2, 2, 3], [3, 1, 1, 0], [1, 2, 3], [3, 2, 1]):
        if w not in vals:
            vals.append(w)
    cases = {fn: [(v,) for v in vals], drop: [(v,) for v in vals]}
    return dict(doc="Checks on the order of a list.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("cmp", "argbest", ["peaks", "extremes", "picks", "ranking"], {"tie": False, "direction": True})
def t_argbest(r, site):
    op = r.choice([">", "<"])
    word = "largest" if op == ">" else "smallest"
    fn = r.choice(
        ["argmax", "index_of_max", "pos_of_largest"] if op == ">" else ["argmin", "index_of_min", "pos_of_smallest"]
    )
    val = r.choice(["max_value", "largest", "peak"] if op == ">" else ["min_value", "smallest", "lowest"])
    best = r.choice(["best", "top", "pick"])
    test = f"        if values[i] {op} values[{best}]:"
    funcs = [
        func(
            fn,
            "values",
            f"Index of the {word} value; the first such index on ties.",
            [
                f"    {best} = 0",
                "    for i in range(1, len(values)):",
                test,
                f"            {best} = i",
                f"    return {best}",
            ],
        ),
        func(val, "values", f"The {word} value of a non-empty list.", [f"    return values[{fn}(values)]"]),
    ]
    if site == "tie":
        bug, wrong = (test, test.replace(f" {op} ", f" {FLIP_STRICT[op]} ")), None
    else:
        bug = (test, test.replace(f" {op} ", f" {FLIP_DIR[op]} "))
        wrong = (bug[1], test.replace(f" {op} ", f" {FLIP_STRICT[op]} "))
    vals = lists(r, 10, 1, 6, 0, 6, extra=[[4], [2, 2], [1, 5, 5, 0], [5, 0, 0, 3], [3, 3, 1], [1, 1, 4]])
    cases = {fn: [(v,) for v in vals], val: [(v,) for v in vals]}
    return dict(doc=f"Finding the {word} item of a list.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("cmp", "count-of", ["matches", "occurrences", "filters", "items"], {"count": False, "remove": False})
def t_count_of(r, site):
    cnt = r.choice(["count_of", "occurrences", "count_equal", "times_seen"])
    rm = r.choice(["without", "remove_all", "drop_value", "strip_value"])
    target = r.choice(["target", "item", "needle"])
    cline = f"    return sum(1 for v in values if v == {target})"
    rline = f"    return [v for v in values if v != {target}]"
    funcs = [
        func(cnt, f"values, {target}", f"How many values are equal to {target}.", [cline]),
        func(rm, f"values, {target}", f"The values not equal to {target}, order kept.", [rline]),
    ]
    bug = (cline, cline.replace("==", "!=")) if site == "count" else (rline, rline.replace("!=", "=="))
    vals = lists(r, 7, 0, 6, 0, 4, extra=[[]])
    cases = {cnt: [(v, t) for t in (1, 3) for v in vals], rm: [(v, t) for t in (1, 3) for v in vals]}
    return dict(doc="Counting and removing one value.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("cmp", "sign", ["signs", "polarity", "direction"], {"pos": False})
def t_sign(r, site):
    fn = r.choice(["sign", "signum", "sgn", "polarity"])
    many = r.choice(["signs", "all_signs", "sign_list"])
    x = r.choice(["x", "n", "value"])
    test = f"    if {x} > 0:"
    funcs = [
        func(
            fn,
            x,
            f"1 if {x} is positive, -1 if {x} is negative, 0 if {x} is zero.",
            [test, "        return 1", f"    if {x} < 0:", "        return -1", "    return 0"],
        ),
        func(many, "values", "The sign of every value, in order.", [f"    return [{fn}(v) for v in values]"]),
    ]
    bug = (test, test.replace(">", ">="))
    vals = lists(r, 6, 1, 5, -3, 3, extra=[[], [0], [0, 0]])
    cases = {fn: [(v,) for v in range(-4, 5)], many: [(v,) for v in vals]}
    return dict(doc="The sign of a number.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("cmp", "leap", ["calendar_kit", "years", "dates"], {"century": False})
def t_leap(r, site):
    fn = r.choice(["is_leap", "leap_year", "is_leap_year"])
    days = r.choice(["days_in_year", "year_length", "num_days"])
    y = r.choice(["year", "y"])
    line = f"    return {y} % 4 == 0 and ({y} % 100 != 0 or {y} % 400 == 0)"
    funcs = [
        func(fn, y, "True for leap years: multiples of 4, except centuries not divisible by 400.", [line]),
        func(days, y, f"Number of days in {y}.", [f"    return 366 if {fn}({y}) else 365"]),
    ]
    bug = (line, line.replace("% 100 != 0", "% 100 == 0"))
    years = [1800, 1900, 1996, 1999, 2000, 2001, 2004, 2019, 2020, 2023, 2024, 2100, 2400]
    cases = {fn: [(v,) for v in years], days: [(v,) for v in years]}
    return dict(doc="Leap years.", funcs=funcs, bug=bug, wrong=None, cases=cases)


# ---------------------------------------------------------------- arithmetic


@template("ari", "discount", ["prices", "sales", "billing", "checkout"], {"sign": True})
def t_discount(r, site):
    fn = r.choice(["discount", "apply_discount", "sale_price", "reduced_price"])
    tot = r.choice(["total_after", "basket_total", "sum_discounted"])
    price, pct = r.choice([("price", "percent"), ("amount", "pct"), ("cost", "rate")])
    line = f"    return {price} - {price} * {pct} // 100"
    funcs = [
        func(
            fn, f"{price}, {pct}", f"{price} minus {pct} percent of it (the amount taken off is rounded down).", [line]
        ),
        func(
            tot,
            f"prices, {pct}",
            f"Sum of the prices after taking {pct} percent off each.",
            [f"    return sum({fn}(p, {pct}) for p in prices)"],
        ),
    ]
    bug = (line, f"    return {price} + {price} * {pct} // 100")
    wrong = (bug[1], f"    return {price} - {pct}")
    prices = [0, 50, 80, 99, 100, 120, 200]
    pcts = r.sample([0, 5, 10, 20, 25, 50], 4)
    baskets = [[100], [100, 100], [50, 120], [80], [], [200, 100]]
    cases = {fn: [(p, q) for p in prices for q in pcts], tot: [(b, q) for b in baskets for q in pcts]}
    return dict(doc="Price arithmetic.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("ari", "shapes", ["shapes", "geometry", "rects", "plots"], {"area": False, "perimeter": False})
def t_shapes(r, site):
    area = r.choice(["area", "rect_area", "surface"])
    per = r.choice(["perimeter", "rect_perimeter", "fence_length", "border_length"])
    w, h = r.choice([("w", "h"), ("width", "height"), ("a", "b")])
    aline = f"    return {w} * {h}"
    pline = f"    return 2 * ({w} + {h})"
    funcs = [
        func(area, f"{w}, {h}", f"Area of a {w} by {h} rectangle.", [aline]),
        func(per, f"{w}, {h}", f"Perimeter of a {w} by {h} rectangle.", [pline]),
    ]
    bug = (aline, f"    return {w} + {h}") if site == "area" else (pline, f"    return 2 * ({w} - {h})")
    sizes = [(0, 0), (1, 1), (2, 2), (3, 2), (2, 5), (4, 4), (7, 3), (1, 10), (6, 0)]
    cases = {area: list(sizes), per: list(sizes)}
    return dict(doc="Rectangle measurements.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("ari", "temperature", ["thermo", "weather", "climate", "degrees"], {"to-f": True, "to-c": True})
def t_temperature(r, site):
    to_f = r.choice(["to_fahrenheit", "c_to_f", "celsius_to_fahrenheit"])
    to_c = r.choice(["to_celsius", "f_to_c", "fahrenheit_to_celsius"])
    c, f = r.choice([("c", "f"), ("celsius", "fahrenheit"), ("deg_c", "deg_f")])
    fline = f"    return {c} * 9 // 5 + 32"
    cline = f"    return ({f} - 32) * 5 // 9"
    funcs = [
        func(to_f, c, f"Degrees Fahrenheit for {c} degrees Celsius, rounded down.", [fline]),
        func(to_c, f, f"Degrees Celsius for {f} degrees Fahrenheit, rounded down.", [cline]),
    ]
    if site == "to-f":
        bug = (fline, f"    return {c} * 9 // 5 - 32")
        wrong = (bug[1], f"    return {c} * 9 / 5 + 32")
    else:
        bug = (cline, f"    return ({f} + 32) * 5 // 9")
        wrong = (bug[1], f"    return ({f} - 32) * 5 / 9")
    cases = {
        to_f: [(v,) for v in (-40, -10, 0, 3, 10, 21, 37, 100)],
        to_c: [(v,) for v in (-40, 0, 32, 41, 50, 68, 98, 100, 212)],
    }
    return dict(doc="Temperature conversions in whole degrees.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("ari", "midpoint", ["middles", "halves", "centres"], {"sum": True})
def t_midpoint(r, site):
    fn = r.choice(["midpoint", "middle_of", "halfway", "centre"])
    mids = r.choice(["midpoints", "middles", "halfway_points"])
    a, b = r.choice([("a", "b"), ("lo", "hi"), ("x", "y")])
    line = f"    return ({a} + {b}) // 2"
    funcs = [
        func(fn, f"{a}, {b}", f"Integer midpoint of {a} and {b}, rounded down.", [line]),
        func(
            mids,
            "points",
            "Midpoints of each pair of neighbouring points.",
            [f"    return [{fn}(p, q) for p, q in zip(points, points[1:])]"],
        ),
    ]
    bug = (line, f"    return ({a} - {b}) // 2")
    wrong = (bug[1], f"    return ({a} + {b}) / 2")
    pairs = [(0, 0), (0, 4), (2, 8), (3, 5), (1, 2), (4, 9), (6, 6), (10, 3), (-2, 4), (-3, 0)]
    pts = lists(r, 5, 0, 5, 0, 10, extra=[[], [2, 6, 10]])
    cases = {fn: pairs, mids: [(p,) for p in pts]}
    return dict(doc="Midpoints on an integer line.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("ari", "running", ["totals", "prefix", "ledger", "accum"], {"acc": False})
def t_running(r, site):
    prod = r.random() < 0.4
    fn = r.choice(["running_products", "prefix_products"] if prod else ["running_totals", "prefix_sums", "cumulative"])
    last = r.choice(["final_value", "last_total", "grand_total"])
    acc = r.choice(["total", "acc", "running"])
    start, op, bugop = ("1", "*=", "+=") if prod else ("0", "+=", "-=")
    what = "values[0] * ... * values[i]" if prod else "values[0] + ... + values[i]"
    line = f"        {acc} {op} v"
    funcs = [
        func(
            fn,
            "values",
            f"Item i of the result is {what}.",
            [
                f"    out, {acc} = [], {start}",
                "    for v in values:",
                line,
                f"        out.append({acc})",
                "    return out",
            ],
        ),
        func(
            last,
            "values",
            f"The last item of {fn}(values), or {start} for no values.",
            [f"    steps = {fn}(values)", f"    return steps[-1] if steps else {start}"],
        ),
    ]
    bug = (line, f"        {acc} {bugop} v")
    vals = lists(r, 6, 1, 5, 1, 5, extra=[[], [3]])
    cases = {fn: [(v,) for v in vals], last: [(v,) for v in vals]}
    return dict(doc="Running totals of a list.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("ari", "average", ["means", "averages", "scores", "grades"], {"div": True})
def t_average(r, site):
    fn = r.choice(["average", "mean", "floor_mean", "avg"])
    above = r.choice(["above_average", "over_mean", "better_than_mean"])
    line = "    return sum(values) // len(values)"
    funcs = [
        func(
            fn,
            "values",
            "Mean of values rounded down to an integer; 0 for no values.",
            ["    if not values:", "        return 0", line],
        ),
        func(
            above,
            "values",
            "The values greater than the mean, in order.",
            [f"    return [v for v in values if v > {fn}(values)]"],
        ),
    ]
    bug = (line, "    return sum(values) * len(values)")
    wrong = (bug[1], "    return sum(values) / len(values)")
    vals = lists(r, 8, 1, 5, 0, 9, extra=[[], [4], [2, 4], [1, 2], [3, 3, 3]])
    cases = {fn: [(v,) for v in vals], above: [(v,) for v in vals]}
    return dict(doc="Integer averages.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("ari", "net", ["balance", "budget", "accounts", "cashflow"], {"sign": False})
def t_net(r, site):
    fn = r.choice(["net_change", "balance_delta", "net_flow"])
    ok = r.choice(["is_solvent", "not_losing", "breaks_even"])
    ins, outs = r.choice([("deposits", "withdrawals"), ("income", "expenses"), ("gains", "losses")])
    line = f"    return sum({ins}) - sum({outs})"
    funcs = [
        func(fn, f"{ins}, {outs}", f"Total {ins} minus total {outs}.", [line]),
        func(ok, f"{ins}, {outs}", "True if the balance does not go down.", [f"    return {fn}({ins}, {outs}) >= 0"]),
    ]
    bug = (line, f"    return sum({ins}) + sum({outs})")
    a = lists(r, 5, 0, 3, 0, 20, extra=[[], [10]])
    b = lists(r, 4, 0, 3, 0, 20, extra=[[], [5, 5]])
    cases = {fn: [(x, y) for x in a for y in b][:24], ok: [(x, y) for x in a for y in b][:24]}
    return dict(doc="Account balance arithmetic.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("ari", "dot", ["vectors", "linalg", "products"], {"mul": False})
def t_dot(r, site):
    fn = r.choice(["dot", "dot_product", "inner"])
    sq = r.choice(["norm_squared", "sum_of_squares", "energy"])
    line = "    return sum(x * y for x, y in zip(xs, ys))"
    funcs = [
        func(fn, "xs, ys", "Sum of xs[i] * ys[i] over all positions.", [line]),
        func(sq, "xs", "Sum of the squares of xs.", [f"    return {fn}(xs, xs)"]),
    ]
    bug = (line, "    return sum(x + y for x, y in zip(xs, ys))")
    vecs = lists(r, 9, 2, 3, 0, 5, extra=[[], [2, 2], [1]])
    cases = {fn: [(u, v) for u in vecs for v in vecs if len(u) == len(v)], sq: [(v,) for v in vecs]}
    return dict(doc="Vector products.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("ari", "pages", ["paging", "pagination", "pages"], {"ceil": True})
def t_pages(r, site):
    fn = r.choice(["pages_needed", "page_count", "num_pages"])
    fits = r.choice(["fits_in", "fits_on", "is_enough"])
    n, per = r.choice([("n_items", "per_page"), ("count", "size"), ("items", "page_size")])
    line = f"    return ({n} + {per} - 1) // {per}"
    funcs = [
        func(fn, f"{n}, {per}", f"Pages needed to show {n} items, {per} per page.", [line]),
        func(
            fits,
            f"{n}, {per}, pages",
            f"True if {n} items fit on that many pages.",
            [f"    return {fn}({n}, {per}) <= pages"],
        ),
    ]
    bug = (line, f"    return ({n} - {per} - 1) // {per}")
    wrong = (bug[1], f"    return {n} // {per} + 1")
    grid = [(a, b) for a in (0, 1, 5, 9, 10, 11, 20, 23) for b in (1, 3, 5, 10)]
    cases = {fn: grid, fits: [(a, b, p) for a, b in grid[::3] for p in (1, 2, 4)]}
    return dict(doc="Counting pages.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("ari", "seconds", ["clock", "timing", "durations"], {"minutes": False})
def t_seconds(r, site):
    fn = r.choice(["to_seconds", "total_seconds", "as_seconds"])
    back = r.choice(["split_seconds", "from_seconds", "hms"])
    h, m, s = r.choice([("h", "m", "s"), ("hours", "minutes", "seconds")])
    line = f"    return {h} * 3600 + {m} * 60 + {s}"
    funcs = [
        func(fn, f"{h}, {m}, {s}", f"Total seconds in {h} hours, {m} minutes and {s} seconds.", [line]),
        func(
            back,
            "total",
            "(hours, minutes, seconds) for a number of seconds.",
            ["    return total // 3600, total % 3600 // 60, total % 60"],
        ),
    ]
    bug = (line, f"    return {h} * 3600 + {m} // 60 + {s}")
    cases = {
        fn: [(a, b, c) for a in (0, 1, 2) for b in (0, 1, 30, 59) for c in (0, 5)],
        back: [(t,) for t in (0, 59, 60, 61, 3599, 3600, 3661, 7325)],
    }
    return dict(doc="Clock arithmetic.", funcs=funcs, bug=bug, wrong=None, cases=cases)


# ---------------------------------------------------------------- off-by-one


@template("obo", "sum-upto", ["series", "triangles", "sums"], {"range": False, "list": False})
def t_sum_upto(r, site):
    squares = r.random() < 0.4
    fn = r.choice(["sum_of_squares", "square_total"] if squares else ["sum_to", "total_up_to", "triangle"])
    seq = r.choice(["first_values", "series", "table"])
    n = r.choice(["n", "top", "k"])
    term, what = ("i * i", f"1*1 + 2*2 + ... + {n}*{n}") if squares else ("i", f"1 + 2 + ... + {n}")
    line = f"    return sum({term} for i in range(1, {n} + 1))"
    lline = f"    return [{fn}(i) for i in range(1, count + 1)]"
    funcs = [
        func(fn, n, f"{what} (0 when {n} < 1).", [line]),
        func(seq, "count", f"[{fn}(1), {fn}(2), ..., {fn}(count)].", [lline]),
    ]
    if site == "range":
        bug = (line, f"    return sum({term} for i in range(1, {n}))")
    else:
        bug = (lline, f"    return [{fn}(i) for i in range(1, count)]")
    cases = {fn: [(v,) for v in range(0, 8)], seq: [(v,) for v in range(0, 6)]}
    return dict(doc="Sums of simple series.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("obo", "count-multiples", ["divisors", "multiples", "factors"], {"range": True})
def t_count_multiples(r, site):
    fn = r.choice(["count_multiples", "num_divisible", "multiples_up_to"])
    lst = r.choice(["list_multiples", "multiples", "divisible_upto"])
    n, k = r.choice([("n", "k"), ("limit", "step"), ("top", "d")])
    line = f"    return sum(1 for i in range(1, {n} + 1) if i % {k} == 0)"
    funcs = [
        func(fn, f"{n}, {k}", f"How many of 1, 2, ..., {n} are divisible by {k}.", [line]),
        func(
            lst,
            f"{n}, {k}",
            f"The numbers among 1, 2, ..., {n} divisible by {k}.",
            [f"    return [i for i in range(1, {n} + 1) if i % {k} == 0]"],
        ),
    ]
    bug = (line, f"    return sum(1 for i in range(1, {n}) if i % {k} == 0)")
    wrong = (bug[1], f"    return sum(1 for i in range({n}) if i % {k} == 0)")
    grid = [(a, b) for b in (2, 3, 4) for a in range(0, 13)]
    cases = {fn: grid, lst: grid[::2]}
    return dict(doc="Counting multiples.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("obo", "take-drop", ["slices", "heads", "prefixes"], {"take": False, "drop": False})
def t_take_drop(r, site):
    take = r.choice(["take", "first_n", "head"])
    drop = r.choice(["drop", "skip", "after_first"])
    n = r.choice(["n", "count", "k"])
    tline = f"    return values[:{n}]"
    dline = f"    return values[{n}:]"
    funcs = [
        func(take, f"values, {n}", f"The first {n} values ({n} >= 0).", [tline]),
        func(drop, f"values, {n}", f"All values except the first {n} ({n} >= 0).", [dline]),
    ]
    bug = (tline, f"    return values[:{n} - 1]") if site == "take" else (dline, f"    return values[{n} + 1:]")
    vals = lists(r, 4, 0, 6, 0, 9, extra=[[]])
    cases = {take: [(v, i) for v in vals for i in range(0, 4)], drop: [(v, i) for v in vals for i in range(0, 4)]}
    return dict(doc="Taking and dropping a prefix.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("obo", "window-sums", ["windows", "sliding", "runs"], {"bound": False, "slice": False})
def t_window_sums(r, site):
    fn = r.choice(["window_sums", "sliding_sums", "run_totals"])
    best = r.choice(["best_window", "max_window", "peak_run"])
    k = r.choice(["k", "width", "size"])
    line = f"    return [sum(values[i:i + {k}]) for i in range(len(values) - {k} + 1)]"
    funcs = [
        func(fn, f"values, {k}", f"Sums of every {k} consecutive values, left to right.", [line]),
        func(
            best,
            f"values, {k}",
            f"Largest sum of {k} consecutive values (0 if there is none).",
            [f"    return max({fn}(values, {k}), default=0)"],
        ),
    ]
    if site == "bound":
        bug = (line, f"    return [sum(values[i:i + {k}]) for i in range(len(values) - {k})]")
    else:
        bug = (line, f"    return [sum(values[i:i + {k} - 1]) for i in range(len(values) - {k} + 1)]")
    vals = lists(r, 5, 1, 7, 0, 9, extra=[[], [4]])
    cases = {fn: [(v, w) for v in vals for w in (1, 2, 3)], best: [(v, w) for v in vals for w in (2, 3)]}
    return dict(doc="Sliding window sums.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("obo", "adjacent-pairs", ["neighbours", "pairs", "steps"], {"bound": False})
def t_adjacent_pairs(r, site):
    fn = r.choice(["adjacent_pairs", "neighbours", "pairwise"])
    steps = r.choice(["steps", "deltas", "differences"])
    line = "    return [(values[i], values[i + 1]) for i in range(len(values) - 1)]"
    funcs = [
        func(fn, "values", "[(values[0], values[1]), (values[1], values[2]), ...] up to the last value.", [line]),
        func(
            steps,
            "values",
            "values[i + 1] - values[i] for each pair of neighbours.",
            [f"    return [b - a for a, b in {fn}(values)]"],
        ),
    ]
    bug = (line, "    return [(values[i], values[i + 1]) for i in range(len(values) - 2)]")
    vals = lists(r, 7, 2, 6, 0, 9, extra=[[], [5]])
    cases = {fn: [(v,) for v in vals], steps: [(v,) for v in vals]}
    return dict(doc="Neighbouring items of a list.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("obo", "nth-item", ["positions", "rows", "picks"], {"index": False})
def t_nth_item(r, site):
    fn = r.choice(["nth", "item_at", "pick"])
    col = r.choice(["column", "nth_of_each", "pick_all"])
    n = r.choice(["n", "position", "k"])
    line = f"    return values[{n} - 1]"
    funcs = [
        func(
            fn,
            f"values, {n}",
            f"The {n}-th value, counting from 1; None if there are fewer values.",
            [f"    if {n} > len(values):", "        return None", line],
        ),
        func(col, f"rows, {n}", f"{fn}(row, {n}) for every row.", [f"    return [{fn}(row, {n}) for row in rows]"]),
    ]
    bug = (line, f"    return values[{n}]")
    vals = lists(r, 5, 1, 5, 0, 9, extra=[[7]])
    cases = {fn: [(v, i) for v in vals for i in range(1, 5)], col: [(vals[:3], i) for i in range(1, 4)]}
    return dict(doc="Positions counted from 1.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("obo", "factorial", ["combinatorics", "factorials", "counting"], {"range": False})
def t_factorial(r, site):
    fn = r.choice(["factorial", "fact", "product_up_to"])
    ch = r.choice(["choose", "binomial", "n_choose_k"])
    n = r.choice(["n", "m"])
    line = f"    for i in range(2, {n} + 1):"
    funcs = [
        func(
            fn,
            n,
            f"1 * 2 * ... * {n} (1 for {n} = 0).",
            ["    result = 1", line, "        result *= i", "    return result"],
        ),
        func(
            ch,
            "n, k",
            "Number of ways to choose k of n items (0 <= k <= n).",
            [f"    return {fn}(n) // ({fn}(k) * {fn}(n - k))"],
        ),
    ]
    bug = (line, f"    for i in range(2, {n}):")
    cases = {fn: [(v,) for v in range(0, 8)], ch: [(a, b) for a in range(0, 7) for b in range(0, a + 1)]}
    return dict(doc="Factorials and binomial coefficients.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("obo", "last-n", ["tails", "suffixes", "recent"], {"slice": True})
def t_last_n(r, site):
    fn = r.choice(["last_n", "tail", "latest"])
    tot = r.choice(["recent_total", "tail_sum", "sum_latest"])
    n = r.choice(["n", "count", "k"])
    line = f"    return values[len(values) - {n}:]"
    funcs = [
        func(fn, f"values, {n}", f"The last {n} values (0 <= {n} <= len(values)).", [line]),
        func(tot, f"values, {n}", f"Sum of the last {n} values.", [f"    return sum({fn}(values, {n}))"]),
    ]
    bug = (line, f"    return values[len(values) - {n} + 1:]")
    wrong = (bug[1], f"    return values[-{n}:]")
    vals = lists(r, 4, 1, 5, 0, 9, extra=[[]])
    cases = {
        fn: [(v, i) for v in vals for i in range(0, len(v) + 1)],
        tot: [(v, i) for v in vals for i in range(0, len(v) + 1)],
    }
    return dict(doc="The end of a list.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("obo", "countdown", ["launch", "countdown", "timers"], {"stop": False})
def t_countdown(r, site):
    fn = r.choice(["countdown", "count_down", "descending"])
    text = r.choice(["launch_text", "announce", "count_text"])
    n = r.choice(["n", "start", "frm"])
    line = f"    return list(range({n}, 0, -1))"
    funcs = [
        func(fn, n, f"[{n}, {n} - 1, ..., 1]; empty when {n} < 1.", [line]),
        func(
            text,
            n,
            "Countdown words such as '3 2 1 go'.",
            [f'    return " ".join([str(i) for i in {fn}({n})] + ["go"])'],
        ),
    ]
    bug = (line, f"    return list(range({n}, 1, -1))")
    cases = {fn: [(v,) for v in range(0, 7)], text: [(v,) for v in range(0, 5)]}
    return dict(doc="Countdowns.", funcs=funcs, bug=bug, wrong=None, cases=cases)


# ---------------------------------------------------------------- swap


@template("swp", "min-max", ["extent", "limits", "ranges"], {"return": True})
def t_min_max(r, site):
    fn = r.choice(["min_max", "bounds", "low_high", "extent"])
    spread = r.choice(["spread", "span", "value_range"])
    lo, hi = r.choice([("lo", "hi"), ("low", "high"), ("smallest", "largest")])
    line = "    return min(values), max(values)"
    funcs = [
        func(fn, "values", "(smallest, largest) of a non-empty list.", [line]),
        func(
            spread,
            "values",
            "Largest minus smallest value; never negative.",
            [f"    {lo}, {hi} = {fn}(values)", f"    return {hi} - {lo}"],
        ),
    ]
    bug = (line, "    return max(values), min(values)")
    # the tempting wrong fix patches the symptom in the caller and leaves the bug in place
    wrong = (f"    return {hi} - {lo}", f"    return abs({hi} - {lo})")
    vals = lists(r, 8, 1, 5, 0, 9, extra=[[4], [2, 2]])
    cases = {fn: [(v,) for v in vals], spread: [(v,) for v in vals]}
    return dict(doc="Smallest and largest values.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


DIVMOD_UNITS = [
    ("minutes, seconds", 60, "seconds", ["to_min_sec", "minutes_seconds"]),
    ("feet, inches", 12, "inches", ["to_feet_inches", "feet_and_inches"]),
    ("weeks, days", 7, "days", ["to_weeks_days", "weeks_and_days"]),
]


@template("swp", "divmod-pair", ["units", "division", "convert"], {"return": False, "args": False})
def t_divmod_pair(r, site):
    fn = r.choice(["quot_rem", "div_mod", "split_division"])
    what, base, unit, names = r.choice(DIVMOD_UNITS)
    conv = r.choice(names)
    a, b = r.choice([("a", "b"), ("num", "den"), ("total", "size")])
    line = f"    return {a} // {b}, {a} % {b}"
    cline = f"    return {fn}({unit}, {base})"
    funcs = [
        func(fn, f"{a}, {b}", f"(quotient, remainder) of {a} divided by {b}.", [line]),
        func(conv, unit, f"({what}) for a number of {unit}.", [cline]),
    ]
    if site == "return":
        bug = (line, f"    return {a} % {b}, {a} // {b}")
    else:
        bug = (cline, f"    return {fn}({base}, {unit})")
    cases = {
        fn: [(x, y) for x in (0, 1, 7, 12, 25, 100) for y in (1, 3, 5, 12)],
        conv: [(v,) for v in (0, 1, base - 1, base, base + 1, 2 * base + 5, 10 * base)],
    }
    return dict(doc="Whole-number division into two parts.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("swp", "split-at", ["splits", "partition", "cuts"], {"return": False})
def t_split_at(r, site):
    fn = r.choice(["split_at", "cut_at", "partition_at"])
    halves = r.choice(["halves", "split_middle", "two_halves"])
    i = r.choice(["i", "index", "pos"])
    line = f"    return values[:{i}], values[{i}:]"
    funcs = [
        func(fn, f"values, {i}", f"(values before index {i}, values from index {i} on).", [line]),
        func(
            halves,
            "values",
            "Split in the middle; the first part is the shorter one.",
            [f"    return {fn}(values, len(values) // 2)"],
        ),
    ]
    bug = (line, f"    return values[{i}:], values[:{i}]")
    vals = lists(r, 4, 1, 5, 0, 9, extra=[[]])
    cases = {fn: [(v, k) for v in vals for k in range(0, 4)], halves: [(v,) for v in vals]}
    return dict(doc="Splitting lists in two.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("swp", "offset", ["positions", "offsets", "track"], {"operands": True})
def t_offset(r, site):
    fn = r.choice(["offset", "signed_distance", "delta"])
    many = r.choice(["offsets", "all_offsets", "deltas_from"])
    o, p = r.choice([("origin", "point"), ("start", "end"), ("ref", "pos")])
    line = f"    return {p} - {o}"
    funcs = [
        func(fn, f"{o}, {p}", f"Signed distance from {o} to {p}; negative when {p} is before {o}.", [line]),
        func(many, f"{o}, points", f"{fn}({o}, p) for every point p.", [f"    return [{fn}({o}, q) for q in points]"]),
    ]
    bug = (line, f"    return {o} - {p}")
    wrong = (bug[1], f"    return abs({o} - {p})")
    grid = [(a, b) for a in (0, 3, 10, -2) for b in (0, 1, 3, 8, 12, -5)]
    pts = lists(r, 4, 1, 4, -3, 12, extra=[[]])
    cases = {fn: grid, many: [(a, q) for a in (0, 3) for q in pts]}
    return dict(doc="Signed distances on a line.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("swp", "kv", ["settings", "config", "options"], {"return": False, "args": False})
def t_kv(r, site):
    fn = r.choice(["setting_text", "pair_text", "format_pair"])
    join = r.choice(["settings_text", "format_all", "render_settings"])
    key, value = r.choice([("key", "value"), ("name", "val"), ("field", "data")])
    sep = r.choice(["=", ": "])
    line = f'    return f"{{{key}}}{sep}{{{value}}}"'
    jline = f"    return \", \".join({fn}(k, v) for k, v in sorted(settings.items()))"
    funcs = [
        func(fn, f"{key}, {value}", f"Text '{key}{sep}{value}' for one setting.", [line]),
        func(join, "settings", f"{fn}() of every item of a dict, sorted by key, joined by ', '.", [jline]),
    ]
    if site == "return":
        bug = (line, f'    return f"{{{value}}}{sep}{{{key}}}"')
    else:
        bug = (jline, f"    return \", \".join({fn}(v, k) for k, v in sorted(settings.items()))")
    pairs = [("a", 1), ("port", 8080), ("name", "box"), ("debug", True), ("x", "y")]
    dicts = [{}, {"a": 1}, {"b": 2, "a": "z"}, {"mode": "fast", "level": 3}]
    cases = {fn: pairs, join: [(d,) for d in dicts]}
    return dict(doc="Formatting settings as text.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("swp", "squares", ["powers", "exponents", "squares"], {"args": False})
def t_squares(r, site):
    power = r.choice(["power", "raise_to", "pow_int"])
    e = r.choice([2, 3])
    many = r.choice(["squares", "squared", "all_squares"] if e == 2 else ["cubes", "cubed", "all_cubes"])
    base, exp = r.choice([("base", "exp"), ("b", "e"), ("x", "k")])
    line = f"    return [{power}(v, {e}) for v in values]"
    funcs = [
        func(power, f"{base}, {exp}", f"{base} raised to the power {exp}.", [f"    return {base} ** {exp}"]),
        func(many, "values", f"Every value raised to the power {e}.", [line]),
    ]
    bug = (line, f"    return [{power}({e}, v) for v in values]")
    vals = lists(r, 5, 1, 4, 0, 5, extra=[[], [e]])
    cases = {power: [(a, b) for a in (0, 1, 2, 3, 5) for b in (0, 1, 2, 3)], many: [(v,) for v in vals]}
    return dict(doc="Integer powers.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("swp", "head-tail", ["heads", "cons", "lists"], {"return": False})
def t_head_tail(r, site):
    fn = r.choice(["head_tail", "first_rest", "uncons"])
    size = r.choice(["rest_length", "count_rest", "tail_size"])
    h, t = r.choice([("head", "tail"), ("first", "rest"), ("x", "xs")])
    line = "    return values[0], values[1:]"
    funcs = [
        func(fn, "values", "(first value, list of the other values) of a non-empty list.", [line]),
        func(
            size,
            "values",
            "How many values follow the first one.",
            [f"    {h}, {t} = {fn}(values)", f"    return len({t})"],
        ),
    ]
    bug = (line, "    return values[1:], values[0]")
    vals = lists(r, 6, 1, 5, 0, 9, extra=[[3]])
    cases = {fn: [(v,) for v in vals], size: [(v,) for v in vals]}
    return dict(doc="Splitting off the first item.", funcs=funcs, bug=bug, wrong=None, cases=cases)


@template("swp", "change-due", ["tills", "payments", "cashier"], {"args": True})
def t_change_due(r, site):
    sub = r.choice(["subtract", "minus", "difference"])
    fn = r.choice(["change_due", "change_owed", "refund_amount"])
    paid, price = r.choice([("paid", "price"), ("given", "cost"), ("tendered", "total")])
    line = f"    return {sub}({paid}, {price})"
    funcs = [
        func(sub, "a, b", "a minus b.", ["    return a - b"]),
        func(
            fn,
            f"{paid}, {price}",
            f"Change to hand back: {paid} minus {price} (negative when {paid} is short).",
            [line],
        ),
    ]
    bug = (line, f"    return {sub}({price}, {paid})")
    wrong = (bug[1], f"    return abs({sub}({price}, {paid}))")
    grid = [(a, b) for a in (0, 5, 10, 20, 50) for b in (0, 3, 10, 15, 40)]
    cases = {sub: [(a, b) for a, b in grid[::2]], fn: grid}
    return dict(doc="Till arithmetic.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


@template("swp", "compare", ["ordering", "compare", "sorting_keys"], {"operands": True})
def t_compare(r, site):
    fn = r.choice(["compare", "cmp", "three_way"])
    many = r.choice(["compare_pairs", "orders", "all_compared"])
    a, b = r.choice([("a", "b"), ("x", "y"), ("left", "right")])
    line = f"    return ({a} > {b}) - ({a} < {b})"
    funcs = [
        func(fn, f"{a}, {b}", f"1 if {a} > {b}, -1 if {a} < {b}, 0 if they are equal.", [line]),
        func(many, "pairs", f"{fn}(p, q) for every pair (p, q).", [f"    return [{fn}(p, q) for p, q in pairs]"]),
    ]
    bug = (line, f"    return ({a} < {b}) - ({a} > {b})")
    wrong = (bug[1], f"    return 1 if {a} > {b} else -1")
    grid = [(x, y) for x in (0, 1, 2, 5) for y in (0, 1, 3, 5)]
    pl = [[], [(1, 2)], [(3, 1), (2, 2)], [(0, 5), (5, 0), (4, 4)], [(7, 8), (9, 1)]]
    cases = {fn: grid, many: [(p,) for p in pl]}
    return dict(doc="Three-way comparison.", funcs=funcs, bug=bug, wrong=wrong, cases=cases)


# ---------------------------------------------------------------------------
# distractor functions (always correct)
# ---------------------------------------------------------------------------


def filler(r):
    kind = r.randrange(6)
    if kind == 0:
        n = r.choice(["double", "twice"])
        return func(n, "x", "Twice x.", ["    return 2 * x"]), {n: [(v,) for v in (0, 1, 4, -3)]}
    if kind == 1:
        n = r.choice(["is_even", "even"])
        return func(n, "n", "True if n is even.", ["    return n % 2 == 0"]), {n: [(v,) for v in (0, 1, 2, 7, -4)]}
    if kind == 2:
        n = r.choice(["first_or_none", "head_or_none"])
        return (
            func(
                n, "values", "The first value, or None for an empty list.", ["    return values[0] if values else None"]
            ),
            {n: [([],), ([4, 5],), ([9],)]},
        )
    if kind == 3:
        n = r.choice(["unique_sorted", "distinct"])
        return (
            func(n, "values", "The distinct values in increasing order.", ["    return sorted(set(values))"]),
            {n: [([],), ([3, 1, 3],), ([2, 2, 2],), ([5, 4, 6],)]},
        )
    if kind == 4:
        n = r.choice(["shout", "loud"])
        return (
            func(n, "text", "text in upper case with a '!' appended.", ['    return text.upper() + "!"']),
            {n: [("hi",), ("",), ("Go on",)]},
        )
    n = r.choice(["word_count", "count_words"])
    return (
        func(n, "text", "Number of words separated by whitespace.", ["    return len(text.split())"]),
        {n: [("",), ("one",), ("a b  c",)]},
    )


# ---------------------------------------------------------------------------
# split plan
# ---------------------------------------------------------------------------
# Training and validation use the same (template, site) pairs (validation tasks are
# fresh instances: other names, constants and inputs).  Held-out tasks use only
# pairs never used for training: new bug sites in seen templates, and templates
# (functions) that appear nowhere else.

PLAN = {
    "cmp": dict(
        train=[
            "in-range/upper",
            "count-cmp/strict",
            "count-cmp/direction",
            "first-match/strict",
            "sorted-check/all",
            "sorted-check/drop",
            "argbest/tie",
            "argbest/direction",
            "count-of/count",
            "count-of/remove",
        ],
        validation=["in-range/upper", "count-of/remove", "first-match/strict"],
        heldout=["in-range/lower", "first-match/sentinel", "sign/pos", "leap/century"],
    ),
    "ari": dict(
        train=[
            "discount/sign",
            "shapes/area",
            "temperature/to-f",
            "midpoint/sum",
            "running/acc",
            "average/div",
            "net/sign",
            "dot/mul",
            "midpoint/sum",
            "shapes/area",
        ],
        validation=["average/div", "dot/mul", "net/sign"],
        heldout=["shapes/perimeter", "temperature/to-c", "pages/ceil", "seconds/minutes"],
    ),
    "obo": dict(
        train=[
            "sum-upto/range",
            "count-multiples/range",
            "take-drop/take",
            "window-sums/bound",
            "window-sums/slice",
            "adjacent-pairs/bound",
            "nth-item/index",
            "factorial/range",
            "count-multiples/range",
            "adjacent-pairs/bound",
        ],
        validation=["count-multiples/range", "take-drop/take", "factorial/range"],
        heldout=["sum-upto/list", "take-drop/drop", "last-n/slice", "countdown/stop"],
    ),
    "swp": dict(
        train=[
            "min-max/return",
            "divmod-pair/return",
            "split-at/return",
            "offset/operands",
            "kv/return",
            "squares/args",
            "head-tail/return",
            "min-max/return",
            "offset/operands",
            "split-at/return",
        ],
        validation=["offset/operands", "kv/return", "head-tail/return"],
        heldout=["divmod-pair/args", "kv/args", "change-due/args", "compare/operands"],
    ),
}
SPLITS = ["train", "validation", "heldout"]
PREFIXES = [
    "tiny",
    "mini",
    "easy",
    "plain",
    "neat",
    "quick",
    "handy",
    "basic",
    "simple",
    "small",
    "little",
    "micro",
    "snappy",
    "lean",
]


# ---------------------------------------------------------------------------
# building one task
# ---------------------------------------------------------------------------


class GenError(Exception):
    pass


def load_oracle_values():
    """activities/checker/python/oracle_values.py, imported by path (the generator stays a single stdlib script)."""
    spec = importlib.util.spec_from_file_location("oracle_values", ORACLE_VALUES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ov = load_oracle_values()


def module_source(doc, funcs):
    lines = [f'"""{doc}"""', ""]
    for i, (_, _, flines) in enumerate(funcs):
        if i:
            lines += ["", ""]
        else:
            lines += [""]
        lines += flines
    return "\n".join(lines) + "\n"


def replace_line(src, old, new):
    lines = src.split("\n")
    hits = [i for i, line in enumerate(lines) if line == old]
    if len(hits) != 1:
        raise GenError(f"line {old!r} occurs {len(hits)} times")
    lines[hits[0]] = new
    return "\n".join(lines)


def load(src, name):
    ns = {"__name__": name}
    exec(compile(src, f"<{name}>", "exec"), ns)  # noqa: S102 - our own generated code
    return ns


def call(ns, fname, args):
    try:
        return ("ok", ns[fname](*copy.deepcopy(args)))
    except Exception as error:  # noqa: BLE001
        return ("raise", type(error).__name__)


def oracle_outcome(ns, fname, args):
    """The outcome of one call as activities/checker/python/oracle_values.py's run_calls reports it."""
    try:
        result = ns[fname](*copy.deepcopy(args))
    except Exception as error:  # noqa: BLE001
        return {"raises": [cls.__name__ for cls in type(error).__mro__]}
    try:
        return {"value": ov.encode(result)}
    except ov.Unencodable as error:
        return {"error": f"Unencodable: {error}"}


def oracle_call(pkg, fname, args, outcome):
    """An oracle.json call whose expectation is the reference's outcome."""
    if "error" in outcome:
        raise GenError(f"{pkg}.{fname}{args!r}: the reference's result cannot be encoded")
    expect = {"value": outcome["value"]} if "value" in outcome else {"raises": outcome["raises"][0]}
    return {"module": pkg, "function": fname, "args": [ov.encode(a) for a in args], "expect": expect}


def passes(want, got):
    """Would `assert f(...) == want` (or `is want` for bools) pass for this outcome?"""
    if got[0] != "ok":
        return False
    if isinstance(want, bool):
        return got[1] is want
    try:
        return bool(got[1] == want)
    except Exception:  # noqa: BLE001
        return False


def lit(value):
    text = repr(value)
    if eval(text) != value or type(eval(text)) is not type(value):  # noqa: S307
        raise GenError(f"value {value!r} does not round-trip through repr")
    return text


def call_src(fname, args):
    return f"{fname}({', '.join(lit(a) for a in args)})"


def assert_src(fname, args, want):
    op = "is" if isinstance(want, bool) or want is None else "=="
    return f"    assert {call_src(fname, args)} {op} {lit(want)}"


def unified(pkg, before, after):
    path = f"{pkg}/__init__.py"
    diff = difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}", n=3)
    return f"diff --git a/{path} b/{path}\n" + "".join(diff)


def changed_lines(a, b):
    la, lb = a.split("\n"), b.split("\n")
    if len(la) != len(lb):
        return None
    return sum(1 for x, y in zip(la, lb) if x != y)


def yaml_prompt(text):
    """text as the indented lines of a task.yaml block scalar, wrapped at 76 columns, never inside a `code span`."""
    spans = text.split("`")
    text = "`".join(part.replace(" ", "\0") if i % 2 else part for i, part in enumerate(spans))
    wrapped = textwrap.wrap(text, 76, break_long_words=False, break_on_hyphens=False)
    return "\n".join("  " + line.replace("\0", " ") for line in wrapped)


def build_task(r, tkey, site, pkg, task_id, weak_wanted, distractor=True):
    """One task's files and metadata; distractor=False never adds the optional correct function (shorter modules)."""
    tpl = TEMPLATES[tkey]
    spec = tpl["build"](r, site)
    funcs = list(spec["funcs"])
    cases = dict(spec["cases"])
    fixed_src = module_source(spec["doc"], funcs)
    # optionally one correct distractor function, if it fits in the line budget
    if distractor and r.random() < 0.5:
        ffunc, fcases = filler(r)
        if ffunc[0] not in cases:
            trial = funcs + [ffunc] if r.random() < 0.6 else [ffunc] + funcs
            trial_src = module_source(spec["doc"], trial)
            if len(trial_src.splitlines()) <= MAX_MODULE_LINES:
                funcs, fixed_src = trial, trial_src
                cases.update(fcases)
    nlines = len(fixed_src.splitlines())
    if not 5 <= nlines <= MAX_MODULE_LINES:
        raise GenError(f"{task_id}: module has {nlines} lines")
    correct_line, buggy_line = spec["bug"]
    buggy_src = replace_line(fixed_src, correct_line, buggy_line)
    bug_fn = next(name for name, _, flines in funcs if correct_line in flines)
    wrong_src = None
    if weak_wanted:
        if not spec["wrong"]:
            raise GenError(f"{task_id}: no wrong fix for {tkey}/{site}")
        wrong_src = replace_line(buggy_src, *spec["wrong"])
        if wrong_src in (fixed_src, buggy_src) or changed_lines(buggy_src, wrong_src) != 1:
            raise GenError(f"{task_id}: bad wrong fix")
    if changed_lines(fixed_src, buggy_src) != 1:
        raise GenError(f"{task_id}: the bug must change exactly one line")

    fixed, buggy = load(fixed_src, pkg), load(buggy_src, pkg)
    wrong = load(wrong_src, pkg) if wrong_src else None
    order = [name for name, _, _ in funcs]
    docs = {name: doc for name, doc, _ in funcs}
    rows = []  # (fn, args, want, buggy_ok, wrong_ok)
    grid = []  # (fn, args): the whole grid, for oracle.json
    for fname in order:
        seen = []
        for args in cases.get(fname, []):
            if args in seen:
                continue
            seen.append(args)
            grid.append((fname, args))
            res = call(fixed, fname, args)
            if res[0] != "ok":
                continue  # tests assert values: only the oracle checks an input the reference refuses
            want = res[1]
            lit(want)
            b = passes(want, call(buggy, fname, args))
            w = passes(want, call(wrong, fname, args)) if wrong else True
            rows.append(dict(fn=fname, args=args, want=want, bug_ok=b, wrong_ok=w, bug_out=call(buggy, fname, args)))

    # visible: for each function, a few examples the bug does not affect, and one or two it does;
    # for weak tasks only cases the wrong fix also gets right
    visible = {}
    budget = sum(1 for x in rows if not x["bug_ok"]) - 1  # leave at least one failing case for the hidden tests
    for fname in [bug_fn] + [f for f in order if f != bug_fn]:
        mine = [x for x in rows if x["fn"] == fname and x["wrong_ok"]]
        same = [x for x in mine if x["bug_ok"]]
        diff = [x for x in mine if not x["bug_ok"]]
        ex = r.sample(same, min(3, len(same)))
        want_edges = 2 if fname == bug_fn else (1 if r.random() < 0.5 or not visible[bug_fn][1] else 0)
        edges = r.sample(diff, max(0, min(want_edges, len(diff), budget)))
        budget -= len(edges)
        visible[fname] = (ex, edges)
    vis_edges = [x for f in order for x in visible[f][1]]
    if not vis_edges:
        raise GenError(f"{task_id}: no visible test catches the bug")
    chosen = {id(x) for f in order for x in visible[f][0] + visible[f][1]}
    # hidden: more cases the bug gets wrong (and, for weak tasks, cases the wrong fix gets wrong)
    rest = [x for x in rows if not x["bug_ok"] and id(x) not in chosen]
    own = [x for x in rest if x["fn"] == bug_fn]
    other = [x for x in rest if x["fn"] != bug_fn]
    hidden = r.sample(own, min(2, len(own))) + r.sample(other, min(1, len(other)))
    if not hidden:
        raise GenError(f"{task_id}: no hidden test catches the bug")
    if wrong:
        wmiss = [x for x in rows if not x["wrong_ok"] and id(x) not in chosen and x not in hidden]
        if not any(not x["wrong_ok"] for x in rows):
            raise GenError(f"{task_id}: the wrong fix is right on every case")
        hidden += r.sample(wmiss, min(2, len(wmiss)))
    # the tests that decide the task (the visible and hidden ones the bug fails) must bring a
    # guesser's chance to 2^-10 (activities/checker/twins.ts decidingBound): a boolean answer is one bit
    # per test, so a task whose deciding answers are all booleans gets hidden tests up to ten of them
    # (a test the bug passes already is answered without guessing: only the ones it fails count)
    deciding = [x for x in vis_edges + hidden if not x["bug_ok"]]
    if all(isinstance(x["want"], bool) for x in deciding) and len(deciding) < BOOLEAN_DECIDING:
        spare = [
            x
            for x in rows
            if id(x) not in chosen and x not in hidden and isinstance(x["want"], bool) and not x["bug_ok"]
        ]
        extra = random.Random(f"{task_id}:boolean-hidden").sample(
            spare, min(BOOLEAN_DECIDING - len(deciding), len(spare))
        )
        hidden += extra
    hidden.sort(key=lambda x: rows.index(x))

    # --- files
    files = {}
    tested = [f for f in order if visible[f][0] or visible[f][1]]
    vis = [f"from {pkg} import {', '.join(sorted(tested))}", ""]
    for fname in tested:
        ex, edges = visible[fname]
        if ex:
            vis += ["", f"def test_{fname}():"] + [assert_src(fname, x["args"], x["want"]) for x in ex] + [""]
        for k, x in enumerate(edges):
            suffix = "" if k == 0 else f"_{k + 1}"
            vis += ["", f"def test_{fname}_edge_case{suffix}():", assert_src(fname, x["args"], x["want"]), ""]
    files[f"repo/tests/test_{pkg}.py"] = "\n".join(vis).rstrip("\n") + "\n"
    files[f"repo/{pkg}/__init__.py"] = buggy_src

    hid_fns = sorted({x["fn"] for x in hidden})
    hid = [f"from {pkg} import {', '.join(hid_fns)}", ""]
    counts = {}
    for x in hidden:
        counts[x["fn"]] = counts.get(x["fn"], 0) + 1
        hid += ["", f"def test_{x['fn']}_more_{counts[x['fn']]}():", assert_src(x["fn"], x["args"], x["want"]), ""]
    files[f"hidden/tests/test_hidden_{pkg}.py"] = "\n".join(hid).rstrip("\n") + "\n"

    oracle_calls = [oracle_call(pkg, fname, args, oracle_outcome(fixed, fname, args)) for fname, args in grid]
    for name, module in (("the bug", buggy), ("the wrong fix", wrong)):
        if module and all(
            ov.outcome_matches(c["expect"], oracle_outcome(module, fname, args))
            for c, (fname, args) in zip(oracle_calls, grid)
        ):
            raise GenError(f"{task_id}: {name} matches every oracle call")
    files[ORACLE] = ov.format_oracle(oracle_calls)

    files["solution.patch"] = unified(pkg, buggy_src, fixed_src)
    if wrong_src:
        files["wrong-fix.patch"] = unified(pkg, buggy_src, wrong_src)

    # prompt: the first visible failing case, preferring the buggy function itself
    rep = next((x for x in vis_edges if x["fn"] == bug_fn), vis_edges[0])
    out = rep["bug_out"]
    got = f"returns `{out[1]!r}`" if out[0] == "ok" else f"raises `{out[1]}`"
    text = (
        f"Bug report: `{pkg}.{rep['fn']}` misbehaves. `{call_src(rep['fn'], rep['args'])}` {got}, "
        f"but it should return `{lit(rep['want'])}`; its docstring says: \"{docs[rep['fn']]}\" "
        "The repository is in the current directory. Tests run with `python3 -m pytest -q`. "
        "Fix the bug in the package code (not the tests), then submit."
    )
    files["task.yaml"] = f"id: @ID@\nprompt: |\n{yaml_prompt(text)}\nbudgets:\n  maxTurns: {MAX_TURNS}\n"
    meta = dict(
        template=tkey, site=site, function=bug_fn, package=pkg, wrongFix=bool(wrong_src), reportedFunction=rep["fn"]
    )
    # the pieces of the bug report, for prompts that say more (tasks/generate_curriculum.py)
    meta["report"] = dict(
        call=call_src(rep["fn"], rep["args"]), got=got, want=lit(rep["want"]), doc=docs[rep["fn"]], buggyLine=buggy_line
    )
    return files, meta


def generate():
    """All suite files as {relative path: text}, plus the metadata."""
    files = {}
    meta = {}
    splits = {s: [] for s in SPLITS}
    used_pkgs, used_src = set(), set()
    counters = {fam: 0 for fam in FAMILIES}
    for split in SPLITS:
        for fam in FAMILIES:
            for entry in PLAN[fam][split]:
                tkey, site = entry.split("/")
                tpl = TEMPLATES[tkey]
                if tpl["family"] != fam or site not in tpl["sites"]:
                    raise GenError(f"plan entry {fam}:{entry} is wrong")
                number = counters[fam] + 1
                for attempt in range(50):
                    r = random.Random(f"{SEED}:{split}:{fam}:{number}:{entry}:{attempt}")
                    pkg = r.choice(PREFIXES) + r.choice(tpl["stems"]).replace("_", "")
                    if pkg in used_pkgs or pkg in sys.stdlib_module_names:
                        continue
                    task_files, task_meta = build_task(r, tkey, site, pkg, f"{fam}-{number}", tpl["sites"][site])
                    src = task_files[f"repo/{pkg}/__init__.py"]
                    if src.split("\n", 1)[1] not in used_src:
                        break
                else:
                    raise GenError(f"could not make a fresh instance of {entry}")
                counters[fam] = number
                task_id = f"{fam}-{task_meta['function'].replace('_', '-')}-{number:02d}"
                task_files["task.yaml"] = task_files["task.yaml"].replace("id: @ID@\n", f"id: {task_id}\n", 1)
                used_pkgs.add(pkg)
                used_src.add(src.split("\n", 1)[1])
                for path, text in task_files.items():
                    files[f"{split}/{task_id}/{path}"] = text
                splits[split].append(task_id)
                meta[task_id] = dict(family=FAMILIES[fam], split=split, **task_meta)
    check_plan(meta)
    files["splits.json"] = json.dumps(splits_doc(splits, meta), indent=2) + "\n"
    files["README.md"] = readme(splits, meta)
    return files, splits, meta


def check_plan(meta):
    train_pairs = {(m["template"], m["site"]) for m in meta.values() if m["split"] == "train"}
    train_tpls = {m["template"] for m in meta.values() if m["split"] == "train"}
    for tid, m in meta.items():
        pair = (m["template"], m["site"])
        if m["split"] == "validation" and pair not in train_pairs:
            raise GenError(f"{tid}: validation pair {pair} is not a training pair")
        if m["split"] == "heldout" and pair in train_pairs:
            raise GenError(f"{tid}: held-out pair {pair} is used for training")
        m_novel = None
        if m["split"] == "heldout":
            m_novel = "new-function" if m["template"] not in train_tpls else "new-bug-site"
        m["novelty"] = m_novel
    for split in SPLITS:
        ids = [t for t, m in meta.items() if m["split"] == split]
        weak = sum(1 for t in ids if meta[t]["wrongFix"])
        if weak * 4 < len(ids):
            raise GenError(f"{split}: only {weak} of {len(ids)} tasks have wrong-fix.patch")


def splits_doc(splits, meta):
    tasks = {}
    for split in SPLITS:
        for tid in splits[split]:
            m = meta[tid]
            entry = dict(
                split=split,
                family=m["family"],
                template=m["template"],
                site=m["site"],
                function=m["function"],
                package=m["package"],
                wrongFix=m["wrongFix"],
            )
            if m["novelty"]:
                entry["novelty"] = m["novelty"]
            tasks[tid] = entry
    return dict(
        seed=SEED,
        generator="tasks/generate_suite.py",
        train=splits["train"],
        validation=splits["validation"],
        heldout=splits["heldout"],
        families={tid: meta[tid]["family"] for split in SPLITS for tid in splits[split]},
        tasks=tasks,
    )


def readme(splits, meta):
    fams = list(FAMILIES)

    def count(split, fam=None, weak=False):
        return sum(
            1
            for t in splits[split]
            if (fam is None or meta[t]["family"] == FAMILIES[fam]) and (not weak or meta[t]["wrongFix"])
        )

    lines = [
        "# Generated bug-fix suite",
        "",
        (
            f"Generated by `python3 tasks/generate_suite.py` (Python >= 3.10, stdlib only, seed {SEED}); do not edit "
            f"by hand."
        ),
        "The generator deletes and rewrites this folder and gives byte-identical files on every run.",
        "`python3 tasks/generate_suite.py --check` exits 1 if this folder is stale; `--verify` also runs",
        "every task's checks with the host's pytest.",
        "",
        "`expected-tests.json` is not generated: record it with",
        "`node bin/agentrl.js task validate tasks/suite/<split>/<id>` (in real containers). A rerun of the",
        "generator keeps a task's `expected-tests.json` only if every file of that task but `oracle.json` is",
        "unchanged (its `oracle` list is empty: there are no oracle pytest files), and prints how many tasks",
        "must be validated again.",
        "",
        "Each task is a normal task folder (see the top-level README): `repo/<pkg>/__init__.py` (5-25 lines,",
        "two or three small functions, exactly one buggy line), visible tests in `repo/tests/`, hidden tests",
        "in `hidden/tests/`, `oracle.json`: calls of every function over a small input grid with the",
        "reference outputs as plain data (format `agentrl-oracle/1`, see `docs/oracle-format.md`; the",
        "true-success audit runs the calls in the container and compares outside it), `solution.patch`",
        "(one line) and, for tasks with deliberately weak visible tests, `wrong-fix.patch`: a plausible",
        "one-line wrong fix that passes the visible tests but fails the hidden tests and misses some oracle",
        f"calls. `budgets.maxTurns` is {MAX_TURNS}.",
        "",
        "## Families",
        "",
    ]
    for fam in fams:
        lines.append(f"- `{fam}` **{FAMILIES[fam]}**: {FAMILY_TEXT[fam]}.")
    lines += [
        "",
        "Each family has a few hand-written templates (a tiny module of related functions with a",
        "documented contract). A task draws the package name, function and parameter names, constants,",
        "operator variants, input lists and an optional correct distractor function at random, and puts",
        "the bug at one of the template's *bug sites*. Tests come from running the correct, buggy and",
        "wrong-fix modules over the template's input grid: visible tests hold a few unaffected examples",
        "and one or two failing cases (for weak tasks only cases the wrong fix also passes), hidden tests",
        "hold further failing cases (and cases the wrong fix gets wrong), `oracle.json` holds the whole grid.",
        "",
        "## Splits",
        "",
        "The split is fixed by `PLAN` in the generator, per family, over (template, bug site) pairs:",
        "",
        "- `train`: the training pairs.",
        "- `validation`: fresh instances (other names, constants, inputs) of training pairs, for choices",
        "  such as checkpoints and hyperparameters.",
        "- `heldout`: only pairs never used for training or validation: a new bug site in a training",
        "  template (`novelty: new-bug-site` in `splits.json`) or a template whose functions appear in no",
        "  other split (`novelty: new-function`). Never use it for any choice.",
        "",
        "No two tasks share a package name or module text. `splits.json` lists the ids per split, the",
        "family of each id (`families`), and per task its template, bug site, buggy function, package,",
        "whether it ships `wrong-fix.patch` and (held-out only) its novelty.",
        "",
        "| split | " + " | ".join(FAMILIES[f] for f in fams) + " | total | with wrong-fix.patch |",
        "|---|" + "---|" * (len(fams) + 2),
    ]
    for split in SPLITS:
        lines.append(
            f"| {split} | "
            + " | ".join(str(count(split, f)) for f in fams)
            + f" | {count(split)} | {count(split, weak=True)} |"
        )
    lines += ["", "| family | template | bug site | split (tasks) |", "|---|---|---|---|"]
    pairs = {}
    for split in SPLITS:
        for tid in splits[split]:
            m = meta[tid]
            pairs.setdefault((m["family"], m["template"], m["site"]), {}).setdefault(split, 0)
            pairs[(m["family"], m["template"], m["site"])][split] += 1
    for (fam, tpl, site), where in sorted(
        pairs.items(), key=lambda kv: (fams.index(next(f for f in fams if FAMILIES[f] == kv[0][0])), kv[0][1], kv[0][2])
    ):
        where_text = ", ".join(f"{s} ({n})" for s, n in where.items())
        weak = " (wrong fix)" if TEMPLATES[tpl]["sites"][site] else ""
        lines.append(f"| {fam} | {tpl} | {site}{weak} | {where_text} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# writing, checking, verifying
# ---------------------------------------------------------------------------


def task_dirs(root, splits=None):
    """Task folders under root as split/id, for the split folders given (default: the suite's splits)."""
    out = []
    for split in splits or SPLITS:
        base = os.path.join(root, split)
        if os.path.isdir(base):
            out += [
                os.path.join(split, d)
                for d in sorted(os.listdir(base))
                if os.path.isfile(os.path.join(base, d, "task.yaml"))
            ]
    return out


def digest_of(entries):
    h = hashlib.sha256()
    for path in sorted(entries):
        h.update(path.encode() + b"\0" + entries[path] + b"\0")
    return h.hexdigest()


def validated_files(entries):
    """The files whose content decides the test ids in expected-tests.json: all but oracle.json and oracle/."""
    return {p: b for p, b in entries.items() if p != ORACLE and not p.startswith("oracle" + os.sep)}


def without_oracle_ids(expected):
    """expected-tests.json with an empty "oracle" list (generated tasks have no oracle pytest files)."""
    doc = json.loads(expected)
    if not doc.get("oracle"):
        return expected
    doc["oracle"] = []
    return (json.dumps(doc, indent=2) + "\n").encode()


def read_task(root, rel):
    out = {}
    base = os.path.join(root, rel)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", ".pytest_cache"))
        for name in filenames:
            path = os.path.join(dirpath, name)
            relp = os.path.relpath(path, base)
            if relp != EXPECTED:
                with open(path, "rb") as fh:
                    out[relp] = fh.read()
    return out


def existing_files(root):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", ".pytest_cache"))
        for name in filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if os.path.basename(rel) != EXPECTED:
                with open(path, "rb") as fh:
                    out[rel] = fh.read()
    return out


def write_suite(files, root=None, splits=None):
    """Delete and rewrite root (default tasks/suite/), keeping expected-tests.json of every task whose files are unchanged."""
    root = root or SUITE
    kept = {}
    if os.path.isdir(root):
        for rel in task_dirs(root, splits):
            exp = os.path.join(root, rel, EXPECTED)
            if os.path.isfile(exp):
                with open(exp, "rb") as fh:
                    kept[rel] = (digest_of(validated_files(read_task(root, rel))), fh.read())
        shutil.rmtree(root)
    for rel, text in sorted(files.items()):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    restored, stale = 0, []
    for rel in task_dirs(root, splits):
        if rel in kept and kept[rel][0] == digest_of(validated_files(read_task(root, rel))):
            with open(os.path.join(root, rel, EXPECTED), "wb") as fh:
                fh.write(without_oracle_ids(kept[rel][1]))
            restored += 1
        else:
            stale.append(rel)
    return restored, stale


def check_suite(files, root=None):
    """Differences between files and what root (default tasks/suite/) holds, expected-tests.json aside."""
    root = root or SUITE
    want = {rel: text.encode() for rel, text in files.items()}
    have = existing_files(root) if os.path.isdir(root) else {}
    problems = [f"missing or different: {p}" for p in sorted(want) if have.get(p) != want[p]]
    problems += [f"unexpected: {p}" for p in sorted(set(have) - set(want))]
    return problems


def verify(root, splits=None):
    """Host-python checks of every task."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    failures = 0

    def pytest(cwd, *args):
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        return proc.returncode, proc.stdout

    def oracle(task, tree):
        """0: every oracle call matches; 1: some call misses; 2: the oracle could not be run."""
        proc = subprocess.run(
            [sys.executable, "-I", "-B", ORACLE_VALUES, "check", os.path.join(task, ORACLE), tree],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        return proc.returncode, proc.stdout

    for rel in task_dirs(root, splits):
        task = os.path.join(root, rel)
        errs = []
        with tempfile.TemporaryDirectory() as tmp:

            def fresh(name, patch=None, extra=()):
                d = os.path.join(tmp, name)
                shutil.copytree(os.path.join(task, "repo"), d)
                if patch:
                    subprocess.run(
                        ["git", "apply", os.path.join(task, patch)],
                        cwd=d,
                        check=True,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE,
                    )
                for e in extra:
                    shutil.copytree(os.path.join(task, e), d, dirs_exist_ok=True)
                return d

            hidden_file = [os.path.join("tests", f) for f in os.listdir(os.path.join(task, "hidden", "tests"))]
            d = fresh("start")
            if pytest(d)[0] != 1:
                errs.append("visible tests do not fail on the start")
            if oracle(task, d)[0] != 1:
                errs.append("the start matches every oracle call")
            d = fresh("start-h", extra=["hidden"])
            if pytest(d, *hidden_file)[0] != 1:
                errs.append("hidden tests do not fail on the start")
            d = fresh("sol", "solution.patch")
            if pytest(d)[0] != 0:
                errs.append("solution fails visible")
            rc, out = oracle(task, d)
            if rc != 0:
                errs.append("solution misses oracle calls:\n" + out[-800:])
            d = fresh("sol-all", "solution.patch", ["hidden"])
            rc, out = pytest(d)
            if rc != 0:
                errs.append("solution fails visible+hidden:\n" + out[-800:])
            if os.path.exists(os.path.join(task, "wrong-fix.patch")):
                d = fresh("wrong", "wrong-fix.patch")
                if pytest(d)[0] != 0:
                    errs.append("wrong fix fails visible")
                if oracle(task, d)[0] != 1:
                    errs.append("wrong fix matches every oracle call")
                if pytest(fresh("wrong-all", "wrong-fix.patch", ["hidden"]))[0] != 1:
                    errs.append("wrong fix passes visible+hidden")
        print(("ok   " if not errs else "FAIL ") + rel)
        for e in errs:
            print("     " + e)
        failures += bool(errs)
    return failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if tasks/suite/ differs")
    parser.add_argument("--verify", action="store_true", help="after writing, run every task's checks with host pytest")
    args = parser.parse_args(argv)
    files, splits, meta = generate()
    if args.check:
        problems = check_suite(files)
        for p in problems[:20]:
            print(p)
        print("tasks/suite is up to date" if not problems else f"tasks/suite is stale ({len(problems)} differences)")
        return 1 if problems else 0
    restored, stale = write_suite(files)
    for split in SPLITS:
        ids = splits[split]
        by_fam = ", ".join(f"{FAMILIES[f]} {sum(1 for t in ids if meta[t]['family'] == FAMILIES[f])}" for f in FAMILIES)
        weak = sum(1 for t in ids if meta[t]["wrongFix"])
        print(f"{split}: {len(ids)} tasks ({by_fam}); {weak} with wrong-fix.patch")
    print(
        f"wrote {os.path.relpath(SUITE)}: {len(files)} files; kept expected-tests.json for {restored} tasks; "
        f"{len(stale)} need `node bin/agentrl.js task validate`"
    )
    if args.verify:
        failed = verify(SUITE)
        print("all tasks verified" if not failed else f"{failed} tasks FAILED")
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
