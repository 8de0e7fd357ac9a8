from neatcombinatorics import choose, product_up_to


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_product_up_to_matches_reference():
    check(product_up_to, [
        ((0,), 1),
        ((1,), 1),
        ((2,), 2),
        ((3,), 6),
        ((4,), 24),
        ((5,), 120),
        ((6,), 720),
        ((7,), 5040),
    ])


def test_choose_matches_reference():
    check(choose, [
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
