from simplematches import double, drop_value, occurrences


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_occurrences_matches_reference():
    check(occurrences, [
        (([], 1), 0),
        (([4, 4, 3, 2, 3], 1), 0),
        (([2, 3], 1), 0),
        (([4, 4, 2, 1], 1), 1),
        (([3, 0, 1, 1], 1), 2),
        (([0, 2, 4], 1), 0),
        (([1, 3], 1), 1),
        (([], 3), 0),
        (([4, 4, 3, 2, 3], 3), 2),
        (([2, 3], 3), 1),
        (([4, 4, 2, 1], 3), 0),
        (([3, 0, 1, 1], 3), 1),
        (([0, 2, 4], 3), 0),
        (([1, 3], 3), 1),
    ])


def test_drop_value_matches_reference():
    check(drop_value, [
        (([], 1), []),
        (([4, 4, 3, 2, 3], 1), [4, 4, 3, 2, 3]),
        (([2, 3], 1), [2, 3]),
        (([4, 4, 2, 1], 1), [4, 4, 2]),
        (([3, 0, 1, 1], 1), [3, 0]),
        (([0, 2, 4], 1), [0, 2, 4]),
        (([1, 3], 1), [3]),
        (([], 3), []),
        (([4, 4, 3, 2, 3], 3), [4, 4, 2]),
        (([2, 3], 3), [2]),
        (([4, 4, 2, 1], 3), [4, 4, 2, 1]),
        (([3, 0, 1, 1], 3), [0, 1, 1]),
        (([0, 2, 4], 3), [0, 2, 4]),
        (([1, 3], 3), [1]),
    ])


def test_double_matches_reference():
    check(double, [
        ((0,), 0),
        ((1,), 2),
        ((4,), 8),
        ((-3,), -6),
    ])
