from tinydivision import quot_rem, to_weeks_days


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_quot_rem_matches_reference():
    check(quot_rem, [
        ((0, 1), (0, 0)),
        ((0, 3), (0, 0)),
        ((0, 5), (0, 0)),
        ((0, 12), (0, 0)),
        ((1, 1), (1, 0)),
        ((1, 3), (0, 1)),
        ((1, 5), (0, 1)),
        ((1, 12), (0, 1)),
        ((7, 1), (7, 0)),
        ((7, 3), (2, 1)),
        ((7, 5), (1, 2)),
        ((7, 12), (0, 7)),
        ((12, 1), (12, 0)),
        ((12, 3), (4, 0)),
        ((12, 5), (2, 2)),
        ((12, 12), (1, 0)),
        ((25, 1), (25, 0)),
        ((25, 3), (8, 1)),
        ((25, 5), (5, 0)),
        ((25, 12), (2, 1)),
        ((100, 1), (100, 0)),
        ((100, 3), (33, 1)),
        ((100, 5), (20, 0)),
        ((100, 12), (8, 4)),
    ])


def test_to_weeks_days_matches_reference():
    check(to_weeks_days, [
        ((0,), (0, 0)),
        ((1,), (0, 1)),
        ((6,), (0, 6)),
        ((7,), (1, 0)),
        ((8,), (1, 1)),
        ((19,), (2, 5)),
        ((70,), (10, 0)),
    ])
