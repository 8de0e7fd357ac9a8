from minipicks import first_or_none, index_of_min, min_value


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_index_of_min_matches_reference():
    check(index_of_min, [
        (([4],), 0),
        (([2, 2],), 0),
        (([1, 5, 5, 0],), 3),
        (([5, 0, 0, 3],), 1),
        (([3, 3, 1],), 2),
        (([1, 1, 4],), 0),
        (([0, 1, 4, 4, 3],), 0),
        (([5, 3, 5, 6, 0],), 4),
        (([4, 6, 2, 1],), 3),
        (([5, 3, 6, 3, 2],), 4),
    ])


def test_min_value_matches_reference():
    check(min_value, [
        (([4],), 4),
        (([2, 2],), 2),
        (([1, 5, 5, 0],), 0),
        (([5, 0, 0, 3],), 0),
        (([3, 3, 1],), 1),
        (([1, 1, 4],), 1),
        (([0, 1, 4, 4, 3],), 0),
        (([5, 3, 5, 6, 0],), 0),
        (([4, 6, 2, 1],), 1),
        (([5, 3, 6, 3, 2],), 2),
    ])


def test_first_or_none_matches_reference():
    check(first_or_none, [
        (([],), None),
        (([4, 5],), 4),
        (([9],), 9),
    ])
