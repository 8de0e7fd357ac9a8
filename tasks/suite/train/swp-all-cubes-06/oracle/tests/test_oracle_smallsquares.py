from smallsquares import all_cubes, raise_to


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_raise_to_matches_reference():
    check(raise_to, [
        ((0, 0), 1),
        ((0, 1), 0),
        ((0, 2), 0),
        ((0, 3), 0),
        ((1, 0), 1),
        ((1, 1), 1),
        ((1, 2), 1),
        ((1, 3), 1),
        ((2, 0), 1),
        ((2, 1), 2),
        ((2, 2), 4),
        ((2, 3), 8),
        ((3, 0), 1),
        ((3, 1), 3),
        ((3, 2), 9),
        ((3, 3), 27),
        ((5, 0), 1),
        ((5, 1), 5),
        ((5, 2), 25),
        ((5, 3), 125),
    ])


def test_all_cubes_matches_reference():
    check(all_cubes, [
        (([],), []),
        (([3],), [27]),
        (([1],), [1]),
        (([0, 1],), [0, 1]),
        (([1, 3],), [1, 27]),
    ])
