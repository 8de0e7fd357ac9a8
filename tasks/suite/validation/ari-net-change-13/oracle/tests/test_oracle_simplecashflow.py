from simplecashflow import breaks_even, loud, net_change


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_loud_matches_reference():
    check(loud, [
        (('hi',), 'HI!'),
        (('',), '!'),
        (('Go on',), 'GO ON!'),
    ])


def test_net_change_matches_reference():
    check(net_change, [
        (([], []), 0),
        (([], [5, 5]), -10),
        (([], [10, 5, 17]), -32),
        (([], [11, 17, 17]), -45),
        (([10], []), 10),
        (([10], [5, 5]), 0),
        (([10], [10, 5, 17]), -22),
        (([10], [11, 17, 17]), -35),
        (([18], []), 18),
        (([18], [5, 5]), 8),
        (([18], [10, 5, 17]), -14),
        (([18], [11, 17, 17]), -27),
        (([1, 2, 3], []), 6),
        (([1, 2, 3], [5, 5]), -4),
        (([1, 2, 3], [10, 5, 17]), -26),
        (([1, 2, 3], [11, 17, 17]), -39),
        (([0, 0, 12], []), 12),
        (([0, 0, 12], [5, 5]), 2),
        (([0, 0, 12], [10, 5, 17]), -20),
        (([0, 0, 12], [11, 17, 17]), -33),
    ])


def test_breaks_even_matches_reference():
    check(breaks_even, [
        (([], []), True),
        (([], [5, 5]), False),
        (([], [10, 5, 17]), False),
        (([], [11, 17, 17]), False),
        (([10], []), True),
        (([10], [5, 5]), True),
        (([10], [10, 5, 17]), False),
        (([10], [11, 17, 17]), False),
        (([18], []), True),
        (([18], [5, 5]), True),
        (([18], [10, 5, 17]), False),
        (([18], [11, 17, 17]), False),
        (([1, 2, 3], []), True),
        (([1, 2, 3], [5, 5]), False),
        (([1, 2, 3], [10, 5, 17]), False),
        (([1, 2, 3], [11, 17, 17]), False),
        (([0, 0, 12], []), True),
        (([0, 0, 12], [5, 5]), True),
        (([0, 0, 12], [10, 5, 17]), False),
        (([0, 0, 12], [11, 17, 17]), False),
    ])
