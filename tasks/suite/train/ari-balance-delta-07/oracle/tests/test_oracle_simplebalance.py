from simplebalance import balance_delta, not_losing


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_balance_delta_matches_reference():
    check(balance_delta, [
        (([], []), 0),
        (([], [5, 5]), -10),
        (([], [20]), -20),
        (([], [12, 13, 14]), -39),
        (([10], []), 10),
        (([10], [5, 5]), 0),
        (([10], [20]), -10),
        (([10], [12, 13, 14]), -29),
        (([8], []), 8),
        (([8], [5, 5]), -2),
        (([8], [20]), -12),
        (([8], [12, 13, 14]), -31),
        (([16], []), 16),
        (([16], [5, 5]), 6),
        (([16], [20]), -4),
        (([16], [12, 13, 14]), -23),
        (([5], []), 5),
        (([5], [5, 5]), -5),
        (([5], [20]), -15),
        (([5], [12, 13, 14]), -34),
    ])


def test_not_losing_matches_reference():
    check(not_losing, [
        (([], []), True),
        (([], [5, 5]), False),
        (([], [20]), False),
        (([], [12, 13, 14]), False),
        (([10], []), True),
        (([10], [5, 5]), True),
        (([10], [20]), False),
        (([10], [12, 13, 14]), False),
        (([8], []), True),
        (([8], [5, 5]), False),
        (([8], [20]), False),
        (([8], [12, 13, 14]), False),
        (([16], []), True),
        (([16], [5, 5]), True),
        (([16], [20]), False),
        (([16], [12, 13, 14]), False),
        (([5], []), True),
        (([5], [5, 5]), False),
        (([5], [20]), False),
        (([5], [12, 13, 14]), False),
    ])
