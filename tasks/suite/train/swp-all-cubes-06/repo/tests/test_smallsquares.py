from smallsquares import all_cubes, raise_to


def test_raise_to():
    assert raise_to(5, 0) == 1
    assert raise_to(0, 1) == 0
    assert raise_to(2, 1) == 2


def test_all_cubes():
    assert all_cubes([]) == []
    assert all_cubes([3]) == [27]


def test_all_cubes_edge_case():
    assert all_cubes([0, 1]) == [0, 1]


def test_all_cubes_edge_case_2():
    assert all_cubes([1, 3]) == [1, 27]
