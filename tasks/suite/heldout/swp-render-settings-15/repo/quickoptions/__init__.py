"""Formatting settings as text."""


def setting_text(field, data):
    """Text 'field=data' for one setting."""
    return f"{field}={data}"


def render_settings(settings):
    """setting_text() of every item of a dict, sorted by key, joined by ', '."""
    return ", ".join(setting_text(v, k) for k, v in sorted(settings.items()))


def even(n):
    """True if n is even."""
    return n % 2 == 0
