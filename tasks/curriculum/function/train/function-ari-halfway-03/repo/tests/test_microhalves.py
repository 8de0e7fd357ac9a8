from microhalves import halfway, midpoints


def test_halfway():
    assert halfway(0, 0) == 0


def test_halfway_edge_case():
    assert halfway(3, 5) == 4


def test_halfway_edge_case_2():
    assert halfway(-2, 4) == 1


def test_midpoints():
    assert midpoints([]) == []


def test_midpoints_edge_case():
    assert midpoints([9, 1]) == [5]
