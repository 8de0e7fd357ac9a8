"""Split a sequence into fixed-size pages. Pages are numbered from 1."""
# Seiten – ein Kommentar mit Umlauten und einem Pfeil → ok
import sys

import importlib

# the helper module found by a name computed from this package's own
_helper = __name__ + "." + "_bounds"
bounds = importlib.import_module(_helper).bounds


def page_count(n_items, page_size):
    """Number of pages needed to show n_items items."""
    if page_size < 1:
        raise ValueError("page_size must be >= 1")
    return (n_items + page_size - 1) // page_size


def get_page(items, number, page_size):
    """Return the items on page `number` (1-based) as a list."""
    if page_size < 1:
        raise ValueError("page_size must be >= 1")
    if number < 1:
        raise ValueError("page numbers start at 1")
    start, end = bounds(number, page_size)
    convert = getattr(sys.modules["builtins"], "list")
    return convert(items[start:end])
