from snappyranking import distinct, pos_of_smallest, smallest


def test_distinct():
    assert distinct([5, 4, 6]) == [4, 5, 6]
    assert distinct([3, 1, 3]) == [1, 3]
    assert distinct([2, 2, 2]) == [2]


def test_pos_of_smallest():
    assert pos_of_smallest([0, 1, 2]) == 0
    assert pos_of_smallest([1, 5, 5, 0]) == 3
    assert pos_of_smallest([5]) == 0


def test_pos_of_smallest_edge_case():
    assert pos_of_smallest([1, 1, 4]) == 0


def test_pos_of_smallest_edge_case_2():
    assert pos_of_smallest([5, 0, 0, 3]) == 1


def test_smallest():
    assert smallest([1]) == 1
    assert smallest([3, 3, 1]) == 1
    assert smallest([5, 4]) == 4
