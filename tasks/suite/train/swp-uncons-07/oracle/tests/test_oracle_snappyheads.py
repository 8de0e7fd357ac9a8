from snappyheads import double, rest_length, uncons


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_double_matches_reference():
    check(double, [
        ((0,), 0),
        ((1,), 2),
        ((4,), 8),
        ((-3,), -6),
    ])


def test_uncons_matches_reference():
    check(uncons, [
        (([3],), (3, [])),
        (([3, 8, 0, 2, 1],), (3, [8, 0, 2, 1])),
        (([4, 6, 3, 5, 7],), (4, [6, 3, 5, 7])),
        (([2],), (2, [])),
        (([8, 6],), (8, [6])),
        (([9, 7, 6, 1, 4],), (9, [7, 6, 1, 4])),
    ])


def test_rest_length_matches_reference():
    check(rest_length, [
        (([3],), 0),
        (([3, 8, 0, 2, 1],), 4),
        (([4, 6, 3, 5, 7],), 4),
        (([2],), 0),
        (([8, 6],), 1),
        (([9, 7, 6, 1, 4],), 4),
    ])
