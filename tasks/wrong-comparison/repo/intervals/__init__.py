"""Half-open integer intervals: (start, end) holds every x with start <= x < end.

Every interval is non-empty: start < end.
"""


def overlaps(a, b):
    """True if intervals a and b share at least one point."""
    a_start, a_end = a
    b_start, b_end = b
    return a_start <= b_end and b_start <= a_end


def merge(intervals):
    """Merge overlapping intervals into a sorted list.

    Touching intervals such as (1, 3) and (3, 5) share no point and stay apart.
    """
    merged = []
    for start, end in sorted(intervals):
        if merged and overlaps(merged[-1], (start, end)):
            last_start, last_end = merged[-1]
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged
