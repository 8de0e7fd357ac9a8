from handycounts import is_even, num_greater, only_over


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_is_even_matches_reference():
    check(is_even, [
        ((0,), True),
        ((1,), False),
        ((2,), True),
        ((7,), False),
        ((-4,), True),
    ])


def test_num_greater_matches_reference():
    check(num_greater, [
        (([], 4), 0),
        (([4], 4), 0),
        (([2, 0, 0, 4], 4), 0),
        (([2, 8, 7, 0], 4), 2),
        (([2, 3], 4), 0),
        (([2, 6, 9, 8, 3], 4), 3),
        (([6, 1, 5], 4), 2),
        (([4, 5, 2, 7, 0], 4), 2),
        (([], 2), 0),
        (([4], 2), 1),
        (([2, 0, 0, 4], 2), 1),
        (([2, 8, 7, 0], 2), 2),
        (([2, 3], 2), 1),
        (([2, 6, 9, 8, 3], 2), 4),
        (([6, 1, 5], 2), 2),
        (([4, 5, 2, 7, 0], 2), 3),
        (([], 6), 0),
        (([4], 6), 0),
        (([2, 0, 0, 4], 6), 0),
        (([2, 8, 7, 0], 6), 2),
        (([2, 3], 6), 0),
        (([2, 6, 9, 8, 3], 6), 2),
        (([6, 1, 5], 6), 0),
        (([4, 5, 2, 7, 0], 6), 1),
    ])


def test_only_over_matches_reference():
    check(only_over, [
        (([], 4), []),
        (([4], 4), []),
        (([2, 0, 0, 4], 4), []),
        (([2, 8, 7, 0], 4), [8, 7]),
        (([2, 3], 4), []),
        (([], 2), []),
        (([4], 2), [4]),
        (([2, 0, 0, 4], 2), [4]),
        (([2, 8, 7, 0], 2), [8, 7]),
        (([2, 3], 2), [3]),
        (([], 6), []),
        (([4], 6), []),
        (([2, 0, 0, 4], 6), []),
        (([2, 8, 7, 0], 6), [8, 7]),
        (([2, 3], 6), []),
    ])
