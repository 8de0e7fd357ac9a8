from leancentres import halfway, head_or_none, middles


def test_head_or_none():
    assert head_or_none([4, 5]) == 4
    assert head_or_none([9]) == 9
    assert head_or_none([]) is None


def test_halfway():
    assert halfway(0, 0) == 0


def test_halfway_edge_case():
    assert halfway(2, 8) == 5


def test_halfway_edge_case_2():
    assert halfway(6, 6) == 6


def test_middles():
    assert middles([]) == []
    assert middles([5]) == []
