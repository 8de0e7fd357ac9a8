"""Formatting settings as text."""


def format_pair(name, val):
    """Text 'name=val' for one setting."""
    return f"{val}={name}"


def format_all(settings):
    """format_pair() of every item of a dict, sorted by key, joined by ', '."""
    return ", ".join(format_pair(k, v) for k, v in sorted(settings.items()))
