from easypositions import item_at, pick_all


def test_item_at_more_1():
    assert item_at([8, 5], 1) == 8


def test_item_at_more_2():
    assert item_at([4, 8], 1) == 4


def test_pick_all_more_1():
    assert pick_all([[7], [0], [8, 5]], 2) == [None, None, 5]
