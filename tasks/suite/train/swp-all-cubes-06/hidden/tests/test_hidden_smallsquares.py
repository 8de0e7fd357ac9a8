from smallsquares import all_cubes


def test_all_cubes_more_1():
    assert all_cubes([1]) == [1]
