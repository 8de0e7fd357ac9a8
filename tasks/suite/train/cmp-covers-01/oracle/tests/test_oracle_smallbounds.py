from smallbounds import covers, tally_inside


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_covers_matches_reference():
    check(covers, [
        ((-2, 0, 5), False),
        ((-1, 0, 5), False),
        ((0, 0, 5), True),
        ((1, 0, 5), True),
        ((2, 0, 5), True),
        ((3, 0, 5), True),
        ((4, 0, 5), True),
        ((5, 0, 5), False),
        ((6, 0, 5), False),
        ((0, 2, 4), False),
        ((1, 2, 4), False),
        ((2, 2, 4), True),
        ((3, 2, 4), True),
        ((4, 2, 4), False),
        ((5, 2, 4), False),
        ((-5, -3, 3), False),
        ((-4, -3, 3), False),
        ((-3, -3, 3), True),
        ((-2, -3, 3), True),
        ((-1, -3, 3), True),
        ((0, -3, 3), True),
        ((1, -3, 3), True),
        ((2, -3, 3), True),
        ((3, -3, 3), False),
        ((4, -3, 3), False),
    ])


def test_tally_inside_matches_reference():
    check(tally_inside, [
        (([], 0, 5), 0),
        (([-1, 1, 5, 1], 0, 5), 2),
        (([3, 5, 4], 0, 5), 2),
        (([3, 1], 0, 5), 2),
        (([], 2, 4), 0),
        (([5, 2, 5], 2, 4), 1),
        (([3, 5, 1, 4], 2, 4), 1),
        (([0], 2, 4), 0),
        (([], -3, 3), 0),
        (([0, 0, -4, 3, 2, -1], -3, 3), 4),
        (([-5, -1, 3, -4, -2, 4], -3, 3), 2),
        (([4, -2, 0, 4, -1], -3, 3), 3),
    ])
