"""Plain-data values for task oracles (oracle.json), and a runner for oracle calls.

Stdlib only: this file is also copied into task containers, where the runner
imports it.  The format of oracle.json is described in docs/oracle-format.md.

Encoding (`encode`), chosen so that a JavaScript JSON.parse keeps every distinction:

    None                  -> null
    bool                  -> true / false
    int                   -> a JSON number if -(2**53) < v < 2**53, else {"$int": "<decimal>"}
    float                 -> {"$float": repr(v)}, always ('1.0', 'nan', 'inf', '-inf', '-0.0'),
                             so 1, 1.0 and True stay three different values
    str                   -> a JSON string (a lone surrogate is refused: it has no UTF-8 form)
    list                  -> a JSON array
    tuple                 -> {"$tuple": [...]}
    set, frozenset        -> {"$set": [...]}, elements sorted by their dumps() text
    dict                  -> {"$dict": [[key, value], ...]}, pairs sorted by dumps(key); always
                             tagged, so no key of a user's dict can pass for a tag
    bytes                 -> {"$bytes": "<standard base64>"}

Only these exact types are encoded (`type(v) is int`, not isinstance): a subclass
can carry its own __eq__ or __repr__, so a candidate could return an int that
claims to equal anything.  Anything else (subclasses, bytearray, objects,
functions) raises Unencodable with the type's name; so do containers nested more
than max_depth levels ("too deep"), a container that holds itself ("cycle") and
values of more than max_nodes parts ("too large": shared sub-values are counted
every time, as they are written every time).  Encoding never runs code of the
value: exact builtin types have no user hooks.

The encoding is canonical: equal values (by the rules above) have one encoding,
and `decode` accepts nothing else (it raises Undecodable).  So two values are
the same exactly when their dumps() texts are equal; NaN is then the same as
NaN, -0.0 differs from 0.0, and 1 differs from 1.0.  Sorting compares the texts
by code point.  (Outcomes are compared less strictly in one respect: floats,
below.)

Oracle calls (`run_calls`, `outcome_matches`): a call names a module of the
tree at import_root, a function and its encoded args and kwargs.  Its outcome is
exactly one of {"value": <encoded>}, {"raises": [the exception class's MRO as
qualified names]} or {"error": "<why the call could not be made or its result
not encoded>"}.  A qualified name is `module.QualName` (`builtins.ValueError`),
written only for a class that really is the object that name finds
(`exception_names`): a home-made class called ValueError, or one that claims
`__module__ = "builtins"`, is written as `?module.QualName` and matches no
expectation.  An expectation {"value": v} matches the same encoded value,
floats aside (`values_match`: within FLOAT_ULPS units in the last place);
{"raises": "Name"} matches an exception with that class somewhere in its MRO
(`qualified_exception`: a bare name is a builtin's, `builtins.Name`); an error
matches nothing.  An outcome that is not exactly one of the three shapes
matches nothing.

Floats in a value (`values_match`): two floats match when both are NaN, both
are the same infinity, or they lie at most FLOAT_ULPS (4) apart in the ordering
of IEEE-754 doubles (adjacent doubles are 1 apart; -0.0 and 0.0 are the same
place).  Everything else matches exactly: ints, bools, strings, bytes, None and
the container shapes (a list is not a tuple, 1 is not 1.0, True is not 1).
Floats in lists, tuples and dict values compare with the tolerance element by
element; set elements and dict keys compare exactly (they are what makes two
sets or dicts different, and their canonical order is by text, which an ulp
can change).

Usage (for trusted tooling; the audit's runner sends calls without `expect`):

    python3 oracle_values.py run IMPORT_ROOT < calls.json       # outcomes as JSON on stdout
    python3 oracle_values.py check ORACLE_JSON IMPORT_ROOT       # exit 0 if every call matches, 1 if not
"""

import base64
import contextlib
import importlib
import json
import math
import struct
import sys

