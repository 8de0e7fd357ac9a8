from tinyfinder import any_under, first_below


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_first_below_matches_reference():
    check(first_below, [
        (([], 4), -1),
        (([4, 1], 4), 1),
        (([9, 5], 4), -1),
        (([3], 4), 0),
        (([0, 6, 8, 8, 8, 0], 4), 0),
        (([3, 7], 4), 0),
        (([0], 4), 0),
        (([5, 1, 5], 4), 1),
        (([], 5), -1),
        (([4, 1], 5), 0),
        (([9, 5], 5), -1),
        (([3], 5), 0),
        (([0, 6, 8, 8, 8, 0], 5), 0),
        (([3, 7], 5), 0),
        (([0], 5), 0),
        (([5, 1, 5], 5), 1),
        (([], 2), -1),
        (([4, 1], 2), 1),
        (([9, 5], 2), -1),
        (([3], 2), -1),
        (([0, 6, 8, 8, 8, 0], 2), 0),
        (([3, 7], 2), -1),
        (([0], 2), 0),
        (([5, 1, 5], 2), 1),
    ])


def test_any_under_matches_reference():
    check(any_under, [
        (([], 4), False),
        (([4, 1], 4), True),
        (([9, 5], 4), False),
        (([3], 4), True),
        (([0, 6, 8, 8, 8, 0], 4), True),
        (([3, 7], 4), True),
        (([0], 4), True),
        (([5, 1, 5], 4), True),
        (([], 5), False),
        (([4, 1], 5), True),
        (([9, 5], 5), False),
        (([3], 5), True),
        (([0, 6, 8, 8, 8, 0], 5), True),
        (([3, 7], 5), True),
        (([0], 5), True),
        (([5, 1, 5], 5), True),
        (([], 2), False),
        (([4, 1], 2), True),
        (([9, 5], 2), False),
        (([3], 2), False),
        (([0, 6, 8, 8, 8, 0], 2), True),
        (([3, 7], 2), False),
        (([0], 2), True),
        (([5, 1, 5], 2), True),
    ])
