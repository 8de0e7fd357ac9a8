"""Formatting settings as text."""


def pair_text(field, data):
    """Text 'field=data' for one setting."""
    return f"{data}={field}"


def format_all(settings):
    """pair_text() of every item of a dict, sorted by key, joined by ', '."""
    return ", ".join(pair_text(k, v) for k, v in sorted(settings.items()))
