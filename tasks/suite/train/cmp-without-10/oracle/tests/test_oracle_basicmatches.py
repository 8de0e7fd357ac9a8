from basicmatches import occurrences, without


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_occurrences_matches_reference():
    check(occurrences, [
        (([], 1), 0),
        (([0, 2, 1, 0, 4, 1], 1), 2),
        (([1], 1), 1),
        (([2], 1), 0),
        (([4, 4, 0], 1), 0),
        (([0], 1), 0),
        (([0, 0, 4, 4], 1), 0),
        (([], 3), 0),
        (([0, 2, 1, 0, 4, 1], 3), 0),
        (([1], 3), 0),
        (([2], 3), 0),
        (([4, 4, 0], 3), 0),
        (([0], 3), 0),
        (([0, 0, 4, 4], 3), 0),
    ])


def test_without_matches_reference():
    check(without, [
        (([], 1), []),
        (([0, 2, 1, 0, 4, 1], 1), [0, 2, 0, 4]),
        (([1], 1), []),
        (([2], 1), [2]),
        (([4, 4, 0], 1), [4, 4, 0]),
        (([0], 1), [0]),
        (([0, 0, 4, 4], 1), [0, 0, 4, 4]),
        (([], 3), []),
        (([0, 2, 1, 0, 4, 1], 3), [0, 2, 1, 0, 4, 1]),
        (([1], 3), [1]),
        (([2], 3), [2]),
        (([4, 4, 0], 3), [4, 4, 0]),
        (([0], 3), [0]),
        (([0, 0, 4, 4], 3), [0, 0, 4, 4]),
    ])
