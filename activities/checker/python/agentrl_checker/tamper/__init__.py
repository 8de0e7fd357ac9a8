"""agentrl tamper detector: static (AST) checks of an agent's changes.

Usage:
    python3 -I detect-tamper.py < input.json > output.json

Input (stdin): one JSON document, or JSON lines (what the worker sends): the document
without "changes" and with "format": "lines" on the first line, then one change per line.
    {"changes": [{"path": "pkg/mod.py",
                  "status": "added" | "modified" | "deleted",
                  "after": "<new text>" | null,
                  "afterBase64": "<base64 of the new bytes>" | null,  (optional)
                  "before": "<old text>" | null,
                  "beforeBase64": "<base64 of the old bytes>" | null, (optional)
                  "protected": true | false,      (optional, default false)
                  "symlink": true | false}],      (optional, default false)
     "kindsFile": "/path/to/tamper-kinds.json",   (optional)
     "kinds": {"<kind>": {"effect": ..., "description": ...}}}  (optional)

File content: "afterBase64" (standard base64, the exact bytes of the file) is
meant for files that are not valid UTF-8, "after" for those that are (it is
analysed as its UTF-8 encoding).  When both are given, "afterBase64" wins.
Python files are analysed from their bytes, so a PEP 263 coding cookie is
honoured exactly as the interpreter honours it on import.  An added or
modified, non-protected .py file without content (both null) is reported as
"unanalysable".  "before"/"beforeBase64" are validated but not analysed.

Output (stdout, JSON): {"findings": [{"kind": str, "path": str, "detail": str}]}
sorted by path, then kind, then line.  Exit status 0 on success, 2 on invalid
input (message on stderr).  No file content can make the detector fail: a
file that cannot be analysed becomes an "unanalysable" finding for its path.

The kind table (shared/tamper-kinds.json) is taken from, in order: the inline
"kinds" object, "kindsFile", shared/tamper-kinds.json of this repository,
and finally the built-in copy BUILTIN_KINDS (kept equal to the JSON file by a
test).  Every kind this detector can emit must be present in the table.

Only the Python 3.11 standard library is used.  Importable:
``detect(changes) -> list[dict]``, ``load_kinds(path) -> dict`` and
``analyse_python(path, data) -> [(kind, line, detail)]``.

The modules, by concern: ``kinds`` and ``paths`` (the tables it reads),
``names`` (name resolution), ``toplevel`` and ``module`` (module-level
analysis), ``scoped`` with its rule families (``exits``, ``equality``,
``runner``, ``descriptors``, ``dynamic``, ``patches``), ``bounds`` (isolation
and time bounds), ``analysis`` (one file), ``driver`` (``detect``) and ``cli``
(input parsing and ``main``).
"""

from .analysis import analyse_python
from .cli import main
from .driver import detect
from .kinds import BUILTIN_KINDS, load_kinds

__all__ = ["BUILTIN_KINDS", "analyse_python", "detect", "load_kinds", "main"]
