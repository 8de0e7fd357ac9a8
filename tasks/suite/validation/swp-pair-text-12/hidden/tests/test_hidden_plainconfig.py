from plainconfig import format_all, pair_text


def test_pair_text_more_1():
    assert pair_text('debug', True) == 'debug=True'


def test_pair_text_more_2():
    assert pair_text('x', 'y') == 'x=y'


def test_format_all_more_1():
    assert format_all({'mode': 'fast', 'level': 3}) == 'level=3, mode=fast'
