from plainpairs import count_words, pairwise, steps


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_count_words_matches_reference():
    check(count_words, [
        (('',), 0),
        (('one',), 1),
        (('a b  c',), 3),
    ])


def test_pairwise_matches_reference():
    check(pairwise, [
        (([],), []),
        (([5],), []),
        (([2, 3, 1, 0, 0, 4],), [(2, 3), (3, 1), (1, 0), (0, 0), (0, 4)]),
        (([8, 6, 4, 6, 5],), [(8, 6), (6, 4), (4, 6), (6, 5)]),
        (([4, 8, 8],), [(4, 8), (8, 8)]),
        (([9, 8, 5],), [(9, 8), (8, 5)]),
        (([2, 2],), [(2, 2)]),
    ])


def test_steps_matches_reference():
    check(steps, [
        (([],), []),
        (([5],), []),
        (([2, 3, 1, 0, 0, 4],), [1, -2, -1, 0, 4]),
        (([8, 6, 4, 6, 5],), [-2, -2, 2, -1]),
        (([4, 8, 8],), [4, 0]),
        (([9, 8, 5],), [-1, -3]),
        (([2, 2],), [0]),
    ])
