from minigeometry import border_length, first_or_none, surface


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_surface_matches_reference():
    check(surface, [
        ((0, 0), 0),
        ((1, 1), 1),
        ((2, 2), 4),
        ((3, 2), 6),
        ((2, 5), 10),
        ((4, 4), 16),
        ((7, 3), 21),
        ((1, 10), 10),
        ((6, 0), 0),
    ])


def test_border_length_matches_reference():
    check(border_length, [
        ((0, 0), 0),
        ((1, 1), 4),
        ((2, 2), 8),
        ((3, 2), 10),
        ((2, 5), 14),
        ((4, 4), 16),
        ((7, 3), 20),
        ((1, 10), 22),
        ((6, 0), 12),
    ])


def test_first_or_none_matches_reference():
    check(first_or_none, [
        (([],), None),
        (([4, 5],), 4),
        (([9],), 9),
    ])
