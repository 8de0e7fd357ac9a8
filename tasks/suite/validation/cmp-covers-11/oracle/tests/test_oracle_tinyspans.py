from tinyspans import count_inside, covers


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_covers_matches_reference():
    check(covers, [
        ((-1, 1, 6), False),
        ((0, 1, 6), False),
        ((1, 1, 6), True),
        ((2, 1, 6), True),
        ((3, 1, 6), True),
        ((4, 1, 6), True),
        ((5, 1, 6), True),
        ((6, 1, 6), False),
        ((7, 1, 6), False),
        ((-4, -2, 2), False),
        ((-3, -2, 2), False),
        ((-2, -2, 2), True),
        ((-1, -2, 2), True),
        ((0, -2, 2), True),
        ((1, -2, 2), True),
        ((2, -2, 2), False),
        ((3, -2, 2), False),
        ((1, 3, 7), False),
        ((2, 3, 7), False),
        ((3, 3, 7), True),
        ((4, 3, 7), True),
        ((5, 3, 7), True),
        ((6, 3, 7), True),
        ((7, 3, 7), False),
        ((8, 3, 7), False),
    ])


def test_count_inside_matches_reference():
    check(count_inside, [
        (([], 1, 6), 0),
        (([0, 7, 1, 4, 0, 3], 1, 6), 3),
        (([1, -1], 1, 6), 1),
        (([7], 1, 6), 0),
        (([], -2, 2), 0),
        (([-4, -1, 2, -3, -3, 3], -2, 2), 1),
        (([0, 0, -1, -4], -2, 2), 3),
        (([-3, 0, -3, -4, 0], -2, 2), 2),
        (([], 3, 7), 0),
        (([6, 2, 7, 4, 4], 3, 7), 3),
        (([2, 8], 3, 7), 0),
        (([7, 3, 2], 3, 7), 1),
    ])
