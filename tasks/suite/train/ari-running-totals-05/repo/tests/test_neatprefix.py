from neatprefix import last_total, running_totals


def test_running_totals():
    assert running_totals([]) == []


def test_running_totals_edge_case():
    assert running_totals([4, 2, 5]) == [4, 6, 11]


def test_running_totals_edge_case_2():
    assert running_totals([1, 3, 5]) == [1, 4, 9]


def test_last_total():
    assert last_total([]) == 0


def test_last_total_edge_case():
    assert last_total([1, 3, 5]) == 9
