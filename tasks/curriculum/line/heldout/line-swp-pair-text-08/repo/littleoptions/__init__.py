"""Formatting settings as text."""


def pair_text(key, value):
    """Text 'key: value' for one setting."""
    return f"{value}: {key}"


def render_settings(settings):
    """pair_text() of every item of a dict, sorted by key, joined by ', '."""
    return ", ".join(pair_text(k, v) for k, v in sorted(settings.items()))
