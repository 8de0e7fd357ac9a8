"""The analysis's bounds: size, depth and time limits (beyond them a file is "unanalysable"), and the
thread with a large C stack that every file's analysis runs in."""

import ast
import sys
import threading
import time

# size and depth limits of the analysis (beyond them: "unanalysable")
MAX_SOURCE_BYTES = 1024 * 1024  # a .py file larger than this is not analysed
MAX_AST_DEPTH = 1000  # deeper syntax trees are not walked (recursive visitors)
MAX_CODE_STRINGS = 64  # constant code strings (exec("...")) analysed per file
MAX_CODE_STRING_NESTING = 8  # exec("exec('...')") levels
ANALYSIS_RECURSION_LIMIT = 8000  # recursion limit while one file is analysed
ANALYSIS_STACK_BYTES = 256 * 1024 * 1024  # C stack of the analysis thread
ANALYSIS_SECONDS = 10.0  # one file's analysis (and the pristine copy's, for a modified file)
DETECTOR_SECONDS = 60.0  # all files of a run together; what is left after it is not analysed
deadline = [float("inf")]  # when the analysis running now must stop


class AnalysisTimeout(Exception):
    """The analysis of a file ran past its time: the file is "unanalysable"."""


def on_time():
    """Raises AnalysisTimeout once the analysis running now is past its deadline."""
    if time.monotonic() > deadline[0]:
        raise AnalysisTimeout()


def ast_too_deep(tree, limit):
    """Whether the tree nests deeper than limit (iterative: safe on any tree)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + 1))
    return False


def run_isolated(fn, *args):
    """Runs fn(*args) in a thread with a large C stack and a raised recursion
    limit, so that deep (but bounded) recursion in ast.parse and the visitors
    neither overflows the C stack nor depends on the caller's stack depth.
    Where no such thread can be started, fn runs in the calling thread under the
    caller's own recursion limit (deep files then fail early: "unanalysable")."""
    box = {}

    def target():
        try:
            box["result"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised below
            box["error"] = e

    started = False
    try:
        old_size = threading.stack_size(ANALYSIS_STACK_BYTES)
    except (ValueError, RuntimeError):
        old_size = None
    if old_size is not None:
        old_limit = sys.getrecursionlimit()
        try:
            sys.setrecursionlimit(max(old_limit, ANALYSIS_RECURSION_LIMIT))
            t = threading.Thread(target=target, name="detect-tamper-analysis", daemon=True)
            try:
                t.start()
                started = True
            except RuntimeError:
                pass
            if started:
                t.join()
        finally:
            sys.setrecursionlimit(old_limit)
            threading.stack_size(old_size)
    if not started:
        target()
    if "error" in box:
        raise box["error"]
    return box["result"]
