"""Formatting settings as text."""


def format_pair(field, data):
    """Text 'field=data' for one setting."""
    return f"{data}={field}"


def settings_text(settings):
    """format_pair() of every item of a dict, sorted by key, joined by ', '."""
    return ", ".join(format_pair(k, v) for k, v in sorted(settings.items()))
