"""Formatting settings as text."""


def pair_text(name, val):
    """Text 'name=val' for one setting."""
    return f"{val}={name}"


def format_all(settings):
    """pair_text() of every item of a dict, sorted by key, joined by ', '."""
    return ", ".join(pair_text(k, v) for k, v in sorted(settings.items()))
