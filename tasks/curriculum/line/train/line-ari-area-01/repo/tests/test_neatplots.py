from neatplots import area, fence_length


def test_area():
    assert area(2, 2) == 4
    assert area(0, 0) == 0


def test_area_edge_case():
    assert area(1, 10) == 10


def test_area_edge_case_2():
    assert area(2, 5) == 10


def test_fence_length():
    assert fence_length(2, 2) == 8
    assert fence_length(7, 3) == 20
    assert fence_length(1, 10) == 22
