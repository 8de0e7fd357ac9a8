from snappycuts import split_at, two_halves


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_split_at_matches_reference():
    check(split_at, [
        (([], 0), ([], [])),
        (([], 1), ([], [])),
        (([], 2), ([], [])),
        (([], 3), ([], [])),
        (([5, 8, 4, 3], 0), ([], [5, 8, 4, 3])),
        (([5, 8, 4, 3], 1), ([5], [8, 4, 3])),
        (([5, 8, 4, 3], 2), ([5, 8], [4, 3])),
        (([5, 8, 4, 3], 3), ([5, 8, 4], [3])),
        (([3, 2, 2, 0, 9], 0), ([], [3, 2, 2, 0, 9])),
        (([3, 2, 2, 0, 9], 1), ([3], [2, 2, 0, 9])),
        (([3, 2, 2, 0, 9], 2), ([3, 2], [2, 0, 9])),
        (([3, 2, 2, 0, 9], 3), ([3, 2, 2], [0, 9])),
        (([8, 1], 0), ([], [8, 1])),
        (([8, 1], 1), ([8], [1])),
        (([8, 1], 2), ([8, 1], [])),
        (([8, 1], 3), ([8, 1], [])),
    ])


def test_two_halves_matches_reference():
    check(two_halves, [
        (([],), ([], [])),
        (([5, 8, 4, 3],), ([5, 8], [4, 3])),
        (([3, 2, 2, 0, 9],), ([3, 2], [2, 0, 9])),
        (([8, 1],), ([8], [1])),
    ])
