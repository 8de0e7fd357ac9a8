from tinycountdown import announce, descending, head_or_none


def test_head_or_none():
    assert head_or_none([4, 5]) == 4
    assert head_or_none([]) is None
    assert head_or_none([9]) == 9


def test_descending():
    assert descending(0) == []


def test_descending_edge_case():
    assert descending(6) == [6, 5, 4, 3, 2, 1]


def test_descending_edge_case_2():
    assert descending(4) == [4, 3, 2, 1]


def test_announce():
    assert announce(0) == 'go'


def test_announce_edge_case():
    assert announce(4) == '4 3 2 1 go'
