from quickfinder import any_exceeding, find_above, unique_sorted


def test_find_above():
    assert find_above([3, 3, 8], 6) == 2
    assert find_above([], 2) == -1
    assert find_above([7, 8, 6, 7, 8], 3) == 0


def test_find_above_edge_case():
    assert find_above([6], 6) == -1


def test_find_above_edge_case_2():
    assert find_above([3, 1], 3) == -1


def test_any_exceeding():
    assert any_exceeding([0], 2) is False
    assert any_exceeding([3, 1], 2) is True
    assert any_exceeding([9, 2], 2) is True


def test_any_exceeding_edge_case():
    assert any_exceeding([6], 6) is False


def test_unique_sorted():
    assert unique_sorted([2, 2, 2]) == [2]
    assert unique_sorted([3, 1, 3]) == [1, 3]
    assert unique_sorted([]) == []
