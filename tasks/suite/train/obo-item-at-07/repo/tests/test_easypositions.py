from easypositions import item_at, pick_all, shout


def test_shout():
    assert shout('Go on') == 'GO ON!'
    assert shout('hi') == 'HI!'
    assert shout('') == '!'


def test_item_at():
    assert item_at([7], 3) is None
    assert item_at([0], 3) is None
    assert item_at([0], 2) is None


def test_item_at_edge_case():
    assert item_at([4, 8], 2) == 8


def test_item_at_edge_case_2():
    assert item_at([8, 5], 2) == 5


def test_pick_all():
    assert pick_all([[7], [0], [8, 5]], 3) == [None, None, None]
