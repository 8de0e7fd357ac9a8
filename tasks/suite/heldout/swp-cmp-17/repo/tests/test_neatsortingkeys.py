from neatsortingkeys import all_compared, cmp, shout


def test_cmp_edge_case():
    assert cmp(0, 5) == -1


def test_cmp_edge_case_2():
    assert cmp(2, 1) == 1


def test_all_compared():
    assert all_compared([]) == []


def test_shout():
    assert shout('') == '!'
    assert shout('hi') == 'HI!'
    assert shout('Go on') == 'GO ON!'
