from neataverages import above_average, avg


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_avg_matches_reference():
    check(avg, [
        (([],), 0),
        (([4],), 4),
        (([2, 4],), 3),
        (([1, 2],), 1),
        (([3, 3, 3],), 3),
        (([5],), 5),
        (([0, 3, 2, 9],), 3),
        (([1, 1],), 1),
    ])


def test_above_average_matches_reference():
    check(above_average, [
        (([],), []),
        (([4],), []),
        (([2, 4],), [4]),
        (([1, 2],), [2]),
        (([3, 3, 3],), []),
        (([5],), []),
        (([0, 3, 2, 9],), [9]),
        (([1, 1],), []),
    ])
