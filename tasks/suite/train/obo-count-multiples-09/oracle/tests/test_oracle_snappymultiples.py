from snappymultiples import count_multiples, first_or_none, list_multiples


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_count_multiples_matches_reference():
    check(count_multiples, [
        ((0, 2), 0),
        ((1, 2), 0),
        ((2, 2), 1),
        ((3, 2), 1),
        ((4, 2), 2),
        ((5, 2), 2),
        ((6, 2), 3),
        ((7, 2), 3),
        ((8, 2), 4),
        ((9, 2), 4),
        ((10, 2), 5),
        ((11, 2), 5),
        ((12, 2), 6),
        ((0, 3), 0),
        ((1, 3), 0),
        ((2, 3), 0),
        ((3, 3), 1),
        ((4, 3), 1),
        ((5, 3), 1),
        ((6, 3), 2),
        ((7, 3), 2),
        ((8, 3), 2),
        ((9, 3), 3),
        ((10, 3), 3),
        ((11, 3), 3),
        ((12, 3), 4),
        ((0, 4), 0),
        ((1, 4), 0),
        ((2, 4), 0),
        ((3, 4), 0),
        ((4, 4), 1),
        ((5, 4), 1),
        ((6, 4), 1),
        ((7, 4), 1),
        ((8, 4), 2),
        ((9, 4), 2),
        ((10, 4), 2),
        ((11, 4), 2),
        ((12, 4), 3),
    ])


def test_list_multiples_matches_reference():
    check(list_multiples, [
        ((0, 2), []),
        ((2, 2), [2]),
        ((4, 2), [2, 4]),
        ((6, 2), [2, 4, 6]),
        ((8, 2), [2, 4, 6, 8]),
        ((10, 2), [2, 4, 6, 8, 10]),
        ((12, 2), [2, 4, 6, 8, 10, 12]),
        ((1, 3), []),
        ((3, 3), [3]),
        ((5, 3), [3]),
        ((7, 3), [3, 6]),
        ((9, 3), [3, 6, 9]),
        ((11, 3), [3, 6, 9]),
        ((0, 4), []),
        ((2, 4), []),
        ((4, 4), [4]),
        ((6, 4), [4]),
        ((8, 4), [4, 8]),
        ((10, 4), [4, 8]),
        ((12, 4), [4, 8, 12]),
    ])


def test_first_or_none_matches_reference():
    check(first_or_none, [
        (([],), None),
        (([4, 5],), 4),
        (([9],), 9),
    ])
