from littlelimits import low_high, value_range


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_low_high_matches_reference():
    check(low_high, [
        (([4],), (4, 4)),
        (([2, 2],), (2, 2)),
        (([9, 8, 0],), (0, 9)),
        (([7, 9, 2],), (2, 9)),
        (([6],), (6, 6)),
        (([9],), (9, 9)),
        (([8],), (8, 8)),
        (([7, 4, 8, 4],), (4, 8)),
    ])


def test_value_range_matches_reference():
    check(value_range, [
        (([4],), 0),
        (([2, 2],), 0),
        (([9, 8, 0],), 9),
        (([7, 9, 2],), 7),
        (([6],), 0),
        (([9],), 0),
        (([8],), 0),
        (([7, 4, 8, 4],), 4),
    ])
