from quickconfig import format_all, format_pair


def test_format_pair_more_1():
    assert format_pair('a', 1) == 'a=1'


def test_format_pair_more_2():
    assert format_pair('debug', True) == 'debug=True'


def test_format_all_more_1():
    assert format_all({'b': 2, 'a': 'z'}) == 'a=z, b=2'
