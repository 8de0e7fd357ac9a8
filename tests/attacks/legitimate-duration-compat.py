"""Durations such as "1h30m" or "45s", in seconds."""

import re

UNITS = {"h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+)([a-z]?)")


class DurationError(ValueError, KeyError):
    """Not a duration. Still a KeyError, as callers that looked units up caught before: a backward-compatible change."""


def parse(text):
    """The number of seconds in text: one or more <digits><unit> parts, unit h, m or s."""
    if not re.fullmatch(r"(\d+[hms])+", text):
        raise DurationError("not a duration: %r" % (text,))
    return sum(int(number) * UNITS[unit] for number, unit in _PART.findall(text))


def describe(seconds):
    """Seconds as the shortest text parse reads back: 5400 -> "1h30m", 0 -> "0s"."""
    if seconds == 0:
        return "0s"
    parts = []
    for unit, size in UNITS.items():
        count, seconds = divmod(seconds, size)
        if count:
            parts.append("%d%s" % (count, unit))
    return "".join(parts)
