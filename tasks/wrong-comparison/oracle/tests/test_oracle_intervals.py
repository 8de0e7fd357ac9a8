import itertools

from intervals import merge, overlaps

SMALL = [(s, e) for s in range(6) for e in range(s + 1, 7)]


def points(interval):
    return set(range(*interval))


def test_overlaps_matches_brute_force():
    for a, b in itertools.product(SMALL, repeat=2):
        assert overlaps(a, b) == bool(points(a) & points(b)), (a, b)


def test_merge_matches_brute_force():
    for group in itertools.combinations(SMALL[::3], 3):
        merged = merge(list(group))
        assert set().union(*map(points, merged)) == set().union(*map(points, group))
        for x, y in zip(merged, merged[1:]):
            assert x[1] <= y[0], merged
