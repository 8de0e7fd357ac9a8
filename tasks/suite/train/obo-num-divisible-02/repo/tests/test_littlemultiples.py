from littlemultiples import list_multiples, num_divisible


def test_num_divisible():
    assert num_divisible(0, 3) == 0
    assert num_divisible(0, 2) == 0
    assert num_divisible(0, 4) == 0


def test_num_divisible_edge_case():
    assert num_divisible(12, 3) == 4


def test_num_divisible_edge_case_2():
    assert num_divisible(8, 4) == 2


def test_list_multiples():
    assert list_multiples(12, 2) == [2, 4, 6, 8, 10, 12]
    assert list_multiples(4, 2) == [2, 4]
    assert list_multiples(0, 4) == []
