from littletrack import deltas_from, head_or_none, offset


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_offset_matches_reference():
    check(offset, [
        ((0, 0), 0),
        ((0, 1), 1),
        ((0, 3), 3),
        ((0, 8), 8),
        ((0, 12), 12),
        ((0, -5), -5),
        ((3, 0), -3),
        ((3, 1), -2),
        ((3, 3), 0),
        ((3, 8), 5),
        ((3, 12), 9),
        ((3, -5), -8),
        ((10, 0), -10),
        ((10, 1), -9),
        ((10, 3), -7),
        ((10, 8), -2),
        ((10, 12), 2),
        ((10, -5), -15),
        ((-2, 0), 2),
        ((-2, 1), 3),
        ((-2, 3), 5),
        ((-2, 8), 10),
        ((-2, 12), 14),
        ((-2, -5), -3),
    ])


def test_deltas_from_matches_reference():
    check(deltas_from, [
        ((0, []), []),
        ((0, [7, 5, 6, -1]), [7, 5, 6, -1]),
        ((0, [-3]), [-3]),
        ((0, [4, 3, 12]), [4, 3, 12]),
        ((3, []), []),
        ((3, [7, 5, 6, -1]), [4, 2, 3, -4]),
        ((3, [-3]), [-6]),
        ((3, [4, 3, 12]), [1, 0, 9]),
    ])


def test_head_or_none_matches_reference():
    check(head_or_none, [
        (([],), None),
        (([4, 5],), 4),
        (([9],), 9),
    ])
