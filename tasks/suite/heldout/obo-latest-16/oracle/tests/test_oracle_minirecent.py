from minirecent import latest, sum_latest


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_latest_matches_reference():
    check(latest, [
        (([], 0), []),
        (([6, 6, 7, 6, 2], 0), []),
        (([6, 6, 7, 6, 2], 1), [2]),
        (([6, 6, 7, 6, 2], 2), [6, 2]),
        (([6, 6, 7, 6, 2], 3), [7, 6, 2]),
        (([6, 6, 7, 6, 2], 4), [6, 7, 6, 2]),
        (([6, 6, 7, 6, 2], 5), [6, 6, 7, 6, 2]),
        (([0, 7], 0), []),
        (([0, 7], 1), [7]),
        (([0, 7], 2), [0, 7]),
        (([1, 7, 1], 0), []),
        (([1, 7, 1], 1), [1]),
        (([1, 7, 1], 2), [7, 1]),
        (([1, 7, 1], 3), [1, 7, 1]),
    ])


def test_sum_latest_matches_reference():
    check(sum_latest, [
        (([], 0), 0),
        (([6, 6, 7, 6, 2], 0), 0),
        (([6, 6, 7, 6, 2], 1), 2),
        (([6, 6, 7, 6, 2], 2), 8),
        (([6, 6, 7, 6, 2], 3), 15),
        (([6, 6, 7, 6, 2], 4), 21),
        (([6, 6, 7, 6, 2], 5), 27),
        (([0, 7], 0), 0),
        (([0, 7], 1), 7),
        (([0, 7], 2), 7),
        (([1, 7, 1], 0), 0),
        (([1, 7, 1], 1), 1),
        (([1, 7, 1], 2), 8),
        (([1, 7, 1], 3), 9),
    ])
