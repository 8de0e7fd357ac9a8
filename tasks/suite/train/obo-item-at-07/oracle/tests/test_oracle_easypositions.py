from easypositions import item_at, pick_all, shout


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_shout_matches_reference():
    check(shout, [
        (('hi',), 'HI!'),
        (('',), '!'),
        (('Go on',), 'GO ON!'),
    ])


def test_item_at_matches_reference():
    check(item_at, [
        (([7], 1), 7),
        (([7], 2), None),
        (([7], 3), None),
        (([7], 4), None),
        (([0], 1), 0),
        (([0], 2), None),
        (([0], 3), None),
        (([0], 4), None),
        (([8, 5], 1), 8),
        (([8, 5], 2), 5),
        (([8, 5], 3), None),
        (([8, 5], 4), None),
        (([3, 9, 2, 3], 1), 3),
        (([3, 9, 2, 3], 2), 9),
        (([3, 9, 2, 3], 3), 2),
        (([3, 9, 2, 3], 4), 3),
        (([4, 8], 1), 4),
        (([4, 8], 2), 8),
        (([4, 8], 3), None),
        (([4, 8], 4), None),
    ])


def test_pick_all_matches_reference():
    check(pick_all, [
        (([[7], [0], [8, 5]], 1), [7, 0, 8]),
        (([[7], [0], [8, 5]], 2), [None, None, 5]),
        (([[7], [0], [8, 5]], 3), [None, None, None]),
    ])
