from microproducts import dot_product, energy, first_or_none


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_dot_product_matches_reference():
    check(dot_product, [
        (([], []), 0),
        (([2, 2], [2, 2]), 8),
        (([2, 2], [1, 0]), 2),
        (([2, 2], [4, 1]), 10),
        (([2, 2], [0, 5]), 10),
        (([1], [1]), 1),
        (([1, 0, 4], [1, 0, 4]), 17),
        (([1, 0, 4], [0, 4, 4]), 16),
        (([1, 0, 4], [4, 0, 0]), 4),
        (([1, 0], [2, 2]), 2),
        (([1, 0], [1, 0]), 1),
        (([1, 0], [4, 1]), 4),
        (([1, 0], [0, 5]), 0),
        (([0, 4, 4], [1, 0, 4]), 16),
        (([0, 4, 4], [0, 4, 4]), 32),
        (([0, 4, 4], [4, 0, 0]), 0),
        (([4, 1], [2, 2]), 10),
        (([4, 1], [1, 0]), 4),
        (([4, 1], [4, 1]), 17),
        (([4, 1], [0, 5]), 5),
        (([4, 0, 0], [1, 0, 4]), 4),
        (([4, 0, 0], [0, 4, 4]), 0),
        (([4, 0, 0], [4, 0, 0]), 16),
        (([0, 5], [2, 2]), 10),
        (([0, 5], [1, 0]), 0),
        (([0, 5], [4, 1]), 5),
        (([0, 5], [0, 5]), 25),
    ])


def test_energy_matches_reference():
    check(energy, [
        (([],), 0),
        (([2, 2],), 8),
        (([1],), 1),
        (([1, 0, 4],), 17),
        (([1, 0],), 1),
        (([0, 4, 4],), 32),
        (([4, 1],), 17),
        (([4, 0, 0],), 16),
        (([0, 5],), 25),
    ])


def test_first_or_none_matches_reference():
    check(first_or_none, [
        (([],), None),
        (([4, 5],), 4),
        (([9],), 9),
    ])
