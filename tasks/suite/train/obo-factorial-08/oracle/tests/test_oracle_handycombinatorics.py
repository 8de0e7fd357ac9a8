from handycombinatorics import binomial, distinct, factorial


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_factorial_matches_reference():
    check(factorial, [
        ((0,), 1),
        ((1,), 1),
        ((2,), 2),
        ((3,), 6),
        ((4,), 24),
        ((5,), 120),
        ((6,), 720),
        ((7,), 5040),
    ])


def test_binomial_matches_reference():
    check(binomial, [
        ((0, 0), 1),
        ((1, 0), 1),
        ((1, 1), 1),
        ((2, 0), 1),
        ((2, 1), 2),
        ((2, 2), 1),
        ((3, 0), 1),
        ((3, 1), 3),
        ((3, 2), 3),
        ((3, 3), 1),
        ((4, 0), 1),
        ((4, 1), 4),
        ((4, 2), 6),
        ((4, 3), 4),
        ((4, 4), 1),
        ((5, 0), 1),
        ((5, 1), 5),
        ((5, 2), 10),
        ((5, 3), 10),
        ((5, 4), 5),
        ((5, 5), 1),
        ((6, 0), 1),
        ((6, 1), 6),
        ((6, 2), 15),
        ((6, 3), 20),
        ((6, 4), 15),
        ((6, 5), 6),
        ((6, 6), 1),
    ])


def test_distinct_matches_reference():
    check(distinct, [
        (([],), []),
        (([3, 1, 3],), [1, 3]),
        (([2, 2, 2],), [2]),
        (([5, 4, 6],), [4, 5, 6]),
    ])
