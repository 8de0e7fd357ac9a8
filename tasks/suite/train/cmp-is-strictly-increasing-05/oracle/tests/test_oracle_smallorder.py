from smallorder import first_break, is_strictly_increasing


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_is_strictly_increasing_matches_reference():
    check(is_strictly_increasing, [
        (([],), True),
        (([3],), True),
        (([0, 3, 2, 4],), False),
        (([0, 2, 3, 4],), True),
        (([4, 3, 2, 0],), False),
        (([3, 2, 4],), False),
        (([2, 3, 4],), True),
        (([4, 3, 2],), False),
        (([2, 0, 0, 2, 4],), False),
        (([0, 0, 2, 2, 4],), False),
        (([4, 2, 2, 0, 0],), False),
        (([0, 3, 4, 2, 3],), False),
        (([0, 2, 3, 3, 4],), False),
        (([4, 3, 3, 2, 0],), False),
        (([4, 3, 0, 4],), False),
        (([0, 3, 4, 4],), False),
        (([4, 4, 3, 0],), False),
        (([3, 4, 4],), False),
        (([4, 4, 3],), False),
        (([1, 1],), False),
        (([2, 2, 3],), False),
        (([3, 2, 2],), False),
        (([1, 2, 3],), True),
        (([3, 2, 1],), False),
    ])


def test_first_break_matches_reference():
    check(first_break, [
        (([],), -1),
        (([3],), -1),
        (([0, 3, 2, 4],), 1),
        (([0, 2, 3, 4],), -1),
        (([4, 3, 2, 0],), 0),
        (([3, 2, 4],), 0),
        (([2, 3, 4],), -1),
        (([4, 3, 2],), 0),
        (([2, 0, 0, 2, 4],), 0),
        (([0, 0, 2, 2, 4],), 0),
        (([4, 2, 2, 0, 0],), 0),
        (([0, 3, 4, 2, 3],), 2),
        (([0, 2, 3, 3, 4],), 2),
        (([4, 3, 3, 2, 0],), 0),
        (([4, 3, 0, 4],), 0),
        (([0, 3, 4, 4],), 2),
        (([4, 4, 3, 0],), 0),
        (([3, 4, 4],), 1),
        (([4, 4, 3],), 0),
        (([1, 1],), 0),
        (([2, 2, 3],), 0),
        (([3, 2, 2],), 0),
        (([1, 2, 3],), -1),
        (([3, 2, 1],), 0),
    ])
