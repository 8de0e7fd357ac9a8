from simpledirection import sign, sign_list


def test_sign():
    assert sign(2) == 1
    assert sign(3) == 1
    assert sign(-4) == -1


def test_sign_edge_case():
    assert sign(0) == 0


def test_sign_list():
    assert sign_list([]) == []
    assert sign_list([-3, 1]) == [-1, 1]
    assert sign_list([3, 2, -1, 2, -1]) == [1, 1, -1, 1, -1]
