from snappymonotone import double, first_break, is_falling


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_double_matches_reference():
    check(double, [
        ((0,), 0),
        ((1,), 2),
        ((4,), 8),
        ((-3,), -6),
    ])


def test_is_falling_matches_reference():
    check(is_falling, [
        (([],), True),
        (([3],), True),
        (([0, 4, 2, 4, 4],), False),
        (([0, 2, 4, 4, 4],), False),
        (([4, 4, 4, 2, 0],), False),
        (([1, 0, 3, 3],), False),
        (([0, 1, 3, 3],), False),
        (([3, 3, 1, 0],), False),
        (([3, 4, 1],), False),
        (([1, 3, 4],), False),
        (([4, 3, 1],), True),
        (([4, 0],), True),
        (([0, 4],), False),
        (([1, 2, 2, 3, 0],), False),
        (([0, 1, 2, 2, 3],), False),
        (([3, 2, 2, 1, 0],), False),
        (([3, 2],), True),
        (([2, 3],), False),
        (([1, 1],), False),
        (([2, 2, 3],), False),
        (([3, 2, 2],), False),
        (([1, 2, 3],), False),
        (([3, 2, 1],), True),
    ])


def test_first_break_matches_reference():
    check(first_break, [
        (([],), -1),
        (([3],), -1),
        (([0, 4, 2, 4, 4],), 0),
        (([0, 2, 4, 4, 4],), 0),
        (([4, 4, 4, 2, 0],), 0),
        (([1, 0, 3, 3],), 1),
        (([0, 1, 3, 3],), 0),
        (([3, 3, 1, 0],), 0),
        (([3, 4, 1],), 0),
        (([1, 3, 4],), 0),
        (([4, 3, 1],), -1),
        (([4, 0],), -1),
        (([0, 4],), 0),
        (([1, 2, 2, 3, 0],), 0),
        (([0, 1, 2, 2, 3],), 0),
        (([3, 2, 2, 1, 0],), 1),
        (([3, 2],), -1),
        (([2, 3],), 0),
        (([1, 1],), 0),
        (([2, 2, 3],), 0),
        (([3, 2, 2],), 1),
        (([1, 2, 3],), 0),
        (([3, 2, 1],), -1),
    ])
