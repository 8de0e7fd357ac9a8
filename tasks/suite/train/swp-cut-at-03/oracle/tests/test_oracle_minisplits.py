from minisplits import cut_at, split_middle, twice


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_cut_at_matches_reference():
    check(cut_at, [
        (([], 0), ([], [])),
        (([], 1), ([], [])),
        (([], 2), ([], [])),
        (([], 3), ([], [])),
        (([9, 3, 9], 0), ([], [9, 3, 9])),
        (([9, 3, 9], 1), ([9], [3, 9])),
        (([9, 3, 9], 2), ([9, 3], [9])),
        (([9, 3, 9], 3), ([9, 3, 9], [])),
        (([8, 8, 6, 2, 7], 0), ([], [8, 8, 6, 2, 7])),
        (([8, 8, 6, 2, 7], 1), ([8], [8, 6, 2, 7])),
        (([8, 8, 6, 2, 7], 2), ([8, 8], [6, 2, 7])),
        (([8, 8, 6, 2, 7], 3), ([8, 8, 6], [2, 7])),
        (([3, 1], 0), ([], [3, 1])),
        (([3, 1], 1), ([3], [1])),
        (([3, 1], 2), ([3, 1], [])),
        (([3, 1], 3), ([3, 1], [])),
    ])


def test_split_middle_matches_reference():
    check(split_middle, [
        (([],), ([], [])),
        (([9, 3, 9],), ([9], [3, 9])),
        (([8, 8, 6, 2, 7],), ([8, 8], [6, 2, 7])),
        (([3, 1],), ([3], [1])),
    ])


def test_twice_matches_reference():
    check(twice, [
        ((0,), 0),
        ((1,), 2),
        ((4,), 8),
        ((-3,), -6),
    ])
