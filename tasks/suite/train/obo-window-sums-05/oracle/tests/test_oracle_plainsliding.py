from plainsliding import best_window, is_even, window_sums


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_window_sums_matches_reference():
    check(window_sums, [
        (([], 1), []),
        (([], 2), []),
        (([], 3), []),
        (([4], 1), [4]),
        (([4], 2), []),
        (([4], 3), []),
        (([8, 0, 8, 3, 0, 7, 6], 1), [8, 0, 8, 3, 0, 7, 6]),
        (([8, 0, 8, 3, 0, 7, 6], 2), [8, 8, 11, 3, 7, 13]),
        (([8, 0, 8, 3, 0, 7, 6], 3), [16, 11, 11, 10, 13]),
        (([2, 4, 8, 2, 3], 1), [2, 4, 8, 2, 3]),
        (([2, 4, 8, 2, 3], 2), [6, 12, 10, 5]),
        (([2, 4, 8, 2, 3], 3), [14, 14, 13]),
        (([1], 1), [1]),
        (([1], 2), []),
        (([1], 3), []),
    ])


def test_best_window_matches_reference():
    check(best_window, [
        (([], 2), 0),
        (([], 3), 0),
        (([4], 2), 0),
        (([4], 3), 0),
        (([8, 0, 8, 3, 0, 7, 6], 2), 13),
        (([8, 0, 8, 3, 0, 7, 6], 3), 16),
        (([2, 4, 8, 2, 3], 2), 12),
        (([2, 4, 8, 2, 3], 3), 14),
        (([1], 2), 0),
        (([1], 3), 0),
    ])


def test_is_even_matches_reference():
    check(is_even, [
        ((0,), True),
        ((1,), False),
        ((2,), True),
        ((7,), False),
        ((-4,), True),
    ])