FORMAT = "agentrl-oracle/1"
SAFE_INT = 2**53  # |v| < 2**53: exact in a JavaScript number
TAGS = ("$int", "$float", "$tuple", "$set", "$dict", "$bytes")
# Floats this many places apart in the IEEE-754 ordering still match (4 ulps, a relative
# difference below 1e-15).  An honest rewrite of the reference (another evaluation order, exact
# arithmetic with Fraction or math.fsum) lands a rounding or two away: 0.1 + 0.2 is 1 place from
# 0.3, sum([0.1] * 10) 1 place from math.fsum's 1.0.  A wrong result is far off: a relative error
# of 1e-12 is thousands of places, an off-by-one or a wrong formula billions.  The same number is
# floatUlps in activities/checker/oracle-audit.ts.
FLOAT_ULPS = 4


class Unencodable(ValueError):
    """A value outside the encoding; args[0] names its type, or says "too deep", "cycle", "too large"."""


class Undecodable(ValueError):
    """Data that is not the canonical encoding of any value."""


def _text(data):
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def encode(value, max_depth=64, max_nodes=1_000_000):
    """The JSON-compatible encoding of value (rules in the module docstring)."""
    budget = [max_nodes]
    open_containers = set()  # ids of the containers on the current path, to find cycles

    def enc(v, depth):
        budget[0] -= 1
        if budget[0] < 0:
            raise Unencodable("too large")
        kind = type(v)
        if v is None or kind is bool:
            return v
        if kind is int:
            if -SAFE_INT < v < SAFE_INT:
                return v
            try:
                return {"$int": str(v)}
            except ValueError:  # more digits than sys.get_int_max_str_digits()
                raise Unencodable("too large") from None
        if kind is float:
            return {"$float": repr(v)}
        if kind is str:
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise Unencodable("str with a lone surrogate") from None
            return v
        if kind is bytes:
            return {"$bytes": base64.b64encode(v).decode("ascii")}
        if kind not in (list, tuple, set, frozenset, dict):
            raise Unencodable(kind.__name__)
        if depth >= max_depth:
            raise Unencodable("too deep")
        if id(v) in open_containers:
            raise Unencodable("cycle")
        open_containers.add(id(v))
        try:
            if kind is list:
                return [enc(x, depth + 1) for x in v]
            if kind is tuple:
                return {"$tuple": [enc(x, depth + 1) for x in v]}
            if kind is dict:
                pairs = [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in v.items()]
                return {"$dict": sorted(pairs, key=lambda pair: _text(pair[0]))}
            return {"$set": sorted((enc(x, depth + 1) for x in v), key=_text)}
        finally:
            open_containers.discard(id(v))

    try:
        return enc(value, 0)
    except RecursionError:  # only reachable with a max_depth near the interpreter's limit
        raise Unencodable("too deep") from None


def dumps(value):
    """The encoding of value as compact JSON text (its canonical text)."""
    return _text(encode(value))


def decode(data, max_depth=64):
    """The value whose encoding is data; raises Undecodable for anything encode would not write."""

    def dec(d, depth, hashable):
        kind = type(d)
        if d is None or kind is bool or kind is str:
            return d
        if kind is int:
            if not -SAFE_INT < d < SAFE_INT:
                raise Undecodable(f"bare integer {d} is outside (-2**53, 2**53); use $int")
            return d
        if kind is float:
            raise Undecodable(f"bare JSON number {d!r}; floats are tagged $float")
        if kind is list:
            if depth >= max_depth:
                raise Undecodable("too deep")
            if hashable:
                raise Undecodable("a list cannot be a set element or a dict key")
            return [dec(x, depth + 1, False) for x in d]
        if kind is not dict or len(d) != 1 or next(iter(d)) not in TAGS:
            raise Undecodable(f"expected a JSON value or an object with one of {', '.join(TAGS)}")
        ((tag, body),) = d.items()
        if tag == "$int":
            value = _canonical_int(body)
            if -SAFE_INT < value < SAFE_INT:
                raise Undecodable(f"$int {body} is a safe integer; write it as a number")
            return value
        if tag == "$float":
            return _canonical_float(body)
        if tag == "$bytes":
            return _canonical_bytes(body)
        if type(body) is not list:
            raise Undecodable(f"{tag} holds an array")
        if depth >= max_depth:
            raise Undecodable("too deep")
        if tag == "$tuple":
            return tuple(dec(x, depth + 1, hashable) for x in body)
        if tag == "$set":
            _check_sorted(body, lambda x: x, tag)
            items = [dec(x, depth + 1, True) for x in body]
            out = frozenset(items) if hashable else set(items)
            if len(out) != len(items):
                raise Undecodable("$set has equal elements")
            return out
        # $dict
        if hashable:
            raise Undecodable("a dict cannot be a set element or a dict key")
        if any(type(pair) is not list or len(pair) != 2 for pair in body):
            raise Undecodable("$dict holds [key, value] pairs")
        _check_sorted(body, lambda pair: pair[0], tag)
        out = {dec(k, depth + 1, True): dec(v, depth + 1, False) for k, v in body}
        if len(out) != len(body):
            raise Undecodable("$dict has equal keys")
        return out

    try:
        return dec(data, 0, False)
    except RecursionError:
        raise Undecodable("too deep") from None


