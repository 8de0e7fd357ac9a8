from plainrects import fence_length, rect_area


def test_rect_area():
    assert rect_area(0, 0) == 0
    assert rect_area(2, 2) == 4


def test_rect_area_edge_case():
    assert rect_area(1, 1) == 1


def test_rect_area_edge_case_2():
    assert rect_area(2, 5) == 10


def test_fence_length():
    assert fence_length(2, 2) == 8
    assert fence_length(6, 0) == 12
    assert fence_length(7, 3) == 20
