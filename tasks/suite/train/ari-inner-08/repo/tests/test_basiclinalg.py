from basiclinalg import inner, norm_squared


def test_inner():
    assert inner([], []) == 0
    assert inner([2, 2], [2, 2]) == 8


def test_inner_edge_case():
    assert inner([3, 0, 5], [3, 0, 5]) == 34


def test_inner_edge_case_2():
    assert inner([2, 2], [3, 2]) == 10


def test_norm_squared():
    assert norm_squared([2, 2]) == 8
    assert norm_squared([]) == 0


def test_norm_squared_edge_case():
    assert norm_squared([4, 1]) == 17
