"""The analysis of one Python file's bytes: decoded as the interpreter decodes them (PEP 263), parsed,
walked, and the constant code strings it passes to exec()/eval()/compile() analysed in the same way,
within the bounds of bounds.py. No content makes it fail: what cannot be analysed is "unanalysable"."""

import ast
import io
import time
import tokenize

from .bounds import (
    ANALYSIS_SECONDS,
    MAX_AST_DEPTH,
    MAX_CODE_STRING_NESTING,
    MAX_CODE_STRINGS,
    MAX_SOURCE_BYTES,
    AnalysisTimeout,
    ast_too_deep,
    deadline,
    on_time,
    run_isolated,
)
from .module import analyse_tree
from .shared import exc_text


def source_problem(data):
    """Why the bytes cannot be decoded as the interpreter would decode them, or None."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeError) as e:
        return "cannot decode the source (%s)" % exc_text(e)
    return None


def parse(source, path):
    """ast.Module of a source (bytes honour their coding cookie, like import does),
    or None for a SyntaxError.  Other errors propagate (the caller reports them)."""
    try:
        return ast.parse(source, filename=path)
    except SyntaxError:
        # Not a finding: a file with a syntax error cannot be imported either, so it
        # cannot forge anything.  (Decoding problems are caught before parsing, by
        # source_problem, because ast.parse reports them as SyntaxError too.)  This
        # holds while the detector's Python accepts every syntax the graded
        # interpreter accepts: run it with a Python at least as new as the sandbox's.
        return None


def analyse_bytes(path, data):
    """Findings (kind, line, detail) for the bytes of one Python file.  May raise
    (RecursionError, MemoryError, ...): analyse_python turns that into a finding."""
    if len(data) > MAX_SOURCE_BYTES:
        return [
            ("unanalysable", 0, "file is %d bytes, over the %d-byte analysis limit" % (len(data), MAX_SOURCE_BYTES))
        ]
    problem = source_problem(data)
    if problem:
        return [("unanalysable", 0, problem)]
    try:
        tree = parse(data, path)
    except (RecursionError, MemoryError) as e:
        return [("unanalysable", 0, "the parser gave up (%s): nested too deeply or too large" % type(e).__name__)]
    if tree is None:
        return []
    found = []
    # (tree, import_level, parent names, nesting, line and call in the file that holds it)
    work = [(tree, True, None, 0, None)]
    strings_seen = 0
    while work:
        on_time()
        sub, import_level, parent, nesting, origin = work.pop(0)
        if ast_too_deep(sub, MAX_AST_DEPTH):
            found.append(
                (
                    "unanalysable",
                    origin[0] if origin else 0,
                    "syntax tree nested deeper than %d levels%s" % (MAX_AST_DEPTH, origin_text(origin)),
                )
            )
            continue
        names, sub_found, code_strings = analyse_tree(path, sub, import_level, parent)
        for kind, line, detail in sub_found:
            if origin:
                found.append((kind, origin[0], "%s%s" % (detail, origin_text(origin))))
            else:
                found.append((kind, line, detail))
        for source, line, at_import, what in code_strings:
            # findings inside code strings are reported at the call in the file itself
            where = origin or (line, what)
            strings_seen += 1
            if strings_seen > MAX_CODE_STRINGS:
                found.append(
                    (
                        "unanalysable",
                        where[0],
                        "more than %d code strings passed to exec(), eval() or compile()%s"
                        % (MAX_CODE_STRINGS, origin_text(where)),
                    )
                )
                work = []
                break
            if nesting + 1 > MAX_CODE_STRING_NESTING:
                found.append(
                    (
                        "unanalysable",
                        where[0],
                        "code strings nested more than %d levels deep%s"
                        % (MAX_CODE_STRING_NESTING, origin_text(where)),
                    )
                )
                continue
            if isinstance(source, bytes):
                problem = source_problem(source)
                if problem:
                    found.append(("unanalysable", where[0], "%s%s" % (problem, origin_text(where))))
                    continue
            try:
                code = parse(source, path)
            except (RecursionError, MemoryError) as e:
                found.append(
                    ("unanalysable", where[0], "the parser gave up (%s)%s" % (type(e).__name__, origin_text(where)))
                )
                continue
            if code is not None:
                work.append((code, import_level and at_import, names, nesting + 1, where))
    return found


def origin_text(origin):
    """Where a finding inside a code string comes from, as the end of its detail ("" for the file itself)."""
    if not origin:
        return ""
    return " (in the code string passed to %s, line %d)" % (origin[1], origin[0])


def analyse_python(path, data, seconds=ANALYSIS_SECONDS):
    """Findings (kind, line, detail) for the bytes of one Python file; never raises
    (an error of the analysis, or one that runs past `seconds`, becomes an "unanalysable" finding)."""
    deadline[0] = time.monotonic() + max(0.0, seconds)
    try:
        return run_isolated(analyse_bytes, path, data)
    except Exception as e:  # noqa: BLE001 - any failure means the file was not analysed
        if isinstance(e, AnalysisTimeout):
            detail = "the analysis ran past its %g s bound" % round(seconds, 3)
        elif isinstance(e, (RecursionError, MemoryError)):
            detail = "analysis gave up (%s): nested too deeply or too large" % type(e).__name__
        else:
            detail = "internal analyser error (%s)" % exc_text(e)
        return [("unanalysable", 0, detail)]
