from plainsearch import has_below, index_below


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_index_below_matches_reference():
    check(index_below, [
        (([], 2), -1),
        (([2, 1], 2), 1),
        (([9, 3], 2), -1),
        (([1, 1, 3], 2), 0),
        (([7, 3, 8, 0], 2), 3),
        (([8], 2), -1),
        (([7, 4, 7, 2, 8], 2), -1),
        (([3, 0, 2, 5, 3], 2), 1),
        (([], 3), -1),
        (([2, 1], 3), 0),
        (([9, 3], 3), -1),
        (([1, 1, 3], 3), 0),
        (([7, 3, 8, 0], 3), 3),
        (([8], 3), -1),
        (([7, 4, 7, 2, 8], 3), 3),
        (([3, 0, 2, 5, 3], 3), 1),
        (([], 4), -1),
        (([2, 1], 4), 0),
        (([9, 3], 4), 1),
        (([1, 1, 3], 4), 0),
        (([7, 3, 8, 0], 4), 1),
        (([8], 4), -1),
        (([7, 4, 7, 2, 8], 4), 3),
        (([3, 0, 2, 5, 3], 4), 0),
    ])


def test_has_below_matches_reference():
    check(has_below, [
        (([], 2), False),
        (([2, 1], 2), True),
        (([9, 3], 2), False),
        (([1, 1, 3], 2), True),
        (([7, 3, 8, 0], 2), True),
        (([8], 2), False),
        (([7, 4, 7, 2, 8], 2), False),
        (([3, 0, 2, 5, 3], 2), True),
        (([], 3), False),
        (([2, 1], 3), True),
        (([9, 3], 3), False),
        (([1, 1, 3], 3), True),
        (([7, 3, 8, 0], 3), True),
        (([8], 3), False),
        (([7, 4, 7, 2, 8], 3), True),
        (([3, 0, 2, 5, 3], 3), True),
        (([], 4), False),
        (([2, 1], 4), True),
        (([9, 3], 4), True),
        (([1, 1, 3], 4), True),
        (([7, 3, 8, 0], 4), True),
        (([8], 4), False),
        (([7, 4, 7, 2, 8], 4), True),
        (([3, 0, 2, 5, 3], 4), True),
    ])
