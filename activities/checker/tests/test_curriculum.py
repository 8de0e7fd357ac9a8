"""Tests for tasks/curriculum/ (written by tasks/generate_curriculum.py): current, prompts that point at the bug, splits apart."""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CURRICULUM = ROOT / "tasks" / "curriculum"
SPLITS = json.loads((CURRICULUM / "splits.json").read_text(encoding="utf-8"))


def task_dir(task_id):
    entry = SPLITS["tasks"][task_id]
    return CURRICULUM / entry["level"] / entry["split"] / task_id


def prompt(task):
    """The prompt of task.yaml, unwrapped onto one line."""
    lines = (task / "task.yaml").read_text(encoding="utf-8").split("\n")
    start = lines.index("prompt: |") + 1
    body = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        body.append(line.strip())
    return " ".join(body)


def fixed_line(task):
    """(path, 1-based number, buggy text) of the one line solution.patch replaces."""
    patch = (task / "solution.patch").read_text(encoding="utf-8").split("\n")
    path = next(line[len("--- a/") :] for line in patch if line.startswith("--- a/"))
    removed = []
    number = None
    for line in patch:
        hunk = re.match(r"@@ -(\d+)", line)
        if hunk:
            number = int(hunk.group(1))
        elif number is not None and not line.startswith(("+", "\\")):
            if line.startswith("-"):
                removed.append((number, line[1:]))
            number += 1
    assert len(removed) == 1, (task, removed)
    return path, removed[0][0], removed[0][1]


def modules(task_ids):
    out = {}
    for task_id in task_ids:
        package = SPLITS["tasks"][task_id]["package"]
        src = (task_dir(task_id) / "repo" / package / "__init__.py").read_text(encoding="utf-8")
        out[task_id] = (package, src.split("\n", 1)[1])
    return out


def test_the_generated_curriculum_is_current():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tasks" / "generate_curriculum.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_every_line_prompt_names_the_buggy_line_and_quotes_it():
    ids = SPLITS["levels"]["line"]["train"] + SPLITS["levels"]["line"]["heldout"]
    assert len(ids) == 32
    for task_id in ids:
        task = task_dir(task_id)
        text = prompt(task)
        found = re.match(r"Line (\d+) of `([^`]+)` has a bug: `([^`]+)`\. ", text)
        assert found, (task_id, text)
        number, path, quoted = int(found.group(1)), found.group(2), found.group(3)
        lines = (task / "repo" / path).read_text(encoding="utf-8").split("\n")
        assert lines[number - 1].strip() == quoted, (task_id, number, quoted)
        assert lines[number - 1] == " " * (len(lines[number - 1]) - len(quoted)) + quoted, task_id
        assert fixed_line(task) == (path, number, lines[number - 1]), task_id


def test_every_function_prompt_names_the_buggy_function():
    ids = SPLITS["levels"]["function"]["train"] + SPLITS["levels"]["function"]["heldout"]
    assert len(ids) == 32
    for task_id in ids:
        task = task_dir(task_id)
        text = prompt(task)
        found = re.match(r"The function `(\w+)` in `([^`]+)` has a bug\. ", text)
        assert found, (task_id, text)
        function, path = found.group(1), found.group(2)
        assert "Line " not in text and "line " not in text.split("Fix that")[0], (task_id, text)
        src = (task / "repo" / path).read_text(encoding="utf-8").split("\n")
        _, number, _ = fixed_line(task)
        enclosing = next(line for line in reversed(src[:number]) if line.startswith("def "))
        assert enclosing.startswith(f"def {function}("), (task_id, enclosing)
        # the example is a call of that function, so the prompt never points at a second one
        assert f"`{SPLITS['tasks'][task_id]['package']}.{function}(" in text, (task_id, text)


def test_held_out_tasks_are_new_instances_of_the_training_pairs():
    suite_tasks = json.loads((ROOT / "tasks" / "suite" / "splits.json").read_text(encoding="utf-8"))["tasks"]
    suite_train_pairs = {(t["template"], t["site"]) for t in suite_tasks.values() if t["split"] == "train"}
    for level, splits in SPLITS["levels"].items():
        train, heldout = splits["train"], splits["heldout"]
        assert len(train) == len(heldout) == 16, level
        pairs = {
            split: sorted((SPLITS["tasks"][t]["template"], SPLITS["tasks"][t]["site"]) for t in ids)
            for split, ids in splits.items()
        }
        assert pairs["train"] == pairs["heldout"], level
        assert set(pairs["train"]) <= suite_train_pairs, level
        held, trained = modules(heldout), modules(train)
        assert not {p for p, _ in held.values()} & {p for p, _ in trained.values()}, level
        assert not {m for _, m in held.values()} & {m for _, m in trained.values()}, level


def test_no_two_tasks_of_the_curriculum_and_the_suite_share_a_package_or_module_text():
    packages, texts = [], []
    for task_id in SPLITS["tasks"]:
        package, text = modules([task_id])[task_id]
        packages.append(package)
        texts.append(text)
    for module in sorted((ROOT / "tasks" / "suite").glob("*/*/repo/*/__init__.py")):
        packages.append(module.parent.name)
        texts.append(module.read_text(encoding="utf-8").split("\n", 1)[1])
    assert len(packages) == 64 + 68
    assert len(set(packages)) == len(packages)
    assert len(set(texts)) == len(texts)
