from handyproducts import energy, inner


def test_inner():
    assert inner([], []) == 0
    assert inner([2, 2], [2, 2]) == 8


def test_inner_edge_case():
    assert inner([4, 0, 5], [4, 4, 0]) == 16


def test_inner_edge_case_2():
    assert inner([3, 3, 0], [0, 4, 1]) == 12


def test_energy():
    assert energy([2, 2]) == 8
    assert energy([]) == 0
