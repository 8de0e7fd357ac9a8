from minimatches import count_equal, remove_all


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_count_equal_matches_reference():
    check(count_equal, [
        (([], 1), 0),
        (([0, 1, 3, 4, 1, 3], 1), 2),
        (([0, 0], 1), 0),
        (([3, 2], 1), 0),
        (([1, 1, 1, 2, 3, 1], 1), 4),
        (([3], 1), 0),
        (([0, 3, 3, 2], 1), 0),
        (([], 3), 0),
        (([0, 1, 3, 4, 1, 3], 3), 2),
        (([0, 0], 3), 0),
        (([3, 2], 3), 1),
        (([1, 1, 1, 2, 3, 1], 3), 1),
        (([3], 3), 1),
        (([0, 3, 3, 2], 3), 2),
    ])


def test_remove_all_matches_reference():
    check(remove_all, [
        (([], 1), []),
        (([0, 1, 3, 4, 1, 3], 1), [0, 3, 4, 3]),
        (([0, 0], 1), [0, 0]),
        (([3, 2], 1), [3, 2]),
        (([1, 1, 1, 2, 3, 1], 1), [2, 3]),
        (([3], 1), [3]),
        (([0, 3, 3, 2], 1), [0, 3, 3, 2]),
        (([], 3), []),
        (([0, 1, 3, 4, 1, 3], 3), [0, 1, 4, 1]),
        (([0, 0], 3), [0, 0]),
        (([3, 2], 3), [2]),
        (([1, 1, 1, 2, 3, 1], 3), [1, 1, 1, 2, 1]),
        (([3], 3), []),
        (([0, 3, 3, 2], 3), [0, 2]),
    ])
