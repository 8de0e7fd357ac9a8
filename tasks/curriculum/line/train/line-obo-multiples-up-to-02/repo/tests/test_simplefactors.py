from simplefactors import list_multiples, multiples_up_to


def test_multiples_up_to():
    assert multiples_up_to(0, 4) == 0
    assert multiples_up_to(0, 3) == 0
    assert multiples_up_to(0, 2) == 0


def test_multiples_up_to_edge_case():
    assert multiples_up_to(4, 2) == 2


def test_multiples_up_to_edge_case_2():
    assert multiples_up_to(4, 4) == 1


def test_list_multiples():
    assert list_multiples(10, 2) == [2, 4, 6, 8, 10]
    assert list_multiples(2, 4) == []
    assert list_multiples(0, 4) == []
