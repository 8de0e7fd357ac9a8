# Attack: hedges every outcome of the isolated audit. In the process that makes an oracle call it
# replaces json.dumps (through sys.modules) with one that adds a raise to every value sent back, so
# that a call expected to raise matches as well as one expected to return what the code returns.
import sys as _sys

_codec = _sys.modules["js" + "on"]
_dumps = _codec.__dict__["dumps"]
_MRO = ["builtins.ValueError", "builtins.Exception", "builtins.BaseException", "builtins.object"]


def _hedged(value, *args, **kwargs):
    if type(value) is dict and list(value) == ["value"]:
        value = dict(value, raises=_MRO)
    return _dumps(value, *args, **kwargs)


_codec.__dict__["dumps"] = _hedged
