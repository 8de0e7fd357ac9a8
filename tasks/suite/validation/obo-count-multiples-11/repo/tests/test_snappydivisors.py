from snappydivisors import count_multiples, multiples


def test_count_multiples():
    assert count_multiples(0, 3) == 0
    assert count_multiples(0, 4) == 0
    assert count_multiples(0, 2) == 0


def test_count_multiples_edge_case():
    assert count_multiples(6, 3) == 2


def test_count_multiples_edge_case_2():
    assert count_multiples(4, 2) == 2


def test_multiples():
    assert multiples(8, 2) == [2, 4, 6, 8]
    assert multiples(9, 3) == [3, 6, 9]
    assert multiples(12, 4) == [4, 8, 12]
