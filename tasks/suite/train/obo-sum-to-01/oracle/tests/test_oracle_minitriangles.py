from minitriangles import series, sum_to


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_sum_to_matches_reference():
    check(sum_to, [
        ((0,), 0),
        ((1,), 1),
        ((2,), 3),
        ((3,), 6),
        ((4,), 10),
        ((5,), 15),
        ((6,), 21),
        ((7,), 28),
    ])


def test_series_matches_reference():
    check(series, [
        ((0,), []),
        ((1,), [1]),
        ((2,), [1, 3]),
        ((3,), [1, 3, 6]),
        ((4,), [1, 3, 6, 10]),
        ((5,), [1, 3, 6, 10, 15]),
    ])
