from neatwindows import peak_run, sliding_sums


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_sliding_sums_matches_reference():
    check(sliding_sums, [
        (([], 1), []),
        (([], 2), []),
        (([], 3), []),
        (([4], 1), [4]),
        (([4], 2), []),
        (([4], 3), []),
        (([9], 1), [9]),
        (([9], 2), []),
        (([9], 3), []),
        (([8, 8, 6, 9, 9, 6], 1), [8, 8, 6, 9, 9, 6]),
        (([8, 8, 6, 9, 9, 6], 2), [16, 14, 15, 18, 15]),
        (([8, 8, 6, 9, 9, 6], 3), [22, 23, 24, 24]),
        (([9, 9, 1, 4, 5, 7], 1), [9, 9, 1, 4, 5, 7]),
        (([9, 9, 1, 4, 5, 7], 2), [18, 10, 5, 9, 12]),
        (([9, 9, 1, 4, 5, 7], 3), [19, 14, 10, 16]),
    ])


def test_peak_run_matches_reference():
    check(peak_run, [
        (([], 2), 0),
        (([], 3), 0),
        (([4], 2), 0),
        (([4], 3), 0),
        (([9], 2), 0),
        (([9], 3), 0),
        (([8, 8, 6, 9, 9, 6], 2), 18),
        (([8, 8, 6, 9, 9, 6], 3), 24),
        (([9, 9, 1, 4, 5, 7], 2), 18),
        (([9, 9, 1, 4, 5, 7], 3), 19),
    ])
