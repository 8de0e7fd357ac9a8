from quicklists import head_tail, rest_length


def test_head_tail_more_1():
    assert head_tail([1, 3, 9]) == (1, [3, 9])


def test_head_tail_more_2():
    assert head_tail([6]) == (6, [])


def test_rest_length_more_1():
    assert rest_length([9, 5, 6, 9]) == 3