def _canonical_int(body):
    try:
        value = int(body) if type(body) is str else None
    except ValueError:
        value = None
    if value is None or str(value) != body:
        raise Undecodable(f"$int holds a canonical decimal string, not {body!r}")
    return value


def _canonical_float(body):
    try:
        value = float(body) if type(body) is str else None
    except ValueError:
        value = None
    if value is None or repr(value) != body:
        raise Undecodable(f"$float holds Python's repr of a float, not {body!r}")
    return value


def _canonical_bytes(body):
    try:
        value = base64.b64decode(body, validate=True) if type(body) is str else None
    except ValueError:
        value = None
    if value is None or base64.b64encode(value).decode("ascii") != body:
        raise Undecodable("$bytes holds standard padded base64")
    return value


def _check_sorted(body, key, tag):
    texts = [_text(key(x)) for x in body]
    if texts != sorted(texts):
        raise Undecodable(f"{tag} is not sorted by the dumps() text")


def run_calls(calls, import_root):
    """One outcome per call, with the modules imported from the tree at import_root (fresh imports)."""
    sys.path.insert(0, import_root)
    try:
        return [_run_call(call) for call in calls]
    finally:
        sys.path.remove(import_root)


def _run_call(call):
    module_name, function_name = call["module"], call["function"]
    try:
        args = [decode(a) for a in call.get("args", [])]
        kwargs = {k: decode(v) for k, v in call.get("kwargs", {}).items()}
    except Undecodable as error:
        return {"error": f"bad arguments: {error}"}
    top = module_name.split(".")[0]
    for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
        del sys.modules[name]  # each call sees the tree as it is now, not an earlier tree's module
    importlib.invalidate_caches()
    try:
        function = getattr(importlib.import_module(module_name), function_name)
    except BaseException as error:  # noqa: BLE001 - the candidate's import may raise anything
        if isinstance(error, KeyboardInterrupt):
            raise
        return {"error": f"cannot load {module_name}.{function_name}: {type(error).__name__}: {error}"}
    try:
        result = function(*args, **kwargs)
    except BaseException as error:  # noqa: BLE001 - SystemExit too: a call must not end the runner
        if isinstance(error, KeyboardInterrupt):
            raise
        return {"raises": exception_names(type(error))}
    try:
        return {"value": encode(result)}
    except Unencodable as error:
        return {"error": f"Unencodable: {error}"}


def exception_names(cls):
    """The qualified names of cls's MRO; a class that is not what its name finds is marked with '?'."""
    names = []
    for klass in type.mro(cls):
        module = type.__getattribute__(klass, "__module__")
        qualname = type.__getattribute__(klass, "__qualname__")
        name = f"{module}.{qualname}" if type(module) is str and type(qualname) is str else "?"
        names.append(name if _resolves_to(module, qualname, klass) else "?" + name)
    return names


def _resolves_to(module, qualname, klass):
    found = sys.modules.get(module) if type(module) is str else None
    if found is None or type(qualname) is not str:
        return False
    for part in qualname.split("."):
        try:
            found = getattr(found, part)
        except BaseException:  # noqa: BLE001 - a module's __getattr__ may raise anything
            return False
    return found is klass


def qualified_exception(name):
    """An expectation's exception name as outcomes write it: a bare name is a builtin's."""
    return name if "." in name else "builtins." + name


