from littleaverages import above_average, mean, shout


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_mean_matches_reference():
    check(mean, [
        (([],), 0),
        (([4],), 4),
        (([2, 4],), 3),
        (([1, 2],), 1),
        (([3, 3, 3],), 3),
        (([9, 9],), 9),
        (([7, 4, 9, 4, 3],), 5),
        (([5, 0, 5, 4, 8],), 4),
    ])


def test_above_average_matches_reference():
    check(above_average, [
        (([],), []),
        (([4],), []),
        (([2, 4],), [4]),
        (([1, 2],), [2]),
        (([3, 3, 3],), []),
        (([9, 9],), []),
        (([7, 4, 9, 4, 3],), [7, 9]),
        (([5, 0, 5, 4, 8],), [5, 5, 8]),
    ])


def test_shout_matches_reference():
    check(shout, [
        (('hi',), 'HI!'),
        (('',), '!'),
        (('Go on',), 'GO ON!'),
    ])
