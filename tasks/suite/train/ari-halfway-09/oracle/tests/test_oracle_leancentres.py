from leancentres import halfway, head_or_none, middles


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_head_or_none_matches_reference():
    check(head_or_none, [
        (([],), None),
        (([4, 5],), 4),
        (([9],), 9),
    ])


def test_halfway_matches_reference():
    check(halfway, [
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


def test_middles_matches_reference():
    check(middles, [
        (([],), []),
        (([2, 6, 10],), [4, 8]),
        (([1, 8, 9],), [4, 8]),
        (([5],), []),
        (([4, 10, 10, 2, 4],), [7, 10, 6, 3]),
    ])
