from neatprefix import last_total, running_totals


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_running_totals_matches_reference():
    check(running_totals, [
        (([],), []),
        (([3],), [3]),
        (([1, 3, 5],), [1, 4, 9]),
        (([1, 3],), [1, 4]),
        (([4, 2, 5],), [4, 6, 11]),
        (([4, 5, 3, 5],), [4, 9, 12, 17]),
    ])


def test_last_total_matches_reference():
    check(last_total, [
        (([],), 0),
        (([3],), 3),
        (([1, 3, 5],), 9),
        (([1, 3],), 4),
        (([4, 2, 5],), 11),
        (([4, 5, 3, 5],), 17),
    ])
