from basicconvert import div_mod, loud, to_min_sec


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


def test_div_mod_matches_reference():
    check(div_mod, [
        ((0, 1), (0, 0)),
        ((0, 3), (0, 0)),
        ((0, 5), (0, 0)),
        ((0, 12), (0, 0)),
        ((1, 1), (1, 0)),
        ((1, 3), (0, 1)),
        ((1, 5), (0, 1)),
        ((1, 12), (0, 1)),
        ((7, 1), (7, 0)),
        ((7, 3), (2, 1)),
        ((7, 5), (1, 2)),
        ((7, 12), (0, 7)),
        ((12, 1), (12, 0)),
        ((12, 3), (4, 0)),
        ((12, 5), (2, 2)),
        ((12, 12), (1, 0)),
        ((25, 1), (25, 0)),
        ((25, 3), (8, 1)),
        ((25, 5), (5, 0)),
        ((25, 12), (2, 1)),
        ((100, 1), (100, 0)),
        ((100, 3), (33, 1)),
        ((100, 5), (20, 0)),
        ((100, 12), (8, 4)),
    ])


def test_to_min_sec_matches_reference():
    check(to_min_sec, [
        ((0,), (0, 0)),
        ((1,), (0, 1)),
        ((59,), (0, 59)),
        ((60,), (1, 0)),
        ((61,), (1, 1)),
        ((125,), (2, 5)),
        ((600,), (10, 0)),
    ])
