from simpleseries import sum_to, table


def test_sum_to():
    assert sum_to(0) == 0


def test_sum_to_edge_case():
    assert sum_to(6) == 21


def test_sum_to_edge_case_2():
    assert sum_to(3) == 6


def test_table():
    assert table(0) == []
