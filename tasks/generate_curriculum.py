#!/usr/bin/env python3
"""Generate tasks/curriculum/: the suite's training bugs, with prompts that say where the bug is.

A small model cannot yet find a bug from a report alone (the prompts of tasks/suite/).  This curriculum
builds fresh instances of the suite's training (template, bug site) pairs with the suite generator's
templates and checks, and gives the model more of the bug's location the lower the level:

    line       the file, the line number and the buggy line itself, then the report's example
    function   the file and the function, then the report's example
    report     (tasks/suite/ itself, not written here) the report's example alone

Each level has a `train` split and a `heldout` split of further fresh instances of the same pairs:
held-out tasks are new names, constants and inputs, not new bug sites.  No two tasks of the curriculum
or of tasks/suite/ share a package name or module text.

Usage (from anywhere; Python >= 3.10, stdlib only):

    python3 tasks/generate_curriculum.py            # delete and rewrite tasks/curriculum/
    python3 tasks/generate_curriculum.py --verify   # ... then check every task with host pytest
    python3 tasks/generate_curriculum.py --check    # write nothing; exit 1 if tasks/curriculum/ is stale

The output is a pure function of SEED, this file and tasks/generate_suite.py (whose suite decides
which names are taken).  expected-tests.json is kept across reruns exactly as tasks/generate_suite.py
keeps it: only for a task whose files (but oracle.json) are unchanged.
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_suite as suite  # noqa: E402 - the templates, task builder and writer are the suite's

SEED = 20250301
CURRICULUM = os.path.join(suite.HERE, "curriculum")
LEVELS = {
    "line": "the file path, the line number and the buggy line, then the report's example",
    "function": "the file path and the buggy function, then the report's example",
}
SPLITS = ["train", "heldout"]
SPLIT_DIRS = [f"{level}/{split}" for level in LEVELS for split in SPLITS]

# Four training pairs of the suite per family, the ones with the shortest modules (11 lines without the
# optional distractor, which the curriculum never adds), and in each family at least one with a wrong fix.
PAIRS = {
    "cmp": ["in-range/upper", "count-cmp/strict", "count-cmp/direction", "count-of/count"],
    "ari": ["shapes/area", "dot/mul", "midpoint/sum", "temperature/to-f"],
    "obo": ["sum-upto/range", "count-multiples/range", "take-drop/take", "adjacent-pairs/bound"],
    "swp": ["divmod-pair/return", "split-at/return", "offset/operands", "kv/return"],
}


def body(src):
    """Module text without its docstring line: two modules alike but for the docstring are the same task."""
    return src.split("\n", 1)[1]


def line_prompt(pkg, report, line_number):
    return (
        f"Line {line_number} of `{pkg}/__init__.py` has a bug: `{report['buggyLine'].strip()}`. "
        f"`{pkg}.{report['call']}` {report['got']}, but it should return `{report['want']}`; "
        f"its docstring says: \"{report['doc']}\" Fix that line, then submit. "
        "Tests run with `python3 -m pytest -q`."
    )


def function_prompt(pkg, function, report):
    return (
        f"The function `{function}` in `{pkg}/__init__.py` has a bug. "
        f"`{pkg}.{report['call']}` {report['got']}, but it should return `{report['want']}`; "
        f"its docstring says: \"{report['doc']}\" Fix that function, then submit. "
        "Tests run with `python3 -m pytest -q`."
    )


def buggy_line_number(src, line):
    numbers = [i + 1 for i, text in enumerate(src.split("\n")) if text == line]
    if len(numbers) != 1:
        raise suite.GenError(f"the buggy line {line!r} occurs {len(numbers)} times")
    return numbers[0]


def check_pairs():
    train_pairs = {entry for fam in suite.PLAN for entry in suite.PLAN[fam]["train"]}
    for fam, entries in PAIRS.items():
        for entry in entries:
            tkey, site = entry.split("/")
            if entry not in suite.PLAN[fam]["train"] or suite.TEMPLATES[tkey]["family"] != fam:
                raise suite.GenError(f"{fam}:{entry} is not a training pair of the suite's family {fam}")
            if site not in suite.TEMPLATES[tkey]["sites"]:
                raise suite.GenError(f"{entry}: no bug site {site}")
    return train_pairs


def generate():
    """All curriculum files as {relative path: text}, plus the splits and metadata."""
    check_pairs()
    suite_files, _, suite_meta = suite.generate()
    used_pkgs = {m["package"] for m in suite_meta.values()}
    used_src = {body(text) for path, text in suite_files.items() if path.endswith("/__init__.py")}
    files, meta = {}, {}
    splits = {level: {split: [] for split in SPLITS} for level in LEVELS}
    counters = {(level, fam): 0 for level in LEVELS for fam in suite.FAMILIES}
    for level in LEVELS:
        for split in SPLITS:
            for fam, entries in PAIRS.items():
                for entry in entries:
                    tkey, site = entry.split("/")
                    tpl = suite.TEMPLATES[tkey]
                    number = counters[(level, fam)] + 1
                    for attempt in range(50):
                        r = random.Random(f"{SEED}:{level}:{split}:{fam}:{number}:{entry}:{attempt}")
                        pkg = r.choice(suite.PREFIXES) + r.choice(tpl["stems"]).replace("_", "")
                        if pkg in used_pkgs or pkg in sys.stdlib_module_names:
                            continue
                        task_files, task_meta = suite.build_task(
                            r, tkey, site, pkg, f"{level}-{fam}-{number}", tpl["sites"][site], distractor=False
                        )
                        src = task_files[f"repo/{pkg}/__init__.py"]
                        # the example must come from the function the prompt names
                        if body(src) not in used_src and task_meta["reportedFunction"] == task_meta["function"]:
                            break
                    else:
                        raise suite.GenError(f"could not make a fresh instance of {entry} for {level}/{split}")
                    counters[(level, fam)] = number
                    task_id = f"{level}-{fam}-{task_meta['function'].replace('_', '-')}-{number:02d}"
                    report = task_meta.pop("report")
                    line_number = buggy_line_number(src, report["buggyLine"])
                    if level == "line":
                        text = line_prompt(pkg, report, line_number)
                    else:
                        text = function_prompt(pkg, task_meta["function"], report)
                    task_files["task.yaml"] = (
                        f"id: {task_id}\nprompt: |\n{suite.yaml_prompt(text)}\n"
                        f"budgets:\n  maxTurns: {suite.MAX_TURNS}\n"
                    )
                    used_pkgs.add(pkg)
                    used_src.add(body(src))
                    for path, content in task_files.items():
                        files[f"{level}/{split}/{task_id}/{path}"] = content
                    splits[level][split].append(task_id)
                    meta[task_id] = dict(
                        level=level,
                        split=split,
                        family=suite.FAMILIES[fam],
                        template=tkey,
                        site=site,
                        function=task_meta["function"],
                        line=line_number,
                        package=pkg,
                        wrongFix=task_meta["wrongFix"],
                    )
    files["splits.json"] = json.dumps(splits_doc(splits, meta), indent=2) + "\n"
    files["README.md"] = readme(splits, meta)
    return files, splits, meta


def splits_doc(splits, meta):
    return dict(
        seed=SEED,
        generator="tasks/generate_curriculum.py",
        levels={level: splits[level] for level in LEVELS},
        tasks=meta,
    )


def readme(splits, meta):
    fams = list(suite.FAMILIES)

    def count(level, split, fam=None):
        return sum(1 for t in splits[level][split] if fam is None or meta[t]["family"] == suite.FAMILIES[fam])

    lines = [
        "# Generated bug-fix curriculum",
        "",
        f"Generated by `python3 tasks/generate_curriculum.py` (Python >= 3.10, stdlib only, seed {SEED}); do not",
        "edit by hand. The generator deletes and rewrites this folder and gives byte-identical files on every run.",
        "`python3 tasks/generate_curriculum.py --check` exits 1 if this folder is stale; `--verify` also runs",
        "every task's checks with the host's pytest.",
        "",
        "`expected-tests.json` is not generated: record it with",
        "`node bin/agentrl.js task validate tasks/curriculum/<level>/<split>/<id>` (in real containers). A rerun",
        "keeps a task's `expected-tests.json` only if every file of that task but `oracle.json` is unchanged.",
        "",
        "The tasks are those of `tasks/suite/` (see its README: the same templates, bug sites, tests, oracle",
        "calls, `solution.patch` with one changed line, `wrong-fix.patch` where the bug site has one,",
        f"`budgets.maxTurns` {suite.MAX_TURNS}), built by the suite generator's own code, with two differences:",
        "modules never get the optional distractor function (11 lines each, the model reads the whole file),",
        "and the prompt says where the bug is. The less it says, the higher the level:",
        "",
        "| level | folder | the prompt gives |",
        "|---|---|---|",
    ]
    for level, what in LEVELS.items():
        lines.append(f"| `{level}` | `tasks/curriculum/{level}/` | {what} |")
    lines += [
        "| `report` | `tasks/suite/` | the report's example alone (which function misbehaves on which call) |",
        "",
        "The example is always a call of the buggy function itself: what it returns and what it should",
        "return, with its docstring. The `line` prompt quotes the buggy line without its indentation.",
        "",
        "## Splits",
        "",
        "Per level and per family, four of the suite's *training* (template, bug site) pairs:",
        "",
        "- `train`: one fresh instance of each pair (other package, function and parameter names, constants",
        "  and inputs than any suite task).",
        "- `heldout`: one further fresh instance of each of the same pairs. Held-out tasks test whether the fix",
        "  carries over to new names and numbers, not to new bug sites: for those, the suite's own `heldout`.",
        "",
        "No two tasks of the curriculum (any level, any split) or of `tasks/suite/` share a package name or",
        "module text. `splits.json` lists the ids per level and split (`levels`), and per task its level,",
        "split, family, template, bug site, buggy function, buggy line number, package and whether it ships",
        "`wrong-fix.patch`.",
        "",
        "| level | split | " + " | ".join(suite.FAMILIES[f] for f in fams) + " | total | with wrong-fix.patch |",
        "|---|---|" + "---|" * (len(fams) + 2),
    ]
    for level in LEVELS:
        for split in SPLITS:
            weak = sum(1 for t in splits[level][split] if meta[t]["wrongFix"])
            lines.append(
                f"| {level} | {split} | "
                + " | ".join(str(count(level, split, f)) for f in fams)
                + f" | {count(level, split)} | {weak} |"
            )
    lines += ["", "| family | template | bug site |", "|---|---|---|"]
    for fam, entries in PAIRS.items():
        for entry in entries:
            tkey, site = entry.split("/")
            weak = " (wrong fix)" if suite.TEMPLATES[tkey]["sites"][site] else ""
            lines.append(f"| {suite.FAMILIES[fam]} | {tkey} | {site}{weak} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if tasks/curriculum/ differs")
    parser.add_argument("--verify", action="store_true", help="after writing, run every task's checks with host pytest")
    args = parser.parse_args(argv)
    files, splits, meta = generate()
    if args.check:
        problems = suite.check_suite(files, CURRICULUM)
        for p in problems[:20]:
            print(p)
        print(
            "tasks/curriculum is up to date"
            if not problems
            else f"tasks/curriculum is stale ({len(problems)} differences)"
        )
        return 1 if problems else 0
    restored, stale = suite.write_suite(files, CURRICULUM, SPLIT_DIRS)
    for level in LEVELS:
        for split in SPLITS:
            ids = splits[level][split]
            weak = sum(1 for t in ids if meta[t]["wrongFix"])
            print(f"{level}/{split}: {len(ids)} tasks; {weak} with wrong-fix.patch")
    print(
        f"wrote {os.path.relpath(CURRICULUM)}: {len(files)} files; kept expected-tests.json for {restored} tasks; "
        f"{len(stale)} need `node bin/agentrl.js task validate`"
    )
    if args.verify:
        failed = suite.verify(CURRICULUM, SPLIT_DIRS)
        print("all tasks verified" if not failed else f"{failed} tasks FAILED")
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
