from easyclock import as_seconds, from_seconds


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_as_seconds_matches_reference():
    check(as_seconds, [
        ((0, 0, 0), 0),
        ((0, 0, 5), 5),
        ((0, 1, 0), 60),
        ((0, 1, 5), 65),
        ((0, 30, 0), 1800),
        ((0, 30, 5), 1805),
        ((0, 59, 0), 3540),
        ((0, 59, 5), 3545),
        ((1, 0, 0), 3600),
        ((1, 0, 5), 3605),
        ((1, 1, 0), 3660),
        ((1, 1, 5), 3665),
        ((1, 30, 0), 5400),
        ((1, 30, 5), 5405),
        ((1, 59, 0), 7140),
        ((1, 59, 5), 7145),
        ((2, 0, 0), 7200),
        ((2, 0, 5), 7205),
        ((2, 1, 0), 7260),
        ((2, 1, 5), 7265),
        ((2, 30, 0), 9000),
        ((2, 30, 5), 9005),
        ((2, 59, 0), 10740),
        ((2, 59, 5), 10745),
    ])


def test_from_seconds_matches_reference():
    check(from_seconds, [
        ((0,), (0, 0, 0)),
        ((59,), (0, 0, 59)),
        ((60,), (0, 1, 0)),
        ((61,), (0, 1, 1)),
        ((3599,), (0, 59, 59)),
        ((3600,), (1, 0, 0)),
        ((3661,), (1, 1, 1)),
        ((7325,), (2, 2, 5)),
    ])
