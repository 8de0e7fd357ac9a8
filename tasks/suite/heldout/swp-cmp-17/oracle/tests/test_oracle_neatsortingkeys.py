from neatsortingkeys import all_compared, cmp, shout


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_cmp_matches_reference():
    check(cmp, [
        ((0, 0), 0),
        ((0, 1), -1),
        ((0, 3), -1),
        ((0, 5), -1),
        ((1, 0), 1),
        ((1, 1), 0),
        ((1, 3), -1),
        ((1, 5), -1),
        ((2, 0), 1),
        ((2, 1), 1),
        ((2, 3), -1),
        ((2, 5), -1),
        ((5, 0), 1),
        ((5, 1), 1),
        ((5, 3), 1),
        ((5, 5), 0),
    ])


def test_all_compared_matches_reference():
    check(all_compared, [
        (([],), []),
        (([(1, 2)],), [-1]),
        (([(3, 1), (2, 2)],), [1, 0]),
        (([(0, 5), (5, 0), (4, 4)],), [-1, 1, 0]),
        (([(7, 8), (9, 1)],), [-1, 1]),
    ])


def test_shout_matches_reference():
    check(shout, [
        (('hi',), 'HI!'),
        (('',), '!'),
        (('Go on',), 'GO ON!'),
    ])
