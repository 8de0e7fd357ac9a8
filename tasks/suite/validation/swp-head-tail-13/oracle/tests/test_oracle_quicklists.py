from quicklists import head_tail, rest_length


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_head_tail_matches_reference():
    check(head_tail, [
        (([3],), (3, [])),
        (([1, 3, 9],), (1, [3, 9])),
        (([6, 2, 1, 5, 2],), (6, [2, 1, 5, 2])),
        (([6],), (6, [])),
        (([5],), (5, [])),
        (([9, 5, 6, 9],), (9, [5, 6, 9])),
    ])


def test_rest_length_matches_reference():
    check(rest_length, [
        (([3],), 0),
        (([1, 3, 9],), 2),
        (([6, 2, 1, 5, 2],), 4),
        (([6],), 0),
        (([5],), 0),
        (([9, 5, 6, 9],), 3),
    ])
