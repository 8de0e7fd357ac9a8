from plainrects import fence_length, rect_area


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_rect_area_matches_reference():
    check(rect_area, [
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


def test_fence_length_matches_reference():
    check(fence_length, [
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
