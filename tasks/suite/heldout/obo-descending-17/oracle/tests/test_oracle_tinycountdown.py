from tinycountdown import announce, descending, head_or_none


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_head_or_none_matches_reference():
    check(head_or_none, [
        (([],), None),
        (([4, 5],), 4),
        (([9],), 9),
    ])


def test_descending_matches_reference():
    check(descending, [
        ((0,), []),
        ((1,), [1]),
        ((2,), [2, 1]),
        ((3,), [3, 2, 1]),
        ((4,), [4, 3, 2, 1]),
        ((5,), [5, 4, 3, 2, 1]),
        ((6,), [6, 5, 4, 3, 2, 1]),
    ])


def test_announce_matches_reference():
    check(announce, [
        ((0,), 'go'),
        ((1,), '1 go'),
        ((2,), '2 1 go'),
        ((3,), '3 2 1 go'),
        ((4,), '4 3 2 1 go'),
    ])
