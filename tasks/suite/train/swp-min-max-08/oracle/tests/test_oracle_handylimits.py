from handylimits import is_even, min_max, spread


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


def test_min_max_matches_reference():
    check(min_max, [
        (([4],), (4, 4)),
        (([2, 2],), (2, 2)),
        (([9, 5, 6],), (5, 9)),
        (([7, 7, 3],), (3, 7)),
        (([3, 6, 0, 4],), (0, 6)),
        (([3, 8, 9, 0],), (0, 9)),
        (([1],), (1, 1)),
        (([6, 4],), (4, 6)),
    ])


def test_spread_matches_reference():
    check(spread, [
        (([4],), 0),
        (([2, 2],), 0),
        (([9, 5, 6],), 4),
        (([7, 7, 3],), 4),
        (([3, 6, 0, 4],), 6),
        (([3, 8, 9, 0],), 9),
        (([1],), 0),
        (([6, 4],), 2),
    ])
