"""Positions counted from 1."""


def shout(text):
    """text in upper case with a '!' appended."""
    return text.upper() + "!"


def item_at(values, position):
    """The position-th value, counting from 1; None if there are fewer values."""
    if position > len(values):
        return None
    return values[position]


def pick_all(rows, position):
    """item_at(row, position) for every row."""
    return [item_at(row, position) for row in rows]
