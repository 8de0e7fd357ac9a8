from tinycentres import halfway, middles


def test_halfway():
    assert halfway(0, 0) == 0


def test_halfway_edge_case():
    assert halfway(3, 5) == 4


def test_halfway_edge_case_2():
    assert halfway(2, 8) == 5


def test_middles():
    assert middles([8]) == []
    assert middles([]) == []


def test_middles_edge_case():
    assert middles([2, 6, 10]) == [4, 8]
