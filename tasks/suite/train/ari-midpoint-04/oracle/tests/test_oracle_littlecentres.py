from littlecentres import midpoint, midpoints, twice


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_midpoint_matches_reference():
    check(midpoint, [
        ((0, 0), 0),
        ((0, 4), 2),
        ((2, 8), 5),
        ((3, 5), 4),
        ((1, 2), 1),
        ((4, 9), 6),
        ((6, 6), 6),
        ((10, 3), 6),
        ((-2, 4), 1),
        ((-3, 0), -2),
    ])


def test_midpoints_matches_reference():
    check(midpoints, [
        (([],), []),
        (([2, 6, 10],), [4, 8]),
        (([9],), []),
        (([5],), []),
        (([6, 5, 8],), [5, 6]),
    ])


def test_twice_matches_reference():
    check(twice, [
        ((0,), 0),
        ((1,), 2),
        ((4,), 8),
        ((-3,), -6),
    ])
