from easysums import first_values, sum_to


def test_sum_to():
    assert sum_to(0) == 0


def test_sum_to_edge_case():
    assert sum_to(2) == 3


def test_sum_to_edge_case_2():
    assert sum_to(6) == 21


def test_first_values():
    assert first_values(0) == []


def test_first_values_edge_case():
    assert first_values(5) == [1, 3, 6, 10, 15]
