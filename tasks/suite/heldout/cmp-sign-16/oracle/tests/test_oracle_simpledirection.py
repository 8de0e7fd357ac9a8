from simpledirection import sign, sign_list


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_sign_matches_reference():
    check(sign, [
        ((-4,), -1),
        ((-3,), -1),
        ((-2,), -1),
        ((-1,), -1),
        ((0,), 0),
        ((1,), 1),
        ((2,), 1),
        ((3,), 1),
        ((4,), 1),
    ])


def test_sign_list_matches_reference():
    check(sign_list, [
        (([],), []),
        (([0],), [0]),
        (([0, 0],), [0, 0]),
        (([3, 2, -1, 2, -1],), [1, 1, -1, 1, -1]),
        (([-3, 1],), [-1, 1]),
        (([-2, 1],), [-1, 1]),
    ])