def outcome_matches(expect, outcome):
    """Does the outcome of a call meet its expectation (see the module docstring)?"""
    shapes = [key for key in ("value", "raises", "error") if key in outcome]
    if len(shapes) != 1 or len(outcome) != 1:
        return False
    if "raises" in expect:
        names = outcome.get("raises")
        return type(names) is list and qualified_exception(expect["raises"]) in names
    if "value" not in outcome:
        return False
    try:
        decode(expect["value"])  # both canonical, so exactly equal parts have equal texts
        decode(outcome["value"])
    except Undecodable:
        return False
    return values_match(expect["value"], outcome["value"])


def values_match(expected, actual):
    """Do two canonical encodings hold the same value, floats within FLOAT_ULPS (module docstring)?"""
    if type(expected) is list:
        return type(actual) is list and len(actual) == len(expected) and all(map(values_match, expected, actual))
    if type(expected) is dict and type(actual) is dict and len(expected) == len(actual) == 1:
        ((tag, body),) = expected.items()
        other = actual.get(tag)
        if tag == "$float" and type(body) is str and type(other) is str:
            return floats_match(float(body), float(other))
        if tag == "$tuple":
            return values_match(body, other)
        if tag == "$dict" and type(body) is list and type(other) is list and len(body) == len(other):
            # keys exactly, so both lists are in the same order; values with the tolerance
            return all(_text(k) == _text(ok) and values_match(v, ov) for (k, v), (ok, ov) in zip(body, other))
    return _text(expected) == _text(actual)  # a set too: its elements exactly


def floats_match(a, b):
    """Both NaN, the same infinity, or at most FLOAT_ULPS apart in the IEEE-754 ordering."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b  # the largest finite float is 1 place from inf, and still does not match it
    return abs(_ordinal(a) - _ordinal(b)) <= FLOAT_ULPS


def _ordinal(x):
    """x's place among the doubles in order: neighbours differ by 1, -0.0 and 0.0 are both 0."""
    (bits,) = struct.unpack("<q", struct.pack("<d", x))
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def describe_call(call):
    """The call as short text, for messages: module.function(args, key=value)."""
    parts = [_text(a) for a in call.get("args", [])]
    parts += [f"{k}={_text(v)}" for k, v in call.get("kwargs", {}).items()]
    return f"{call['module']}.{call['function']}({', '.join(parts)})"


def format_oracle(calls):
    """The text of an oracle.json holding these calls: one call per line, so diffs stay readable."""
    lines = [json.dumps(call, ensure_ascii=False, allow_nan=False) for call in calls]
    body = ",\n".join("    " + line for line in lines)
    return '{\n  "format": "%s",\n  "calls": [\n%s\n  ]\n}\n' % (FORMAT, body)


def _main(argv):
    """Exit status: 0 done (check: every call matches), 1 some call misses, 2 bad usage or input."""
    try:
        if len(argv) == 2 and argv[0] == "run":
            return _run_command(json.load(sys.stdin), argv[1])
        if len(argv) == 3 and argv[0] == "check":
            with open(argv[1], encoding="utf-8") as fh:
                return _check_command(json.load(fh), argv[2])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"invalid input: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    print("usage" + __doc__.split("Usage")[1], file=sys.stderr)
    return 2


def _run_command(calls, import_root):
    if any("expect" in call for call in calls):
        raise ValueError("run: calls must not carry expected values")
    with contextlib.redirect_stdout(sys.stderr):  # what the calls print must not mix with the outcomes
        outcomes = run_calls(calls, import_root)
    json.dump(outcomes, sys.stdout)
    return 0


def _check_command(doc, import_root):
    if doc.get("format") != FORMAT:
        raise ValueError(f"format is not {FORMAT}")
    calls = doc["calls"]
    outcomes = run_calls(calls, import_root)
    misses = [(c, o) for c, o in zip(calls, outcomes) if not outcome_matches(c["expect"], o)]
    for call, outcome in misses[:10]:
        print(f"miss: {describe_call(call)}: want {_text(call['expect'])}, got {_text(outcome)}")
    print(f"{len(calls) - len(misses)} of {len(calls)} oracle calls match")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
