from neataverages import above_average, avg


def test_avg():
    assert avg([]) == 0
    assert avg([5]) == 5
    assert avg([4]) == 4


def test_avg_edge_case():
    assert avg([2, 4]) == 3


def test_avg_edge_case_2():
    assert avg([1, 1]) == 1


def test_above_average():
    assert above_average([1, 1]) == []
    assert above_average([4]) == []
    assert above_average([3, 3, 3]) == []


def test_above_average_edge_case():
    assert above_average([0, 3, 2, 9]) == [9]
