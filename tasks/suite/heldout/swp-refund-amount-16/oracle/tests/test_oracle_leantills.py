from leantills import refund_amount, subtract, word_count


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_subtract_matches_reference():
    check(subtract, [
        ((0, 0), 0),
        ((0, 10), -10),
        ((0, 40), -40),
        ((5, 3), 2),
        ((5, 15), -10),
        ((10, 0), 10),
        ((10, 10), 0),
        ((10, 40), -30),
        ((20, 3), 17),
        ((20, 15), 5),
        ((50, 0), 50),
        ((50, 10), 40),
        ((50, 40), 10),
    ])


def test_refund_amount_matches_reference():
    check(refund_amount, [
        ((0, 0), 0),
        ((0, 3), -3),
        ((0, 10), -10),
        ((0, 15), -15),
        ((0, 40), -40),
        ((5, 0), 5),
        ((5, 3), 2),
        ((5, 10), -5),
        ((5, 15), -10),
        ((5, 40), -35),
        ((10, 0), 10),
        ((10, 3), 7),
        ((10, 10), 0),
        ((10, 15), -5),
        ((10, 40), -30),
        ((20, 0), 20),
        ((20, 3), 17),
        ((20, 10), 10),
        ((20, 15), 5),
        ((20, 40), -20),
        ((50, 0), 50),
        ((50, 3), 47),
        ((50, 10), 40),
        ((50, 15), 35),
        ((50, 40), 10),
    ])


def test_word_count_matches_reference():
    check(word_count, [
        (('',), 0),
        (('one',), 1),
        (('a b  c',), 3),
    ])
