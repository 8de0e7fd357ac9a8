from leandivisors import multiples, num_divisible


def test_num_divisible():
    assert num_divisible(0, 3) == 0
    assert num_divisible(0, 2) == 0
    assert num_divisible(0, 4) == 0


def test_num_divisible_edge_case():
    assert num_divisible(8, 4) == 2


def test_num_divisible_edge_case_2():
    assert num_divisible(6, 3) == 2


def test_multiples():
    assert multiples(8, 2) == [2, 4, 6, 8]
    assert multiples(0, 4) == []
    assert multiples(9, 3) == [3, 6, 9]
