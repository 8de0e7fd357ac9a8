from micropaging import fits_in, pages_needed


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_pages_needed_matches_reference():
    check(pages_needed, [
        ((0, 1), 0),
        ((0, 3), 0),
        ((0, 5), 0),
        ((0, 10), 0),
        ((1, 1), 1),
        ((1, 3), 1),
        ((1, 5), 1),
        ((1, 10), 1),
        ((5, 1), 5),
        ((5, 3), 2),
        ((5, 5), 1),
        ((5, 10), 1),
        ((9, 1), 9),
        ((9, 3), 3),
        ((9, 5), 2),
        ((9, 10), 1),
        ((10, 1), 10),
        ((10, 3), 4),
        ((10, 5), 2),
        ((10, 10), 1),
        ((11, 1), 11),
        ((11, 3), 4),
        ((11, 5), 3),
        ((11, 10), 2),
        ((20, 1), 20),
        ((20, 3), 7),
        ((20, 5), 4),
        ((20, 10), 2),
        ((23, 1), 23),
        ((23, 3), 8),
        ((23, 5), 5),
        ((23, 10), 3),
    ])


def test_fits_in_matches_reference():
    check(fits_in, [
        ((0, 1, 1), True),
        ((0, 1, 2), True),
        ((0, 1, 4), True),
        ((0, 10, 1), True),
        ((0, 10, 2), True),
        ((0, 10, 4), True),
        ((1, 5, 1), True),
        ((1, 5, 2), True),
        ((1, 5, 4), True),
        ((5, 3, 1), False),
        ((5, 3, 2), True),
        ((5, 3, 4), True),
        ((9, 1, 1), False),
        ((9, 1, 2), False),
        ((9, 1, 4), False),
        ((9, 10, 1), True),
        ((9, 10, 2), True),
        ((9, 10, 4), True),
        ((10, 5, 1), False),
        ((10, 5, 2), True),
        ((10, 5, 4), True),
        ((11, 3, 1), False),
        ((11, 3, 2), False),
        ((11, 3, 4), True),
        ((20, 1, 1), False),
        ((20, 1, 2), False),
        ((20, 1, 4), False),
        ((20, 10, 1), False),
        ((20, 10, 2), True),
        ((20, 10, 4), True),
        ((23, 5, 1), False),
        ((23, 5, 2), False),
        ((23, 5, 4), False),
    ])
