from snappyranking import distinct, pos_of_smallest, smallest


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_distinct_matches_reference():
    check(distinct, [
        (([],), []),
        (([3, 1, 3],), [1, 3]),
        (([2, 2, 2],), [2]),
        (([5, 4, 6],), [4, 5, 6]),
    ])


def test_pos_of_smallest_matches_reference():
    check(pos_of_smallest, [
        (([4],), 0),
        (([2, 2],), 0),
        (([1, 5, 5, 0],), 3),
        (([5, 0, 0, 3],), 1),
        (([3, 3, 1],), 2),
        (([1, 1, 4],), 0),
        (([5],), 0),
        (([1],), 0),
        (([5, 4],), 1),
        (([0, 1, 2],), 0),
    ])


def test_smallest_matches_reference():
    check(smallest, [
        (([4],), 4),
        (([2, 2],), 2),
        (([1, 5, 5, 0],), 0),
        (([5, 0, 0, 3],), 0),
        (([3, 3, 1],), 1),
        (([1, 1, 4],), 1),
        (([5],), 5),
        (([1],), 1),
        (([5, 4],), 4),
        (([0, 1, 2],), 0),
    ])
