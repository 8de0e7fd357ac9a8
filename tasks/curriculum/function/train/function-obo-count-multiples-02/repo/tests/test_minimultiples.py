from minimultiples import count_multiples, list_multiples


def test_count_multiples():
    assert count_multiples(0, 4) == 0
    assert count_multiples(0, 3) == 0
    assert count_multiples(0, 2) == 0


def test_count_multiples_edge_case():
    assert count_multiples(10, 2) == 5


def test_count_multiples_edge_case_2():
    assert count_multiples(12, 4) == 3


def test_list_multiples():
    assert list_multiples(9, 3) == [3, 6, 9]
    assert list_multiples(8, 4) == [4, 8]
    assert list_multiples(11, 3) == [3, 6, 9]
