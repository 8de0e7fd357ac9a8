"""Sliding window sums."""


def window_sums(values, k):
    """Sums of every k consecutive values, left to right."""
    return [sum(values[i:i + k - 1]) for i in range(len(values) - k + 1)]


def best_window(values, k):
    """Largest sum of k consecutive values (0 if there is none)."""
    return max(window_sums(values, k), default=0)


def is_even(n):
    """True if n is even."""
    return n % 2 == 0
