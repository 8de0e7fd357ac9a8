from snappymultiples import count_multiples, first_or_none, list_multiples


def test_count_multiples():
    assert count_multiples(0, 3) == 0
    assert count_multiples(0, 4) == 0
    assert count_multiples(0, 2) == 0


def test_count_multiples_edge_case():
    assert count_multiples(3, 3) == 1


def test_count_multiples_edge_case_2():
    assert count_multiples(12, 4) == 3


def test_list_multiples():
    assert list_multiples(1, 3) == []
    assert list_multiples(10, 2) == [2, 4, 6, 8, 10]
    assert list_multiples(2, 2) == [2]


def test_first_or_none():
    assert first_or_none([4, 5]) == 4
    assert first_or_none([]) is None
    assert first_or_none([9]) == 9
