from leanfactors import multiples, multiples_up_to


def test_multiples_up_to():
    assert multiples_up_to(0, 3) == 0
    assert multiples_up_to(0, 2) == 0
    assert multiples_up_to(0, 4) == 0


def test_multiples_up_to_edge_case():
    assert multiples_up_to(6, 2) == 3


def test_multiples_up_to_edge_case_2():
    assert multiples_up_to(6, 3) == 2


def test_multiples():
    assert multiples(10, 4) == [4, 8]
    assert multiples(10, 2) == [2, 4, 6, 8, 10]
    assert multiples(2, 4) == []
