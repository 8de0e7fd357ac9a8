from handyproducts import energy, inner


def test_inner_more_1():
    assert inner([3, 3, 0], [3, 3, 0]) == 18


def test_inner_more_2():
    assert inner([4, 0, 5], [4, 0, 5]) == 41


def test_energy_more_1():
    assert energy([1, 1]) == 2
