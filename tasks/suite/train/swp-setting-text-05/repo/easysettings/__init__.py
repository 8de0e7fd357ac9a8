"""Formatting settings as text."""


def setting_text(name, val):
    """Text 'name=val' for one setting."""
    return f"{val}={name}"


def format_all(settings):
    """setting_text() of every item of a dict, sorted by key, joined by ', '."""
    return ", ".join(setting_text(k, v) for k, v in sorted(settings.items()))
