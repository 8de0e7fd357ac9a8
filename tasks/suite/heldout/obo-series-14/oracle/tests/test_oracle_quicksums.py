from quicksums import first_or_none, series, square_total


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_first_or_none_matches_reference():
    check(first_or_none, [
        (([],), None),
        (([4, 5],), 4),
        (([9],), 9),
    ])


def test_square_total_matches_reference():
    check(square_total, [
        ((0,), 0),
        ((1,), 1),
        ((2,), 5),
        ((3,), 14),
        ((4,), 30),
        ((5,), 55),
        ((6,), 91),
        ((7,), 140),
    ])


def test_series_matches_reference():
    check(series, [
        ((0,), []),
        ((1,), [1]),
        ((2,), [1, 5]),
        ((3,), [1, 5, 14]),
        ((4,), [1, 5, 14, 30]),
        ((5,), [1, 5, 14, 30, 55]),
    ])
