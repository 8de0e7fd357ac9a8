from leanpairs import differences, neighbours, word_count


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_neighbours_matches_reference():
    check(neighbours, [
        (([],), []),
        (([5],), []),
        (([3, 5, 3, 2, 2],), [(3, 5), (5, 3), (3, 2), (2, 2)]),
        (([2, 1, 6, 4, 4],), [(2, 1), (1, 6), (6, 4), (4, 4)]),
        (([6, 3, 5, 4],), [(6, 3), (3, 5), (5, 4)]),
        (([5, 1, 7],), [(5, 1), (1, 7)]),
        (([8, 0],), [(8, 0)]),
    ])


def test_differences_matches_reference():
    check(differences, [
        (([],), []),
        (([5],), []),
        (([3, 5, 3, 2, 2],), [2, -2, -1, 0]),
        (([2, 1, 6, 4, 4],), [-1, 5, -2, 0]),
        (([6, 3, 5, 4],), [-3, 2, -1]),
        (([5, 1, 7],), [-4, 6]),
        (([8, 0],), [-8]),
    ])


def test_word_count_matches_reference():
    check(word_count, [
        (('',), 0),
        (('one',), 1),
        (('a b  c',), 3),
    ])
