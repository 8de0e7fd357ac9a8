from leanhalves import centre, halfway_points


def test_centre():
    assert centre(0, 0) == 0


def test_centre_edge_case():
    assert centre(3, 5) == 4


def test_centre_edge_case_2():
    assert centre(-2, 4) == 1


def test_halfway_points():
    assert halfway_points([]) == []


def test_halfway_points_edge_case():
    assert halfway_points([2, 6, 10]) == [4, 8]
