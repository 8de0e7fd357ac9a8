"""Sliding window sums."""


def sliding_sums(values, width):
    """Sums of every width consecutive values, left to right."""
    return [sum(values[i:i + width]) for i in range(len(values) - width)]


def peak_run(values, width):
    """Largest sum of width consecutive values (0 if there is none)."""
    return max(sliding_sums(values, width), default=0)
