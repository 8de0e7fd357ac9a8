from snappyranking import pos_of_smallest


def test_pos_of_smallest_more_1():
    assert pos_of_smallest([2, 2]) == 0
