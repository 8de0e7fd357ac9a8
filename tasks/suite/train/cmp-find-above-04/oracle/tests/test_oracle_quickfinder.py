from quickfinder import any_exceeding, find_above, unique_sorted


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_find_above_matches_reference():
    check(find_above, [
        (([], 3), -1),
        (([3, 1], 3), -1),
        (([9, 2], 3), 0),
        (([6], 3), 0),
        (([0], 3), -1),
        (([4, 6, 7, 7], 3), 0),
        (([3, 3, 8], 3), 2),
        (([7, 8, 6, 7, 8], 3), 0),
        (([], 2), -1),
        (([3, 1], 2), 0),
        (([9, 2], 2), 0),
        (([6], 2), 0),
        (([0], 2), -1),
        (([4, 6, 7, 7], 2), 0),
        (([3, 3, 8], 2), 0),
        (([7, 8, 6, 7, 8], 2), 0),
        (([], 6), -1),
        (([3, 1], 6), -1),
        (([9, 2], 6), 0),
        (([6], 6), -1),
        (([0], 6), -1),
        (([4, 6, 7, 7], 6), 2),
        (([3, 3, 8], 6), 2),
        (([7, 8, 6, 7, 8], 6), 0),
    ])


def test_any_exceeding_matches_reference():
    check(any_exceeding, [
        (([], 3), False),
        (([3, 1], 3), False),
        (([9, 2], 3), True),
        (([6], 3), True),
        (([0], 3), False),
        (([4, 6, 7, 7], 3), True),
        (([3, 3, 8], 3), True),
        (([7, 8, 6, 7, 8], 3), True),
        (([], 2), False),
        (([3, 1], 2), True),
        (([9, 2], 2), True),
        (([6], 2), True),
        (([0], 2), False),
        (([4, 6, 7, 7], 2), True),
        (([3, 3, 8], 2), True),
        (([7, 8, 6, 7, 8], 2), True),
        (([], 6), False),
        (([3, 1], 6), False),
        (([9, 2], 6), True),
        (([6], 6), False),
        (([0], 6), False),
        (([4, 6, 7, 7], 6), True),
        (([3, 3, 8], 6), True),
        (([7, 8, 6, 7, 8], 6), True),
    ])


def test_unique_sorted_matches_reference():
    check(unique_sorted, [
        (([],), []),
        (([3, 1, 3],), [1, 3]),
        (([2, 2, 2],), [2]),
        (([5, 4, 6],), [4, 5, 6]),
    ])
